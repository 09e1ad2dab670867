# fuzz_wav: the audio front-end's WAV reader (runtime-min/frontends/audio), with the resampler and
# log-mel extraction run on what it decodes. Included by CMakeLists.txt; `./dev fuzz` runs it.
set(AUDIO_DIR ${ROOT}/runtime-min/frontends/audio)
file(GLOB AUDIO_SOURCES ${AUDIO_DIR}/src/*.cpp)
add_executable(fuzz_wav fuzz_wav.cpp ${AUDIO_SOURCES})
target_include_directories(fuzz_wav PRIVATE ${AUDIO_DIR}/include)
target_compile_options(fuzz_wav PRIVATE ${SANITIZE})
target_link_libraries(fuzz_wav PRIVATE nlohmann_json::nlohmann_json)
target_link_options(fuzz_wav PRIVATE -fsanitize=fuzzer,address,undefined)
