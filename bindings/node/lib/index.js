'use strict';
// Saguaro from Node.js: a compiled bundle's C API (saguaro/saguaro.h) through an N-API addon. docs/node.md.
//
//   const saguaro = require('saguaro');
//   const model = saguaro.init('bundle');
//   const r = await saguaro.complete(model, [{ role: 'user', content: 'What is 17 + 25?' }],
//                                    { max_tokens: 32, confidence_threshold: 0.7, auto_handoff: true });
//   console.log(r.response, r.confidence, r.cloud_handoff);
//   await saguaro.destroy(model);
const { AudioStream } = require('./audio_stream');
const { SaguaroError } = require('./errors');
const { Model } = require('./model');

/** Opens a bundle directory (saguaro compile MODEL -o BUNDLE); builds its libsaguaro.so when missing. */
function init(bundle) {
  return new Model(bundle);
}

/** model.complete(messages, options, onToken): a promise of the response object (docs/response.md). */
function complete(model, messages, options = null, onToken = null) {
  if (!(model instanceof Model)) return Promise.reject(new TypeError('complete: model is what saguaro.init returned'));
  return model.complete(messages, options, onToken);
}

/** model.stop(): ends the running call after its current token; its response has `stopped: true`. */
function stop(model) {
  if (!(model instanceof Model)) throw new TypeError('stop: model is what saguaro.init returned');
  model.stop();
}

/** model.destroy(): releases the model once its running and queued calls have ended; later calls reject. */
function destroy(model) {
  if (!(model instanceof Model)) return Promise.reject(new TypeError('destroy: model is what saguaro.init returned'));
  return model.destroy();
}

module.exports = { AudioStream, Model, SaguaroError, complete, destroy, init, stop };
