//===- ProbeCollect.h - `saguaro probe collect`: answers, grades and hidden states -----===//
#ifndef SAGUARO_COMPILER_DRIVER_PROBECOLLECT_H
#define SAGUARO_COMPILER_DRIVER_PROBECOLLECT_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace saguaro {

/// One line of a task file (docs/tasks.md).
struct ProbeTask {
  std::string id, family, question;
  int64_t difficulty = 0;
  bool heldout = false, guessable = false;
  std::vector<std::string> accept; // the accepted answers
};

/// Reads and checks a task file; errors name the file and line.
llvm::Error readProbeTasks(const std::string &path, std::vector<ProbeTask> &tasks);

struct CollectOptions {
  std::string bundle;   // a bundle compiled with a hidden tap (llm.hidden_tap)
  std::string tasks;    // task file: JSON lines (docs/tasks.md)
  std::string out;      // probe data file (docs/probe.md), written atomically
  int64_t maxNew = 32;  // new tokens per answer at most
  std::string threads = "0";
  std::string promptTemplate = "Q: {question}\nA:"; // the default model's format; {question} is replaced
};

/// Answers every task greedily with the bundle's program, grades each answer against the task's accepted
/// answers, and writes the hidden states, entropies and labels to `out` (docs/probe.md, "Collect").
llvm::Error collectProbeData(const CollectOptions &options, const std::vector<ProbeTask> &tasks);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_PROBECOLLECT_H
