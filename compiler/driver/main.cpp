//===- main.cpp - the saguaro command-line driver --------------------------------------===//
//
//   saguaro compile MODEL -o BUNDLE_DIR [--target T] [--tokenizer FILE] [--max-seq N]
//                                       [--prefill-chunk N] [--handoff]
//   saguaro run MODEL_OR_BUNDLE [--tokenizer FILE] -p PROMPT [-n STEPS] [-t TEMP] [--seed S] ...
//   saguaro logits MODEL_OR_BUNDLE --token-ids FILE -o OUT.npy
//   saguaro calibrate MODEL (--text FILE | --token-ids FILE) -o DIR
//   saguaro probe collect|train|eval|calibrate ...
//   saguaro tokenize SOURCE TEXT [--decode] [--no-special]
//   saguaro synth CONFIG.json -o DIR [--seed S]
//   saguaro bench MODEL [--bits 4,3,2,16] [--threads 1] [--json]
//
// `run` and `logits` compile a model into a content-addressed cache directory, build the
// bundle with CMake, and execute its program; bundles are built in place.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/Bench.h"
#include "compiler/driver/BenchTokenizer.h"
#include "compiler/driver/BundleCache.h"
#include "compiler/driver/Calibrate.h"
#include "compiler/driver/Compile.h"
#include "compiler/driver/Complete.h"
#include "compiler/driver/Eval.h"
#include "compiler/driver/Features.h"
#include "compiler/driver/Inspect.h"
#include "compiler/driver/Probe.h"
#include "compiler/driver/ProbeCollect.h"
#include "compiler/driver/Serve.h"
#include "compiler/driver/Synth.h"
#include "compiler/driver/Tokenize.h"
#include "compiler/import/ModelDesc.h"
#include "npy_writer.h"
#include "saguaro/kernels/cpu_features.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <unistd.h>

using namespace saguaro;

namespace {
const char *kUsage = R"(usage:
  saguaro compile MODEL -o BUNDLE_DIR [--target generic|x86-avx2|x86-avx512vnni|aarch64-neon|aarch64-dotprod|aarch64-i8mm]
                  [--tokenizer FILE] [--chat-template FILE] [--max-seq N] [--prefill-chunk N]
                  [--bits 1|2|3|4|16|32] [--policy FILE | --bpw B] [--calibration FILE [--damp F]]
                  [--cq-activations i8|f32] [--kv-cache f16|f32] [--hidden-tap LAYER|auto] [--probe PROBE]
                  [--handoff]
  saguaro run MODEL_OR_BUNDLE [--tokenizer FILE] -p PROMPT [-n STEPS] [-t TEMPERATURE] [--seed S]
                  [--top-k K] [--top-p P] [--min-p P] [--repetition-penalty R] [--threads N] [--target T]
                  [--max-seq N] [--prefill-chunk N] [--kv-cache f16|f32]
  saguaro tokenize SOURCE TEXT [--decode] [--no-special]
  saguaro bench tokenizer SOURCE [--text FILE] [--json]
  saguaro bench MODEL [--bits 4,3,2,16] [--threads 1,2] [--target T] [--kv-cache f16|f32] [--json]
  saguaro synth CONFIG.json -o DIR [--seed S]
  saguaro features audio FILE --mel whisper-80|whisper-128|gemma [--pad-30s] [--config preprocessor_config.json] [--pcm-only] -o OUT.npy
  saguaro features image FILE [--decode-only] [--config preprocessor_config.json] -o OUT.npy
  saguaro bench audio [FILE] [--runs N] [--json]
  saguaro inspect BUNDLE [--tensor NAME -o FILE]
  saguaro eval MODEL --text FILE [--tokenizer FILE] [--bits 4,3,2] [--method cq,gptq,rtn-asym,rtn-sym]
                  [--calibration FILE [--damp F]] [--bpw B] [--tasks FILE] [--score-after MARKER] [--max-tokens N]
                  [--json]
  saguaro complete MODEL_OR_BUNDLE --messages JSON_OR_FILE [--options JSON_OR_FILE] [--task TAG]
                  (local answer, then the cloud handoff policy: docs/handoff.md)
  saguaro serve MODEL_OR_BUNDLE [--port P] [--host 127.0.0.1] [--model-id NAME] [--api-key-file FILE]
                  [--options JSON_OR_FILE]   (OpenAI /v1/chat/completions; the key also from
                  $SAGUARO_SERVE_API_KEY; a hand-off policy in --options makes every answer hybrid)
  saguaro auth openai|anthropic|gemini [--key-file FILE]   (reads the key from standard input by default)
  saguaro probe collect MODEL_OR_BUNDLE --tasks FILE -o DATA [--max-new N] [--hidden-tap LAYER|auto] [--bits B]
  saguaro probe train DATA -o PROBE [--seed S]    (all options: docs/probe.md)
  saguaro probe eval PROBE DATA [--json] [--cloud-accuracy A]
  saguaro probe calibrate PROBE DATA --handoff-rate R [--json]
  saguaro calibrate MODEL (--text FILE | --token-ids FILE) -o DIR [--tokenizer FILE]
  saguaro logits MODEL_OR_BUNDLE --token-ids FILE -o OUT.npy [--tokenizer FILE] [--target T] [--kv-cache f16|f32]
                  [--max-seq N] [--prefill-chunk N]
)";

int fail(const llvm::Twine &message) {
  llvm::errs() << "saguaro: " << message << "\n";
  return 1;
}

/// Flags of a subcommand: `--name value` pairs plus one positional argument.
struct Args {
  std::string positional;
  std::map<std::string, std::string> flags;
  std::vector<std::string> passThrough; // sampler flags forwarded to the bundle program
};

const std::vector<std::string> kForwarded = {"-p", "-n", "-t", "--seed", "--top-k", "--top-p",
                                             "--min-p", "--repetition-penalty", "--threads"};

/// The options of compileOptions(): every command that may compile a model takes them.
std::vector<std::string> withCompileFlags(std::vector<std::string> own) {
  for (const char *f : {"--target", "--tokenizer", "--chat-template", "--max-seq", "--prefill-chunk", "--bits",
                        "--policy", "--bpw", "--calibration", "--damp", "--cq-activations", "--kv-cache", "--hidden-tap",
                        "--probe"})
    own.push_back(f);
  return own;
}

/// argv without the switch `name` (a flag without a value, which parseArgs would pair with the next argument);
/// `present` tells whether it was there.
std::vector<char *> takeSwitch(int argc, char **argv, llvm::StringRef name, bool &present) {
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    if (name == argv[i])
      present = true;
    else
      rest.push_back(argv[i]);
  }
  return rest;
}

llvm::Expected<Args> parseArgs(int argc, char **argv, const std::vector<std::string> &known) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() > 1 && arg[0] == '-') {
      bool forwarded = std::find(kForwarded.begin(), kForwarded.end(), arg) != kForwarded.end();
      if (!forwarded && std::find(known.begin(), known.end(), arg) == known.end())
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "unknown option '" + arg + "'");
      if (i + 1 >= argc)
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "option '" + arg + "' needs a value");
      a.flags[arg] = argv[++i];
      if (forwarded) {
        a.passThrough.push_back(arg);
        a.passThrough.push_back(argv[i]);
      }
    } else if (a.positional.empty()) {
      a.positional = arg;
    } else {
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "unexpected argument '" + arg + "'");
    }
  }
  if (a.positional.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "missing MODEL argument");
  return a;
}

llvm::Expected<int64_t> intFlag(const Args &a, const std::string &name, int64_t fallback) {
  auto it = a.flags.find(name);
  if (it == a.flags.end())
    return fallback;
  char *end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0')
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "option '" + name + "' needs an integer, got '" + it->second + "'");
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

llvm::Expected<CompileOptions> compileOptions(const Args &a, RunsOn where) {
  CompileOptions o;
  o.model = a.positional;
  if (a.flags.count("--tokenizer"))
    o.tokenizer = a.flags.at("--tokenizer");
  if (a.flags.count("--target"))
    o.target = resolveTarget(a.flags.at("--target"));
  else if (where == RunsOn::thisMachine)
    o.target = saguaro::kernels::native_target();
  if (a.flags.count("--chat-template"))
    o.chatTemplate = a.flags.at("--chat-template");
  if (a.flags.count("--policy"))
    o.policy = a.flags.at("--policy");
  auto bits = intFlag(a, "--bits", kFloatBits);
  if (!bits)
    return bits.takeError();
  o.bits = *bits;
  if (a.flags.count("--calibration"))
    o.calibration = a.flags.at("--calibration");
  if (a.flags.count("--cq-activations"))
    o.cqActivations = a.flags.at("--cq-activations");
  if (a.flags.count("--kv-cache"))
    o.kvCache = a.flags.at("--kv-cache");
  if (a.flags.count("--damp")) {
    double damp = 0;
    if (llvm::StringRef(a.flags.at("--damp")).getAsDouble(damp) || !(damp >= 0 && damp <= 100))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--damp needs a number between 0 and 100, got '" + a.flags.at("--damp") + "'");
    o.damp = static_cast<float>(damp);
  }
  if (a.flags.count("--bpw") && (llvm::StringRef(a.flags.at("--bpw")).getAsDouble(o.bpw) || o.bpw <= 0))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--bpw needs a positive number, got '" + a.flags.at("--bpw") + "'");
  if (a.flags.count("--probe"))
    o.probe = a.flags.at("--probe");
  if (a.flags.count("--hidden-tap")) {
    const std::string &v = a.flags.at("--hidden-tap");
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
  if (isBundle(a.positional))
    return a.positional;
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

int cmdCompile(int argc, char **argv) {
  bool handoff = false;
  std::vector<char *> rest = takeSwitch(argc, argv, "--handoff", handoff);
  auto a = parseArgs(static_cast<int>(rest.size()), rest.data(), withCompileFlags({"-o"}));
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("-o"))
    return fail("compile needs -o BUNDLE_DIR");
  auto o = compileOptions(*a, RunsOn::anyDevice);
  if (!o)
    return fail(llvm::toString(o.takeError()));
  o->handoff = handoff;
  if (auto e = compileBundle(*o, a->flags.at("-o")))
    return fail(llvm::toString(std::move(e)));
  logWeightLayouts(a->flags.at("-o"));
  llvm::errs() << "saguaro: wrote " << a->flags.at("-o") << "\n";
  return 0;
}

int cmdRun(int argc, char **argv) {
  auto a = parseArgs(argc, argv, withCompileFlags({}));
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("-p"))
    return fail("run needs -p PROMPT");
  auto bundle = bundleFor(*a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  auto exe = buildBundle(*bundle);
  if (!exe)
    return fail(llvm::toString(exe.takeError()));
  return execBundle(*exe, *bundle, a->passThrough);
}

int cmdLogits(int argc, char **argv) {
  auto a = parseArgs(argc, argv, withCompileFlags({"--token-ids", "-o"}));
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("--token-ids") || !a->flags.count("-o"))
    return fail("logits needs --token-ids FILE and -o OUT.npy");
  auto bundle = bundleFor(*a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  auto exe = buildBundle(*bundle);
  if (!exe)
    return fail(llvm::toString(exe.takeError()));
  std::vector<std::string> args = {"--logits", a->flags.at("--token-ids"), "-o", a->flags.at("-o")};
  args.insert(args.end(), a->passThrough.begin(), a->passThrough.end());
  return execBundle(*exe, *bundle, args);
}
int cmdTokenize(int argc, char **argv) {
  TokenizeOptions o;
  std::vector<std::string> positional;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--decode")
      o.decode = true;
    else if (arg == "--no-special")
      o.noSpecial = true;
    else if (arg.size() > 1 && arg[0] == '-' && positional.size() == 1 && !o.decode)
      positional.push_back(arg); // text that starts with '-'
    else if (arg.size() > 2 && arg.rfind("--", 0) == 0)
      return fail("unknown option '" + arg + "'");
    else
      positional.push_back(arg);
  }
  if (positional.size() != 2)
    return fail("tokenize needs SOURCE and TEXT (or, with --decode, ids)");
  o.source = positional[0];
  o.input = positional[1];
  return runTokenize(o);
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

int cmdEval(int argc, char **argv) {
  EvalOptions o;
  std::vector<char *> rest = takeSwitch(argc, argv, "--json", o.json);
  auto a = parseArgs(static_cast<int>(rest.size()), rest.data(),
                     {"--text", "--tokenizer", "--bits", "--method", "--max-tokens", "--bpw", "--tasks", "--calibration",
                      "--score-after", "--damp"});
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("--text"))
    return fail("eval needs --text FILE");
  o.model = a->positional;
  o.text = a->flags.at("--text");
  if (a->flags.count("--tokenizer"))
    o.tokenizer = a->flags.at("--tokenizer");
  if (a->flags.count("--tasks"))
    o.tasks = a->flags.at("--tasks");
  if (a->flags.count("--calibration"))
    o.calibration = a->flags.at("--calibration");
  if (a->flags.count("--score-after"))
    o.scoreAfter = a->flags.at("--score-after");
  if (a->flags.count("--damp")) {
    double damp = 0;
    if (llvm::StringRef(a->flags.at("--damp")).getAsDouble(damp) || !(damp >= 0 && damp <= 100))
      return fail("--damp needs a number between 0 and 100, got '" + a->flags.at("--damp") + "'");
    o.damp = static_cast<float>(damp);
  }
  if (a->flags.count("--method"))
    o.methods = splitList(a->flags.at("--method"));
  if (a->flags.count("--bits")) {
    o.bits.clear();
    for (const std::string &b : splitList(a->flags.at("--bits"))) {
      int v = 0;
      if (llvm::StringRef(b).getAsInteger(10, v))
        return fail("--bits takes a comma-separated list of integers, got '" + b + "'");
      o.bits.push_back(v);
    }
  }
  auto maxTokens = intFlag(*a, "--max-tokens", 2048);
  if (!maxTokens || *maxTokens < 2)
    return fail(maxTokens ? "--max-tokens must be at least 2" : llvm::toString(maxTokens.takeError()));
  o.maxTokens = static_cast<int>(*maxTokens);
  if (a->flags.count("--bpw") && (llvm::StringRef(a->flags.at("--bpw")).getAsDouble(o.bpw) || o.bpw <= 0))
    return fail("--bpw needs a positive number, got '" + a->flags.at("--bpw") + "'");
  return runEval(o);
}

/// `saguaro calibrate`: writes DIR/<weight>.npy, the mean XᵀX of the input of every float weight matrix.
int cmdCalibrate(int argc, char **argv) {
  auto a = parseArgs(argc, argv, {"--text", "--token-ids", "-o", "--tokenizer"});
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (a->flags.count("--text") == a->flags.count("--token-ids") || !a->flags.count("-o"))
    return fail("calibrate needs one of --text FILE and --token-ids FILE, and -o DIR");
  CompileOptions model;
  model.model = a->positional;
  if (a->flags.count("--tokenizer"))
    model.tokenizer = a->flags.at("--tokenizer");
  HessianMap hessians;
  llvm::Error e = a->flags.count("--text") ? measureHessians(model, a->flags.at("--text"), hessians)
                                           : measureHessiansOnIds(model, a->flags.at("--token-ids"), hessians);
  if (e)
    return fail(llvm::toString(std::move(e)));
  const std::string &dir = a->flags.at("-o");
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

int cmdInspect(int argc, char **argv) {
  auto a = parseArgs(argc, argv, {"--tensor", "-o"});
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (a->flags.count("--tensor") != a->flags.count("-o"))
    return fail("inspect needs both --tensor NAME and -o FILE, or neither");
  return runInspect(a->positional, a->flags.count("--tensor") ? a->flags.at("--tensor") : "",
                    a->flags.count("-o") ? a->flags.at("-o") : "");
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
int cmdModelBench(int argc, char **argv) {
  BenchOptions o;
  std::vector<char *> rest = takeSwitch(argc, argv, "--json", o.json);
  auto a = parseArgs(static_cast<int>(rest.size()), rest.data(), {"--bits", "--threads", "--target", "--kv-cache"});
  if (!a)
    return fail(llvm::toString(a.takeError()));
  o.model = a->positional;
  if (a->flags.count("--target"))
    o.target = resolveTarget(a->flags.at("--target"));
  if (a->flags.count("--kv-cache"))
    o.kvCache = a->flags.at("--kv-cache");
  for (auto [flag, out] : {std::pair<const char *, std::vector<int> *>{"--bits", &o.bits}, {"--threads", &o.threads}})
    if (a->flags.count(flag)) {
      auto list = intList(flag, a->flags.at(flag));
      if (!list)
        return fail(llvm::toString(list.takeError()));
      *out = *list;
    }
  return runModelBench(o);
}

int cmdBench(int argc, char **argv) {
  if (argc >= 3 && std::string(argv[2]) == "audio")
    return runBenchAudio(argc, argv);
  if (argc >= 3 && std::string(argv[2]) != "tokenizer")
    return cmdModelBench(argc, argv);
  if (argc < 4)
    return fail("usage: saguaro bench tokenizer SOURCE [--text FILE] [--json] | saguaro bench MODEL [--bits LIST] "
                "[--threads 1] [--json]");
  std::string text;
  bool json = false;
  for (int i = 4; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json")
      json = true;
    else if (arg == "--text" && i + 1 < argc)
      text = argv[++i];
    else
      return fail("unknown bench option '" + arg + "'");
  }
  return runTokenizerBench(argv[3], text, json);
}

/// `saguaro synth CONFIG.json -o DIR [--seed S]`: a random-weight model with the config's shapes.
int cmdSynth(int argc, char **argv) {
  if (argc < 3)
    return fail("synth needs CONFIG.json and -o DIR");
  auto a = parseArgs(argc, argv, {"-o"});
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("-o"))
    return fail("synth needs CONFIG.json and -o DIR");
  auto seed = intFlag(*a, "--seed", 0);
  if (!seed || *seed < 0)
    return fail(seed ? "--seed must be non-negative" : llvm::toString(seed.takeError()));
  if (auto e = synthesizeModel(a->positional, a->flags.at("-o"), static_cast<uint64_t>(*seed)))
    return fail(llvm::toString(std::move(e)));
  return 0;
}
/// `saguaro complete MODEL_OR_BUNDLE --messages JSON_OR_FILE [--options JSON_OR_FILE] [--task TAG]`.
int cmdComplete(int argc, char **argv) {
  auto a = parseArgs(argc, argv, withCompileFlags({"--messages", "--options", "--task"}));
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("--messages"))
    return fail("complete needs MODEL_OR_BUNDLE and --messages JSON_OR_FILE");
  auto bundle = bundleFor(*a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  CompleteOptions o;
  o.bundle = *bundle;
  o.messages = a->flags.at("--messages");
  if (a->flags.count("--options"))
    o.options = a->flags.at("--options");
  if (a->flags.count("--task"))
    o.task = a->flags.at("--task");
  if (a->flags.count("--threads"))
    o.threads = a->flags.at("--threads");
  return runComplete(o);
}

/// `saguaro serve MODEL_OR_BUNDLE [--port P] [--host H] [--model-id NAME] [--api-key-file FILE] [--options J]`.
int cmdServe(int argc, char **argv) {
  auto a = parseArgs(argc, argv, withCompileFlags({"--port", "--host", "--model-id", "--api-key-file", "--options"}));
  if (!a)
    return fail(llvm::toString(a.takeError()));
  auto port = intFlag(*a, "--port", 8080);
  if (!port || *port < 0 || *port > 65535)
    return fail(port ? "--port must be between 0 and 65535" : llvm::toString(port.takeError()));
  auto apiKey = serveApiKey(a->flags.count("--api-key-file") ? a->flags.at("--api-key-file") : "");
  if (!apiKey) // before anything is compiled
    return fail(llvm::toString(apiKey.takeError()));
  auto options = serveOptions(a->flags.count("--options") ? a->flags.at("--options") : "");
  if (!options)
    return fail(llvm::toString(options.takeError()));
  auto bundle = bundleFor(*a);
  if (!bundle)
    return fail(llvm::toString(bundle.takeError()));
  ServeOptions o;
  o.apiKey = *apiKey;
  o.options = *options;
  o.bundle = *bundle;
  o.port = static_cast<int>(*port);
  o.modelId = llvm::sys::path::filename(llvm::StringRef(a->positional).rtrim('/')).str();
  if (a->flags.count("--model-id"))
    o.modelId = a->flags.at("--model-id");
  if (a->flags.count("--host"))
    o.host = a->flags.at("--host");
  if (a->flags.count("--threads"))
    o.threads = a->flags.at("--threads");
  return runServe(o);
}

/// `saguaro auth PROVIDER [--key-file FILE]` (the key from FILE or standard input, never the command line).
int cmdAuth(int argc, char **argv) {
  auto a = parseArgs(argc, argv, {"--key-file"});
  if (!a)
    return fail(llvm::toString(a.takeError()));
  return runAuth(a->positional, a->flags.count("--key-file") ? a->flags.at("--key-file") : "-");
}

/// `saguaro probe collect MODEL_OR_BUNDLE --tasks FILE -o DATA`; the other probe commands are probe_main's.
int cmdProbe(int argc, char **argv) {
  if (argc < 3 || std::string(argv[2]) != "collect")
    return probe_main(argc - 2, argv + 2);
  // parseArgs reads from argv[2]: drop "probe" so that "collect" sits at argv[1].
  auto a = parseArgs(argc - 1, argv + 1, withCompileFlags({"--tasks", "-o", "--max-new", "--prompt-template"}));
  if (!a)
    return fail(llvm::toString(a.takeError()));
  if (!a->flags.count("--tasks") || !a->flags.count("-o"))
    return fail("probe collect needs MODEL_OR_BUNDLE, --tasks FILE and -o DATA");
  CollectOptions o;
  o.tasks = a->flags.at("--tasks");
  o.out = a->flags.at("-o");
  if (a->flags.count("--threads"))
    o.threads = a->flags.at("--threads");
  if (a->flags.count("--prompt-template"))
    o.promptTemplate = a->flags.at("--prompt-template");
  auto maxNew = intFlag(*a, "--max-new", 32);
  if (!maxNew || *maxNew < 1)
    return fail(maxNew ? "--max-new must be at least 1" : llvm::toString(maxNew.takeError()));
  o.maxNew = *maxNew;
  std::vector<ProbeTask> tasks; // checked before anything is compiled
  if (auto e = readProbeTasks(o.tasks, tasks))
    return fail(llvm::toString(std::move(e)));
  if (isBundle(a->positional)) {
    o.bundle = a->positional;
  } else {
    auto co = compileOptions(*a, RunsOn::thisMachine);
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
} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    llvm::outs() << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  if (cmd == "compile")
    return cmdCompile(argc, argv);
  if (cmd == "run")
    return cmdRun(argc, argv);
  if (cmd == "logits")
    return cmdLogits(argc, argv);
  if (cmd == "tokenize")
    return cmdTokenize(argc, argv);
  if (cmd == "bench")
    return cmdBench(argc, argv);
  if (cmd == "inspect")
    return cmdInspect(argc, argv);
  if (cmd == "calibrate")
    return cmdCalibrate(argc, argv);
  if (cmd == "eval")
    return cmdEval(argc, argv);
  if (cmd == "synth")
    return cmdSynth(argc, argv);
  if (cmd == "probe")
    return cmdProbe(argc, argv);
  if (cmd == "complete")
    return cmdComplete(argc, argv);
  if (cmd == "auth")
    return cmdAuth(argc, argv);
  if (cmd == "serve")
    return cmdServe(argc, argv);
  if (cmd == "features" && argc >= 3 && std::string(argv[2]) == "audio")
    return runFeaturesAudio(argc, argv);
  if (cmd == "features" && argc >= 3 && std::string(argv[2]) == "image")
    return runFeaturesImage(argc, argv);
  if (cmd == "features")
    return fail("usage: saguaro features audio FILE ... | saguaro features image FILE ... (see --help)");
  llvm::errs() << "saguaro: unknown command '" << cmd << "'\n" << kUsage;
  return 2;
}
