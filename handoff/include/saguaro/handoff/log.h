// The library's only log channel: one line per notable event (retry, cloud failure, refusal by policy).
#pragma once

#include <functional>
#include <string>

namespace saguaro::handoff {

using LogSink = std::function<void(const std::string& line)>;

// Replaces where log lines go (default: stderr, prefixed "saguaro handoff: "). Pass nullptr to silence.
void set_log_sink(LogSink sink);

// Redacts the line (see redact.h) before it reaches the sink.
void log_line(const std::string& line);

}  // namespace saguaro::handoff
