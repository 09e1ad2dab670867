# handoff/ as shipped inside a bundle compiled with `saguaro compile --handoff`: EmitBundle copies this file to the
# bundle's saguaro/handoff/CMakeLists.txt, next to copies of include/ and src/ without the chat server. So it needs
# libcurl and nlohmann-json, but not cpp-httplib (handoff/CMakeLists.txt builds the repository's own copy).
find_package(CURL QUIET)
if(NOT CURL_FOUND)
  message(FATAL_ERROR "this bundle was compiled with --handoff, which needs libcurl: install its development "
                      "files (Debian: libcurl4-openssl-dev) or compile the bundle without --handoff")
endif()
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)

# Every source the bundle carries (the chat server's are left out of the copy: EmitBundle.cpp).
file(GLOB_RECURSE SAGUARO_HANDOFF_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
add_library(saguaro_handoff STATIC ${SAGUARO_HANDOFF_SOURCES})
# runtime-min's header-only media_url.h: the local and the cloud side read image references by the same rules (a
# bundle keeps runtime-min beside handoff too).
target_include_directories(saguaro_handoff PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                           PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                                                   ${CMAKE_CURRENT_SOURCE_DIR}/../runtime-min/include)
target_compile_features(saguaro_handoff PUBLIC cxx_std_17)
target_compile_options(saguaro_handoff PRIVATE -fexceptions)
target_link_libraries(saguaro_handoff PUBLIC nlohmann_json::nlohmann_json PRIVATE CURL::libcurl Threads::Threads)
