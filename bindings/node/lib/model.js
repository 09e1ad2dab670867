'use strict';
// A model opened from a bundle, and complete(): messages in, the response object out (docs/response.md), text
// pieces to a callback as they are generated.
//
// One call at a time per model: calls on a model run in the order they were made, each after the previous one
// ended (the engine holds one conversation's state); destroy() takes its turn the same way. The generation runs on
// a libuv worker thread, so the event loop goes on meanwhile, and different models generate in parallel (as many
// at once as the libuv pool has threads, UV_THREADPOOL_SIZE, 4 by default).
const { AudioStream } = require('./audio_stream');
const { SaguaroError } = require('./errors');
const { addon, bundleLibrary } = require('./library');

// Bytes of the response buffer: room for the statistics plus max_tokens pieces JSON-escaped (a \uXXXX escape per
// byte at worst, pieces rarely over 100 bytes). The C API never overflows it; it says when it is too small.
const BASE_BYTES = 1 << 20;
const BYTES_PER_TOKEN = 1024;
const DEFAULT_MAX_TOKENS = 256; // saguaro_complete's default (docs/user-guide.md)

/** `value` as the C API's JSON text: a string passes unchanged (the C API judges it), anything else is written. */
function jsonArgument(value, what) {
  if (typeof value === 'string') return value;
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new TypeError(`${what}: cannot be written as JSON: ${e.message}`);
  }
  if (text === undefined) throw new TypeError(`${what}: cannot be written as JSON: a ${typeof value}`);
  return text;
}

/** The response buffer's size for these options. */
function bufferBytes(options) {
  if (typeof options === 'string') {
    try {
      options = JSON.parse(options);
    } catch {
      options = null; // the C API refuses it
    }
  }
  let maxTokens = options !== null && typeof options === 'object' ? options.max_tokens : undefined;
  if (!Number.isInteger(maxTokens) || maxTokens < 0) maxTokens = DEFAULT_MAX_TOKENS;
  return BASE_BYTES + BYTES_PER_TOKEN * Math.min(maxTokens, 1 << 20);
}

/** The error response the C API wrote, when it fit. */
function errorResponse(json) {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

const ignore = () => {};

class Model {
  #native;
  #turn = Promise.resolve(); // settles when the last call queued so far has ended
  #destroyed = false;
  #released = null;
  #pending = 0; // calls made and not yet ended

  /** Opens a bundle directory (saguaro compile MODEL -o BUNDLE); builds its libsaguaro.so when missing. */
  constructor(bundle) {
    if (typeof bundle !== 'string') throw new TypeError('init(bundle): bundle is the path of a bundle directory');
    this.bundle = bundle;
    const library = bundleLibrary(bundle);
    try {
      this.#native = new addon.Model(library, bundle);
    } catch (e) {
      throw new SaguaroError(e.message);
    }
  }

  get destroyed() {
    return this.#destroyed;
  }

  /** Answers `messages` (an array of {role, content}, or its JSON text) with `options` (an object, its JSON text,
   * or null; docs/node.md lists the keys); onToken(text, tokenId) receives each piece of text as it is generated.
   * Resolves to the response object (docs/response.md); rejects with a SaguaroError carrying the C API's message,
   * or with what onToken threw (it is then not called again, and the generation runs to its end first). */
  async complete(messages, options = null, onToken = null) {
    const messagesJson = jsonArgument(messages, 'messages');
    const optionsJson = options === null || options === undefined ? null : jsonArgument(options, 'options');
    if (onToken !== null && onToken !== undefined && typeof onToken !== 'function') {
      throw new TypeError('onToken: a function (text, tokenId) or null');
    }
    if (this.#destroyed) {
      throw new SaguaroError(`${this.bundle}: the model was destroyed; open it again with saguaro.init`);
    }
    this.#pending += 1;
    const call = this.#turn.then(() => this.#run(messagesJson, optionsJson, bufferBytes(options), onToken || null));
    this.#turn = call.then(ignore, ignore).then(() => {
      this.#pending -= 1;
    });
    return call;
  }

  /** Resolves to a clip streamed into the model's audio tower (an AudioStream, lib/audio_stream.js), made in the
   * model's turn; rejects with a SaguaroError when the model has no audio tower. */
  audioStream() {
    return this.#inTurn(() => new AudioStream(new addon.AudioStream(this.#native), (fn) => this.#inTurn(fn)));
  }

  /** Runs fn() (a value or a promise) when the calls made before have ended; the next call waits for it. A native
   * error becomes a SaguaroError. */
  #inTurn(fn) {
    if (this.#destroyed) {
      const error = new SaguaroError(`${this.bundle}: the model was destroyed; open it again with saguaro.init`);
      return Promise.reject(error);
    }
    const call = this.#turn.then(fn).catch((e) => {
      throw e instanceof SaguaroError || e instanceof TypeError ? e : new SaguaroError(e.message);
    });
    this.#turn = call.then(ignore, ignore);
    return call;
  }

  /** Ends the running call after its current token (or the first call made, when none has started yet); its
   * promise then resolves to the text so far with `stopped: true` (saguaro_stop). Calls queued behind it run as
   * usual. Returns at once; with no call pending (as on a released model) it does nothing. */
  stop() {
    if (this.#pending > 0) this.#native.stop();
  }

  /** Releases the model after the calls made before it have ended (once; later calls return the same promise);
   * calls made after it reject. Resolves when the model is released. */
  destroy() {
    if (!this.#destroyed) {
      this.#destroyed = true;
      this.#released = this.#turn.then(() => this.#native.destroy());
    }
    return this.#released;
  }

  async #run(messagesJson, optionsJson, bytes, onToken) {
    let threw = false;
    let thrown;
    // The app's exception never reaches the native code: it is kept, and `false` tells the worker to send no more.
    const forward = onToken && ((text, tokenId) => {
      if (threw) return false;
      try {
        onToken(text, tokenId);
        return true;
      } catch (e) {
        threw = true;
        thrown = e;
        return false;
      }
    });
    let out;
    try {
      out = await this.#native.complete(messagesJson, optionsJson, bytes, forward);
    } catch (e) {
      if (threw) throw thrown;
      throw new SaguaroError(e.message, errorResponse(e.responseJson));
    }
    if (threw) throw thrown;
    return JSON.parse(out);
  }
}

module.exports = { Model };
