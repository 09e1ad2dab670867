//===- Render.h - `saguaro render`: the prompt a compiled chat template makes -----------===//
#ifndef SAGUARO_COMPILER_DRIVER_RENDER_H
#define SAGUARO_COMPILER_DRIVER_RENDER_H

#include <string>

namespace saguaro {

struct RenderOptions {
  std::string source;   // a bundle, a model directory, a directory with tokenizer_config.json, or a .jinja file
  std::string messages; // a file of OpenAI-style messages (JSON array)
  std::string tools;    // a file of OpenAI tools (JSON array); empty: no tools
  bool generationPrompt = true;
};

/// Prints exactly the text the compiled chat template makes of the messages (no newline added); returns the
/// exit code, printing "saguaro: FILE: problem" on failure.
int runRender(const RenderOptions &options);

} // namespace saguaro

#endif // SAGUARO_COMPILER_DRIVER_RENDER_H
