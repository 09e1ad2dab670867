# libFuzzer target for the image front-end's PNG/JPEG reader (runtime-min/frontends/image),
# compiled from source with the sanitizers like the other parsers. Included by CMakeLists.txt.
find_path(STB_INCLUDE_DIR stb_image.h PATH_SUFFIXES stb REQUIRED)
set(IMAGE_DIR ${ROOT}/runtime-min/frontends/image)
file(GLOB IMAGE_SOURCES ${IMAGE_DIR}/src/*.cpp)
add_executable(fuzz_image fuzz_image.cpp ${IMAGE_SOURCES})
target_include_directories(fuzz_image PRIVATE ${IMAGE_DIR}/include ${IMAGE_DIR}/src)
target_include_directories(fuzz_image SYSTEM PRIVATE ${STB_INCLUDE_DIR})
target_compile_options(fuzz_image PRIVATE ${SANITIZE} -fexceptions)
target_link_libraries(fuzz_image PRIVATE nlohmann_json::nlohmann_json)
target_link_options(fuzz_image PRIVATE -fsanitize=fuzzer,address,undefined)
# Debian's stb_image 2.27 shifts by 32 and overflows int in its JPEG entropy decoder on corrupt
# scans (arithmetic only; upstream 2.28 added checks). Those two UBSan checks are off for the one
# file that compiles stb; ASan and every other check stay on (docs/image.md, "Fuzzing").
set_source_files_properties(${IMAGE_DIR}/src/stb_decoder.cpp PROPERTIES
  COMPILE_OPTIONS "-fno-sanitize=shift,signed-integer-overflow")
