# Cross-compiles for 64-bit ARM Linux with Debian's GNU toolchain (g++-aarch64-linux-gnu) and runs the
# results through qemu user mode (qemu-user), so ctest, gtest_discover_tests and try_run work on an x86 host:
#   cmake -S BUNDLE_DIR -B BUILD_DIR -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# QEMU_CPU (cache variable or environment) picks the emulated core: max (dotprod + i8mm, the default),
# neoverse-n1 (dotprod, no i8mm) or cortex-a72 (ARMv8.0 NEON only).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(AARCH64_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${AARCH64_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${AARCH64_TRIPLE}-g++)
set(AARCH64_SYSROOT /usr/${AARCH64_TRIPLE} CACHE PATH "target libraries qemu loads (ld-linux, libc, libstdc++)")

if(NOT DEFINED QEMU_CPU)
  if(DEFINED ENV{QEMU_CPU})
    set(QEMU_CPU $ENV{QEMU_CPU})
  else()
    set(QEMU_CPU max)
  endif()
endif()
set(QEMU_CPU ${QEMU_CPU} CACHE STRING "qemu-aarch64 -cpu model for running target programs")
# binfmt_misc may be inactive (containers): call qemu explicitly.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-cpu;${QEMU_CPU};-L;${AARCH64_SYSROOT})

# Programs (flatc, python) come from the host; libraries and headers from the target's directory, except
# header-only packages, whose CMake configs live in the host's /usr/share (nlohmann_json) or /usr/lib.
set(CMAKE_FIND_ROOT_PATH ${AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
