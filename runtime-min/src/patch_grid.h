// What an encoder tower requires of the patch rows it is given (EncoderSpec, model_abi.h).
#pragma once

#include <cstdint>
#include <string>

#include "saguaro/model_abi.h"

namespace saguaro {

/// True when `rows` patches at `positions` (rows × 2: column, row) form a whole grid the tower can pool: 1 ≤ rows ≤
/// max_rows, every position inside the table and taken once, the grid's width and height multiples of pooling,
/// with no hole. Else false and a one-line reason in *err.
bool check_patch_grid(const EncoderSpec& spec, const int32_t* positions, int32_t rows, std::string* err);

}  // namespace saguaro
