# The unit-test suites' common shape, for test/unit/*/CMakeLists.txt (in the project or built standalone).
find_package(GTest REQUIRED)
include(GoogleTest)

# saguaro_unit_tests(TARGET SOURCES ... [LIBS ...] [DEFINITIONS ...] [PREFIX P] [PROPERTIES ...]): the GoogleTest
# program TARGET, compiled with exceptions and linked with LIBS and gtest_main; ctest runs each of its tests as its
# own test, named P<Suite>.<Test>, with the test PROPERTIES given.
function(saguaro_unit_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX" "SOURCES;LIBS;DEFINITIONS;PROPERTIES")
  add_executable(${target} ${arg_SOURCES})
  target_compile_options(${target} PRIVATE -fexceptions)
  target_compile_definitions(${target} PRIVATE ${arg_DEFINITIONS})
  target_link_libraries(${target} PRIVATE ${arg_LIBS} GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${target} TEST_PREFIX "${arg_PREFIX}" DISCOVERY_TIMEOUT 60 PROPERTIES ${arg_PROPERTIES})
endfunction()
