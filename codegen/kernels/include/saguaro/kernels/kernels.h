// The kernel set that generated model code calls (contract: docs/internals.md, "Kernels").
//
// Every kernel has a generic version in generic/*.h (namespace saguaro::kernels::generic) that always compiles.
// This header exposes the selected version of each kernel in saguaro::kernels; an ISA set overrides a kernel by
// replacing its using-declaration below, and its tests compare against the generic one.
//
// Numerics: float32, no -ffast-math. Products are accumulated in the order llama2.c uses, and kernels must not
// be contracted into FMAs (the saguaro_kernels CMake target passes -ffp-contract=off) so that a compiled
// llama2.c checkpoint reproduces run.c's logits bit for bit.
#pragma once

#include "saguaro/kernels/generic/activation.h"
#include "saguaro/kernels/generic/attention.h"
#include "saguaro/kernels/generic/cq.h"
#include "saguaro/kernels/generic/elementwise.h"
#include "saguaro/kernels/generic/embed.h"
#include "saguaro/kernels/generic/matmul.h"
#include "saguaro/kernels/generic/rmsnorm.h"
#include "saguaro/kernels/generic/rope.h"

namespace saguaro::kernels {

using generic::add_f32;
using generic::add_rmsnorm_f32;
using generic::attention_f32;
using generic::cq_embed_f32;
using generic::cq_logits_f32;
using generic::cq_matmul_f32;
using generic::cq_rotate_f32;
using generic::embed_f32;
using generic::gated_act_f32;
using generic::head_rmsnorm_f32;
using generic::kv_store_f32;
using generic::logits_f32;
using generic::matmul_f32;
using generic::rmsnorm_f32;
using generic::rope_f32;
using generic::softcap_f32;

}  // namespace saguaro::kernels
