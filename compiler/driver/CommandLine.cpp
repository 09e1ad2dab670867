//===- CommandLine.cpp - parsing, dispatch and help from the command table ------------===//
//
// An option is `--name value` or a switch (no `--name=value`); an argument that starts with '-'
// and is no option of the command is an error, except where a command takes it as text. `--help`
// after a command shows that command's help wherever an option may stand.
//
//===------------------------------------------------------------------------------------===//
#include "compiler/driver/CommandLine.h"

#include <algorithm>
#include <cstdio>

using namespace saguaro::cli;

std::vector<Option> saguaro::cli::join(std::initializer_list<std::vector<Option>> groups) {
  std::vector<Option> all;
  for (const std::vector<Option> &g : groups)
    all.insert(all.end(), g.begin(), g.end());
  return all;
}

bool Args::has(std::string_view name) const {
  return std::any_of(given.begin(), given.end(), [&](const auto &g) { return g.first == name; });
}

std::string Args::value(std::string_view name, const std::string &fallback) const {
  for (auto it = given.rbegin(); it != given.rend(); ++it)
    if (it->first == name)
      return it->second;
  return fallback;
}

std::vector<std::string> Args::forward(const std::vector<Option> &group) const {
  std::vector<std::string> words;
  for (const auto &[name, value] : given)
    if (std::any_of(group.begin(), group.end(), [&](const Option &o) { return o.name == name; })) {
      words.push_back(name);
      words.push_back(value);
    }
  return words;
}

std::string saguaro::cli::usageLine(const Command &command) {
  return "usage: saguaro " + std::string(command.name) + " " + std::string(command.usage);
}

std::string saguaro::cli::usageLines(const std::vector<Command> &table, std::string_view prefix) {
  std::string text;
  for (const Command &c : table)
    if (c.name.substr(0, prefix.size()) == prefix)
      text += (text.empty() ? usageLine(c) : "       " + usageLine(c).substr(7)) + "\n";
  return text;
}

namespace {

constexpr std::string_view kHelp = "--help";

/// The words of a ParseError, as every command but `saguaro probe` says them.
std::string describe(const ParseError &error) {
  switch (error.kind) {
  case ParseError::UnknownOption:
    return "unknown option '" + error.arg + "'";
  case ParseError::MissingValue:
    return "option '" + error.arg + "' needs a value";
  case ParseError::ExtraArgument:
    return "unexpected argument '" + error.arg + "'";
  case ParseError::MissingArgument:
    break;
  }
  return "missing MODEL argument";
}

/// The words of a command's name: "probe collect" -> {"probe", "collect"}.
std::vector<std::string_view> nameWords(std::string_view name) {
  std::vector<std::string_view> words;
  for (size_t start = 0; start <= name.size();) {
    size_t end = std::min(name.find(' ', start), name.size());
    words.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

/// The command whose name the words start with (the longest such name), or null.
const Command *find(const std::vector<Command> &table, const std::vector<std::string> &words, size_t &used) {
  const Command *best = nullptr;
  used = 0;
  for (const Command &c : table) {
    std::vector<std::string_view> name = nameWords(c.name);
    if (name.size() <= used || name.size() > words.size() || !std::equal(name.begin(), name.end(), words.begin()))
      continue;
    best = &c;
    used = name.size();
  }
  return best;
}

/// Whether `word` is the first word of some two-word command (`probe`, `features`).
bool isGroup(const std::vector<Command> &table, std::string_view word) {
  return std::any_of(table.begin(), table.end(),
                     [&](const Command &c) { return nameWords(c.name).size() > 1 && nameWords(c.name)[0] == word; });
}

/// Reads words[first..] as the arguments of `c`; `help` tells that `--help` was among them.
bool parse(const Command &c, const std::vector<std::string> &words, size_t first, Args &a, bool &help,
           ParseError &error) {
  a.command = &c;
  for (size_t i = first; i < words.size(); ++i) {
    const std::string &arg = words[i];
    if (arg == kHelp) {
      help = true;
      return true;
    }
    auto option = std::find_if(c.options.begin(), c.options.end(), [&](const Option &o) { return o.name == arg; });
    bool lastPlace = c.lastPositionalMayStartWithDash && a.positional.size() + 1 == c.maxPositional;
    if (option != c.options.end()) {
      if (!option->value.empty() && i + 1 >= words.size()) {
        error = {ParseError::MissingValue, arg};
        return false;
      }
      a.given.emplace_back(arg, option->value.empty() ? "" : words[++i]);
    } else if (arg.size() > 1 && arg[0] == '-' && !lastPlace) {
      error = {ParseError::UnknownOption, arg};
      return false;
    } else if (a.positional.size() < c.maxPositional) {
      a.positional.push_back(arg);
    } else {
      error = {ParseError::ExtraArgument, arg};
      return false;
    }
  }
  if (a.positional.size() < c.minPositional) {
    error = {ParseError::MissingArgument, ""};
    return false;
  }
  return true;
}

void print(FILE *to, const std::string &text) { std::fwrite(text.data(), 1, text.size(), to); }

/// Two columns: `left` padded to `width`, then `right`; a longer `left` puts `right` on the next line.
std::string columns(const std::string &left, std::string_view right, size_t width) {
  std::string line = "  " + left;
  if (left.size() > width)
    line += "\n  " + std::string(width, ' ');
  else
    line += std::string(width - left.size(), ' ');
  return line + "  " + std::string(right) + "\n";
}

/// Every command whose name starts with `prefix` (all for ""), one line each with its summary.
std::string commandList(const std::vector<Command> &table, std::string_view prefix) {
  size_t width = 0;
  for (const Command &c : table)
    width = std::max(width, c.name.size());
  std::string text;
  for (const Command &c : table)
    if (c.name.substr(0, prefix.size()) == prefix)
      text += columns(std::string(c.name), c.summary, width);
  return text;
}

std::string overview(const std::vector<Command> &table) {
  return "usage: saguaro COMMAND [ARGUMENTS] [OPTIONS]\n\ncommands:\n" + commandList(table, "") +
         "\n`saguaro COMMAND --help` (or `saguaro help COMMAND`) shows a command's usage and options.\n";
}

std::string commandHelp(const std::vector<Command> &table, const Command &c) {
  std::vector<Option> options = c.options;
  options.push_back({kHelp, "", "show this help"});
  size_t width = 0;
  for (const Option &o : options)
    width = std::max(width, o.name.size() + (o.value.empty() ? 0 : o.value.size() + 1));
  width = std::min<size_t>(width, 26);
  std::string text = usageLine(c) + "\n\n" + std::string(c.summary) + "\n\noptions:\n";
  for (const Option &o : options)
    text += columns(std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value)), o.help, width);
  std::string related = commandList(table, std::string(c.name) + " ");
  if (!related.empty())
    text += "\nrelated commands:\n" + related;
  return text;
}

std::string groupHelp(const std::vector<Command> &table, const std::string &group) {
  return "usage: saguaro " + group + " COMMAND ...\n\ncommands:\n" + commandList(table, group + " ");
}

int unknownCommand(const std::vector<Command> &table, const std::string &name) {
  print(stderr, "saguaro: unknown command '" + name + "'\n" + overview(table));
  return 2;
}

/// `saguaro help [COMMAND]`.
int help(const std::vector<Command> &table, const std::vector<std::string> &words) {
  size_t used = 0;
  if (words.empty()) {
    print(stdout, overview(table));
  } else if (const Command *c = find(table, words, used); c && used == words.size()) {
    print(stdout, commandHelp(table, *c));
  } else if (words.size() == 1 && isGroup(table, words[0])) {
    print(stdout, groupHelp(table, words[0]));
  } else {
    std::string name = words[0];
    for (size_t i = 1; i < words.size(); ++i)
      name += " " + words[i];
    return unknownCommand(table, name);
  }
  return 0;
}

} // namespace

int saguaro::cli::dispatch(const std::vector<Command> &table, const std::vector<std::string> &words) {
  if (words.empty() || words[0] == kHelp || words[0] == "-h") {
    print(stdout, overview(table));
    return words.empty() ? 2 : 0;
  }
  if (words[0] == "help")
    return help(table, std::vector<std::string>(words.begin() + 1, words.end()));
  size_t used = 0;
  const Command *c = find(table, words, used);
  if (!c && isGroup(table, words[0])) {
    if (words.size() > 1 && words[1] == kHelp) {
      print(stdout, groupHelp(table, words[0]));
      return 0;
    }
    print(stderr, usageLines(table, words[0] + " "));
    return 2;
  }
  if (!c)
    return unknownCommand(table, words[0]);
  Args args;
  bool wantsHelp = false;
  ParseError error{};
  if (!parse(*c, words, used, args, wantsHelp, error)) {
    if (c->refuse)
      return c->refuse(error);
    print(stderr, "saguaro: " + describe(error) + "\n");
    return 1;
  }
  if (wantsHelp) {
    print(stdout, commandHelp(table, *c));
    return 0;
  }
  return c->run(args);
}
