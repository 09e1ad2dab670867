"""Saguaro from Python: a compiled bundle's C API (saguaro/saguaro.h) through ctypes. docs/python.md.

    import saguaro
    with saguaro.init("bundle") as model:
        r = saguaro.complete(model, [{"role": "user", "content": "What is 17 + 25?"}],
                             {"max_tokens": 32, "confidence_threshold": 0.7, "auto_handoff": True})
        print(r["response"], r["confidence"], r["cloud_handoff"])
"""
from .audio_stream import AudioStream
from .errors import SaguaroError
from .model import Model

__all__ = ["AudioStream", "Model", "SaguaroError", "complete", "destroy", "init", "stop"]


def init(bundle):
    """Opens a bundle directory (saguaro compile MODEL -o BUNDLE); builds its libsaguaro.so when missing."""
    return Model(bundle)


def complete(model, messages, options=None, on_token=None):
    """model.complete(messages, options, on_token): the response dict (docs/response.md)."""
    return model.complete(messages, options, on_token)


def stop(model):
    """model.stop(): ends the complete() running on the model after the current token ("stopped": True)."""
    model.stop()


def destroy(model):
    """model.destroy(): releases the model; using it afterwards raises SaguaroError."""
    model.destroy()
