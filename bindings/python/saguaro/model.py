"""A model opened from a bundle, and complete(): messages in, the response dict out (docs/response.md), text pieces
to a callback as they are generated.

Threads: one Model answers one call at a time — concurrent complete() calls on it wait for each other (a lock per
model; the C API's engine holds one conversation state). Different models run in parallel: ctypes releases the
GIL for the whole C call and takes it again only to run the callback. stop() is the one call that does not wait: any
thread (or the callback) may call it while complete() runs."""
import ctypes
import json
import threading

from . import _library
from .audio_stream import AudioStream
from .errors import SaguaroError

# Bytes of the response buffer: room for the statistics plus max_tokens pieces JSON-escaped (a \\uXXXX escape per
# byte at worst, pieces rarely over 100 bytes). The C API never overflows it; it says when it is too small.
_BASE_BYTES = 1 << 20
_BYTES_PER_TOKEN = 1024
_DEFAULT_MAX_TOKENS = 256  # saguaro_complete's default (docs/user-guide.md)


def _json_argument(value, what):
    """`value` as the C API's JSON text: a str passes unchanged (the C API judges it), anything else is dumped."""
    if isinstance(value, (bytes, str)):
        return value.encode("utf-8") if isinstance(value, str) else value
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: cannot be written as JSON: {e}") from None


def _buffer_bytes(options):
    """The response buffer's size for these options."""
    if isinstance(options, (bytes, str)):
        try:
            options = json.loads(options)
        except ValueError:
            options = None
    max_tokens = options.get("max_tokens") if isinstance(options, dict) else None
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
        max_tokens = _DEFAULT_MAX_TOKENS
    return _BASE_BYTES + _BYTES_PER_TOKEN * min(max_tokens, 1 << 20)


class Model:
    """A bundle opened with saguaro_init. Use it as a context manager, or call destroy() (also run when it is
    garbage-collected); a destroyed model raises SaguaroError when used again."""

    def __init__(self, bundle):
        self.bundle = str(bundle)
        self._lib = _library.load(self.bundle)
        self._lock = threading.Lock()
        self._busy_thread = None  # the thread inside complete(), so that a callback calling back in fails clearly
        self._handle_lock = threading.Lock()  # stop() does not take _lock: this keeps destroy() from freeing under it
        handle = self._lib.saguaro_init(self.bundle.encode("utf-8"))
        if not handle:
            raise SaguaroError(_library.last_error(self._lib))
        self._handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def __del__(self):
        if getattr(self, "_handle", None) and getattr(self, "_busy_thread", None) is None:
            self._lib.saguaro_destroy(self._handle)
            self._handle = None

    @property
    def destroyed(self):
        return self._handle is None

    def _enter_call(self, what):
        """Takes the model's lock for `what`, refusing a call from inside this model's own callback."""
        if self._busy_thread == threading.get_ident():
            raise SaguaroError(f"{what} called from inside this model's on_token callback")
        self._lock.acquire()
        self._busy_thread = threading.get_ident()
        if self._handle is None:
            self._leave_call()
            raise SaguaroError(f"{self.bundle}: the model was destroyed; open it again with saguaro.init")

    def _leave_call(self):
        self._busy_thread = None
        self._lock.release()

    def destroy(self):
        """Releases the model (once; later calls do nothing). Waits for a complete() running in another thread."""
        if self._busy_thread == threading.get_ident():
            raise SaguaroError("destroy called from inside this model's on_token callback")
        with self._lock, self._handle_lock:
            if self._handle is not None:
                self._lib.saguaro_destroy(self._handle)
                self._handle = None

    def stop(self):
        """Ends the complete() running on this model (in another thread, or from its on_token callback) after the
        current token: it then returns the text so far with "stopped": True (saguaro_stop). Does not wait; a stop
        asked while no generation runs is dropped when the next one starts, and on a destroyed model it does
        nothing."""
        with self._handle_lock:
            if self._handle is not None:
                self._lib.saguaro_stop(self._handle)

    def audio_stream(self):
        """A clip streamed into this model's audio tower (saguaro.AudioStream); SaguaroError when the model has
        none."""
        return AudioStream(self)

    def complete(self, messages, options=None, on_token=None):
        """Answers `messages` (a list of {"role", "content"} dicts, or its JSON text) with `options` (a dict, its
        JSON text, or None; docs/python.md lists the keys). on_token(text, token_id) receives each piece of text as
        it is generated. Returns the response dict (docs/response.md). Raises SaguaroError with the C API's message
        when the call fails; when on_token raises, the generation runs to its end without calling it again and
        complete() then raises that exception."""
        messages_json = _json_argument(messages, "messages")
        options_json = None if options is None else _json_argument(options, "options")
        size = _buffer_bytes(options)
        raised = []

        def trampoline(piece, token_id, _user):
            if raised:
                return
            try:
                on_token(piece.decode("utf-8", errors="replace"), token_id)
            except BaseException as e:  # it must not cross the C frames; complete() re-raises it
                raised.append(e)

        callback = _library.TOKEN_CALLBACK(trampoline) if on_token is not None else _library.TOKEN_CALLBACK()
        out = ctypes.create_string_buffer(size)
        self._enter_call("complete")
        try:
            n = self._lib.saguaro_complete(self._handle, messages_json, options_json, out, size, callback, None)
            error = _library.last_error(self._lib) if n < 0 else None
        finally:
            self._leave_call()
        if raised:
            raise raised[0]
        if n < 0:
            raise SaguaroError(error, _error_response(out))
        return json.loads(out.raw[:n].decode("utf-8"))


def _error_response(out):
    """The error response the C API wrote into `out` when it fit, else None."""
    try:
        return json.loads(out.value.decode("utf-8"))
    except ValueError:
        return None
