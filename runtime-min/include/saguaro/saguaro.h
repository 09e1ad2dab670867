/* C API of a Saguaro bundle (shaped like the Cactus engine's). Functions never abort or throw on bad input. */
#ifndef SAGUARO_SAGUARO_H_
#define SAGUARO_SAGUARO_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct saguaro_model* saguaro_model_t;

/* Opens a bundle directory (containing weights.sgw) or a .sgw file; NULL on failure (see saguaro_last_error). */
saguaro_model_t saguaro_init(const char* bundle_path);

/* Opens a weights.sgw already in memory: `size` bytes at `data` (64-byte aligned, alive until saguaro_destroy),
 * such as the blob a firmware build links in (saguaro_model_open_embedded, docs/firmware.md); `name` (may be NULL)
 * prefixes error messages. NULL on failure (see saguaro_last_error). */
saguaro_model_t saguaro_init_memory(const void* data, size_t size, const char* name);

/* Runs a chat completion. messages_json: OpenAI-style [{"role","content"}]; options_json: NULL or an object with
 * the local generation's max_tokens, temperature, top_k, top_p, min_p, repetition_penalty, seed, stop, plus
 * tools and tool_choice (OpenAI's; the answer's calls come back as "tool_calls", docs/runtime.md "Tools"),
 * stream_local (bool) and the cloud handoff policy's keys (docs/handoff.md). Writes the response JSON
 * (NUL-terminated) to out_json: "response", "confidence" (1 − the compiled probe's p(wrong), "confidence_source":
 * "probe", or without a probe exp(−mean token entropy), "entropy"), "cloud_handoff", "error" and statistics.
 *
 * A bundle compiled with `saguaro compile --handoff` (links libcurl) generates the local answer, gives its
 * confidence to the handoff policy and asks the cloud when the policy says so; "cloud_handoff", "provider",
 * "model", "local_response", "handoff_reason", "timings" say what happened, and "error" is set (with the local answer
 * as "response") when a wanted handoff failed. token_callback (may be NULL) then receives, by default, the local
 * pieces only after the policy kept the local answer, or after a handoff the cloud's text as one piece (token_id
 * 0xFFFFFFFE); with "stream_local": true the local pieces arrive as they are generated and a handoff's text follows
 * as its own piece.
 *
 * A bundle compiled without --handoff returns the local answer ("cloud_handoff" false) and streams each piece as it
 * is generated; it accepts and ignores confidence_threshold, auto_handoff, cloud_timeout_ms and stream_local, and
 * refuses the other policy keys (cloud_provider, cloud_base_url, ...) with an error naming --handoff.
 *
 * Returns the response length in bytes, or -1 on error (out_json then holds an error response when it fits). */
int saguaro_complete(saguaro_model_t model, const char* messages_json, const char* options_json, char* out_json,
                     size_t out_size,
                     void (*token_callback)(const char* token, uint32_t token_id, void* user_data),
                     void* user_data);

/* Asks the saguaro_complete running on `model` to end its generation after the current token; that call then
 * returns the text so far as its "response", with "stopped": true and no cloud handoff. Only sets a flag, so it may
 * be called from another thread or a signal handler; a stop asked while no generation runs is dropped when the next
 * saguaro_complete starts. */
void saguaro_stop(saguaro_model_t model);

/* Releases a model from saguaro_init (NULL is allowed). */
void saguaro_destroy(saguaro_model_t model);

/* The last error message of this thread ("" when none). */
const char* saguaro_last_error(void);

/* A clip streamed into the model's audio tower (docs/runtime.md, "Streaming audio"): 16 kHz mono PCM pushed in
 * pieces as it arrives; the log-mel frames are made as soon as their samples are in, the tower runs at the end. */
typedef struct saguaro_audio* saguaro_audio_t;

/* Begins a clip; NULL when the model has no audio tower or the bundle's runtime has no audio front-end (see
 * saguaro_last_error). The model must outlive it; calls on one stream must not overlap calls on its model. */
saguaro_audio_t saguaro_audio_begin(saguaro_model_t model);

/* Appends n samples, float in [-1, 1] or 16-bit (scaled by 1/32768 as a WAV file's are). 0, or -1 past 30 s of
 * audio, after saguaro_audio_end, or for NULL arguments (see saguaro_last_error). */
int saguaro_audio_push(saguaro_audio_t audio, const float* pcm, size_t n);
int saguaro_audio_push_int16(saguaro_audio_t audio, const int16_t* pcm, size_t n);

/* Ends the clip and runs the audio tower on it. Returns the number of soft tokens (ceil(mel frames / 4)), or -1
 * for no samples, too few for one mel frame (161), or a stream already ended (see saguaro_last_error). */
int saguaro_audio_end(saguaro_audio_t audio);

/* Copies an ended stream's soft tokens (row-major, the decoder's width per token) into `out` and returns the number
 * of floats they take; with out NULL only returns that number. -1 when the stream has not ended with soft tokens or
 * out_floats is smaller (see saguaro_last_error). */
long saguaro_audio_soft_tokens(saguaro_audio_t audio, float* out, size_t out_floats);

/* The stream's id (1, 2, ... in this process, never reused), or -1 for NULL. A message of saguaro_complete names an
 * ended stream by it, {"type": "input_audio", "input_audio": {"stream": ID}}, and uses the soft tokens
 * saguaro_audio_end computed (docs/runtime.md, "Streaming audio"). */
long saguaro_audio_id(saguaro_audio_t audio);

/* Releases a stream (NULL is allowed); its id is then refused. */
void saguaro_audio_destroy(saguaro_audio_t audio);

#ifdef __cplusplus
}
#endif

#endif /* SAGUARO_SAGUARO_H_ */
