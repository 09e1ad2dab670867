// Which kernel set each ISA set falls back to, as ggml-cpu's arch-fallback.h: a generic kernel always compiles,
// and an ISA set overrides it per kernel.
//
// Each ISA namespace nominates the set below it with a using-directive. Qualified lookup `isa::foo` finds the ISA
// namespace's own declaration of foo first and consults the nominated namespace only when there is none, so a
// kernel an ISA set does not define resolves down the chain to the generic one. kernels.h nominates the selected
// set in saguaro::kernels, so `saguaro::kernels::foo` (the spelling generated code uses) resolves the same way.
//
// Inside an ISA namespace, unqualified names still find that namespace's own declarations first; names the chain
// brings in count as members of saguaro::kernels, so an ISA header calls a fallen-back kernel of another set
// qualified (generic::foo).
#pragma once

namespace saguaro::kernels {

namespace generic {}

// x86: AVX2+FMA+F16C, then AVX-512 VNNI (only the int8 CQ kernels).
namespace x86_avx2 {
using namespace generic;
}
namespace x86_avx512vnni {
using namespace x86_avx2;
}

// aarch64: NEON (ARMv8.0), then FEAT_DotProd and FEAT_I8MM (only the int8 CQ kernels).
namespace arm64_neon {
using namespace generic;
}
namespace arm64_dotprod {
using namespace arm64_neon;
}
namespace arm64_i8mm {
using namespace arm64_dotprod;
}

}  // namespace saguaro::kernels
