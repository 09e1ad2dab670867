// The bundle program: llama2.c-style text generation, or dumping logits of given token ids to .npy.
#include "saguaro/bundle_main.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audio_input.h"
#include "bench.h"
#include "gram_accumulator.h"
#include "hidden_capture.h"
#include "image_input.h"
#include "process_stats.h"
#include "saguaro/engine.h"
#include "saguaro/npy_reader.h"
#include "saguaro/npy_writer.h"
#include "saguaro/saguaro.h"

namespace saguaro {
namespace {

const char* const kUsage =
    "usage: saguaro_bundle BUNDLE -p PROMPT [-n STEPS] [-t TEMP] [--seed S] [--top-k K] [--top-p P] [--min-p P] "
    "[--repetition-penalty R] | saguaro_bundle BUNDLE --logits IDS_FILE -o OUT.npy | "
    "saguaro_bundle BUNDLE --gram IDS_FILE -o DIR | saguaro_bundle BUNDLE --capture PROMPTS_FILE -o DIR [--max-new N] | "
    "saguaro_bundle BUNDLE --complete MESSAGES_FILE [--options OPTIONS_FILE] | saguaro_bundle BUNDLE --serve-stdio | "
    "saguaro_bundle BUNDLE --bench -o OUT.json [--prompt-tokens N] | saguaro_bundle BUNDLE --bench-image -o OUT.json | "
    "saguaro_bundle BUNDLE --bench-audio -o OUT.json | "
    "saguaro_bundle BUNDLE --encode-image PATCHES.npy --positions POS.npy -o OUT.npy | "
    "saguaro_bundle BUNDLE --encode-audio FRAMES.npy -o OUT.npy; "
    "--logits and -p take --soft-tokens SOFT.npy, once per image (the rows its placeholders take); "
    "-p takes --image FILE (a PNG or JPEG, once per image) [--max-soft-tokens N] in a bundle with a vision tower, "
    "and --audio FILE (a WAV clip of at most 30 s, once per clip) in a bundle with an audio tower; "
    "every mode takes --threads N (0, the default: every hardware thread); all but --complete and --serve-stdio "
    "take --mmap (map weights.sgw instead of reading it into memory)";

int fail(const std::string& msg) {
  std::fprintf(stderr, "saguaro: %s\n", msg.c_str());
  return 1;
}

bool parse_int(const std::string& s, long long lo, long long hi, long long* out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_float(const std::string& s, double lo, double hi, double* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno != 0 || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

struct Args {
  std::string bundle, prompt, ids_file, gram_file, capture_file, complete_file, options_file, out_file;
  std::string patches_file, positions_file;  // --encode-image, --positions
  std::string frames_file;                     // --encode-audio
  std::vector<std::string> soft_tokens_files;  // --soft-tokens, once per image
  std::vector<std::string> image_files;        // --image, once per image
  std::vector<std::string> audio_files;        // --audio, once per clip
  int32_t max_soft_tokens = 0;                 // --max-soft-tokens: the images' budget; 0: the compiled one
  bool has_prompt = false;  // without -p the prompt is empty, as in run.c
  bool bench = false;
  bool bench_image = false;  // --bench-image: the vision tower's bench instead of the decoder's
  bool bench_audio = false;  // --bench-audio: the audio tower's
  bool serve_stdio = false;
  WeightsLoad load = WeightsLoad::kRead;  // --mmap: WeightsLoad::kMap
  int32_t threads = 0;
  int32_t max_new = 32;  // --capture: new tokens per answer at most
  int32_t prompt_tokens = kBenchPromptTokens;  // --bench: the prompt's length
  GenerateConfig cfg;
  bool has_seed = false;
  bool has_prompt_tokens = false;
};

// Parses argv; false + a one-line message on any bad argument.
bool parse_args(int argc, char** argv, Args* a, std::string* err) {
  a->cfg.steps = 256;  // run.c's defaults: -n 256 -t 1.0 -p 0.9
  a->cfg.echo_prompt = true;
  if (argc < 2 || argv[1][0] == '-') return *err = kUsage, false;
  a->bundle = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--bench") {
      a->bench = true;
      continue;
    }
    if (flag == "--bench-image") {
      a->bench = a->bench_image = true;
      continue;
    }
    if (flag == "--bench-audio") {
      a->bench = a->bench_audio = true;
      continue;
    }
    if (flag == "--serve-stdio") {
      a->serve_stdio = true;
      continue;
    }
    if (flag == "--mmap") {
      a->load = WeightsLoad::kMap;
      continue;
    }
    if (i + 1 >= argc) return *err = flag + ": missing value", false;
    const std::string v = argv[++i];
    long long n = 0;
    double x = 0;
    const std::string bad = flag + ": bad value '" + v + "'";
    if (flag == "-p") {
      a->prompt = v, a->has_prompt = true;
    } else if (flag == "--logits") {
      a->ids_file = v;
    } else if (flag == "--gram") {
      a->gram_file = v;
    } else if (flag == "--capture") {
      a->capture_file = v;
    } else if (flag == "--complete") {
      a->complete_file = v;
    } else if (flag == "--options") {
      a->options_file = v;
    } else if (flag == "--encode-image") {
      a->patches_file = v;
    } else if (flag == "--encode-audio") {
      a->frames_file = v;
    } else if (flag == "--positions") {
      a->positions_file = v;
    } else if (flag == "--soft-tokens") {
      a->soft_tokens_files.push_back(v);
    } else if (flag == "--image") {
      a->image_files.push_back(v);
    } else if (flag == "--audio") {
      a->audio_files.push_back(v);
    } else if (flag == "--max-soft-tokens") {
      if (!parse_int(v, 1, 1 << 20, &n)) return *err = bad, false;
      a->max_soft_tokens = static_cast<int32_t>(n);
    } else if (flag == "-o") {
      a->out_file = v;
    } else if (flag == "-n") {
      if (!parse_int(v, 0, 1 << 30, &n)) return *err = bad, false;
      a->cfg.steps = static_cast<int32_t>(n);
    } else if (flag == "--max-new") {
      if (!parse_int(v, 1, 1 << 20, &n)) return *err = bad, false;
      a->max_new = static_cast<int32_t>(n);
    } else if (flag == "--prompt-tokens") {
      if (!parse_int(v, 1, 1 << 20, &n)) return *err = bad, false;
      a->prompt_tokens = static_cast<int32_t>(n), a->has_prompt_tokens = true;
    } else if (flag == "--threads") {
      if (!parse_int(v, 0, 1024, &n)) return *err = bad, false;
      a->threads = static_cast<int32_t>(n);
    } else if (flag == "--top-k") {
      if (!parse_int(v, 0, 1 << 30, &n)) return *err = bad, false;
      a->cfg.top_k = static_cast<int32_t>(n);
    } else if (flag == "--seed") {
      if (!parse_int(v, 0, INT64_MAX, &n)) return *err = bad, false;
      a->cfg.seed = static_cast<uint64_t>(n), a->has_seed = true;
    } else if (flag == "-t") {
      if (!parse_float(v, 0, 1e6, &x)) return *err = bad, false;
      a->cfg.temperature = static_cast<float>(x);
    } else if (flag == "--top-p") {
      if (!parse_float(v, 0, 1, &x)) return *err = bad, false;
      a->cfg.top_p = static_cast<float>(x);
    } else if (flag == "--min-p") {
      if (!parse_float(v, 0, 1, &x)) return *err = bad, false;
      a->cfg.min_p = static_cast<float>(x);
    } else if (flag == "--repetition-penalty") {
      if (!parse_float(v, 1e-6, 1e6, &x)) return *err = bad, false;
      a->cfg.repetition_penalty = static_cast<float>(x);
    } else {
      return *err = "unknown option " + flag + "; " + kUsage, false;
    }
  }
  const int modes = a->has_prompt + !a->ids_file.empty() + !a->gram_file.empty() + !a->capture_file.empty() +
                    !a->complete_file.empty() + a->bench + a->serve_stdio + !a->patches_file.empty() +
                    !a->frames_file.empty();
  if (modes > 1)
    return *err = "-p, --logits, --gram, --capture, --complete, --bench, --encode-image and --encode-audio exclude "
                  "each other",
           false;
  if ((modes == 0 || a->has_prompt || !a->complete_file.empty() || a->serve_stdio) != a->out_file.empty())
    return *err = "-o goes with --logits, --gram, --capture, --bench, --encode-image or --encode-audio", false;
  if (!a->options_file.empty() && a->complete_file.empty()) return *err = "--options goes with --complete", false;
  if (a->patches_file.empty() != a->positions_file.empty())
    return *err = "--encode-image PATCHES.npy goes with --positions POS.npy", false;
  if (!a->soft_tokens_files.empty() && a->ids_file.empty() && !a->has_prompt)
    return *err = "--soft-tokens goes with --logits or -p", false;
  if (!a->image_files.empty() && !a->has_prompt) return *err = "--image goes with -p", false;
  if (!a->audio_files.empty() && !a->has_prompt) return *err = "--audio goes with -p", false;
  if (a->max_soft_tokens > 0 && a->image_files.empty()) return *err = "--max-soft-tokens goes with --image", false;
  if (a->has_prompt_tokens && !a->bench) return *err = "--prompt-tokens goes with --bench", false;
  if (a->load == WeightsLoad::kMap && (!a->complete_file.empty() || a->serve_stdio))
    return *err = "--mmap does not go with --complete or --serve-stdio (the C API reads the weights into memory)", false;
  if (!a->has_seed) a->cfg.seed = static_cast<uint64_t>(std::time(nullptr));  // run.c: seed 0 → time
  return true;
}

// Reads sequences of whitespace-separated decimal token ids, one per non-empty line.
bool read_sequences(const std::string& path, std::vector<std::vector<int32_t>>* sequences, std::string* err) {
  std::ifstream in(path);
  if (!in) return *err = path + ": cannot open", false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<int32_t> ids;
    for (std::string word; words >> word;) {
      long long v = 0;
      if (!parse_int(word, 0, INT32_MAX, &v)) return *err = path + ": bad token id '" + word + "'", false;
      ids.push_back(static_cast<int32_t>(v));
    }
    if (!ids.empty()) sequences->push_back(std::move(ids));
  }
  if (sequences->empty()) return *err = path + ": no token ids", false;
  return true;
}

// Reads one JSON string per non-empty line.
bool read_json_strings(const std::string& path, std::vector<std::string>* out, std::string* err) {
  std::ifstream in(path);
  if (!in) return *err = path + ": cannot open", false;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json v = nlohmann::json::parse(line, nullptr, false);
    if (!v.is_string()) return *err = path + ": line " + std::to_string(line_no) + " is not a JSON string", false;
    out->push_back(v.get<std::string>());
  }
  if (out->empty()) return *err = path + ": no prompts", false;
  return true;
}

// The memory plan beside what the process held at its peak (docs/user-guide.md, "The bundle program").
void print_memory(const Engine& engine) {
  const MemoryUse m = engine.memory_use();
  std::fprintf(stderr, "resident_bytes=%llu mapped_bytes=%llu mapped_resident_bytes=%llu\n",
               static_cast<unsigned long long>(m.resident_bytes), static_cast<unsigned long long>(m.mapped_bytes),
               static_cast<unsigned long long>(m.mapped_resident_bytes));
  std::fprintf(stderr, "peak_rss_bytes=%llu\n", static_cast<unsigned long long>(peak_rss_bytes()));
}

// A float32 [n, cols] .npy into *rows; false + "FILE: problem" otherwise.
bool read_f32_rows(const std::string& path, int32_t cols, std::vector<float>* rows, std::string* err) {
  NpyArray a;
  if (!read_npy(path, &a, err)) return false;
  if (a.dtype != "<f4" || a.shape.size() != 2 || a.shape[1] != static_cast<uint64_t>(cols))
    return *err = path + ": expected float32 [n, " + std::to_string(cols) + "]", false;
  *rows = a.as<float>();
  return true;
}

// Every line of the ids file is one sequence fed from position 0; the rows of all lines go to one .npy.
int run_logits(Engine& engine, const Args& a) {
  std::vector<std::vector<int32_t>> sequences;
  std::string err;
  if (!read_sequences(a.ids_file, &sequences, &err)) return fail(err);
  std::vector<float> soft;  // --soft-tokens: the rows of the image placeholders of the one sequence, in order
  for (const std::string& file : a.soft_tokens_files) {
    std::vector<float> image;
    if (!read_f32_rows(file, engine.spec().dim, &image, &err)) return fail(err);
    soft.insert(soft.end(), image.begin(), image.end());
  }
  if (!a.soft_tokens_files.empty() && sequences.size() != 1)
    return fail(a.ids_file + ": --soft-tokens takes one sequence");
  std::vector<float> all;
  uint64_t rows = 0;
  for (const std::vector<int32_t>& ids : sequences) {
    const std::vector<float> logits = engine.logits(ids, soft, &err);
    if (logits.empty()) return fail(a.ids_file + ": " + err);
    all.insert(all.end(), logits.begin(), logits.end());
    rows += ids.size();
  }
  if (!write_npy_f32(a.out_file, all, rows, static_cast<uint64_t>(engine.vocab()), &err)) return fail(err);
  print_memory(engine);
  return 0;
}

// The vision tower's soft tokens of one image's patches ([n, row_width] float32) at their positions ([n, 2] int32).
int run_encode_image(Engine& engine, const Args& a) {
  std::string err;
  const EncoderSpec* vision = engine.spec().vision;
  if (!vision) return fail(a.bundle + ": the model has no vision tower");
  std::vector<float> patches;
  if (!read_f32_rows(a.patches_file, vision->row_width, &patches, &err)) return fail(err);
  NpyArray positions;
  if (!read_npy(a.positions_file, &positions, &err)) return fail(err);
  if (positions.dtype != "<i4" || positions.shape.size() != 2 || positions.shape[1] != 2)
    return fail(a.positions_file + ": positions must be int32 [n, 2]");
  const std::vector<float> soft = engine.encode_image(patches, positions.as<int32_t>(), &err);
  if (soft.empty()) return fail(a.patches_file + ": " + err);
  if (!write_npy_f32(a.out_file, soft, soft.size() / vision->out_dim, static_cast<uint64_t>(vision->out_dim), &err))
    return fail(err);
  return 0;
}

// The audio tower's soft tokens of one clip's valid log-mel frames ([n, mel] float32, time-major).
int run_encode_audio(Engine& engine, const Args& a) {
  std::string err;
  const EncoderSpec* audio = engine.spec().audio;
  if (!audio) return fail(a.bundle + ": the model has no audio tower");
  std::vector<float> frames;
  if (!read_f32_rows(a.frames_file, audio->row_width, &frames, &err)) return fail(err);
  const std::vector<float> soft = engine.encode_audio(frames, &err);
  if (soft.empty()) return fail(a.frames_file + ": " + err);
  if (!write_npy_f32(a.out_file, soft, soft.size() / audio->out_dim, static_cast<uint64_t>(audio->out_dim), &err))
    return fail(err);
  return 0;
}

// Runs every line of the ids file (one sequence each, from position 0) through the program and writes the mean
// XᵀX its taps saw, one DIR/tap<ID>.npy per tap (calibration builds; docs/quantization.md).
int run_gram(Engine& engine, const Args& a) {
  std::vector<std::vector<int32_t>> sequences;
  std::string err;
  if (!read_sequences(a.gram_file, &sequences, &err)) return fail(err);
  GramAccumulator gram;
  engine.set_tap(&GramAccumulator::hook, &gram);
  for (const std::vector<int32_t>& ids : sequences)
    if (engine.logits(ids, &err).empty()) return fail(a.gram_file + ": " + err);
  engine.set_tap(nullptr, nullptr);
  if (!gram.write(a.out_file, &err)) return fail(a.out_file + ": " + err);
  return 0;
}

// Answers every prompt of the file (one JSON string per line) greedily up to the first newline, end of sequence or
// --max-new tokens, and writes what a confidence probe reads (docs/probe.md, "Capture"): DIR/answers.jsonl (per
// prompt: the answer text, its token count and the entropy of each token's distribution) and DIR/hidden.f32 (the
// hidden tap's row for every generated token, all prompts one after another).
int run_capture(Engine& engine, const Args& a) {
  const ModelSpec& spec = engine.spec();
  if (spec.hidden_layer <= 0) return fail(a.bundle + ": the program has no hidden tap (compile it with --hidden-tap)");
  std::vector<std::string> prompts;
  std::string err;
  if (!read_json_strings(a.capture_file, &prompts, &err)) return fail(err);
  HiddenCapture capture(spec.hidden_tap, spec.dim);
  engine.set_tap(&HiddenCapture::tap_hook, &capture);
  engine.set_step_hook([&capture](const float* logits, int32_t vocab) { capture.on_logits(logits, vocab); });
  GenerateConfig cfg;
  cfg.temperature = 0.0f;
  cfg.max_new_tokens = a.max_new;
  std::ofstream answers(a.out_file + "/answers.jsonl"), hidden(a.out_file + "/hidden.f32", std::ios::binary);
  if (!answers || !hidden) return fail(a.out_file + ": cannot write (the directory must exist)");
  for (const std::string& prompt : prompts) {
    capture.clear();
    std::string text;
    auto collect = [&text](std::string_view piece, int32_t) {
      text.append(piece);
      return text.find('\n') == std::string::npos;
    };
    GenerateStats st;
    if (!engine.generate(prompt, cfg, collect, &st, &err)) return fail(a.capture_file + ": " + err);
    if (!capture.error().empty()) return fail(a.bundle + ": " + capture.error());
    text = text.substr(0, text.find('\n'));
    nlohmann::json line = {{"answer", text}, {"tokens", capture.tokens()}, {"entropy", capture.entropy()}};
    line["generate_ms"] = st.total_ms;
    if (spec.probe) {
      const auto t0 = std::chrono::steady_clock::now();
      line["p_wrong"] = engine.probe_p_wrong(capture.hidden().data(), capture.tokens());
      line["probe_ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    answers << line.dump() << "\n";
    hidden.write(reinterpret_cast<const char*>(capture.hidden().data()),
                 static_cast<std::streamsize>(capture.hidden().size() * sizeof(float)));
  }
  engine.set_tap(nullptr, nullptr);
  engine.set_step_hook(nullptr);
  answers.close(), hidden.close();
  if (!answers || !hidden) return fail(a.out_file + ": write failed");
  return 0;
}

// Reads a whole file; false + "PATH: cannot read" on failure.
bool read_file(const std::string& path, std::string* text, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return *err = path + ": cannot read", false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// A bundle opened through the C API, with the buffer saguaro_complete writes its response into.
class CompletionModel {
 public:
  explicit CompletionModel(const std::string& bundle) : model_(saguaro_init(bundle.c_str())), out_(1 << 20) {}
  ~CompletionModel() {
    if (model_) saguaro_destroy(model_);
  }
  CompletionModel(const CompletionModel&) = delete;
  CompletionModel& operator=(const CompletionModel&) = delete;

  bool loaded() const { return model_ != nullptr; }
  void stop() { saguaro_stop(model_); }
  // The response JSON, or nullptr (saguaro_last_error() says why).
  const char* complete(const char* messages, const char* options,
                       void (*on_token)(const char*, uint32_t, void*) = nullptr) {
    return saguaro_complete(model_, messages, options, out_.data(), out_.size(), on_token, nullptr) < 0 ? nullptr
                                                                                                        : out_.data();
  }

 private:
  saguaro_model_t model_;
  std::vector<char> out_;
};

// saguaro_complete on the messages (and options) files; prints the response JSON. `saguaro complete` runs this
// for the local answer and its confidence, then applies the cloud handoff policy (docs/handoff.md).
int run_complete(const Args& a) {
  std::string messages, options, err;
  if (!read_file(a.complete_file, &messages, &err)) return fail(err);
  if (!a.options_file.empty() && !read_file(a.options_file, &options, &err)) return fail(err);
  CompletionModel model(a.bundle);
  if (!model.loaded()) return fail(saguaro_last_error());
  const char* response = model.complete(messages.c_str(), options.empty() ? nullptr : options.c_str());
  if (!response) return fail(a.complete_file + ": " + saguaro_last_error());
  std::printf("%s\n", response);
  return 0;
}

// The model --serve-stdio answers with: SIGUSR1 (`saguaro serve` sends it when the client left, `saguaro chat` on
// Ctrl-C) stops the generation running on it (saguaro_stop), which then answers as usual with the text so far and
// "stopped": true.
std::atomic<CompletionModel*> g_serving{nullptr};
void stop_serving(int) {
  if (CompletionModel* model = g_serving.load()) model->stop();
}

// One completion per line of standard input, {"messages": [...], "options": {...}}, answered on standard output by
// {"token": PIECE} lines as the text is generated, then {"response": saguaro_complete's JSON} (or
// {"error": MESSAGE}); the model stays loaded between requests. `saguaro serve` and `saguaro chat` drive this over
// a pipe.

int run_serve_stdio(const Args& a) {
  CompletionModel model(a.bundle);
  if (!model.loaded()) return fail(saguaro_last_error());
  g_serving = &model;
  struct sigaction on_usr1 = {};
  on_usr1.sa_handler = stop_serving;
  on_usr1.sa_flags = SA_RESTART;  // reading the next request goes on
  sigaction(SIGUSR1, &on_usr1, nullptr);
  auto on_token = [](const char* piece, uint32_t, void*) {
    std::printf("%s\n", nlohmann::json{{"token", piece}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(stdout);
  };
  for (std::string line; std::getline(std::cin, line);) {
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    nlohmann::json reply;
    if (request.is_discarded() || !request.is_object() || !request.contains("messages")) {
      reply = {{"error", "a request line must be {\"messages\": [...], \"options\": {...}}"}};
    } else {
      const std::string messages = request["messages"].dump();
      const std::string options = request.value("options", nlohmann::json::object()).dump();
      const char* response = model.complete(messages.c_str(), options.c_str(), on_token);
      reply = !response ? nlohmann::json{{"error", saguaro_last_error()}}
                        : nlohmann::json{{"response", nlohmann::json::parse(response, nullptr, false)}};
    }
    std::printf("%s\n", reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(stdout);
  }
  g_serving = nullptr;
  return 0;
}

int run_generate(Engine& engine, Args a) {
  GenerateStats st;
  std::string err;
  for (const std::string& file : a.soft_tokens_files) {  // one image each
    a.cfg.images.emplace_back();
    if (!read_f32_rows(file, engine.spec().dim, &a.cfg.images.back(), &err)) return fail(err);
  }
  const EncoderSpec* vision = engine.spec().vision;
  if (vision && a.max_soft_tokens > compiled_soft_tokens(*vision))
    return fail("--max-soft-tokens " + std::to_string(a.max_soft_tokens) + " is above the " +
                std::to_string(compiled_soft_tokens(*vision)) + " soft tokens per image the bundle was compiled for");
  for (const std::string& file : a.image_files) {
    a.cfg.images.emplace_back();
    if (!encode_image_source(engine, {file, file, {}}, a.max_soft_tokens, &a.cfg.images.back(), &err))
      return fail(vision ? err : a.bundle + ": " + err);
  }
  for (const std::string& file : a.audio_files) {
    a.cfg.audio.emplace_back();
    if (!encode_audio_source(engine, {file, file, {}}, &a.cfg.audio.back(), &err))
      return fail(engine.spec().audio ? err : a.bundle + ": " + err);
  }
  auto print = [](std::string_view text, int32_t) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return true;
  };
  if (!engine.generate(a.prompt, a.cfg, print, &st, &err)) return fail(a.bundle + ": " + err);
  std::printf("\n");
  std::fflush(stdout);
  if (st.positions > 1 && st.total_ms > 0)
    std::fprintf(stderr, "achieved tok/s: %f\n", (st.positions - 1) / st.total_ms * 1000.0);
  std::fprintf(stderr, "prefill_tokens=%d prefill_ms=%.3f decode_tokens=%d decode_ms=%.3f\n", st.prompt_tokens,
               st.prefill_ms, st.generated_tokens, st.decode_ms);
  print_memory(engine);
  return 0;
}

}  // namespace

int bundle_main(int argc, char** argv) {
  try {
    Args a;
    std::string err;
    if (!parse_args(argc, argv, &a, &err)) return fail(err);
    if (a.bench_image) return run_bench_image(a.bundle, a.out_file, a.threads, a.load);
    if (a.bench_audio) return run_bench_audio(a.bundle, a.out_file, a.threads, a.load);
    if (a.bench) return run_bench(a.bundle, a.out_file, a.threads, a.load, a.prompt_tokens);
    if (!a.complete_file.empty()) return run_complete(a);
    if (a.serve_stdio) return run_serve_stdio(a);
    std::unique_ptr<Engine> engine = Engine::open(a.bundle, &err, a.load);
    if (!engine) return fail(err);
    engine->set_threads(a.threads);
    if (!a.gram_file.empty()) return run_gram(*engine, a);
    if (!a.capture_file.empty()) return run_capture(*engine, a);
    if (!a.patches_file.empty()) return run_encode_image(*engine, a);
    if (!a.frames_file.empty()) return run_encode_audio(*engine, a);
    return a.ids_file.empty() ? run_generate(*engine, a) : run_logits(*engine, a);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  }
}

}  // namespace saguaro
