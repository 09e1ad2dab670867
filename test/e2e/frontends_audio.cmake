# The audio front-end end to end: `saguaro features audio` against openai/whisper's jfk references and
# the numpy oracle (test/reference/audio_reference.py), resampling measured through the CLI, malformed
# WAV files, and `saguaro bench audio` (reported, never asserted).
saguaro_e2e(e2e_features_audio test_features_audio.py)
