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

/* Runs a chat completion. messages_json: OpenAI-style [{"role","content"}]; options_json: NULL or an object with
 * max_tokens, temperature, top_k, top_p, min_p, repetition_penalty, seed, stop. Writes the response JSON
 * (NUL-terminated) to out_json; its "confidence" is 1 − the compiled probe's p(wrong) ("confidence_source":
 * "probe"), or without a probe exp(−mean token entropy) ("entropy"). The cloud handoff is not inside bundles yet:
 * `saguaro complete` adds it (docs/handoff.md). token_callback (may be NULL) receives each piece of text as it is generated.
 * Returns the response length in bytes, or -1 on error (out_json then holds an error response when it fits). */
int saguaro_complete(saguaro_model_t model, const char* messages_json, const char* options_json, char* out_json,
                     size_t out_size,
                     void (*token_callback)(const char* token, uint32_t token_id, void* user_data),
                     void* user_data);

/* Releases a model from saguaro_init (NULL is allowed). */
void saguaro_destroy(saguaro_model_t model);

/* The last error message of this thread ("" when none). */
const char* saguaro_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* SAGUARO_SAGUARO_H_ */
