'use strict';
// A clip streamed into a model's audio tower while it is recorded (saguaro_audio_*, docs/runtime.md "Streaming
// audio"), and the message part that names it once it has ended, so that complete() uses the soft tokens already
// computed. Every call takes the model's turn (the C API's calls on a stream must not overlap its model's).

class AudioStream {
  #native;
  #inTurn;

  /** Made by model.audioStream(). */
  constructor(native, inTurn) {
    this.#native = native;
    this.#inTurn = inTurn;
    this.id = native.id();
  }

  /** Appends 16 kHz mono samples in [-1, 1] (a Float32Array). */
  push(samples) {
    return this.#inTurn(() => this.#native.push(samples));
  }

  /** Appends 16-bit samples (an Int16Array), scaled by 1/32768 as a WAV file's are. */
  pushInt16(pcm) {
    return this.#inTurn(() => this.#native.pushInt16(pcm));
  }

  /** Ends the clip and runs the audio tower on it (on a worker thread); resolves to the number of soft tokens. */
  end() {
    return this.#inTurn(() => this.#native.end());
  }

  /** The content part naming this stream in a message of complete(). */
  part() {
    return { type: 'input_audio', input_audio: { stream: this.id } };
  }

  /** Releases the stream (later calls do nothing); messages naming it are then refused. */
  destroy() {
    return this.#inTurn(() => this.#native.destroy());
  }
}

module.exports = { AudioStream };
