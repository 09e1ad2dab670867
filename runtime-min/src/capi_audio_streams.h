// The C API's registry of audio streams: each stream of saguaro_audio_begin has an id (saguaro_audio_id) that a
// message of saguaro_complete names ({"type": "input_audio", "input_audio": {"stream": ID}}) to use the soft tokens
// saguaro_audio_end computed, with no second encode.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "audio_input.h"
#include "saguaro/chat_messages.h"
#include "saguaro/engine.h"
#include "saguaro/saguaro.h"

namespace saguaro {

/// The soft tokens of an ended stream, shared by its handle and the registry.
using SoftTokens = std::shared_ptr<const std::vector<float>>;

/// Registers a new stream of `model`: its id, 1, 2, ... in this process, never reused (so a destroyed stream's id
/// is told apart from one never given).
int64_t audio_stream_begun(const saguaro_model* model);
/// Stream `id` ended, with its soft tokens (null: saguaro_audio_end failed, or has not returned them yet).
void audio_stream_ended(int64_t id, SoftTokens soft_tokens);
/// Stream `id` was destroyed.
void audio_stream_destroyed(int64_t id);
/// `model` was destroyed: its streams can no longer be named (another model may get its address).
void audio_streams_model_destroyed(const saguaro_model* model);

/// For each of `refs` that names a stream, its soft tokens into the AudioSource at the same index of `sources`
/// (`sources` was made from `refs`, one per ref). False + "messages_json: <where>: <problem>" for a model without an
/// audio tower, an id never given, a destroyed stream, one of another model, one not ended or ended without soft
/// tokens.
bool resolve_audio_streams(const saguaro_model* model, const Engine& engine, const std::vector<AudioRef>& refs,
                           std::vector<AudioSource>* sources, std::string* err);

}  // namespace saguaro
