//===- main.cpp - the saguaro command-line driver --------------------------------------===//
//
// The command table (`commands()`, at the end) and the handlers of the commands that compile,
// run and measure a model. Parsing, dispatch and every --help come from the table
// (CommandLine.h); `saguaro --help` lists the commands, `saguaro CMD --help` one's options.
//
// `run` and `logits` compile a model into a content-addressed cache directory, build the
// bundle with CMake, and execute its program; bundles are built in place.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Bench.h"
#include "compiler/driver/BenchTokenizer.h"
#include "compiler/driver/BundleCache.h"
#include "compiler/driver/Encode.h"
#include "compiler/driver/Calibrate.h"
#include "compiler/driver/CommandLine.h"
#include "compiler/driver/Compile.h"
#include "compiler/driver/Chat.h"
#include "compiler/driver/Complete.h"
#include "compiler/driver/Eval.h"
#include "compiler/driver/Features.h"
#include "compiler/driver/Inspect.h"
#include "compiler/driver/Probe.h"
#include "compiler/driver/Render.h"
#include "compiler/driver/ProbeCollect.h"
#include "compiler/driver/Serve.h"
#include "compiler/driver/Synth.h"
#include "compiler/driver/Tokenize.h"
#include "compiler/import/ModelDesc.h"
#include "saguaro/kernels/cpu_features.h"
#include "saguaro/npy_writer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <unistd.h>

using namespace saguaro;
using cli::Args;
using cli::Option;

namespace {
int fail(const llvm::Twine &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

llvm::Expected<int64_t> intFlag(const Args &a, const std::string &name, int64_t fallback) {
  if (!a.has(name))
    return fallback;
  const std::string text = a.value(name);
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0')
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "option '" + name + "' needs an integer, got '" + text + "'");
  return static_cast<int64_t>(v);
}

/// A --target value as the compiler takes it: `native` becomes the widest target this CPU runs (said on stderr),
/// anything else stays as given (codegen's targetFlags checks it).
std::string resolveTarget(const std::string &target) {
  if (target != "native")
    return target;
  std::string resolved = saguaro::kernels::native_target();
  llvm::errs() << "saguaro: --target native is " << resolved << " on this machine\n";
  return resolved;
}

/// Where a compiled program will run, which sets the target when --target is not given: a bundle written by
/// `saguaro compile` may be copied to another device, so it gets the portable `generic` code unless told
/// otherwise; a command that compiles into the bundle cache and runs the program at once (run, logits, complete,
/// serve, probe collect) gets this machine's widest target (`native`): the generic kernels are the reference, about
/// 35 times slower at decode on an AVX-512 VNNI machine (docs/user-guide.md, "run and logits").
enum class RunsOn { anyDevice, thisMachine };

/// The options of compileOptions(): every command that may compile a model takes them.
const std::vector<Option> kCompileOptions = {
    {"--target", "T", "generic, native (the widest target this CPU runs) or an ISA target (docs/user-guide.md)"},
    {"--tokenizer", "FILE", "tokenizer.bin, tokenizer.json (or its directory), .model or .gguf"},
    {"--chat-template", "FILE", "a Jinja chat template replacing tokenizer_config.json's"},
    {"--max-seq", "N", "KV-cache length in positions; default: the model's limit, at most 2048"},
    {"--prefill-chunk", "N", "rows of the prefill entry point; default min(64, max-seq)"},
    {"--bits", "B", "1-4: codebook-quantize the weight matrices; 16: binary16; 32 (default): float32"},
    {"--policy", "FILE", "JSON: bits per tensor name or kind (linear, embedding, per_layer_embedding)"},
    {"--bpw", "B", "mixed precision: bits per matrix chosen by measured sensitivity, B on average"},
    {"--calibration", "FILE", "text for GPTQ-style error feedback (and for --bpw's sensitivities)"},
    {"--damp", "F", "error feedback's damping relative to the mean of diag(H), 0 to 100"},
    {"--cq-activations", "A", "i8 (default): integer CQ kernels on int8 activations; f32: float activations"},
    {"--kv-cache", "T", "f16 (default) or f32 elements of the KV cache"},
    {"--hidden-tap", "LAYER", "expose the hidden state after LAYER (or auto: 2/3 of the depth) for a probe"},
    {"--probe", "PROBE", "fold a trained confidence probe (saguaro probe train) into the bundle"},
};

/// The compile option `name` (kCompileOptions), for a command that takes it alone.
Option compileOption(std::string_view name) {
  for (const Option &o : kCompileOptions)
    if (o.name == name)
      return o;
  llvm::report_fatal_error(llvm::Twine("no compile option ") + name);
}

llvm::Expected<CompileOptions> compileOptions(const Args &a, RunsOn where) {
  CompileOptions o;
  o.model = a.positional[0];
  if (a.has("--tokenizer"))
    o.tokenizer = a.value("--tokenizer");
  if (a.has("--target"))
    o.target = resolveTarget(a.value("--target"));
  else if (where == RunsOn::thisMachine)
    o.target = saguaro::kernels::native_target();
  if (a.has("--chat-template"))
    o.chatTemplate = a.value("--chat-template");
  if (a.has("--policy"))
    o.policy = a.value("--policy");
  auto bits = intFlag(a, "--bits", kFloatBits);
  if (!bits)
    return bits.takeError();
  o.bits = *bits;
  if (a.has("--calibration"))
    o.calibration = a.value("--calibration");
  if (a.has("--cq-activations"))
    o.cqActivations = a.value("--cq-activations");
  if (a.has("--kv-cache"))
    o.kvCache = a.value("--kv-cache");
  if (a.has("--damp")) {
    double damp = 0;
    if (llvm::StringRef(a.value("--damp")).getAsDouble(damp) || !(damp >= 0 && damp <= 100))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--damp needs a number between 0 and 100, got '" + a.value("--damp") + "'");
    o.damp = static_cast<float>(damp);
  }
  if (a.has("--bpw") && (llvm::StringRef(a.value("--bpw")).getAsDouble(o.bpw) || o.bpw <= 0))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--bpw needs a positive number, got '" + a.value("--bpw") + "'");
  if (a.has("--probe"))
    o.probe = a.value("--probe");
  if (a.has("--hidden-tap")) {
    const std::string &v = a.value("--hidden-tap");
    if (v == "auto") {
      o.hiddenTapLayer = kHiddenTapAuto;
    } else {
      auto layer = intFlag(a, "--hidden-tap", 0);
      if (!layer)
        return layer.takeError();
      if (*layer < 1)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "--hidden-tap needs a layer number of at least 1 or 'auto', got '" + v + "'");
      o.hiddenTapLayer = *layer;
    }
  }
  auto maxSeq = intFlag(a, "--max-seq", 0);
  auto chunk = intFlag(a, "--prefill-chunk", 0);
  if (!maxSeq)
    return maxSeq.takeError();
  if (!chunk)
    return chunk.takeError();
  if (*maxSeq < 0 || *chunk < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--max-seq and --prefill-chunk must be positive");
  o.maxSeq = *maxSeq;
  o.prefillChunk = *chunk;
  return o;
}

/// The bundle for MODEL_OR_BUNDLE: itself, or a cached compilation of the model for this machine.
llvm::Expected<std::string> bundleFor(const Args &a) {
  if (isBundle(a.positional[0]))
    return a.positional[0];
  auto o = compileOptions(a, RunsOn::thisMachine);
  if (!o)
    return o.takeError();
  return cachedBundle(*o);
}

int execBundle(const std::string &exe, const std::string &bundle, const std::vector<std::string> &args) {
  std::vector<char *> argv;
  std::vector<std::string> all = {exe, bundle};
  all.insert(all.end(), args.begin(), args.end());
  for (std::string &s : all)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  llvm::errs().flush();
  ::execv(exe.c_str(), argv.data());
  return fail("cannot execute " + exe);
}

/// One line naming how many weight tensors the written bundle stores in each layout, for its target (a packed
/// layout that was not applied shows here, not only in manifest.json, which names each tensor's).
void logWeightLayouts(const std::string &bundle) {
  auto manifest = readBundleManifest(bundle);
  if (!manifest) {
    llvm::consumeError(manifest.takeError());
    return;
  }
  std::map<std::string, int> counts;
  if (const llvm::json::Array *tensors = manifest->getArray("tensors"))
    for (const llvm::json::Value &t : *tensors)
      if (const llvm::json::Object *o = t.getAsObject())
        if (auto layout = o->getString("layout"))
          ++counts[layout->str()];
  std::string line;
  for (const auto &[layout, n] : counts)
    line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + layout;
  const std::string target = manifest->getString("target").value_or("?").str();
  llvm::errs() << "saguaro: weight layouts for " << target << ": " << (line.empty() ? "none" : line)
               << " (manifest.json names each tensor's)\n";
  if (const std::string native = saguaro::kernels::native_target(); target == "generic" && native != "generic")
    llvm::errs() << "saguaro: generic code runs anywhere; this machine runs " << native
                 << " (--target native), whose packed layouts and vector kernels are faster\n";
}

/// The threads of the bundle program, which logits, complete, serve and probe collect pass on too.
const std::vector<Option> kThreadsOption = {
    {"--threads", "N", "threads of the kernels; default 0 (every hardware thread)"}};

/// The options run forwards to the bundle program unchanged (docs/user-guide.md, "The bundle program").
const std::vector<Option> kSamplerOptions = cli::join({{
    {"-p", "PROMPT", "the prompt (required)"},
    {"-n", "STEPS", "positions in all, BOS and the prompt included; default 256"},
    {"-t", "TEMPERATURE", "0: greedy; default 1"},
    {"--seed", "S", "sampler seed; default: the clock"},
    {"--top-k", "K", "keep the K most likely tokens; default 0 (off)"},
    {"--top-p", "P", "nucleus sampling; default 0.9"},
    {"--min-p", "P", "drop tokens below P times the most likely one's probability; default 0 (off)"},
    {"--repetition-penalty", "R", "penalty on tokens already in the context; default 1 (off)"}},
    kThreadsOption});

int cmdCompile(const Args &a) {
  if (!a.has("-o"))
    return fail("compile needs -o BUNDLE_DIR");
  auto o = compileOptions(a, RunsOn::anyDevice);
  if (!o)
    return fail(llvm::toString(o.takeError()));
  o->handoff = a.has("--handoff");
  o->embedWeights = a.has("--embed-weights");
  if (a.has("--threads")) { // the library's; a program's thread count is the program's own --threads
    if (a.value("--threads") != "0")
      return fail("compile --threads takes only 0 (build without a thread pool), got '" + a.value("--threads") +
                  "'; a program sets its thread count at run time (--threads of run, or Engine::set_threads)");
    o->threadPool = false;
  }
  if (auto e = compileBundle(*o, a.value("-o")))
    return fail(llvm::toString(std::move(e)));
  logWeightLayouts(a.value("-o"));
  llvm::errs() << "saguaro: wrote " << a.value("-o") << "\n";
  return 0;
}

/// Runs the bundle program of MODEL_OR_BUNDLE (compiled through the cache and built first) with `args`, in place of
/// this process.
int runBundleProgram(const Args &a, const std::vector<std::string> &args) {
  auto bundle = bundleFor(a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  auto exe = buildBundle(*bundle);
  if (!exe)
    return fail(llvm::toString(exe.takeError()));
  return execBundle(*exe, *bundle, args);
}

/// The image processor config of a model directory (preprocessor_config.json or processor_config.json), or "".
std::string processorConfigOf(const std::string &model) {
  for (const char *name : {"preprocessor_config.json", "processor_config.json"})
    if (std::string path = model + "/" + name; llvm::sys::fs::exists(path))
      return path;
  return "";
}

int cmdRun(const Args &a) {
  if (!a.has("-p"))
    return fail("run needs -p PROMPT");
  std::vector<std::string> args = a.forward(kSamplerOptions);
  for (const auto &[name, value] : a.given) // the program decodes and encodes each image and clip itself
    if (name == "--image" || name == "--max-soft-tokens" || name == "--audio")
      args.insert(args.end(), {name, value});
  return runBundleProgram(a, args);
}

int cmdLogits(const Args &a) {
  if (!a.has("--token-ids") || !a.has("-o"))
    return fail("logits needs --token-ids FILE and -o OUT.npy");
  std::vector<std::string> args = {"--logits", a.value("--token-ids"), "-o", a.value("-o")};
  if (a.has("--soft-tokens"))
    args.insert(args.end(), {"--soft-tokens", a.value("--soft-tokens")});
  std::vector<std::string> threads = a.forward(kThreadsOption);
  args.insert(args.end(), threads.begin(), threads.end());
  return runBundleProgram(a, args);
}

int cmdEncode(const Args &a) {
  EncodeOptions o;
  o.image = a.value("--image");
  o.pixels = a.value("--pixels");
  o.audio = a.value("--audio");
  o.features = a.value("--features");
  o.output = a.value("-o");
  if (!o.image.empty() + !o.pixels.empty() + !o.audio.empty() + !o.features.empty() != 1 || o.output.empty())
    return fail("encode needs one of --image FILE, --pixels IMAGE.npy, --audio FILE.wav and --features MEL.npy, and "
                "-o OUT.npy");
  if (a.has("--max-soft-tokens")) {
    const std::string n = a.value("--max-soft-tokens");
    char *end = nullptr;
    const long value = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || value <= 0 || value > 1 << 20)
      return fail("encode: --max-soft-tokens: expected a positive integer, got '" + n + "'");
    o.maxSoftTokens = static_cast<int>(value);
  }
  o.config = processorConfigOf(a.positional[0]); // the model's own image processor settings
  auto bundle = bundleFor(a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  auto exe = buildBundle(*bundle);
  if (!exe)
    return fail(llvm::toString(exe.takeError()));
  o.source = a.positional[0], o.bundle = *bundle, o.program = *exe;
  o.programArgs = a.forward(kThreadsOption);
  return runEncode(o);
}

int cmdTokenize(const Args &a) {
  if (a.positional.size() != 2)
    return fail("tokenize needs SOURCE and TEXT (or, with --decode, ids)");
  TokenizeOptions o;
  o.source = a.positional[0];
  o.input = a.positional[1];
  o.decode = a.has("--decode");
  o.noSpecial = a.has("--no-special");
  return runTokenize(o);
}

int cmdRender(const Args &a) {
  if (!a.has("--messages"))
    return fail("render needs SOURCE and --messages FILE");
  RenderOptions o;
  o.source = a.positional[0];
  o.messages = a.value("--messages");
  o.tools = a.value("--tools", o.tools);
  o.generationPrompt = !a.has("--no-generation-prompt");
  return runRender(o);
}

/// Splits "a,b,c".
std::vector<std::string> splitList(const std::string &s) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(s).split(parts, ',', -1, false);
  std::vector<std::string> out;
  for (llvm::StringRef p : parts)
    out.push_back(p.trim().str());
  return out;
}

int cmdEval(const Args &a) {
  if (!a.has("--text"))
    return fail("eval needs --text FILE");
  EvalOptions o;
  o.json = a.has("--json");
  o.model = a.positional[0];
  o.text = a.value("--text");
  o.tokenizer = a.value("--tokenizer", o.tokenizer);
  o.tasks = a.value("--tasks", o.tasks);
  o.calibration = a.value("--calibration", o.calibration);
  o.scoreAfter = a.value("--score-after", o.scoreAfter);
  if (a.has("--damp")) {
    double damp = 0;
    if (llvm::StringRef(a.value("--damp")).getAsDouble(damp) || !(damp >= 0 && damp <= 100))
      return fail("--damp needs a number between 0 and 100, got '" + a.value("--damp") + "'");
    o.damp = static_cast<float>(damp);
  }
  if (a.has("--method"))
    o.methods = splitList(a.value("--method"));
  if (a.has("--bits")) {
    o.bits.clear();
    for (const std::string &b : splitList(a.value("--bits"))) {
      int v = 0;
      if (llvm::StringRef(b).getAsInteger(10, v))
        return fail("--bits takes a comma-separated list of integers, got '" + b + "'");
      o.bits.push_back(v);
    }
  }
  auto maxTokens = intFlag(a, "--max-tokens", 2048);
  if (!maxTokens || *maxTokens < 2)
    return fail(maxTokens ? "--max-tokens must be at least 2" : llvm::toString(maxTokens.takeError()));
  o.maxTokens = static_cast<int>(*maxTokens);
  if (a.has("--bpw") && (llvm::StringRef(a.value("--bpw")).getAsDouble(o.bpw) || o.bpw <= 0))
    return fail("--bpw needs a positive number, got '" + a.value("--bpw") + "'");
  return runEval(o);
}

/// `saguaro calibrate`: writes DIR/<weight>.npy, the mean XᵀX of the input of every float weight matrix.
int cmdCalibrate(const Args &a) {
  if (a.has("--text") == a.has("--token-ids") || !a.has("-o"))
    return fail("calibrate needs one of --text FILE and --token-ids FILE, and -o DIR");
  CompileOptions model;
  model.model = a.positional[0];
  model.tokenizer = a.value("--tokenizer", model.tokenizer);
  HessianMap hessians;
  llvm::Error e = a.has("--text") ? measureHessians(model, a.value("--text"), hessians)
                                  : measureHessiansOnIds(model, a.value("--token-ids"), hessians);
  if (e)
    return fail(llvm::toString(std::move(e)));
  const std::string dir = a.value("-o");
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail(dir + ": cannot create: " + ec.message());
  for (const auto &[name, h] : hessians) {
    std::string err;
    uint64_t k = static_cast<uint64_t>(std::llround(std::sqrt(static_cast<double>(h.size()))));
    if (!write_npy_f32(dir + "/" + name + ".npy", h, k, k, &err)) {
      llvm::sys::fs::remove_directories(dir);
      return fail(err);
    }
  }
  llvm::errs() << "saguaro: wrote " << hessians.size() << " Gram matrices to " << dir << "\n";
  return 0;
}

int cmdInspect(const Args &a) {
  if (a.has("--tensor") != a.has("-o"))
    return fail("inspect needs both --tensor NAME and -o FILE, or neither");
  return runInspect(a.positional[0], a.value("--tensor"), a.value("-o"));
}

/// Parses a comma-separated list of integers for `flag`.
llvm::Expected<std::vector<int>> intList(const std::string &flag, const std::string &value) {
  std::vector<int> out;
  for (const std::string &item : splitList(value)) {
    int v = 0;
    if (llvm::StringRef(item).getAsInteger(10, v))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     flag + " takes a comma-separated list of integers, got '" + item + "'");
    out.push_back(v);
  }
  if (out.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), flag + " needs at least one value");
  return out;
}

/// `saguaro bench MODEL`: speed and efficiency of the compiled model per bits value (Bench.h).
int cmdModelBench(const Args &a) {
  if (a.positional.empty())
    return fail(cli::usageLine(*a.command));
  BenchOptions o;
  o.json = a.has("--json");
  o.model = a.positional[0];
  if (a.has("--target"))
    o.target = resolveTarget(a.value("--target"));
  if (a.has("--kv-cache"))
    o.kvCache = a.value("--kv-cache");
  if (a.has("--policy") && a.has("--bits"))
    return fail("bench takes --bits or --policy, not both");
  if (a.has("--policy"))
    o.policy = a.value("--policy"), o.bits = {0};
  auto promptTokens = intFlag(a, "--prompt-tokens", o.promptTokens);
  if (!promptTokens || *promptTokens < 1 || *promptTokens > (1 << 20))
    return fail(promptTokens ? "--prompt-tokens needs a positive number" : llvm::toString(promptTokens.takeError()));
  o.promptTokens = static_cast<int>(*promptTokens);
  o.image = a.has("--image"), o.audio = a.has("--audio");
  if (o.image && o.audio)
    return fail("bench takes --image or --audio, not both");
  if ((o.image || o.audio) && !a.has("--bits"))
    o.bits = {4}; // the towers' default quantization
  for (auto [flag, out] : {std::pair<const char *, std::vector<int> *>{"--bits", &o.bits}, {"--threads", &o.threads}})
    if (a.has(flag)) {
      auto list = intList(flag, a.value(flag));
      if (!list)
        return fail(llvm::toString(list.takeError()));
      *out = *list;
    }
  return runModelBench(o);
}

int cmdTokenizerBench(const Args &a) {
  if (a.positional.empty())
    return fail(cli::usageLine(*a.command));
  return runTokenizerBench(a.positional[0], a.value("--text"), a.has("--json"));
}

/// `saguaro synth CONFIG.json -o DIR [--seed S]`: a random-weight model with the config's shapes.
int cmdSynth(const Args &a) {
  if (a.positional.empty() || !a.has("-o"))
    return fail("synth needs CONFIG.json and -o DIR");
  auto seed = intFlag(a, "--seed", 0);
  if (!seed || *seed < 0)
    return fail(seed ? "--seed must be non-negative" : llvm::toString(seed.takeError()));
  if (auto e = synthesizeModel(a.positional[0], a.value("-o"), static_cast<uint64_t>(*seed)))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

int cmdComplete(const Args &a) {
  if (!a.has("--messages"))
    return fail("complete needs MODEL_OR_BUNDLE and --messages JSON_OR_FILE");
  auto bundle = bundleFor(a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  CompleteOptions o;
  o.bundle = *bundle;
  o.messages = a.value("--messages");
  o.options = a.value("--options", o.options);
  o.tools = a.value("--tools", o.tools);
  o.task = a.value("--task", o.task);
  o.responseFormat = a.value("--response-format");
  o.threads = a.value("--threads", o.threads);
  return runComplete(o);
}

int cmdChat(const Args &a) {
  auto options = readSessionOptions(a.value("--options"));
  if (!options) // before anything is compiled
    return fail(llvm::toString(options.takeError()));
  auto bundle = bundleFor(a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  ChatOptions o;
  o.bundle = *bundle;
  o.name = a.positional[0];
  o.options = *options;
  o.system = a.value("--system", o.system);
  o.threads = a.value("--threads", o.threads);
  return runChat(o);
}

int cmdServe(const Args &a) {
  auto port = intFlag(a, "--port", 8080);
  if (!port || *port < 0 || *port > 65535)
    return fail(port ? "--port must be between 0 and 65535" : llvm::toString(port.takeError()));
  auto queue = intFlag(a, "--queue", ServeOptions().limits.max_waiting);
  if (!queue || *queue < 0 || *queue > 1000)
    return fail(queue ? "--queue must be between 0 and 1000" : llvm::toString(queue.takeError()));
  auto timeout = intFlag(a, "--request-timeout", ServeOptions().limits.request_timeout_ms / 1000);
  if (!timeout || *timeout < 1 || *timeout > 3600)
    return fail(timeout ? "--request-timeout must be between 1 and 3600 seconds" : llvm::toString(timeout.takeError()));
  auto apiKey = serveApiKey(a.value("--api-key-file"));
  if (!apiKey) // before anything is compiled
    return fail(llvm::toString(apiKey.takeError()));
  auto options = readSessionOptions(a.value("--options"));
  if (!options)
    return fail(llvm::toString(options.takeError()));
  auto bundle = bundleFor(a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  ServeOptions o;
  o.apiKey = *apiKey;
  o.options = *options;
  o.bundle = *bundle;
  o.port = static_cast<int>(*port);
  o.modelId = a.value("--model-id", llvm::sys::path::filename(llvm::StringRef(a.positional[0]).rtrim('/')).str());
  o.host = a.value("--host", o.host);
  o.threads = a.value("--threads", o.threads);
  o.limits.max_waiting = static_cast<int>(*queue);
  o.limits.request_timeout_ms = *timeout * 1000;
  return runServe(o);
}

/// `saguaro auth PROVIDER [--key-file FILE]` (the key from FILE or standard input, never the command line).
int cmdAuth(const Args &a) { return runAuth(a.positional[0], a.value("--key-file", "-")); }

/// `saguaro probe collect`; the other probe commands are Probe.cpp's.
int cmdProbeCollect(const Args &a) {
  if (!a.has("--tasks") || !a.has("-o"))
    return fail("probe collect needs MODEL_OR_BUNDLE, --tasks FILE and -o DATA");
  CollectOptions o;
  o.tasks = a.value("--tasks", o.tasks);
  o.out = a.value("-o");
  o.threads = a.value("--threads", o.threads);
  o.promptTemplate = a.value("--prompt-template", o.promptTemplate);
  auto maxNew = intFlag(a, "--max-new", 32);
  if (!maxNew || *maxNew < 1)
    return fail(maxNew ? "--max-new must be at least 1" : llvm::toString(maxNew.takeError()));
  o.maxNew = *maxNew;
  std::vector<ProbeTask> tasks; // checked before anything is compiled
  if (auto e = readProbeTasks(o.tasks, tasks))
    return fail(llvm::toString(std::move(e)));
  if (isBundle(a.positional[0])) {
    o.bundle = a.positional[0];
  } else {
    auto co = compileOptions(a, RunsOn::thisMachine);
    if (!co)
      return fail(llvm::toString(co.takeError()));
    if (co->hiddenTapLayer == 0)
      co->hiddenTapLayer = kHiddenTapAuto; // a probe reads about 2/3 of the depth unless told otherwise
    auto bundle = cachedBundle(*co);
    if (!bundle)
      return fail(llvm::toString(bundle.takeError()));
    o.bundle = *bundle;
  }
  if (auto e = collectProbeData(o, tasks))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

/// Every command, in the order `saguaro --help` lists them.
std::vector<cli::Command> commands() {
  using cli::join;
  std::vector<cli::Command> table = {
      {"compile", "MODEL -o BUNDLE_DIR [options]",
       "compile a model into a bundle directory that builds and runs without Saguaro",
       join({{{"-o", "BUNDLE_DIR", "the bundle directory (required); an existing one is replaced"}},
             kCompileOptions,
             {{"--handoff", "", "ship the cloud handoff in the bundle (docs/handoff.md); it then links libcurl"},
              {"--embed-weights", "", "also build libsaguaro_model.a: model, runtime and weights in one static "
                                      "library that reads no file (docs/firmware.md)"},
              {"--threads", "0", "build the runtime without a thread pool: the kernels run on the calling thread, "
                                 "no threads library"}}}),
       cmdCompile},
      {"run", "MODEL_OR_BUNDLE -p PROMPT [--image FILE ...] [--max-soft-tokens N] [--audio FILE.wav ...] [options]",
       "generate text: compile the model into the cache if needed, build the bundle and run its program",
       join({kSamplerOptions,
             {{"--image", "FILE", "a PNG or JPEG for the vision tower, repeatable: each takes an <|image|> of the "
                                  "prompt in order, or goes before it"},
              {"--max-soft-tokens", "N", "the images' soft-token budget (70, 140, 280, 560, 1120); default: the "
                                         "compiled one"},
              {"--audio", "FILE.wav", "a WAV clip for the audio tower (any rate, at most 30 s; longer is refused), "
                                      "repeatable: each takes an <|audio|> of the prompt in order, or goes before it"}},
             kCompileOptions}),
       cmdRun},
      {"logits", "MODEL_OR_BUNDLE --token-ids FILE -o OUT.npy [options]",
       "write the float32 logits of a prefill of each line of token ids",
       join({{{"--token-ids", "FILE", "whitespace-separated token ids, one sequence a line (required)"},
              {"-o", "OUT.npy", "the logits, float32 [T, vocab] (required)"},
              {"--soft-tokens", "SOFT.npy", "float32 [n, dim]: the rows the image placeholders take, in order "
                                            "(one sequence)"}},
             kThreadsOption,
             kCompileOptions}),
       cmdLogits},
      {"encode",
       "MODEL_OR_BUNDLE (--image FILE | --pixels IMAGE.npy | --audio FILE.wav | --features MEL.npy) -o OUT.npy "
       "[options]",
       "write the soft tokens a model's vision tower makes of an image, or its audio tower of a clip",
       join({{{"--image", "FILE", "a PNG or JPEG, resized as the model's image processor does"},
              {"--pixels", "IMAGE.npy", "or an image already resized: [H, W, 3] uint8, or float32 in [0, 1]"},
              {"--audio", "FILE.wav", "or a WAV clip (any rate, at most 30 s; - reads it from standard input as it arrives), "
                           "made into Gemma 4's log-mel frames"},
              {"--features", "MEL.npy", "or those frames: float32 [n, 128], time-major, the valid frames only"},
              {"--max-soft-tokens", "N", "this image's budget (70, 140, 280, 560, 1120); default: the compiled one"},
              {"-o", "OUT.npy", "the soft tokens, float32 [n, dim] (required)"}},
             kThreadsOption,
             kCompileOptions}),
       cmdEncode},
      {"tokenize", "SOURCE TEXT [--decode] [--no-special]",
       "print the token ids of TEXT with the tokenizer of a model, a bundle or a tokenizer file",
       {{"--decode", "", "TEXT is space-separated ids: print their text"},
        {"--no-special", "", "no BOS or other special tokens"}},
       cmdTokenize, 0, 2, /*lastPositionalMayStartWithDash=*/true},
      {"render", "SOURCE --messages FILE [--tools FILE] [--no-generation-prompt]",
       "print the prompt the compiled chat template of a bundle, a model directory or a .jinja file makes",
       {{"--messages", "FILE", "OpenAI-style messages, a JSON array (required)"},
        {"--tools", "FILE", "OpenAI tools, a JSON array"},
        {"--no-generation-prompt", "", "leave out the text that opens the assistant's answer"}},
       cmdRender, 1, 1},
      {"eval", "MODEL --text FILE [options]",
       "perplexity (and task accuracy) of quantized variants of a model beside float32",
       {{"--text", "FILE", "the text scored (required)"},
        compileOption("--tokenizer"),
        {"--bits", "LIST", "bit widths, comma-separated; default 4,3,2"},
        {"--method", "LIST", "cq, gptq, q4_0, rtn-asym, rtn-sym, comma-separated; default cq,rtn-asym,rtn-sym"},
        {"--calibration", "FILE", "text for error feedback (cq) or GPTQ (needed by gptq)"},
        compileOption("--damp"),
        {"--bpw", "B", "also a mixed-precision variant with B bits per weight on average"},
        {"--tasks", "FILE", "PROMPT<TAB>ANSWER lines: greedy task accuracy of every variant"},
        {"--score-after", "MARKER", "score only the tokens after MARKER in each document"},
        {"--max-tokens", "N", "tokens fed at most; default 2048"},
        cli::kJsonOption},
       cmdEval},
      {"calibrate", "MODEL (--text FILE | --token-ids FILE) -o DIR [--tokenizer FILE]",
       "write the mean XᵀX of the input of every weight matrix, the Hessians of error feedback",
       {{"--text", "FILE", "the text the model runs on"},
        {"--token-ids", "FILE", "or token id sequences, one a line"},
        {"-o", "DIR", "one DIR/<weight>.npy each (required)"},
        compileOption("--tokenizer")},
       cmdCalibrate},
      {"inspect", "BUNDLE [--tensor NAME -o FILE]",
       "list the tensors of a bundle's weights.sgw (checking every checksum), or extract one",
       {{"--tensor", "NAME", "the tensor to extract"}, {"-o", "FILE", "where its bytes go"}}, cmdInspect},
      {"bench", "MODEL [options]",
       "prefill and decode speed and efficiency of a model compiled at each bit width and thread count",
       {{"--bits", "LIST", "bit widths, comma-separated; default 4,3,2,16"},
        {"--policy", "FILE", "instead of --bits: one bundle quantized as compile --policy says"},
        {"--threads", "LIST", "thread counts, comma-separated; default 1 and every hardware thread"},
        {"--prompt-tokens", "N", "prompt length of the prefill measurement; default 128"},
        {"--image", "", "the vision tower instead: encoder, soft-token prefill and preprocessing of one image "
                        "(bits default 4)"},
        {"--audio", "", "the audio tower instead: encoder on 30 s, soft-token prefill, log-mel, time from the last "
                        "sample to the first token (bits default 4)"},
        {"--target", "T", "as compile's; default native"},
        compileOption("--kv-cache"),
        cli::kJsonOption},
       cmdModelBench, 0, 1},
      {"bench tokenizer", "SOURCE [--text FILE] [--json]",
       "encode speed of a tokenizer (beside the sentencepiece library for a .model)",
       {{"--text", "FILE", "lines to encode; default: a built-in multilingual text"},
        cli::kJsonOption},
       cmdTokenizerBench, 0, 1},
      {"bench audio", "[FILE] [--runs N] [--json]", "time the Whisper log-mel front-end on 30 s of audio",
       {{"--runs", "N", "timed runs; default 20"}, {"--json", "", "print JSON instead of a line"}}, runBenchAudio,
       0, 1},
      {"synth", "CONFIG.json -o DIR [--seed S]",
       "write a Hugging Face model with a config's shapes and seeded random weights",
       {{"-o", "DIR", "the model directory (required)"}, {"--seed", "S", "default 0"}}, cmdSynth, 0, 1},
      {"features audio",
       "FILE --mel whisper-80|whisper-128|gemma4 [--pad-30s] [--config preprocessor_config.json] [--pcm-only] "
       "[--mask MASK.npy] -o OUT.npy",
       "write the log-mel features of an audio file as .npy",
       {{"--mel", "PRESET", "whisper-80, whisper-128 or gemma4"},
        {"--config", "FILE", "a preprocessor_config.json instead of a preset"},
        {"--pad-30s", "", "zero-pad or trim to 30 s first"},
        {"--pcm-only", "", "write the decoded 16 kHz samples instead"},
        {"--mask", "MASK.npy", "also write gemma4's frame mask (bool [frames], true = real audio)"},
        {"-o", "OUT.npy", "the output (required)"}},
       runFeaturesAudio, 0, 1},
      {"features image",
       "FILE|--pixels IMAGE.npy [--decode-only | --resized-only] [--config CONFIG.json] [--max-soft-tokens N] "
       "-o OUT.npy [--positions POS.npy]",
       "write the decoded pixels or the vision-tower features of an image as .npy",
       {{"--decode-only", "", "write the decoded uint8 [H, W, 3] pixels"},
        {"--resized-only", "", "write the resized uint8 [H', W', 3] pixels"},
        {"--config", "FILE", "the preprocessor_config.json or processor_config.json of the features"},
        {"--max-soft-tokens", "N", "Gemma 4: the soft-token budget (70, 140, 280, 560, 1120); default the config's"},
        {"--positions", "POS.npy", "Gemma 4: also write the patch positions, int32 [n, 2] (x, y)"},
        {"--pixels", "IMAGE.npy", "Gemma 4: start from resized [H, W, 3] pixels, uint8 or float32 in [0, 1]"},
        {"-o", "OUT.npy", "the output (required)"}},
       runFeaturesImage, 0, 1},
      {"complete", "MODEL_OR_BUNDLE --messages JSON_OR_FILE [options]",
       "answer chat messages locally, then apply the cloud handoff policy (docs/handoff.md)",
       join({{{"--messages", "JSON_OR_FILE", "the chat messages (required)"},
              {"--options", "JSON_OR_FILE", "generation options and the handoff policy"},
              {"--tools", "FILE", "OpenAI tools (a JSON array) the answer may call (\"tool_calls\")"},
              {"--task", "TAG", "selects a route of the policy's routes"},
              {"--response-format", "JSON_OR_FILE", "constrain the answer: {\"type\": \"json_schema\", ...} "
                                                    "(docs/structured-output.md)"}},
             kThreadsOption,
             kCompileOptions}),
       cmdComplete},
      {"chat", "MODEL_OR_BUNDLE [options]",
       "talk to a model in the terminal: streamed replies, /help for commands, Ctrl-C stops a reply",
       join({{{"--options", "JSON_OR_FILE", "generation options and the handoff policy, for every reply"},
              {"--system", "TEXT", "the system message to start with"}},
             kThreadsOption,
             kCompileOptions}),
       cmdChat},
      {"serve", "MODEL_OR_BUNDLE [options]",
       "serve OpenAI's /v1/chat/completions; a handoff policy in --options makes every answer hybrid",
       join({{{"--port", "P", "default 8080; 0: any free port"},
              {"--host", "ADDRESS", "default 127.0.0.1"},
              {"--model-id", "NAME", "the model name clients see; default: the directory's"},
              {"--api-key-file", "FILE", "the key clients must send; default $SAGUARO_SERVE_API_KEY"},
              {"--queue", "N", "requests that may wait for the model; more get 429 (default 8)"},
              {"--request-timeout", "S", "seconds a request may take to arrive whole (default 10)"},
              {"--options", "JSON_OR_FILE", "complete's options, for every request"}},
             kThreadsOption,
             kCompileOptions}),
       cmdServe},
      {"auth", "openai|anthropic|gemini [--key-file FILE]",
       "store a cloud provider's API key, read from standard input by default",
       {{"--key-file", "FILE", "read the key from FILE"}}, cmdAuth},
      {"probe collect", "MODEL_OR_BUNDLE --tasks FILE -o DATA [options]",
       "answer a task suite and record the hidden states and grades a confidence probe learns from",
       join({{{"--tasks", "FILE", "the task suite, JSON lines (docs/tasks.md) (required)"},
              {"-o", "DATA", "the probe data file (required)"},
              {"--max-new", "N", "new tokens per answer at most; default 32"},
              {"--prompt-template", "TEXT", "the prompt, {question} replaced; default \"Q: {question}\\nA:\""}},
             kThreadsOption,
             kCompileOptions}),
       cmdProbeCollect},
  };
  for (const cli::Command &c : probeCommands())
    table.push_back(c);
  return table;
}
} // namespace

int main(int argc, char **argv) { return cli::dispatch(commands(), std::vector<std::string>(argv + 1, argv + argc)); }
