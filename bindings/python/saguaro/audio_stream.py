"""A clip streamed into a model's audio tower while it is recorded (saguaro_audio_*, docs/runtime.md "Streaming
audio"), and the message part that names it once it has ended, so that complete() uses the soft tokens already
computed."""
import ctypes

from . import _library
from .errors import SaguaroError


class AudioStream:
    """16 kHz mono PCM pushed in pieces (push: floats in [-1, 1]; push_int16: 16-bit samples), end(), then
    `part()` in a message. Its calls take the model's turn (the C API's calls on a stream must not overlap calls on
    its model). Use it as a context manager, or call destroy(); the model must outlive it."""

    def __init__(self, model):
        self._model = model
        model._enter_call("audio_stream")
        try:
            handle = model._lib.saguaro_audio_begin(model._handle)
            if not handle:
                raise SaguaroError(_library.last_error(model._lib))
        finally:
            model._leave_call()
        self._handle = handle
        self.id = model._lib.saguaro_audio_id(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def _call(self, what, fn, *args):
        """fn(handle, *args) in the model's turn; SaguaroError with the C API's message when it returns -1."""
        if self._handle is None:
            raise SaguaroError(f"{what}: the audio stream was destroyed")
        self._model._enter_call(what)
        try:
            r = fn(self._handle, *args)
            error = _library.last_error(self._model._lib) if r < 0 else None
        finally:
            self._model._leave_call()
        if error is not None:
            raise SaguaroError(error)
        return r

    def push(self, samples):
        """Appends float samples in [-1, 1] (a sequence, or a buffer of C floats such as a numpy float32 array)."""
        try:
            view = memoryview(samples)
            data = (ctypes.c_float * len(view)).from_buffer_copy(view) if view.format == "f" else None
        except TypeError:
            data = None
        if data is None:
            data = (ctypes.c_float * len(samples))(*samples)
        self._call("push", self._model._lib.saguaro_audio_push, data, len(data))

    def push_int16(self, pcm):
        """Appends 16-bit samples: bytes of little-endian int16 (a WAV's data, a microphone's buffer), an
        array('h') or a numpy int16 array."""
        raw = memoryview(pcm).cast("B")
        if len(raw) % 2:
            raise SaguaroError(f"push_int16: {len(raw)} bytes are not a whole number of 16-bit samples")
        data = (ctypes.c_int16 * (len(raw) // 2)).from_buffer_copy(raw)
        self._call("push_int16", self._model._lib.saguaro_audio_push_int16, data, len(data))

    def end(self):
        """Ends the clip and runs the audio tower on it; returns the number of soft tokens."""
        return self._call("end", self._model._lib.saguaro_audio_end)

    def part(self):
        """The content part naming this stream in a message of complete()."""
        return {"type": "input_audio", "input_audio": {"stream": self.id}}

    def destroy(self):
        """Releases the stream (once; later calls do nothing); messages naming it are then refused."""
        if self._handle is not None:
            self._model._lib.saguaro_audio_destroy(self._handle)
            self._handle = None
