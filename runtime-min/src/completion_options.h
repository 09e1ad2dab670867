// Which keys of saguaro_complete's options JSON belong to the local generation. Every other key belongs to the
// cloud handoff policy (docs/handoff.md). Shared by the C API (capi.cpp), which hands the local keys to the
// engine, and by `saguaro complete` (compiler/driver/Complete.cpp), which passes only these to the bundle program.
#pragma once

#include <string_view>

namespace saguaro {

inline bool is_local_completion_option(std::string_view key) {
  for (std::string_view k : {"max_tokens", "temperature", "top_k", "top_p", "min_p", "repetition_penalty", "seed",
                             "stop"})
    if (key == k) return true;
  return false;
}

}  // namespace saguaro
