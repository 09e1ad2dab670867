// Typed C++ API of runtime-min: open a bundle, generate text, compute logits. Firmware builds use this directly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "saguaro/model_abi.h"
#include "saguaro/token_constraint.h"
#include "saguaro/weights_load.h"

namespace saguaro {

class HugePageMemory;

/// Generation settings (see docs/runtime.md).
struct GenerateConfig {
  float temperature = 1.0f;         // 0: greedy
  int32_t top_k = 0;                // 0: off
  float top_p = 0.9f;               // <= 0 or >= 1: off
  float min_p = 0.0f;               // 0: off
  float repetition_penalty = 1.0f;  // 1: off
  uint64_t seed = 42;
  int32_t steps = 0;                // llama2.c -n: total positions including the prompt; 0 or > max_seq: max_seq
  int32_t max_new_tokens = -1;      // stop after this many generated tokens; -1: unlimited
  bool echo_prompt = false;         // also emit the prompt's pieces (as llama2.c's run prints them)
  /// Images, each its soft tokens (n × dim floats, Engine::encode_image): they take the prompt's image placeholders
  /// in order, or go first (after BOS) when it has none; each becomes begin-image, n placeholders, end-image.
  std::vector<std::vector<float>> images;
  /// Audio clips, each its soft tokens (Engine::encode_audio): the same with the audio tower's placeholders, each
  /// becoming begin-audio, n placeholders, end-audio; without placeholders they go after BOS, after the images.
  std::vector<std::vector<float>> audio;
  /// When set, only the tokens it allows are sampled, and generation ends when it is finished (not owned).
  TokenConstraint* constraint = nullptr;
};

/// Counters and timings of one generate() call.
/// Whose fault a failed generate() is: the request's prompt (too long for the context, placeholders and media that
/// differ in number, text the tokenizer refuses), the request's constraint (it admits no token), or neither.
enum class GenerateFault : uint8_t { kNone, kPrompt, kConstraint, kEngine };

struct GenerateStats {
  int32_t prompt_tokens = 0;     // including BOS
  int32_t generated_tokens = 0;  // sampled tokens that were emitted
  int32_t positions = 0;         // llama2.c's final `pos`
  double prefill_ms = 0;         // prompt prefill + first sample
  double decode_ms = 0;          // everything after the first sampled token
  double total_ms = 0;
  float p_wrong = -1;            // the compiled probe's p(the answer is wrong); -1: no probe compiled in
  double probe_ms = 0;           // time the probe took
  GenerateFault fault = GenerateFault::kNone;  // set when generate() returns false
};

/// The memory of an open bundle: its plan (manifest.json's memory.resident_bytes and mapped_bytes) and how much of
/// the mapped section is resident now.
struct MemoryUse {
  uint64_t resident_bytes = 0;         // arena + KV cache + the blob but its mapped section: held whatever is read
  uint64_t mapped_bytes = 0;           // the blob's mapped section: tables only gathered, a row per token
  uint64_t mapped_resident_bytes = 0;  // of the mapped section, the pages this process has read so far
};

/// Receives text that is ready to print (never half a UTF-8 character) and the id of the token that completed it
/// (-1 for the final flush). Return false to stop generating.
using TokenCallback = std::function<bool(std::string_view text, int32_t token_id)>;

/// Sees the logits (vocab floats) every generated token is about to be sampled from, the stopping token's too.
using StepHook = std::function<void(const float* logits, int32_t vocab)>;

/// The audio tower's working memory that a stream's steps share (Engine::encode_audio_step): mapped by the first step
/// given it, unmapped with it. AudioStream keeps one for its lifetime, so it does not depend on the engine's.
class AudioStepArena {
 public:
  AudioStepArena();
  ~AudioStepArena();
  AudioStepArena(const AudioStepArena&) = delete;
  AudioStepArena& operator=(const AudioStepArena&) = delete;

 private:
  friend class Engine;
  std::unique_ptr<HugePageMemory> memory_;  // empty (unmapped) until the first step maps it
};

class Engine {
 public:
  /// Opens a bundle directory (containing weights.sgw) or a .sgw file, loading the weights as `load` says; null +
  /// "FILE: problem" on failure.
  static std::unique_ptr<Engine> open(const std::string& bundle_path, std::string* err,
                                      WeightsLoad load = WeightsLoad::kRead);
  /// Opens blob bytes linked into the program (64-byte aligned, must outlive the engine).
  static std::unique_ptr<Engine> open_memory(const void* data, uint64_t size, const std::string& name,
                                             std::string* err);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Generates from `prompt`; does not allocate unless the prompt outgrows the buffers sized at open().
  bool generate(std::string_view prompt, const GenerateConfig& cfg, const TokenCallback& on_text,
                GenerateStats* stats, std::string* err);
  /// Logits of every position for token ids fed from position 0 ([ids.size()][vocab] row-major); empty + err on bad ids.
  std::vector<float> logits(const std::vector<int32_t>& ids, std::string* err);
  /// The same with an image's or a clip's soft tokens: the ids equal to the audio tower's placeholder when the prompt
  /// holds one, else the vision tower's, take, in order, the rows of `soft_tokens` (n × dim floats, n placeholders);
  /// empty soft_tokens: logits(ids, err).
  std::vector<float> logits(const std::vector<int32_t>& ids, const std::vector<float>& soft_tokens, std::string* err);
  /// The vision tower's soft tokens (n / pooling² × dim floats) of one image's n patches (n × row_width floats, in
  /// EncoderSpec's layout) at `positions` (n × 2: column, row of the patch grid); empty + err when the model has no
  /// vision tower or the patches do not tile a grid it can pool (runtime-min/src/patch_grid.h).
  std::vector<float> encode_image(const std::vector<float>& patches, const std::vector<int32_t>& positions,
                                  std::string* err);
  /// The audio tower's soft tokens (ceil(n / 4) × dim floats) of one clip's n valid log-mel frames (n × mel floats,
  /// time-major, Gemma 4's features); empty + err when the model has no audio tower or n is not 1 to max_rows.
  std::vector<float> encode_audio(const std::vector<float>& features, std::string* err);
  /// One step of a streamed clip (saguaro::AudioStream): appends to *soft_tokens the ceil(n / 4) soft tokens of its
  /// next n mel frames (n × mel floats) after `start` frames of earlier steps (a multiple of 4, as is n unless these
  /// are the clip's last frames), reading and updating the stream's `state` (EncoderSpec::state_bytes, any content
  /// before the first step). The steps' soft tokens are encode_audio's of the whole clip, bit for bit. False + err
  /// when the model has no audio tower or start + n is not 1 to max_rows.
  /// With `arena`, the step runs on it (mapped by the first step that is given it): a stream's steps then share one
  /// arena instead of mapping and zeroing the tower's working memory (tens of MB) each time.
  bool encode_audio_step(const float* features, size_t n, size_t start, float* state, std::vector<float>* soft_tokens,
                         std::string* err, AudioStepArena* arena = nullptr);
  /// Token ids of `text` (BOS first when the tokenizer's config says so).
  bool tokenize(std::string_view text, std::vector<int32_t>* ids, std::string* err);

  /// Installs the hook that receives activations at the program's taps (calibration builds, the probe's hidden
  /// tap; null removes it).
  void set_tap(TapFn fn, void* ctx);
  /// Installs (or, with an empty function, removes) the hook generate() calls before sampling each token.
  void set_step_hook(StepHook hook);
  /// The compiled probe's p(wrong) for n ≥ 1 rows of the hidden tap (n × dim floats); -1 without a probe.
  /// generate() calls it on the rows of its generated tokens (GenerateStats::p_wrong).
  float probe_p_wrong(const float* hidden, int32_t n);
  /// Threads the kernels split their work over (0, the default: every hardware thread). Tokens and logits do
  /// not depend on it. A runtime built without a thread pool (`saguaro compile --threads 0`) always runs one.
  void set_threads(int32_t threads);
  int32_t threads() const;

  const ModelSpec& spec() const;
  int32_t vocab() const;
  int32_t bos_id() const;
  int32_t eos_id() const;
  /// Every token's bytes as generate() emits them after an ordinary token ("" for special tokens and without a
  /// tokenizer), and the ids that end generation: what a TokenConstraint indexes.
  void vocabulary(std::vector<std::string>* pieces, std::vector<int32_t>* stop_ids) const;
  MemoryUse memory_use() const;
  /// The blob's metadata value for `key`, or "".
  std::string metadata(const std::string& key) const;
  /// The verified bytes of the blob tensor `name` of kind `kind`; false when the blob has no such tensor.
  bool tensor(const std::string& name, const std::string& kind, const void** data, uint64_t* bytes) const;

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Engine> finish_open(std::unique_ptr<Impl> impl, std::string* err);
  std::unique_ptr<Impl> impl_;
};

}  // namespace saguaro
