// Engine: blob + bound model + tokenizer + sampler, and the llama2.c-style generation loop.
#include "saguaro/engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "hidden_capture.h"
#include "image_prompt.h"
#include "model_state.h"
#include "patch_grid.h"
#include "saguaro/blob.h"
#include "saguaro/tokenizer.h"
#include "sampler.h"
#include "utf8_stream.h"

namespace saguaro {
namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

SamplerConfig sampler_config(const GenerateConfig& c) {
  SamplerConfig s;
  s.temperature = c.temperature;
  s.top_k = c.top_k;
  s.top_p = c.top_p;
  s.min_p = c.min_p;
  s.repetition_penalty = c.repetition_penalty;
  s.seed = c.seed;
  return s;
}

}  // namespace

struct Engine::Impl {
  const ModelSpec& spec = saguaro_model_spec();
  std::unique_ptr<Blob> blob;
  std::unique_ptr<BoundModel> model;
  std::unique_ptr<Tokenizer> tok;
  std::unique_ptr<Sampler> sampler;
  std::unique_ptr<Utf8Stream> stream;
  std::vector<int32_t> tokens;  // prompt + generated ids; capacity max_seq (+ encode slack) from open()
  std::vector<float> logits;    // vocab floats: the last row of prefill, or decode's output
  StepHook step_hook;           // empty: none
  bool user_tap = false;        // set_tap installed a hook: generate() does not run the probe
  std::unique_ptr<HiddenCapture> probe_rows;  // the generated tokens' hidden rows, when a probe is compiled in

  // Runs the model over tokens[0..n) from position 0 in prefill_chunk pieces; `out` gets the last row,
  // or all rows when `all`. With soft_embeds (n × dim floats), the rows where soft_mask is set take them.
  void prefill(const int32_t* ids, int32_t n, float* out, bool all, const float* soft_embeds = nullptr,
               const uint8_t* soft_mask = nullptr) {
    const int32_t chunk = spec.prefill_chunk;
    for (int32_t p = 0; p < n; p += chunk) {
      const int32_t m = std::min(chunk, n - p);
      const float* soft = soft_embeds ? soft_embeds + static_cast<size_t>(p) * spec.dim : nullptr;
      saguaro_model_prefill(model->state(), ids + p, m, p, soft, soft_mask ? soft_mask + p : nullptr,
                            all ? out + static_cast<size_t>(p) * spec.vocab : out, all);
    }
  }

  // Logits of every row of a prefill from position 0 of the ids `lookup` (with the soft rows where `mask` is set,
  // when given); empty + err when their number or an id is out of range.
  std::vector<float> all_logits(const std::vector<int32_t>& lookup, const float* rows, const uint8_t* mask,
                                std::string* err) {
    if (lookup.empty() || lookup.size() > static_cast<size_t>(spec.max_seq))
      return *err = "need 1.." + std::to_string(spec.max_seq) + " token ids, got " + std::to_string(lookup.size()),
             std::vector<float>();
    for (int32_t id : lookup)
      if (id < 0 || id >= spec.vocab)
        return *err = "token id " + std::to_string(id) + " outside [0, " + std::to_string(spec.vocab) + ")",
               std::vector<float>();
    model->clear_kv();
    std::vector<float> out(lookup.size() * static_cast<size_t>(spec.vocab));
    prefill(lookup.data(), static_cast<int32_t>(lookup.size()), out.data(), true, rows, mask);
    return out;
  }
};

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::open(const std::string& bundle_path, std::string* err, WeightsLoad load) {
  struct stat st;
  std::string path = bundle_path;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) path += "/weights.sgw";
  std::unique_ptr<Blob> blob = Blob::open(path, err, load);
  if (!blob) return nullptr;
  auto impl = std::make_unique<Impl>();
  impl->blob = std::move(blob);
  return finish_open(std::move(impl), err);
}

std::unique_ptr<Engine> Engine::open_memory(const void* data, uint64_t size, const std::string& name,
                                            std::string* err) {
  std::unique_ptr<Blob> blob = Blob::from_memory(data, size, name, err);
  if (!blob) return nullptr;
  auto impl = std::make_unique<Impl>();
  impl->blob = std::move(blob);
  return finish_open(std::move(impl), err);
}

std::unique_ptr<Engine> Engine::finish_open(std::unique_ptr<Impl> impl, std::string* err) {
  const ModelSpec& spec = impl->spec;
  const std::string& name = impl->blob->name();
  if (spec.vocab < 1 || spec.max_seq < 1 || spec.prefill_chunk < 1)
    return *err = name + ": model spec has a non-positive vocab/max_seq/prefill_chunk", nullptr;
  impl->model = BoundModel::bind(spec, *impl->blob, err);
  if (!impl->model) return nullptr;
  impl->sampler = std::make_unique<Sampler>(spec.vocab, SamplerConfig());
  impl->logits.assign(static_cast<size_t>(spec.vocab), 0.0f);
  if (spec.probe) {
    if (spec.hidden_layer <= 0) return *err = name + ": the program has a probe but no hidden tap", nullptr;
    impl->probe_rows = std::make_unique<HiddenCapture>(spec.hidden_tap, spec.dim);
    impl->probe_rows->reserve(spec.max_seq);
  }
  // A bundle compiled without a tokenizer still computes logits from token ids.
  if (impl->blob->meta("tokenizer.kind").empty()) return std::unique_ptr<Engine>(new Engine(std::move(impl)));
  impl->tok = make_tokenizer(*impl->blob, err);
  if (!impl->tok) return nullptr;
  if (impl->tok->vocab_size() > spec.vocab)
    return *err = name + ": tokenizer has " + std::to_string(impl->tok->vocab_size()) + " tokens, model vocab is " +
                  std::to_string(spec.vocab),
           nullptr;
  impl->stream = std::make_unique<Utf8Stream>(impl->tok->max_piece_bytes());
  // Encoding works on one id per byte before merging: leave room for prompts of several max_seq bytes.
  impl->tokens.reserve(static_cast<size_t>(spec.max_seq) * 4 + 16);
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

bool Engine::generate(std::string_view prompt, const GenerateConfig& cfg, const TokenCallback& on_text,
                      GenerateStats* stats, std::string* err) {
  Impl& m = *impl_;
  auto fail = [stats](GenerateFault fault) {
    if (stats) stats->fault = fault;
    return false;
  };
  if (!m.tok) return *err = "the bundle has no tokenizer (compile it with --tokenizer)", fail(GenerateFault::kEngine);
  Tokenizer& tok = *m.tok;
  const double t0 = now_ms();
  if (!tok.encode(prompt, tok.add_bos, &m.tokens, err)) return fail(GenerateFault::kPrompt);
  ImagePrompt with_media;  // the rows the images' and clips' soft tokens fill
  const bool media = !cfg.images.empty() || !cfg.audio.empty();
  if (media) {
    if (!expand_media_prompt(m.spec, tok.bos_id, m.tokens, cfg.images, cfg.audio, &with_media, err))
      return fail(GenerateFault::kPrompt);
    m.tokens = with_media.ids;
  }
  const int32_t n = static_cast<int32_t>(m.tokens.size());
  if (n < 1) return *err = "empty prompt and the tokenizer has no BOS token", fail(GenerateFault::kPrompt);
  if (n > m.spec.max_seq)
    return *err = "prompt has " + std::to_string(n) + " tokens, the model's max_seq is " +
                  std::to_string(m.spec.max_seq),
           fail(GenerateFault::kPrompt);
  const int32_t limit = (cfg.steps <= 0 || cfg.steps > m.spec.max_seq) ? m.spec.max_seq : cfg.steps;
  m.model->clear_kv();
  // The probe reads the hidden rows of the generated tokens, unless the caller taps the program itself.
  HiddenCapture* probe = m.user_tap ? nullptr : m.probe_rows.get();
  if (probe) {
    probe->clear();
    m.model->set_tap(&HiddenCapture::tap_hook, probe);
  }
  m.sampler->reset(sampler_config(cfg));
  m.stream->reset();
  GenerateStats st;
  st.prompt_tokens = n;
  bool go = true;
  auto emit = [&](std::string_view piece, int32_t id) {
    const std::string_view ready = m.stream->push(piece);
    if (!ready.empty() && !on_text(ready, id)) go = false;
  };

  // Prompt: positions whose next token is forced (as run.c, which prints the prompt's pieces too).
  const int32_t n_fill = std::min(n, limit);
  if (!media)
    m.prefill(m.tokens.data(), n_fill, m.logits.data(), false);
  else
    m.prefill(with_media.lookup.data(), n_fill, m.logits.data(), false, with_media.rows.data(),
              with_media.mask.data());
  int32_t pos = 0;
  for (; pos < n_fill && pos + 1 < n && go; ++pos) {
    const int32_t next = m.tokens[pos + 1];
    if (tok.stop_at_bos && next == tok.bos_id) break;
    if (cfg.echo_prompt) emit(tok.piece(m.tokens[pos], next), next);
  }
  double t_first = now_ms();
  std::string constraint_error;  // the constraint allowed no token: generation stops with this error
  // Sampling: position n-1's logits come from prefill, later ones from decode.
  if (pos == n - 1 && pos < limit && go && cfg.max_new_tokens != 0) {
    int32_t token = m.tokens[n - 1];
    while (true) {
      if (m.step_hook) m.step_hook(m.logits.data(), m.spec.vocab);
      if (probe) probe->on_logits(m.logits.data(), m.spec.vocab);
      if (cfg.constraint) {
        const int32_t left = std::min(limit - pos, cfg.max_new_tokens > 0 ? cfg.max_new_tokens - st.generated_tokens
                                                                          : limit - pos);
        if (!cfg.constraint->mask(m.logits.data(), m.spec.vocab, left, &constraint_error)) break;
      }
      const int32_t next = m.sampler->sample(m.logits.data(), m.tokens.data(), static_cast<int32_t>(m.tokens.size()));
      ++pos;
      if (st.generated_tokens == 0) t_first = now_ms();
      if (tok.is_stop(next)) break;
      if (cfg.constraint) cfg.constraint->accept(next);
      emit(tok.piece(token, next), next);
      ++st.generated_tokens;
      m.tokens.push_back(next);
      token = next;
      if (!go || pos >= limit || (cfg.max_new_tokens > 0 && st.generated_tokens >= cfg.max_new_tokens)) break;
      if (cfg.constraint && cfg.constraint->finished()) break;
      saguaro_model_decode(m.model->state(), token, pos, m.logits.data());
    }
  }
  if (!constraint_error.empty()) {
    if (probe) m.model->set_tap(nullptr, nullptr);
    return *err = constraint_error, fail(GenerateFault::kConstraint);
  }
  const std::string_view rest = m.stream->flush();
  if (!rest.empty() && go) on_text(rest, -1);
  if (probe) {
    m.model->set_tap(nullptr, nullptr);
    if (!probe->error().empty()) return *err = probe->error(), fail(GenerateFault::kEngine);
    const double t_probe = now_ms();
    if (probe->tokens() > 0) st.p_wrong = probe_p_wrong(probe->hidden().data(), probe->tokens());
    st.probe_ms = now_ms() - t_probe;
  }
  const double t_end = now_ms();
  st.positions = pos;
  st.prefill_ms = t_first - t0;
  st.decode_ms = t_end - t_first;
  st.total_ms = t_end - t0;
  if (stats) *stats = st;
  return true;
}

std::vector<float> Engine::logits(const std::vector<int32_t>& ids, std::string* err) {
  return impl_->all_logits(ids, nullptr, nullptr, err);
}

std::vector<float> Engine::logits(const std::vector<int32_t>& ids, const std::vector<float>& soft_tokens,
                                  std::string* err) {
  if (soft_tokens.empty()) return logits(ids, err);
  // The audio tower's placeholders take the soft tokens when the prompt holds them, else the vision tower's.
  const EncoderSpec* audio = impl_->spec.audio;
  const bool has_audio = audio && std::find(ids.begin(), ids.end(), audio->token_id) != ids.end();
  const EncoderSpec* tower = has_audio ? audio : impl_->spec.vision;
  if (!tower) return *err = "the model has no vision tower to take soft tokens", std::vector<float>();
  const size_t width = static_cast<size_t>(impl_->spec.dim);
  if (const size_t slots = static_cast<size_t>(std::count(ids.begin(), ids.end(), tower->token_id));
      has_audio && soft_tokens.size() != slots * width)  // place_soft_tokens says it of images
    return *err = std::to_string(slots) + " audio placeholders but " + std::to_string(soft_tokens.size() / width) +
                  " soft tokens of " + std::to_string(width) + " values",
           std::vector<float>();
  // The placeholders take the soft tokens in order; their own lookups read the pad id, as transformers does.
  ImagePrompt placed;
  if (!place_soft_tokens(*tower, impl_->spec.dim, ids, soft_tokens, &placed, err)) return {};
  return impl_->all_logits(placed.lookup, placed.rows.data(), placed.mask.data(), err);
}

std::vector<float> Engine::encode_image(const std::vector<float>& patches, const std::vector<int32_t>& positions,
                                        std::string* err) {
  const EncoderSpec* vision = impl_->spec.vision;
  if (!vision) return *err = "the model has no vision tower", std::vector<float>();
  const size_t rows = positions.size() / 2;
  if (positions.size() % 2 != 0 || patches.size() != rows * static_cast<size_t>(vision->row_width))
    return *err = "patches must be [n, " + std::to_string(vision->row_width) + "] with positions [n, 2]",
           std::vector<float>();
  if (!check_patch_grid(*vision, positions.data(), static_cast<int32_t>(rows), err)) return {};
  const int32_t soft = static_cast<int32_t>(rows) / (vision->pooling * vision->pooling);
  std::vector<float> out(static_cast<size_t>(soft) * vision->out_dim);
  if (!impl_->model->encode(*vision, patches.data(), positions.data(), static_cast<int32_t>(rows), out.data()))
    return *err = "out of memory for the vision tower's arena", std::vector<float>();
  return out;
}

namespace {
/// The audio tower of `spec` when a clip of `frames` mel frames fits it, else null + err.
const EncoderSpec* audio_tower_for(const ModelSpec& spec, size_t frames, std::string* err) {
  const EncoderSpec* audio = spec.audio;
  if (!audio) return *err = "the model has no audio tower", nullptr;
  if (frames == 0) return *err = "the clip has no complete mel frame (161 samples or more make one)", nullptr;
  if (frames > static_cast<size_t>(audio->max_rows))
    return *err = std::to_string(frames) + " mel frames are more than the " + std::to_string(audio->max_rows) +
                  " (30 s) the audio tower was compiled for",
           nullptr;
  return audio;
}
}  // namespace

std::vector<float> Engine::encode_audio(const std::vector<float>& features, std::string* err) {
  const EncoderSpec* audio = impl_->spec.audio;
  if (!audio) return *err = "the model has no audio tower", std::vector<float>();
  const size_t width = static_cast<size_t>(audio->row_width), frames = features.size() / width;
  if (features.size() % width != 0)
    return *err = "mel frames must be [n, " + std::to_string(width) + "]", std::vector<float>();
  if (!audio_tower_for(impl_->spec, frames, err)) return {};
  const size_t soft = (frames + audio->rows_per_token - 1) / audio->rows_per_token;
  std::vector<float> out(soft * audio->out_dim);
  if (!impl_->model->encode(*audio, features.data(), nullptr, static_cast<int32_t>(frames), out.data()))
    return *err = "out of memory for the audio tower's arena", std::vector<float>();
  return out;
}

AudioStepArena::AudioStepArena() : memory_(std::make_unique<HugePageMemory>()) {}
AudioStepArena::~AudioStepArena() = default;

bool Engine::encode_audio_step(const float* features, size_t n, size_t start, float* state,
                               std::vector<float>* soft_tokens, std::string* err, AudioStepArena* arena) {
  const EncoderSpec* audio = audio_tower_for(impl_->spec, start + n, err);
  if (!audio) return false;
  if (n == 0) return true;  // a clip whose frames all went through earlier steps
  const size_t before = soft_tokens->size(), token = static_cast<size_t>(audio->rows_per_token);
  soft_tokens->resize(before + (n + token - 1) / token * audio->out_dim);
  if (!impl_->model->encode_step(*audio, features, static_cast<int32_t>(n), static_cast<int32_t>(start), state,
                                 soft_tokens->data() + before, arena ? arena->memory_.get() : nullptr))
    return soft_tokens->resize(before), *err = "out of memory for the audio tower's arena", false;
  return true;
}

bool Engine::tokenize(std::string_view text, std::vector<int32_t>* ids, std::string* err) {
  if (!impl_->tok) return *err = "the bundle has no tokenizer (compile it with --tokenizer)", false;
  return impl_->tok->encode(text, impl_->tok->add_bos, ids, err);
}

void Engine::set_tap(TapFn fn, void* ctx) {
  impl_->model->set_tap(fn, ctx);
  impl_->user_tap = fn != nullptr;
}

float Engine::probe_p_wrong(const float* hidden, int32_t n) {
  Impl& m = *impl_;
  if (!m.spec.probe || n < 1) return -1.0f;
  // The generated entry takes a mutable pointer (EmitC's float*); it only reads the rows.
  float p = -1.0f;
  m.spec.probe(m.model->state(), const_cast<float*>(hidden), std::min(n, m.spec.max_seq), &p);
  return p;
}
void Engine::set_step_hook(StepHook hook) { impl_->step_hook = std::move(hook); }

void Engine::set_threads(int32_t threads) { impl_->model->set_threads(threads); }
int32_t Engine::threads() const { return impl_->model->threads(); }

const ModelSpec& Engine::spec() const { return impl_->spec; }
int32_t Engine::vocab() const { return impl_->spec.vocab; }
int32_t Engine::bos_id() const { return impl_->tok ? impl_->tok->bos_id : -1; }
void Engine::vocabulary(std::vector<std::string>* pieces, std::vector<int32_t>* stop_ids) const {
  pieces->assign(static_cast<size_t>(impl_->spec.vocab), std::string());
  stop_ids->clear();
  const Tokenizer* tok = impl_->tok.get();
  if (!tok) return;
  // Pieces as they follow an ordinary token: the first one that is neither BOS nor a stop token and prints.
  int32_t prev = 0;
  while (prev < tok->vocab_size() && (prev == tok->bos_id || tok->is_stop(prev) || tok->piece(prev, prev).empty()))
    ++prev;
  for (int32_t id = 0; id < tok->vocab_size(); ++id) {
    if (tok->is_stop(id)) stop_ids->push_back(id);
    else (*pieces)[id] = std::string(tok->piece(prev, id));
  }
}

int32_t Engine::eos_id() const { return impl_->tok ? impl_->tok->eos_id : -1; }
std::string Engine::metadata(const std::string& key) const { return impl_->blob->meta(key); }
MemoryUse Engine::memory_use() const {
  return {resident_bytes(impl_->spec, *impl_->blob), impl_->blob->mapped_bytes(), impl_->blob->mapped_resident_bytes()};
}

bool Engine::tensor(const std::string& name, const std::string& kind, const void** data, uint64_t* bytes) const {
  const BlobEntry* e = impl_->blob->find(name);
  if (!e || e->kind != kind) return false;
  *data = e->data;
  *bytes = e->bytes;
  return true;
}

}  // namespace saguaro
