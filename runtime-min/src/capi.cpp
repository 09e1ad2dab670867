// C API: JSON in (messages, options), JSON out (response + statistics), on top of saguaro::Engine.
// A bundle compiled with `saguaro compile --handoff` is built with SAGUARO_WITH_HANDOFF=1 and links handoff/:
// saguaro_complete then runs the local answer through the cloud handoff policy (docs/handoff.md).
#include "saguaro/saguaro.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>


#include "audio_input.h"
#include "builtin_tool_loop.h"
#include "capi_audio_streams.h"
#include "capi_model.h"
#include "hidden_capture.h"
#include "image_input.h"
#include "process_stats.h"
#include "saguaro/blob.h"
#include "saguaro/chat_messages.h"
#include "saguaro/chat_template.h"
#include "saguaro/completion_options.h"
#include "saguaro/engine.h"
#include "saguaro/json_schema_mask.h"
#include "tool_answer.h"

#if SAGUARO_WITH_HANDOFF
#include "saguaro/handoff/hybrid_complete.h"
#include "saguaro/handoff/options.h"
#endif

struct saguaro_model {
  std::unique_ptr<saguaro::Engine> engine;
  std::unique_ptr<saguaro::ChatTemplate> chat;  // the bundle's `chat.template`, null when it has none
  std::shared_ptr<const saguaro::TokenTrie> vocab;  // built by the first request with a response_format
  std::atomic<bool> stop{false};                    // saguaro_stop's request to the running generation
};

namespace {

using nlohmann::json;

thread_local std::string g_last_error;

struct Request {
  json messages;  // the parsed messages_json
  std::string prompt;
  saguaro::ChatRequest parsed;               // the messages read
  std::vector<saguaro::ImageSource> images;  // the messages' images, in prompt order
  int32_t max_soft_tokens = 0;               // per image; 0: the compiled budget
  std::vector<saguaro::AudioSource> audio;   // the messages' audio clips, in prompt order
  saguaro::GenerateConfig cfg;
  std::vector<std::string> stop;
  bool stream_local = false;       // with the handoff: stream local pieces before the policy decides
  const std::atomic<bool>* stop_flag = nullptr;  // set by saguaro_stop: end the generation after the current token
  json policy = json::object();    // every option that is not the local generation's (the handoff policy's)
  std::shared_ptr<const saguaro::JsonGrammar> format;  // the answer's grammar; null: free text
  const char* format_argument = "";                     // the option `format` came from, named in its errors
  std::shared_ptr<const saguaro::TokenTrie> vocab;     // with `format`: the model's vocabulary trie
  saguaro::ToolAnswer tools;       // the options' tools and tool_choice
};

// The sources of media references (ImageRef, AudioRef → ImageSource, AudioSource): a file by its path, or the
// decoded base64 `payload` (named in the error when it is not base64).
template <class Ref, class Source>
bool read_sources(const std::vector<Ref>& refs, const char* payload, std::vector<Source>* out, std::string* err) {
  for (const Ref& ref : refs) {
    Source source{ref.at, "", {}};
    if (ref.url.kind == saguaro::MediaUrl::kFile)
      source.name = source.path = ref.url.payload;
    else if (!saguaro::base64_decode(ref.url.payload, &source.bytes))
      return *err = "messages_json: " + ref.at + ": " + payload + " is not base64", false;
    out->push_back(std::move(source));
  }
  return true;
}

// OpenAI-style messages (saguaro/chat_messages.h) into r->parsed; their images go to r->images and their clips to
// r->audio in prompt order, base64 payloads decoded and streams named by id looked up.
bool parse_messages(const saguaro_model& model, const char* text, Request* r, std::string* err) {
  if (!text) return *err = "messages_json is NULL", false;
  saguaro::ChatRequest& parsed = r->parsed;
  if (!saguaro::parse_chat_messages(text, model.chat == nullptr, &parsed, err))
    return *err = "messages_json: " + *err, false;
  r->messages = json::parse(text);  // valid JSON: the handoff reads it again
  return read_sources(parsed.images, "the data: URI's payload", &r->images, err) &&
         read_sources(parsed.audio, "input_audio.data", &r->audio, err) &&
         saguaro::resolve_audio_streams(&model, *model.engine, parsed.audio, &r->audio, err);
}

// The prompt: the bundle's chat template applied to the messages and the tool list (with the generation prompt, and
// the opening of a call when tool_choice asks for one), or without a template the user contents joined by newlines.
bool render_prompt(const saguaro_model& model, Request* r, std::string* err) {
  if (model.chat) {
    const bool tokenizer_adds_bos = model.engine->metadata("tokenizer.add_bos") == "1";
    if (!model.chat->apply(r->parsed.messages, r->tools.prompt_tools(), true, tokenizer_adds_bos, &r->prompt, err))
      return *err = "messages_json: " + *err, false;
    r->prompt += r->tools.forced_opening();
    return true;
  }
  for (const saguaro::ChatMessage& m : r->parsed.messages) {
    if (!r->prompt.empty()) r->prompt.push_back('\n');
    r->prompt += m.content;
    for (const saguaro::ContentPart& p : m.parts) r->prompt += p.text;
  }
  return true;
}

// The soft tokens of the request's images into r->cfg.images, at the request's budget (checked against the
// compiled one).
bool encode_images(saguaro::Engine& engine, Request* r, std::string* err) {
  if (r->images.empty()) return true;
  const saguaro::EncoderSpec* vision = engine.spec().vision;
  if (vision && r->max_soft_tokens > saguaro::compiled_soft_tokens(*vision))
    return *err = "options_json: \"max_soft_tokens\" " + std::to_string(r->max_soft_tokens) + " is above the " +
                  std::to_string(saguaro::compiled_soft_tokens(*vision)) +
                  " soft tokens per image the bundle was compiled for",
           false;
  r->cfg.images.clear();
  for (const saguaro::ImageSource& image : r->images) {
    r->cfg.images.emplace_back();
    if (!saguaro::encode_image_source(engine, image, r->max_soft_tokens, &r->cfg.images.back(), err))
      return *err = "messages_json: " + *err, false;
  }
  return true;
}

// The soft tokens of the request's audio clips into r->cfg.audio (a streamed clip's are already computed).
bool encode_audio(saguaro::Engine& engine, Request* r, std::string* err) {
  r->cfg.audio.clear();
  for (const saguaro::AudioSource& clip : r->audio) {
    r->cfg.audio.emplace_back();
    if (clip.streamed)
      r->cfg.audio.back() = *clip.streamed;
    else if (!saguaro::encode_audio_source(engine, clip, &r->cfg.audio.back(), err))
      return *err = "messages_json: " + *err, false;
  }
  return true;
}

// The bundle's compiled chat template into *out (left null when the blob has no `chat.template` tensor).
bool load_chat_template(const saguaro::Engine& engine, const std::string& bundle_path,
                        std::unique_ptr<saguaro::ChatTemplate>* out, std::string* err) {
  const void* data = nullptr;
  uint64_t bytes = 0;
  if (!engine.tensor("chat.template", "chat_template", &data, &bytes)) return true;
  auto t = std::make_unique<saguaro::ChatTemplate>();
  if (!saguaro::ChatTemplate::parse(data, bytes, t.get(), err)) return *err = bundle_path + ": " + *err, false;
  *out = std::move(t);
  return true;
}

// Reads number `key` of `o` into *out when present; false + err when it has the wrong type or range.
template <typename T>
bool read_number(const json& o, const char* key, double lo, double hi, T* out, std::string* err) {
  if (!o.contains(key)) return true;
  const json& v = o[key];
  if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi)
    return *err = std::string("options_json: \"") + key + "\" must be a number in [" + json(lo).dump() + ", " +
                  json(hi).dump() + "]",
           false;
  if (std::is_integral<T>::value && !v.is_number_integer())
    return *err = std::string("options_json: \"") + key + "\" must be an integer", false;
  *out = v.get<T>();
  return true;
}


// Checks the policy's options before anything runs, so a bad key is the caller's error rather than a local answer
// with "error" set. With the handoff, handoff::parse_options judges them (naming the key). Without it, the three
// policy keys bundles always accepted are still accepted and ignored; the other policy keys need --handoff.
bool check_policy_options(const json& policy, std::string* err) {
#if SAGUARO_WITH_HANDOFF
  try {
    saguaro::handoff::parse_options(policy);
  } catch (const std::exception& e) {
    return *err = std::string("options_json: ") + e.what(), false;
  }
#else
  for (auto it = policy.begin(); it != policy.end(); ++it) {
    const std::string& key = it.key();
    if (saguaro::is_policy_option_without_handoff(key)) continue;
    if (saguaro::is_handoff_policy_option(key))
      return *err = "options_json: \"" + key +
                    "\" needs the cloud handoff, and this bundle was compiled without --handoff (saguaro compile "
                    "--handoff)",
             false;
    return *err = "options_json: unknown option \"" + key + "\"", false;
  }
#endif
  return true;
}

bool parse_options(const saguaro_model& model, const char* text, Request* r, std::string* err) {
  r->cfg.max_new_tokens = 256;
  if (!text || !*text) return true;
  const json o = json::parse(text, nullptr, false);
  if (o.is_discarded() || !o.is_object()) return *err = "options_json: expected a JSON object", false;
  if (!r->tools.init(text, model.chat.get(), err)) return false;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (saguaro::is_local_completion_option(it.key())) continue;
    if (it.key() == "stream_local") {
      if (!it.value().is_boolean()) return *err = "options_json: \"stream_local\" must be true or false", false;
      r->stream_local = it.value().get<bool>();
      continue;
    }
    r->policy[it.key()] = it.value();
  }
  if (!check_policy_options(r->policy, err)) return false;
  saguaro::GenerateConfig& c = r->cfg;
  if (!read_number(o, "max_tokens", 0, 1e9, &c.max_new_tokens, err) ||
      !read_number(o, "temperature", 0, 1e6, &c.temperature, err) || !read_number(o, "top_k", 0, 1e9, &c.top_k, err) ||
      !read_number(o, "top_p", 0, 1, &c.top_p, err) || !read_number(o, "min_p", 0, 1, &c.min_p, err) ||
      !read_number(o, "repetition_penalty", 1e-6, 1e6, &c.repetition_penalty, err) ||
      !read_number(o, "seed", 0, 1.8446744073709552e19, &c.seed, err) ||
      !read_number(o, "max_soft_tokens", 1, 1e9, &r->max_soft_tokens, err))
    return false;
  if (o.contains("response_format")) {
    r->format = saguaro::JsonGrammar::from_response_format(o["response_format"].dump(), err);
    if (!r->format && !err->empty()) return *err = "options_json: response_format: " + *err, false;
    r->format_argument = "response_format";
  }
  if (r->tools.grammar()) {
    if (r->format) return *err = "options_json: a \"response_format\" and a tool_choice that forces a call exclude each other", false;
    r->format = r->tools.grammar();
    r->format_argument = "tool_choice";
  }
  if (o.contains("stop")) {
    const json& s = o["stop"];
    if (s.is_string()) {
      r->stop.push_back(s.get<std::string>());
    } else if (s.is_array()) {
      for (const json& x : s) {
        if (!x.is_string()) return *err = "options_json: \"stop\" must hold strings", false;
        r->stop.push_back(x.get<std::string>());
      }
    } else if (!s.is_null()) {
      return *err = "options_json: \"stop\" must be a string or an array of strings", false;
    }
    for (const std::string& x : r->stop)
      if (x.empty()) return *err = "options_json: empty stop string", false;
  }
  return true;
}

json error_response(const std::string& msg) {
  return json{{"success", false}, {"error", msg}, {"response", nullptr}, {"cloud_handoff", false},
              {"confidence", nullptr}};
}

// Serialises `j` into out (NUL-terminated); -1 when it does not fit.
int write_out(const json& j, char* out, size_t out_size) {
  const std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!out || s.size() + 1 > out_size) return -1;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return static_cast<int>(s.size());
}

int fail(const std::string& msg, char* out, size_t out_size) {
  g_last_error = msg;
  write_out(error_response(msg), out, out_size);
  return -1;
}

// The local generation: its text, confidence and statistics.
struct LocalRun {
  std::string text;
  json confidence = nullptr;  // null when nothing was generated (no entropy) or the probe gave nothing
  bool probe = false;
  bool stopped = false;  // saguaro_stop ended it
  saguaro::GenerateStats st;
  json tool_fields = json::object();  // "tool_calls" and "finish_reason" when the request has tools
};

using PieceSink = std::function<void(const std::string& piece, uint32_t token_id)>;

// Generates the answer to req.prompt, cut at the first stop string; every piece of text goes to `emit` as soon as
// it is final (a stop string is never emitted; with tools, neither is a call). With tools, out->text is the content
// outside the answer's calls and out->tool_fields has the calls.
bool run_local(saguaro::Engine& engine, Request& req, const PieceSink& tool_free_emit, LocalRun* out,
               std::string* err) {
  const PieceSink emit = req.tools.filter(tool_free_emit);
  std::string& text = out->text;
  auto on_text = [&](std::string_view t, int32_t id) {
    const size_t before = text.size();
    text.append(t.data(), t.size());
    size_t cut = std::string::npos;
    for (const std::string& s : req.stop) {
      const size_t from = before >= s.size() ? before - s.size() + 1 : 0;
      const size_t at = text.find(s, from);
      if (at != std::string::npos && at < cut) cut = at;
    }
    const size_t end = cut == std::string::npos ? text.size() : cut;
    if (emit && end > before) emit(text.substr(before, end - before), static_cast<uint32_t>(id));
    if (cut != std::string::npos) return text.resize(cut), false;
    if (req.stop_flag && req.stop_flag->load(std::memory_order_relaxed)) return out->stopped = true, false;
    return true;
  };
  // Without a compiled probe the confidence falls back to the token entropy: exp(−mean entropy in nats) of the
  // distributions the answer's tokens were sampled from (1 when the model was certain of every token).
  out->probe = engine.spec().probe != nullptr;
  double entropy_sum = 0;
  int32_t entropy_tokens = 0;
  if (!out->probe)
    engine.set_step_hook([&](const float* logits, int32_t vocab) {
      entropy_sum += saguaro::softmax_entropy(logits, vocab), ++entropy_tokens;
    });
  saguaro::GenerateConfig cfg = req.cfg;
  std::unique_ptr<saguaro::JsonMask> format;
  if (req.format)
    format = std::make_unique<saguaro::JsonMask>(req.format, req.vocab, req.format_argument),
    cfg.constraint = format.get();
  const bool ok = engine.generate(req.prompt, cfg, on_text, &out->st, err);
  if (!out->probe) engine.set_step_hook(nullptr);
  // The request's own problems name the argument they are in (the mask's errors start with its option's name).
  if (!ok && out->st.fault == saguaro::GenerateFault::kPrompt) *err = "messages_json: " + *err;
  if (!ok && out->st.fault == saguaro::GenerateFault::kConstraint) *err = "options_json: " + *err;
  if (!ok) return false;
  const int32_t max = req.cfg.max_new_tokens;
  const char* finish_reason = max >= 0 && out->st.generated_tokens >= max ? "length" : "stop";
  // A reply saguaro_stop cut short may end inside a call: it is returned as it is.
  if (!out->stopped && !req.tools.finish(text, finish_reason, &text, &out->tool_fields, err)) return false;
  if (out->probe && out->st.p_wrong >= 0) out->confidence = 1.0 - out->st.p_wrong;
  if (!out->probe && entropy_tokens > 0) out->confidence = std::exp(-entropy_sum / entropy_tokens);
  return true;
}

// run_local, and with built-in tools enabled, the rounds of builtin_tool_loop.h: an answer calling only built-in
// tools has them run, the calls and results join the conversation, and the model answers again. The final round is
// the answer (its confidence is the final answer's; token counts and times add up over the rounds);
// "builtin_tool_calls" in its tool fields lists every call run.
bool run_local_rounds(saguaro_model& model, Request& req, const PieceSink& emit, LocalRun* out, std::string* err) {
  json ran = json::array();
  saguaro::GenerateStats before;  // the earlier rounds' sums
  for (int round = 0;; ++round) {
    if (!run_local(*model.engine, req, emit, out, err)) return false;
    saguaro::GenerateStats& st = out->st;
    st.prompt_tokens += before.prompt_tokens, st.generated_tokens += before.generated_tokens;
    st.prefill_ms += before.prefill_ms, st.decode_ms += before.decode_ms, st.total_ms += before.total_ms;
    before = st;
    if (out->stopped || round == saguaro::kMaxBuiltinToolRounds ||
        !saguaro::run_builtin_round(req.tools.builtin_tools(), out->text, out->tool_fields, &req.parsed.messages, &ran))
      break;
    *out = LocalRun();
    req.prompt.clear();
    if (!render_prompt(model, &req, err)) return false;
  }
  if (!ran.empty()) out->tool_fields["builtin_tool_calls"] = ran;
  return true;
}

// The local generation's statistics, the same keys with and without the handoff.
json local_statistics(const LocalRun& r) {
  const saguaro::GenerateStats& st = r.st;
  const double decode_s = st.decode_ms / 1000.0;
  return json{
      {"confidence_source", r.probe ? "probe" : "entropy"},
      {"probe_ms", r.probe ? json(st.probe_ms) : json(nullptr)},
      {"time_to_first_token_ms", st.prefill_ms},
      {"total_time_ms", st.total_ms},
      {"prefill_tps", st.prefill_ms > 0 ? st.prompt_tokens / (st.prefill_ms / 1000.0) : 0.0},
      {"decode_tps", (st.generated_tokens > 1 && decode_s > 0) ? (st.generated_tokens - 1) / decode_s : 0.0},
      {"prefill_tokens", st.prompt_tokens},
      {"decode_tokens", st.generated_tokens},
      {"ram_usage_mb", static_cast<double>(saguaro::current_rss_bytes()) / (1024.0 * 1024.0)},
  };
}

// Writes the response, or the "buffer too small" error when it does not fit.
int respond(const json& resp, char* out_json, size_t out_size) {
  const int n = write_out(resp, out_json, out_size);
  if (n < 0) {
    const size_t need = resp.dump(-1, ' ', false, json::error_handler_t::replace).size() + 1;
    return fail("output buffer too small: the response needs " + std::to_string(need) + " bytes, got " +
                    std::to_string(out_size),
                out_json, out_size);
  }
  g_last_error.clear();
  return n;
}

// The local answer as the response (no handoff); "stopped" when saguaro_stop ended it, and with tools its calls.
json local_response(const LocalRun& local) {
  json resp = local_statistics(local);
  resp.update(json{{"success", true},
                   {"error", nullptr},
                   {"response", local.text},
                   {"cloud_handoff", false},
                   {"confidence", local.confidence}});
  if (local.stopped) resp["stopped"] = true;
  resp.update(local.tool_fields);
  return resp;
}

#if !SAGUARO_WITH_HANDOFF
// A bundle without the handoff: the local answer, streamed as it is generated.
int complete_local(saguaro_model* model, Request& req, char* out_json, size_t out_size, const PieceSink& emit) {
  LocalRun local;
  std::string err;
  if (!run_local_rounds(*model, req, emit, &local, &err)) return fail(err, out_json, out_size);
  return respond(local_response(local), out_json, out_size);
}
#else
// Token id of the cloud's text, which arrives whole and has no local token (0xFFFFFFFF is the final flush's).
constexpr uint32_t kCloudPieceId = 0xFFFFFFFEu;

// The engine failed inside hybrid_complete's generate_local; carries its message out unchanged.
struct LocalFailure {
  std::string message;
};

// saguaro_stop ended the local generation: the policy does not judge (or replace) an answer the caller cut short.
struct LocalStopped {};

// The hybrid answer: the local answer, its confidence to the policy, the cloud when the policy says so. By default
// the local pieces are held back until the policy kept the local answer (an app never shows text that is then
// replaced); with "stream_local" they go out as they are generated, and a handoff's text follows as its own piece.
int complete_hybrid(saguaro_model* model, Request& req, char* out_json, size_t out_size,
                    const PieceSink& emit) {
  std::vector<std::pair<std::string, uint32_t>> held;
  PieceSink hold = [&](const std::string& piece, uint32_t id) { held.emplace_back(piece, id); };
  LocalRun local;
  auto generate_local = [&]() -> saguaro::handoff::LocalAnswer {
    std::string err;
    if (!run_local_rounds(*model, req, req.stream_local ? emit : hold, &local, &err)) throw LocalFailure{err};
    if (local.stopped) throw LocalStopped{};
    // No confidence (nothing generated) counts as low: the policy hands off when it may.
    return {local.text, local.confidence.is_number() ? local.confidence.get<double>()
                                                      : std::numeric_limits<double>::quiet_NaN()};
  };
  // on_text gets the final text but not whether it is the cloud's; the pieces go out below, from cloud_handoff.
  saguaro::handoff::HybridHooks hooks;
  hooks.tools = req.tools.cloud_tools();
  hooks.tool_choice = req.tools.tool_choice();
  json resp;
  try {
    resp = saguaro::handoff::hybrid_complete_json(req.messages, req.policy, generate_local, hooks);
  } catch (const LocalFailure& f) {
    return fail(f.message, out_json, out_size);
  } catch (const LocalStopped&) {
    if (emit && !req.stream_local)
      for (const auto& [piece, id] : held) emit(piece, id);
    return respond(local_response(local), out_json, out_size);
  }
  if (!resp.value("cloud_handoff", false)) resp.update(local.tool_fields);
  else if (local.tool_fields.contains("builtin_tool_calls")) resp["builtin_tool_calls"] = local.tool_fields["builtin_tool_calls"];
  if (emit && resp.value("cloud_handoff", false)) {
    emit(resp["response"].get<std::string>(), kCloudPieceId);
  } else if (emit && !req.stream_local) {
    for (const auto& [piece, id] : held) emit(piece, id);
  }
  return respond(saguaro::handoff::with_local_statistics(local_statistics(local), resp), out_json, out_size);
}
#endif

int complete(saguaro_model* model, const char* messages_json, const char* options_json, char* out_json,
             size_t out_size, void (*cb)(const char*, uint32_t, void*), void* user) {
  if (!model) return fail("model is NULL", out_json, out_size);
  Request req;
  std::string err;
  if (!parse_messages(*model, messages_json, &req, &err) || !parse_options(*model, options_json, &req, &err) ||
      !render_prompt(*model, &req, &err) || !encode_images(*model->engine, &req, &err) ||
      !encode_audio(*model->engine, &req, &err))
    return fail(err, out_json, out_size);
  model->stop.store(false);  // a stop asked before this generation began is not for it
  req.stop_flag = &model->stop;
  if (req.format && !model->vocab) {
    std::vector<std::string> pieces;
    std::vector<int32_t> stops;
    model->engine->vocabulary(&pieces, &stops);
    model->vocab = std::make_shared<const saguaro::TokenTrie>(pieces, std::move(stops));
  }
  req.vocab = model->vocab;
  PieceSink emit;
  if (cb) emit = [cb, user](const std::string& piece, uint32_t id) { cb(piece.c_str(), id, user); };
#if SAGUARO_WITH_HANDOFF
  return complete_hybrid(model, req, out_json, out_size, emit);
#else
  return complete_local(model, req, out_json, out_size, emit);
#endif
}

}  // namespace

namespace {
// The C API's model of an open engine (null: `err` says why) and the chat template its blob holds; sets the
// thread's last error. `name` prefixes errors.
saguaro_model_t wrap_engine(std::unique_ptr<saguaro::Engine> engine, const std::string& name, const std::string& err) {
  if (!engine) return g_last_error = err, nullptr;
  std::unique_ptr<saguaro::ChatTemplate> chat;
  std::string chat_err;
  if (!load_chat_template(*engine, name, &chat, &chat_err)) return g_last_error = chat_err, nullptr;
  g_last_error.clear();
  return new saguaro_model{std::move(engine), std::move(chat), nullptr};
}

// Runs `open` so that no exception leaves the C API: one becomes the last error of `fn`.
template <class F>
saguaro_model_t open_guarded(const char* fn, F open) {
  try {
    return open();
  } catch (const std::exception& e) {
    g_last_error = std::string(fn) + ": " + e.what();
  } catch (...) {
    g_last_error = std::string(fn) + ": unknown error";
  }
  return nullptr;
}
}  // namespace

extern "C" saguaro_model_t saguaro_init(const char* bundle_path) {
  return open_guarded("saguaro_init", [&]() -> saguaro_model_t {
    if (!bundle_path) return g_last_error = "bundle_path is NULL", nullptr;
    std::string err;
    auto engine = saguaro::Engine::open(bundle_path, &err);
    return wrap_engine(std::move(engine), bundle_path, err);
  });
}

extern "C" saguaro_model_t saguaro_init_memory(const void* data, size_t size, const char* name) {
  return open_guarded("saguaro_init_memory", [&]() -> saguaro_model_t {
    if (!data) return g_last_error = "saguaro_init_memory: data is NULL", nullptr;
    const std::string label = name ? name : "memory";
    std::string err;
    auto engine = saguaro::Engine::open_memory(data, size, label, &err);
    return wrap_engine(std::move(engine), label, err);
  });
}

extern "C" int saguaro_complete(saguaro_model_t model, const char* messages_json, const char* options_json,
                                char* out_json, size_t out_size,
                                void (*token_callback)(const char*, uint32_t, void*), void* user_data) {
  try {
    return complete(model, messages_json, options_json, out_json, out_size, token_callback, user_data);
  } catch (const std::exception& e) {
    g_last_error = std::string("saguaro_complete: ") + e.what();
  } catch (...) {
    g_last_error = "saguaro_complete: unknown error";
  }
  return -1;
}

extern "C" void saguaro_stop(saguaro_model_t model) {
  if (model) model->stop.store(true);
}

extern "C" void saguaro_destroy(saguaro_model_t model) {
  saguaro::audio_streams_model_destroyed(model);
  delete model;
}

extern "C" const char* saguaro_last_error(void) { return g_last_error.c_str(); }

std::string& saguaro::capi_last_error() { return g_last_error; }

saguaro::Engine& saguaro::capi_engine(saguaro_model_t model) { return *model->engine; }
