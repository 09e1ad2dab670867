//===- CommandLine.h - the driver's command table and its argument parser -------------===//
//
// Every `saguaro` command is one `Command`: its name (one or two words, `compile`, `probe train`),
// usage line, one-line summary, options and handler. The parser, `saguaro --help` and
// `saguaro CMD --help` all read that one declaration, in the spirit of llama.cpp's common/arg.cpp.
//
// Plain C++17 without LLVM or exceptions: `saguaro probe` (Probe.cpp) also builds into the probe
// library's tests, outside the driver.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_COMPILER_DRIVER_COMMANDLINE_H
#define SAGUARO_COMPILER_DRIVER_COMMANDLINE_H

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace saguaro::cli {

/// One option: `NAME VALUE`, or a switch when `value` is empty.
struct Option {
  std::string_view name;  // "--target", "-o"
  std::string_view value; // what it takes, as help shows it ("T", "FILE"); empty: a switch
  std::string_view help;  // one line
};

/// `--json` of the commands that print a table.
inline constexpr Option kJsonOption = {"--json", "", "print JSON instead of a table"};

/// Several option lists as one: commands share groups (the compile options, the sampler options).
std::vector<Option> join(std::initializer_list<std::vector<Option>> groups);

struct Command;

/// What the parser read for a command: its positional arguments and the options given, in order.
struct Args {
  const Command *command = nullptr;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> given; // a switch has an empty value

  bool has(std::string_view name) const;
  /// The value of the last `name` given, else `fallback`.
  std::string value(std::string_view name, const std::string &fallback = "") const;
  /// The options of `group` that were given, in order, as NAME VALUE words for another program.
  std::vector<std::string> forward(const std::vector<Option> &group) const;
};

/// Why a command line was refused, before the handler ran.
struct ParseError {
  enum Kind { UnknownOption, MissingValue, ExtraArgument, MissingArgument } kind;
  std::string arg; // the option or argument concerned (empty for MissingArgument)
};

struct Command {
  std::string_view name;    // "compile", "bench tokenizer", "probe collect"
  std::string_view usage;   // what follows the name: "MODEL -o BUNDLE_DIR [options]"
  std::string_view summary; // one line for `saguaro --help`
  std::vector<Option> options;
  int (*run)(const Args &); // the process exit code
  unsigned minPositional = 1, maxPositional = 1;
  /// An unknown argument starting with '-' in the last positional place is that argument (tokenize's TEXT).
  bool lastPositionalMayStartWithDash = false;
  /// Reports a ParseError and returns the exit code; null: one line "saguaro: unknown option '-x'" (or
  /// "option '-x' needs a value", "unexpected argument 'x'", "missing MODEL argument"), exit 1.
  int (*refuse)(const ParseError &) = nullptr;
};

/// `usage: saguaro NAME USAGE`.
std::string usageLine(const Command &command);

/// The usage lines of the commands whose name starts with `prefix` ("probe "), under one `usage:`.
std::string usageLines(const std::vector<Command> &table, std::string_view prefix);

/// Runs the command that `words` (the command line without the program) names: its handler with the
/// parsed arguments, or its help for `--help`. `saguaro`, `saguaro --help` and `saguaro help [COMMAND]`
/// show the table. Returns the exit code: 2 for no command or an unknown one, as ever.
int dispatch(const std::vector<Command> &table, const std::vector<std::string> &words);

} // namespace saguaro::cli

#endif // SAGUARO_COMPILER_DRIVER_COMMANDLINE_H
