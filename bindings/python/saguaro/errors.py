"""The package's one exception type."""


class SaguaroError(RuntimeError):
    """A failed call: `message` is the C API's saguaro_last_error() (or the package's own one-line reason, e.g. a
    missing bundle or a destroyed model); `response` is the error response JSON as a dict when the C API wrote one."""

    def __init__(self, message, response=None):
        super().__init__(message)
        self.message = message
        self.response = response
