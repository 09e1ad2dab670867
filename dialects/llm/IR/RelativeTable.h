//===- RelativeTable.h - the size of Gemma 4 audio attention's relative table ----------===//
//
// One rule for two places: the importer computes `llm.local_attention`'s `relative_table` weight
// with this many rows, and the op's kernels read that many. Plain C++ (no generated code), so the
// importer's own builds (the fuzz targets) need nothing of the dialect.
//
//===------------------------------------------------------------------------------------===//
#ifndef SAGUARO_DIALECTS_LLM_IR_RELATIVETABLE_H
#define SAGUARO_DIALECTS_LLM_IR_RELATIVETABLE_H

#include <cstdint>

namespace saguaro::llm {
/// The table's last position, C/2 with C = chunk + past + future (transformers' table): it has
/// relativeTableEnd(...) + 1 rows.
inline int64_t relativeTableEnd(int64_t chunk, int64_t past, int64_t future) {
  return (chunk + past + future) / 2;
}
} // namespace saguaro::llm

#endif // SAGUARO_DIALECTS_LLM_IR_RELATIVETABLE_H
