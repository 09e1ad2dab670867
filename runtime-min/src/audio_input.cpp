// The audio front-end is linked into runtimes that carry it (SAGUARO_WITH_AUDIO: the project's, and a bundle's whose
// model has an audio tower); without it a clip is refused with a reason.
#include "audio_input.h"

#if SAGUARO_WITH_AUDIO
#include "saguaro/audio/features.h"
#endif

namespace saguaro {

bool encode_audio_source(Engine& engine, const AudioSource& clip, std::vector<float>* soft, std::string* err) {
  if (!engine.spec().audio) return *err = "the model has no audio tower to take " + clip.name, false;
#if SAGUARO_WITH_AUDIO
  const audio::Result<audio::LogMelConfig> config = audio::makeConfig("gemma4", "", false);
  if (!config.ok()) return *err = config.error, false;
  const audio::Result<audio::Features> features =
      clip.path.empty()
          ? audio::extractFeaturesFromMemory(clip.bytes.data(), clip.bytes.size(), clip.name, config.value)
          : audio::extractFeatures(clip.path, config.value);
  if (!features.ok()) return *err = features.error, false;
  if (features.value.nValid == 0)
    return *err = clip.name + ": the clip is too short for one mel frame (161 samples at 16 kHz)", false;
  *soft = engine.encode_audio(audio::validFramesTimeMajor(features.value), err);
  if (soft->empty()) return *err = clip.name + ": " + *err, false;
  return true;
#else
  (void)soft;
  return *err = clip.name + ": this runtime was built without the audio front-end", false;
#endif
}

}  // namespace saguaro
