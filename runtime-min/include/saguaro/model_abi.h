// The ABI between generated model code (model.cpp) and runtime-min; fixed by docs/internals.md.
#pragma once

#include <cstdint>

namespace saguaro {
enum class DType : uint32_t { F32 = 0, F16 = 1, BF16 = 2, I8 = 3, U8 = 4, I32 = 5 };
/// layout: how the blob must store the tensor (manifest.json's "layout"); null means "row-major".
struct WeightSpec { const char* name; DType dtype; uint64_t bytes; const char* layout; };
struct ModelState;
/// The compiled confidence probe (llm.probe_head): p(wrong) from n ≥ 1 rows of the hidden tap (n × dim floats).
using ProbeFn = void (*)(const ModelState& s, float* hidden, int32_t n, float* p_wrong);
/// An encoder tower: `rows` input rows (rows × row_width floats) -> ceil(rows / rows_per_token) soft tokens (× out_dim
/// floats) for the decoder. The vision tower's rows are one image's patches, each at positions[2r] = column,
/// positions[2r + 1] = row of the patch grid; the audio tower's are a clip's valid log-mel frames (positions: null).
/// It runs on its own arena: s.arena must hold EncoderSpec::arena_bytes.
using EncodeFn = void (*)(const ModelState& s, const float* rows_in, const int32_t* positions, int32_t rows,
                          float* soft_tokens);
/// A streamed clip's next `rows` mel frames through the audio tower, after `start` frames of earlier steps (a
/// multiple of 4; `rows` too except at the clip's end): their ceil(rows / 4) soft tokens, bit-identical to the whole
/// clip's. `state` (EncoderSpec::state_bytes, any content before the first step) holds the rings of the frames
/// before them that the stateful ops read; the step updates it. It runs on the tower's arena.
using EncodeStepFn = void (*)(const ModelState& s, const float* features, int32_t rows, int32_t start, float* state,
                              float* soft_tokens);
/// What the runtime needs to know of an encoder tower (saguaro_model_encode_image, saguaro_model_encode_audio).
struct EncoderSpec {
  int32_t max_rows;          // rows per call: the compiled soft-token budget × pooling² patches, or mel frames
  int32_t row_width;         // floats per row: 3 · patch_size² per patch (row dy, column dx, channel c at
                             // (dy·p + dx)·3 + c), or mel bins per frame
  int32_t patch_size;        // vision: pixels per patch side (audio: 0)
  int32_t pooling;           // vision: a soft token averages pooling × pooling neighbouring patches (audio: 0)
  int32_t position_limit;    // vision: patch coordinates must be below it, the position table's rows (audio: 0)
  int32_t rows_per_token;    // input rows per soft token: pooling² (vision), 4 (audio, the last token takes the rest)
  int32_t out_dim;           // floats per soft token: the decoder's dim
  int32_t token_id;          // the placeholder token each soft token replaces
  int32_t begin_id, end_id;  // the tokens around an image's soft tokens
  int32_t pad_id;            // the id the placeholder's rows are looked up as (their per-layer embedding)
  uint64_t arena_bytes;      // the tower's own activation arena
  EncodeFn encode;
  uint64_t state_bytes;      // audio: a streamed clip's state (vision: 0)
  EncodeStepFn encode_step;  // audio: the streamed form of encode (vision: null)
};
struct ModelSpec {
  const char* name;          // model name from the importer
  int32_t vocab, dim, n_layers, max_seq, prefill_chunk;
  uint64_t arena_bytes;      // planned activation arena (max over prefill and decode)
  uint64_t kv_bytes;         // KV cache bytes: layers that compute K/V, max_seq positions (a sliding one: its window)
  uint32_t n_weights;
  const WeightSpec* weights; // slot i of ModelState::w must hold a tensor with this name/dtype/bytes/layout
  int32_t hidden_layer;      // > 0: an llm.hidden_tap after this many decoder layers (the probe's input)
  int32_t hidden_tap;        // ... and the kern.tap id it reports under
  ProbeFn probe;             // null: no probe compiled in (saguaro compile --probe)
  const int32_t* windows;    // n_layers sliding-attention windows (0: full causal); null: every layer full
  const char* target;        // the --target model.cpp was compiled for (null: generic); binding refuses a CPU
                             // that lacks its extensions (kernels/cpu_features.h)
  const EncoderSpec* vision; // null: no vision tower
  const EncoderSpec* audio;  // null: no audio tower
};
/// Receives the first `rows` rows of a [rows, cols] activation at a `kern.tap` (calibration builds, and the
/// hidden tap a probe reads).
using TapFn = void (*)(void* ctx, int32_t id, int32_t rows, int32_t cols, const float* x);
struct ModelState {
  float* arena;              // arena_bytes, 64-byte aligned
  void* kv;                  // kv_bytes, 64-byte aligned, zero-initialised; float or binary16 elements (kv_cache)
  const void* const* w;      // n_weights pointers into the mapped blob
  TapFn tap;                 // null: taps do nothing
  void* tap_ctx;             // passed to tap
  const void* parallel;      // a saguaro::kernels::Parallel (codegen/kernels parallel.h) or null: one thread
};
}  // namespace saguaro
const saguaro::ModelSpec& saguaro_model_spec();
// tokens[0..n) at positions pos0..pos0+n-1, 1 <= n <= prefill_chunk, pos0 + n <= max_seq.
// soft_embeds: null, or n × dim floats: row r replaces the embedding of token r where soft_mask[r] is non-zero
// (an encoder's soft tokens; the token there is the one whose per-layer embedding the model reads).
// logits: vocab floats for the last row, or n*vocab floats (row-major) when all_logits.
void saguaro_model_prefill(const saguaro::ModelState& s, const int32_t* tokens, int32_t n, int32_t pos0,
                           const float* soft_embeds, const uint8_t* soft_mask, float* logits, bool all_logits);
// one token at position pos; writes vocab floats.
void saguaro_model_decode(const saguaro::ModelState& s, int32_t token, int32_t pos, float* logits);
