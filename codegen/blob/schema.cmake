# saguaro_blob_schema: an interface target whose users include weights_generated.h, flatc's C++ for weights.fbs,
# generated in the build tree. Included by codegen/blob/CMakeLists.txt and by the standalone fuzz project.
set(SAGUARO_BLOB_GEN_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${SAGUARO_BLOB_GEN_DIR}/weights_generated.h
  COMMAND flatbuffers::flatc --cpp -o ${SAGUARO_BLOB_GEN_DIR} ${CMAKE_CURRENT_LIST_DIR}/weights.fbs
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/weights.fbs flatbuffers::flatc
  COMMENT "flatc weights.fbs")
add_custom_target(saguaro_blob_schema_header DEPENDS ${SAGUARO_BLOB_GEN_DIR}/weights_generated.h)
add_library(saguaro_blob_schema INTERFACE)
target_include_directories(saguaro_blob_schema INTERFACE ${SAGUARO_BLOB_GEN_DIR})
add_dependencies(saguaro_blob_schema saguaro_blob_schema_header)
