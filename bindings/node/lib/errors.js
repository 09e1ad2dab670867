'use strict';
// The package's one error type.

/** A failed call: `message` is the C API's saguaro_last_error() (or the package's own one-line reason, e.g. a
 * missing bundle or a destroyed model); `response` is the error response as an object when the C API wrote one. */
class SaguaroError extends Error {
  constructor(message, response = null) {
    super(message);
    this.name = 'SaguaroError';
    this.response = response;
  }
}

module.exports = { SaguaroError };
