# Reads the compiler's one target table (codegen/kernels/include/saguaro/kernels/targets.h) for CMake code that
# compiles something the way a target's bundle is compiled (the ISA kernel tests).
set(SAGUARO_TARGETS_HEADER "${CMAKE_CURRENT_LIST_DIR}/../codegen/kernels/include/saguaro/kernels/targets.h")

# saguaro_target_flags(NAME OUT): OUT = the compiler flags of target NAME, as a list; fails for an unknown name.
function(saguaro_target_flags name out)
  file(READ "${SAGUARO_TARGETS_HEADER}" table)
  string(REGEX MATCH "{\"${name}\",[ \t\n]*TargetArch::[a-z0-9_]+,[ \t\n]*\"([^\"]*)\"" row "${table}")
  if(NOT row)
    message(FATAL_ERROR "saguaro_target_flags: '${name}' is not a row of ${SAGUARO_TARGETS_HEADER}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${CMAKE_MATCH_1}")
  set(${out} ${flags} PARENT_SCOPE)
endfunction()
