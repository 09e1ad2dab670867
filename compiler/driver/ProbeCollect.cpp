//===- ProbeCollect.cpp - `saguaro probe collect` --------------------------------------===//
//
// The bundle's own program answers the tasks (its `--capture` mode: greedy, up to the first newline, with the
// hidden tap and the entropy of every generated token recorded); this side reads the task file, grades each
// answer by the task's accepted answers (docs/tasks.md, "Grading") and writes the probe data file.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/ProbeCollect.h"

#include "compiler/driver/BundleCache.h"
#include "compiler/driver/ProgramRun.h"
#include "compiler/import/ModelDesc.h"
#include "probe/grade.h"
#include "probe/probe_data.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <map>

using namespace saguaro;

namespace {
/// The bundle's model name, width and hidden-tap layer, from its manifest.
llvm::Error readTap(const std::string &bundle, std::string &model, int64_t &width, int64_t &layer) {
  auto root = readBundleManifest(bundle);
  if (!root)
    return root.takeError();
  const llvm::json::Object *desc = root->getObject("model");
  if (!desc)
    return fileError(bundle + "/manifest.json", "has no 'model' object");
  model = desc->getString("name").value_or("").str();
  if (const llvm::json::Array *taps = root->getArray("taps"))
    for (const llvm::json::Value &tap : *taps)
      if (const llvm::json::Object *t = tap.getAsObject(); t && t->getString("kind") == "hidden") {
        width = t->getInteger("cols").value_or(0);
        layer = t->getInteger("layer").value_or(0);
        return llvm::Error::success();
      }
  return fileError(bundle, "the bundle has no hidden tap (compile it with --hidden-tap LAYER|auto)");
}

std::string promptFor(const std::string &templ, const std::string &question) {
  std::string p = templ;
  size_t at = p.find("{question}");
  return at == std::string::npos ? p : p.replace(at, 10, question);
}
} // namespace

/// One task per non-empty line; every field checked.
llvm::Error saguaro::readProbeTasks(const std::string &path, std::vector<ProbeTask> &tasks) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return fileError(path, "cannot read the task file: " + file.getError().message());
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  std::map<std::string, int> seen;
  for (auto [index, line] : llvm::enumerate(lines)) {
    if (line.trim().empty())
      continue;
    std::string where = path + ":" + std::to_string(index + 1);
    auto value = llvm::json::parse(line);
    if (!value)
      return fileError(where, "not JSON: " + llvm::toString(value.takeError()));
    const llvm::json::Object *o = value->getAsObject();
    if (!o)
      return fileError(where, "a task must be a JSON object");
    ProbeTask t;
    auto text = [&](const char *key, std::string &out) -> llvm::Error {
      std::optional<llvm::StringRef> s = o->getString(key);
      if (!s || s->empty())
        return fileError(where, llvm::Twine("needs a non-empty string '") + key + "'");
      out = s->str();
      return llvm::Error::success();
    };
    if (auto e = text("id", t.id))
      return e;
    if (auto e = text("family", t.family))
      return e;
    if (auto e = text("question", t.question))
      return e;
    std::optional<int64_t> difficulty = o->getInteger("difficulty");
    std::optional<bool> heldout = o->getBoolean("heldout");
    if (!difficulty || !heldout)
      return fileError(where, "needs an integer 'difficulty' and a boolean 'heldout'");
    t.difficulty = *difficulty, t.heldout = *heldout;
    t.guessable = o->getBoolean("guessable").value_or(false);
    const llvm::json::Array *accept = o->getArray("accept");
    if (!accept || accept->empty())
      return fileError(where, "needs a non-empty array 'accept' of accepted answers");
    for (const llvm::json::Value &a : *accept) {
      std::optional<llvm::StringRef> s = a.getAsString();
      if (!s)
        return fileError(where, "'accept' must hold strings");
      t.accept.push_back(s->str());
    }
    if (seen.count(t.id))
      return fileError(where, "task id '" + t.id + "' repeats line " + std::to_string(seen[t.id]));
    seen[t.id] = static_cast<int>(index + 1);
    tasks.push_back(std::move(t));
  }
  if (tasks.empty())
    return fileError(path, "the task file has no tasks");
  return llvm::Error::success();
}

llvm::Error saguaro::collectProbeData(const CollectOptions &o, const std::vector<ProbeTask> &tasks) {
  probe::ProbeData data;
  int64_t width = 0, layer = 0;
  if (auto e = readTap(o.bundle, data.model, width, layer))
    return e;
  data.width = static_cast<int>(width), data.tap_layer = static_cast<int>(layer);
  auto exe = buildBundle(o.bundle);
  if (!exe)
    return exe.takeError();

  llvm::SmallString<128> work;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("saguaro-collect", work))
    return fileError("saguaro-collect", "cannot create a work directory: " + ec.message());
  std::string dir = work.str().str(), prompts = dir + "/prompts.jsonl", log = dir + "/capture.log";
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  {
    std::ofstream out(prompts);
    for (const ProbeTask &t : tasks)
      out << llvm::formatv("{0}", llvm::json::Value(promptFor(o.promptTemplate, t.question))).str() << "\n";
    if (!out)
      return fileError(prompts, "cannot write");
  }
  std::string blob = o.bundle + "/weights.sgw", maxNew = std::to_string(o.maxNew);
  llvm::errs() << "saguaro: answering " << tasks.size() << " tasks with " << o.bundle << "\n";
  if (runRedirected(*exe, {*exe, blob, "--capture", prompts, "-o", dir, "--max-new", maxNew, "--threads", o.threads},
                    std::nullopt, log) != 0) {
    // The program's own one-line error already names the file at fault.
    std::string text = readLog(log);
    llvm::StringRef said = llvm::StringRef(text).split('\n').first;
    if (said.consume_front("saguaro: "))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), said.str());
    return fileError(o.bundle, "the capture program failed: " + said);
  }

  auto answers = llvm::MemoryBuffer::getFile(dir + "/answers.jsonl");
  auto hidden = llvm::MemoryBuffer::getFile(dir + "/hidden.f32");
  if (!answers || !hidden)
    return fileError(o.bundle, "the capture program wrote no answers");
  llvm::SmallVector<llvm::StringRef> lines;
  (*answers)->getBuffer().split(lines, '\n', -1, false);
  if (lines.size() != tasks.size())
    return fileError(o.bundle, "the capture program answered " + std::to_string(lines.size()) + " of " +
                                   std::to_string(tasks.size()) + " tasks");
  const float *rows = reinterpret_cast<const float *>((*hidden)->getBufferStart());
  size_t available = (*hidden)->getBufferSize() / sizeof(float), used = 0;
  std::map<std::string, std::pair<int, int>> byFamily; // family -> (right, total)
  for (size_t i = 0; i < tasks.size(); ++i) {
    auto line = llvm::json::parse(lines[i]);
    const llvm::json::Object *a = line ? line->getAsObject() : nullptr;
    if (!line)
      llvm::consumeError(line.takeError());
    const llvm::json::Array *entropy = a ? a->getArray("entropy") : nullptr;
    int64_t tokens = a ? a->getInteger("tokens").value_or(-1) : -1;
    if (!a || !entropy || tokens < 1 || static_cast<size_t>(tokens) != entropy->size() ||
        used + static_cast<size_t>(tokens * width) > available)
      return fileError(o.bundle, "the capture program's answer " + std::to_string(i + 1) + " is malformed");
    const ProbeTask &t = tasks[i];
    probe::ProbeSample s;
    s.id = t.id, s.family = t.family, s.difficulty = static_cast<int>(t.difficulty);
    s.heldout = t.heldout, s.guessable = t.guessable, s.question = t.question;
    s.answer = a->getString("answer").value_or("").str();
    s.wrong = !probe::is_right(s.answer, t.accept);
    for (const llvm::json::Value &h : *entropy)
      s.entropy.push_back(static_cast<float>(h.getAsNumber().value_or(NAN)));
    s.hidden.assign(rows + used, rows + used + tokens * width);
    used += static_cast<size_t>(tokens * width);
    auto &[right, total] = byFamily[t.family];
    right += !s.wrong, ++total;
    data.samples.push_back(std::move(s));
  }
  std::string error;
  if (!probe::write_probe_data(o.out, data, error))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error); // names the file already
  int right = 0;
  for (const probe::ProbeSample &s : data.samples)
    right += !s.wrong;
  llvm::errs() << llvm::formatv("saguaro: {0} of {1} answers right ({2:P1}); wrote {3}\n", right, tasks.size(),
                                double(right) / tasks.size(), o.out);
  for (const auto &[family, counts] : byFamily)
    llvm::errs() << llvm::formatv("  {0,-16} {1,4} / {2,-4} right\n", family, counts.first, counts.second);
  return llvm::Error::success();
}
