// The library's only log channel: one line per notable event (retry, cloud failure, refusal by policy).
#pragma once

#include <functional>
#include <string>

namespace saguaro::handoff {

using LogSink = std::function<void(const std::string& line)>;

// Replaces where log lines go (default: stderr_log_sink()). Pass nullptr to silence.
void set_log_sink(LogSink sink);

// The default sink: each line to stderr, prefixed "saguaro handoff: ".
LogSink stderr_log_sink();

// Redacts the line (see redact.h) before it reaches the sink.
void log_line(const std::string& line);

}  // namespace saguaro::handoff
