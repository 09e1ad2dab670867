#include "saguaro/handoff/log.h"

#include <cstdio>
#include <mutex>

#include "saguaro/handoff/redact.h"

namespace saguaro::handoff {
namespace {

std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}
LogSink& sink() {
  static LogSink s = stderr_log_sink();
  return s;
}

}  // namespace

LogSink stderr_log_sink() {
  return [](const std::string& line) { std::fprintf(stderr, "saguaro handoff: %s\n", line.c_str()); };
}

void set_log_sink(LogSink new_sink) {
  std::lock_guard<std::mutex> lock(sink_mutex());
  sink() = std::move(new_sink);
}

void log_line(const std::string& line) {
  std::string safe = redact(line);
  std::lock_guard<std::mutex> lock(sink_mutex());
  if (sink()) sink()(safe);
}

}  // namespace saguaro::handoff
