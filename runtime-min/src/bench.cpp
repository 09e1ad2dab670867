// `saguaro_bundle BUNDLE --bench`: prefill/decode speed of the bundle, and in the same process the two limits they
// are judged against: streaming read bandwidth (decode reads every weight once per token) and the int8
// multiply-accumulate peak of the widest int8 dot-product instructions the machine offers (prefill is compute bound).
// The limits are measured with the same threads as the model: the pool's threads stream the buffer in chunks they
// claim as the kernels do (kernels::parallel_ranges), or each runs its own copy of the MAC loop, at the same time.
// The read rate is measured right before every decode run and each run is judged against its own.
#include "bench.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "bench_json_mask.h"
#include "huge_pages.h"
#include "model_state.h"
#include "process_stats.h"
#include "saguaro/blob.h"
#include "saguaro/kernels/cpu_features.h"
#include "saguaro/kernels/kv_layout.h"
#include "saguaro/kernels/parallel.h"

namespace saguaro {
namespace {

constexpr int32_t kDecodeTokens = 64;
constexpr int32_t kJsonMaskTokens = 512;  // tokens of constrained generation the mask is timed over
constexpr uint64_t kBandwidthBytes = 512ull << 20;  // far larger than any last-level cache
constexpr int kMaxRuns = 5, kMinRuns = 3;
constexpr double kBudgetSeconds = 5.0, kHardBudgetSeconds = 20.0;

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Times `run` up to kMaxRuns times, stopping early once kMinRuns ran and kBudgetSeconds passed (or after
// kHardBudgetSeconds for large models); returns the durations in run order.
template <class F>
std::vector<double> time_runs(F run) {
  std::vector<double> t;
  const double start = now_s();
  while (static_cast<int>(t.size()) < kMaxRuns) {
    t.push_back(run());
    const double spent = now_s() - start;
    if ((static_cast<int>(t.size()) >= kMinRuns && spent > kBudgetSeconds) || spent > kHardBudgetSeconds) break;
  }
  return t;
}

// --- read bandwidth -----------------------------------------------------------------------------------------------

// Sums 64-bit words with independent accumulators so the loads, not the adds, set the pace (vectorised at -O2+).
uint64_t read_sum(const uint64_t* p, uint64_t words) {
  uint64_t s[8] = {};
  for (uint64_t i = 0; i + 8 <= words; i += 8)
    for (int k = 0; k < 8; ++k) s[k] += p[i + k];
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

// A buffer far larger than any last-level cache, and the read rate over it with the threads of `par` (chunks
// claimed as the kernels claim theirs, kernels::parallel_ranges).
//
// The buffer is memory of the kind the loader reads the weights into (map_huge_pages; docs/runtime.md, "Blob
// loader"): a 4 KiB-page buffer reads about a fifth slower on this machine (24 against 29–31 GB/s at one thread),
// which would flatter the decode efficiency. huge_pages() says whether the kernel accepted the huge-page advice.
class ReadBandwidth {
 public:
  ReadBandwidth() : memory_(kBandwidthBytes), buf_(static_cast<uint64_t*>(memory_.data())) {
    if (!buf_) throw std::runtime_error("cannot allocate the bandwidth buffer");
    for (uint64_t i = 0; i < kWords; ++i) buf_[i] = i;  // distinct words, so no page is a shared zero page
  }

  bool huge_pages() const { return memory_.advised(); }

  /// Bytes read per second (GB/s, 1e9 bytes) averaged over whole passes for at least `seconds`.
  double average_gbs(const kernels::Parallel* par, double seconds) {
    uint64_t bytes = 0;
    const double t0 = now_s();
    double t = t0;
    do {
      std::atomic<uint64_t> sum{0};
      const auto n = static_cast<int64_t>(kWords);
      kernels::parallel_ranges(par, n, 4096, n, [&](int64_t b, int64_t e) {
        sum.fetch_add(read_sum(buf_ + b, static_cast<uint64_t>(e - b)), std::memory_order_relaxed);
      });
      sink_ = sink_ + sum.load();
      bytes += kBandwidthBytes;
      t = now_s();
    } while (t - t0 < seconds);
    return static_cast<double>(bytes) / (t - t0) / 1e9;
  }

 private:
  static constexpr uint64_t kWords = kBandwidthBytes / 8;
  HugePageMemory memory_;
  uint64_t* buf_ = nullptr;
  volatile uint64_t sink_ = 0;
};

// --- int8 multiply-accumulate peak --------------------------------------------------------------------------------
// Each kernel runs `iters` iterations of register-resident int8 dot products on independent accumulators and
// returns how many int8 MACs that was. The empty asm makes the operands opaque, so nothing is hoisted or folded.

uint64_t mac_scalar(uint64_t iters, int32_t* out) {
  int32_t acc[8] = {}, a[8], b[8];
  for (int k = 0; k < 8; ++k) a[k] = k + 1, b[k] = 3 - k;
  for (uint64_t i = 0; i < iters; ++i) {
    for (int k = 0; k < 8; ++k) {
      __asm__ volatile("" : "+r"(a[k]));
      acc[k] += static_cast<int8_t>(a[k]) * static_cast<int8_t>(b[k]);
    }
  }
  *out = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
  return iters * 8;
}

#if defined(__x86_64__) || defined(__i386__)
// vpmaddubsw (32 u8×s8 products summed in pairs) + vpmaddwd (pairs to int32) + vpaddd: 32 MACs per step.
__attribute__((target("avx2"))) uint64_t mac_avx2(uint64_t iters, int32_t* out) {
  // Four chains keep both multiply ports busy without spilling (16 ymm registers).
  const __m256i ones = _mm256_set1_epi16(1), a = _mm256_set1_epi8(3);
  __m256i b0 = _mm256_set1_epi8(-1), b1 = _mm256_set1_epi8(2), b2 = _mm256_set1_epi8(-3), b3 = _mm256_set1_epi8(4);
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+x"(b0), "+x"(b1), "+x"(b2), "+x"(b3));
    c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b0), ones));
    c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b1), ones));
    c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b2), ones));
    c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b3), ones));
  }
  const __m256i s = _mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3));
  *out = _mm256_extract_epi32(s, 0);
  return iters * 4 * 32;
}

// vpdpbusd on ymm (AVX-512 VNNI + VL): 32 u8×s8 products summed in fours into int32 lanes, one instruction.
__attribute__((target("avx2,avx512f,avx512vl,avx512vnni"))) uint64_t mac_avx512vnni(uint64_t iters, int32_t* out) {
  // Eight chains: enough independent instructions to cover the latency on both multiply pipes.
  const __m256i a = _mm256_set1_epi8(3);
  __m256i b0 = _mm256_set1_epi8(-1), b1 = _mm256_set1_epi8(2), b2 = _mm256_set1_epi8(-3), b3 = _mm256_set1_epi8(4);
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+x"(b0), "+x"(b1), "+x"(b2), "+x"(b3));
    c0 = _mm256_dpbusd_epi32(c0, a, b0), c1 = _mm256_dpbusd_epi32(c1, a, b1);
    c2 = _mm256_dpbusd_epi32(c2, a, b2), c3 = _mm256_dpbusd_epi32(c3, a, b3);
    c4 = _mm256_dpbusd_epi32(c4, a, b0), c5 = _mm256_dpbusd_epi32(c5, a, b1);
    c6 = _mm256_dpbusd_epi32(c6, a, b2), c7 = _mm256_dpbusd_epi32(c7, a, b3);
  }
  const __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
                                     _mm256_add_epi32(_mm256_add_epi32(c4, c5), _mm256_add_epi32(c6, c7)));
  *out = _mm256_extract_epi32(s, 0);
  return iters * 8 * 32;
}
#endif

#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
// SDOT: 16 s8×s8 products summed in fours into int32 lanes, 16 MACs per instruction. Only when runtime-min itself
// is compiled with dotprod enabled: no run-time dispatch, so that an ARMv8.0 build never contains SDOT. (Bundles
// compile runtime-min without the target's -march, so their reported peak is the ARMv8.0 one below.)
uint64_t mac_dotprod(uint64_t iters, int32_t* out) {
  const int8x16_t a = vdupq_n_s8(3);
  int8x16_t b0 = vdupq_n_s8(-1), b1 = vdupq_n_s8(2), b2 = vdupq_n_s8(-3), b3 = vdupq_n_s8(4),
            b4 = vdupq_n_s8(-5), b5 = vdupq_n_s8(6), b6 = vdupq_n_s8(-7), b7 = vdupq_n_s8(8);
  int32x4_t c0 = vdupq_n_s32(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+w"(b0), "+w"(b1), "+w"(b2), "+w"(b3), "+w"(b4), "+w"(b5), "+w"(b6), "+w"(b7));
    c0 = vdotq_s32(c0, a, b0), c1 = vdotq_s32(c1, a, b1), c2 = vdotq_s32(c2, a, b2), c3 = vdotq_s32(c3, a, b3);
    c4 = vdotq_s32(c4, a, b4), c5 = vdotq_s32(c5, a, b5), c6 = vdotq_s32(c6, a, b6), c7 = vdotq_s32(c7, a, b7);
  }
  int32x4_t s = vaddq_s32(vaddq_s32(vaddq_s32(c0, c1), vaddq_s32(c2, c3)), vaddq_s32(vaddq_s32(c4, c5), vaddq_s32(c6, c7)));
  *out = vgetq_lane_s32(s, 0);
  return iters * 8 * 16;
}
#elif defined(__aarch64__)
// ARMv8.0: SMULL (8 s8×s8 products to int16) + SADALP (pairwise into int32), 8 MACs per pair of instructions.
uint64_t mac_neon(uint64_t iters, int32_t* out) {
  const int8x8_t a = vdup_n_s8(3);
  int8x8_t b0 = vdup_n_s8(-1), b1 = vdup_n_s8(2), b2 = vdup_n_s8(-3), b3 = vdup_n_s8(4);
  int32x4_t c0 = vdupq_n_s32(0), c1 = c0, c2 = c0, c3 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+w"(b0), "+w"(b1), "+w"(b2), "+w"(b3));
    c0 = vpadalq_s16(c0, vmull_s8(a, b0)), c1 = vpadalq_s16(c1, vmull_s8(a, b1));
    c2 = vpadalq_s16(c2, vmull_s8(a, b2)), c3 = vpadalq_s16(c3, vmull_s8(a, b3));
  }
  *out = vgetq_lane_s32(vaddq_s32(vaddq_s32(c0, c1), vaddq_s32(c2, c3)), 0);
  return iters * 4 * 8;
}
#endif

// --- float32 fused multiply-add peak -----------------------------------------------------------------------------
// As the int8 kernels: register-resident FMAs on independent accumulators, returning how many float32
// multiply-accumulates that was (the vision tower's float work, attention, runs on these).

uint64_t fma_scalar(uint64_t iters, int32_t* out) {
  float acc[8] = {}, a = 1.0000001f, b = 1e-7f;
  for (uint64_t i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) {
      __asm__ volatile("" : "+r"(b));
      acc[k] = acc[k] * a + b;
    }
  *out = static_cast<int32_t>(acc[0] + acc[7]);
  return iters * 8;
}

#if defined(__x86_64__) || defined(__i386__)
// vfmadd on ymm: 8 float MACs per instruction, eight chains to cover the latency on both FMA pipes.
__attribute__((target("avx2,fma"))) uint64_t fma_avx2(uint64_t iters, int32_t* out) {
  const __m256 a = _mm256_set1_ps(1.0000001f);
  __m256 b = _mm256_set1_ps(1e-7f);
  __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+x"(b));
    c0 = _mm256_fmadd_ps(c0, a, b), c1 = _mm256_fmadd_ps(c1, a, b), c2 = _mm256_fmadd_ps(c2, a, b);
    c3 = _mm256_fmadd_ps(c3, a, b), c4 = _mm256_fmadd_ps(c4, a, b), c5 = _mm256_fmadd_ps(c5, a, b);
    c6 = _mm256_fmadd_ps(c6, a, b), c7 = _mm256_fmadd_ps(c7, a, b);
  }
  const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                 _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
  *out = static_cast<int32_t>(_mm256_cvtss_f32(s));
  return iters * 8 * 8;
}

// The same on zmm: 16 float MACs per instruction.
__attribute__((target("avx512f"))) uint64_t fma_avx512(uint64_t iters, int32_t* out) {
  const __m512 a = _mm512_set1_ps(1.0000001f);
  __m512 b = _mm512_set1_ps(1e-7f);
  __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+v"(b));
    c0 = _mm512_fmadd_ps(c0, a, b), c1 = _mm512_fmadd_ps(c1, a, b), c2 = _mm512_fmadd_ps(c2, a, b);
    c3 = _mm512_fmadd_ps(c3, a, b), c4 = _mm512_fmadd_ps(c4, a, b), c5 = _mm512_fmadd_ps(c5, a, b);
    c6 = _mm512_fmadd_ps(c6, a, b), c7 = _mm512_fmadd_ps(c7, a, b);
  }
  const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                                 _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
  *out = static_cast<int32_t>(_mm512_reduce_add_ps(s));
  return iters * 8 * 16;
}
#elif defined(__aarch64__)
// FMLA on q registers: 4 float MACs per instruction.
uint64_t fma_neon(uint64_t iters, int32_t* out) {
  const float32x4_t a = vdupq_n_f32(1.0000001f);
  float32x4_t b = vdupq_n_f32(1e-7f);
  float32x4_t c0 = vdupq_n_f32(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (uint64_t i = 0; i < iters; ++i) {
    __asm__ volatile("" : "+w"(b));
    c0 = vfmaq_f32(b, c0, a), c1 = vfmaq_f32(b, c1, a), c2 = vfmaq_f32(b, c2, a), c3 = vfmaq_f32(b, c3, a);
    c4 = vfmaq_f32(b, c4, a), c5 = vfmaq_f32(b, c5, a), c6 = vfmaq_f32(b, c6, a), c7 = vfmaq_f32(b, c7, a);
  }
  const float32x4_t s = vaddq_f32(vaddq_f32(vaddq_f32(c0, c1), vaddq_f32(c2, c3)), vaddq_f32(vaddq_f32(c4, c5), vaddq_f32(c6, c7)));
  *out = static_cast<int32_t>(vgetq_lane_f32(s, 0));
  return iters * 8 * 4;
}
#endif

using MacKernel = uint64_t (*)(uint64_t, int32_t*);

// The widest int8 dot-product kernel this CPU runs, and its name for the report.
MacKernel widest_mac_kernel(const char** isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (kernels::cpu_runs_x86_avx512vnni()) return *isa = "avx512vnni-dpbusd", &mac_avx512vnni;
  if (kernels::cpu_runs_x86_avx2()) return *isa = "avx2-maddubs", &mac_avx2;
#elif defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
  return *isa = "neon-dotprod", &mac_dotprod;
#elif defined(__aarch64__)
  return *isa = "neon-smull", &mac_neon;
#endif
  return *isa = "scalar", &mac_scalar;
}

// The widest float32 FMA kernel this CPU runs, and its name for the report.
MacKernel widest_fma_kernel(const char** isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (kernels::cpu_runs_x86_avx512vnni()) return *isa = "avx512-fma", &fma_avx512;
  if (kernels::cpu_runs_x86_avx2()) return *isa = "avx2-fma", &fma_avx2;
#elif defined(__aarch64__)
  return *isa = "neon-fmla", &fma_neon;
#endif
  return *isa = "scalar", &fma_scalar;
}

// Best of several ~0.2 s runs (one copy of the loop per thread of `par`, all at once), in 1e9 MACs per second.
double mac_peak_gops(MacKernel kernel, const kernels::Parallel* par) {
  volatile int32_t sink = 0;
  int32_t r = 0;
  uint64_t iters = 1 << 16;
  for (double t = 0; t < 0.05; iters *= 2) {  // size the run
    const double t0 = now_s();
    kernel(iters, &r);
    t = now_s() - t0;
  }
  iters *= 4;
  double best = 0;
  for (int k = 0; k < 5; ++k) {
    std::atomic<uint64_t> macs{0};
    const double t0 = now_s();
    kernels::parallel_threads(par, [&](int32_t) {
      int32_t out = 0;
      macs.fetch_add(kernel(iters, &out), std::memory_order_relaxed);
      (void)out;  // written through a pointer the compiler cannot see into
    });
    best = std::max(best, static_cast<double>(macs.load()) / (now_s() - t0) / 1e9);
    sink = sink + r;
  }
  return best;
}

// --- the model ----------------------------------------------------------------------------------------------------

/// Weight bytes one decode step reads: every weight tensor read whole, and one row of each tensor in the blob's
/// mapped section — the tables only gathered, a row per token (kern-mark-gathered-weights decides which: a
/// per-layer-embedding table, a token embedding that is not also the output projection). `*gathered` receives the
/// rows' part.
uint64_t decode_bytes_per_token(const Blob& blob, uint64_t* gathered) {
  uint64_t whole = 0;
  *gathered = 0;
  for (const BlobEntry& e : blob.tensors()) {
    if (e.kind != "weight") continue;
    if (!e.mapped) whole += e.bytes;
    else if (!e.shape.empty() && e.shape[0] > 0) *gathered += e.bytes / static_cast<uint64_t>(e.shape[0]);
  }
  return whole + *gathered;
}

int fail(const std::string& msg) {
  std::fprintf(stderr, "saguaro: %s\n", msg.c_str());
  return 1;
}

}  // namespace

double kv_bytes_per_decode_step(const ModelSpec& spec, int32_t first_pos, int32_t steps) {
  // One position's K and V rows in one layer: every layer caches positions of the same width, max_seq of them or a
  // ring of its window (kv_layout.h).
  double positions = 0;
  for (int32_t l = 0; l < spec.n_layers; ++l)
    positions += static_cast<double>(kernels::kv_cache_positions(spec.windows ? spec.windows[l] : 0, spec.max_seq));
  const double row = static_cast<double>(spec.kv_bytes) / positions;
  double total = 0;
  for (int32_t i = 0; i < steps; ++i) {
    const int32_t seen = first_pos + i + 1;
    for (int32_t l = 0; l < spec.n_layers; ++l) {
      const int32_t window = spec.windows ? spec.windows[l] : 0;
      total += (window > 0 && window < seen ? window : seen) * row;
    }
  }
  return total / steps;
}

int run_bench(const std::string& bundle, const std::string& out_path, int32_t threads, WeightsLoad load,
              int32_t prompt_tokens) {
  const ModelSpec& spec = saguaro_model_spec();
  std::string path = bundle, err;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) path += "/weights.sgw";
  std::unique_ptr<Blob> blob = Blob::open(path, &err, load);
  if (!blob) return fail(err);
  if (spec.max_seq < prompt_tokens + kDecodeTokens)
    return fail(path + ": --bench needs max_seq >= " + std::to_string(prompt_tokens + kDecodeTokens) +
                ", the bundle has " + std::to_string(spec.max_seq));
  std::unique_ptr<BoundModel> model = BoundModel::bind(spec, *blob, &err);
  if (!model) return fail(err);
  model->set_threads(threads);
  const kernels::Parallel* par = static_cast<const kernels::Parallel*>(model->state().parallel);

  std::vector<int32_t> prompt(prompt_tokens);
  uint64_t rng = 0x5eed;
  for (int32_t& id : prompt) id = static_cast<int32_t>((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33) % spec.vocab;
  std::vector<float> logits(static_cast<size_t>(spec.vocab));
  auto prefill = [&] {
    model->clear_kv();
    const double t0 = now_s();
    for (int32_t p = 0; p < prompt_tokens; p += spec.prefill_chunk)
      saguaro_model_prefill(model->state(), prompt.data() + p, std::min(spec.prefill_chunk, prompt_tokens - p), p,
                            nullptr, nullptr, logits.data(), false);
    return now_s() - t0;
  };
  auto decode_tokens = [&] {  // greedy, so every run gathers the same rows
    for (int32_t i = 0; i < kDecodeTokens; ++i) {
      const int32_t token = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
      saguaro_model_decode(model->state(), token, prompt_tokens + i, logits.data());
    }
  };
  // Warm-up: maps the weights in and gathers every row the timed runs will. The peak RSS is the model's, taken before
  // the read-bandwidth buffer exists.
  prefill();
  decode_tokens();
  const uint64_t peak_rss = peak_rss_bytes();

  // The read rate is measured right before each decode run, averaged over about as long as the run takes, and each
  // run is judged against its own: on a shared machine the rate drifts by a quarter within a minute, and a best
  // pass measured once would compare the best moment against typical ones.
  ReadBandwidth reader;
  const char* isa = nullptr;
  const double mac_peak = mac_peak_gops(widest_mac_kernel(&isa), par);
  std::vector<double> decode_bandwidths;  // GB/s before each decode run, in order
  double last_decode_s = 1.0;
  auto decode = [&] {
    prefill();
    decode_bandwidths.push_back(reader.average_gbs(par, std::min(last_decode_s, 1.0)));
    const double t0 = now_s();
    decode_tokens();
    return last_decode_s = now_s() - t0;
  };
  const std::vector<double> prefill_times = time_runs(prefill);
  const std::vector<double> decode_times = time_runs(decode);
  const double prefill_s = median(prefill_times), decode_s = median(decode_times);

  uint64_t gathered = 0;
  const uint64_t bytes = decode_bytes_per_token(*blob, &gathered);
  const double kv_bytes = kv_bytes_per_decode_step(spec, prompt_tokens, kDecodeTokens);
  const double decode_tps = kDecodeTokens / decode_s;
  // Each decode run against the read rate measured just before it; the median of those ratios. A decode step must
  // read every weight and the KV cache it attends over: decode_efficiency counts both (the memory-bandwidth
  // utilization of LLM serving), decode_weight_efficiency the weights alone.
  std::vector<double> efficiencies, weight_efficiencies;
  for (size_t i = 0; i < decode_times.size(); ++i) {
    // What the read loop would read in the time this run took per token.
    const double reference_bytes = decode_bandwidths[i] * 1e9 * decode_times[i] / kDecodeTokens;
    efficiencies.push_back((static_cast<double>(bytes) + kv_bytes) / reference_bytes);
    weight_efficiencies.push_back(static_cast<double>(bytes) / reference_bytes);
  }
  const JsonMaskCost mask = measure_json_mask(kGemmaVocab, kJsonMaskTokens);
  nlohmann::json out = {{"model", spec.name},
                        {"threads", model->threads()},
                        {"prompt_tokens", prompt_tokens},
                        {"decode_tokens", kDecodeTokens},
                        {"prefill_tps", prompt_tokens / prefill_s},
                        {"prefill_runs", prefill_times.size()},
                        {"decode_tps", decode_tps},
                        {"decode_runs", decode_times.size()},
                        {"weight_bytes_per_token", bytes},
                        {"gathered_bytes_per_token", gathered},
                        {"kv_bytes_per_token", kv_bytes},
                        {"resident_bytes", resident_bytes(spec, *blob)},
                        {"mapped_bytes", blob->mapped_bytes()},
                        {"mapped_resident_bytes", blob->mapped_resident_bytes()},
                        {"peak_rss_bytes", peak_rss},
                        {"weights_load", load == WeightsLoad::kMap ? "mmap" : "read"},
                        {"bandwidth_gbs", median(decode_bandwidths)},
                        {"bandwidth_runs_gbs", decode_bandwidths},
                        {"bandwidth_huge_pages", reader.huge_pages()},
                        {"mac_peak_gops", mac_peak},
                        {"mac_isa", isa},
                        {"decode_efficiency", median(efficiencies)},
                        {"decode_weight_efficiency", median(weight_efficiencies)},
                        {"decode_ms_per_token", 1e3 / decode_tps},
                        {"json_mask_vocab", mask.vocab},
                        {"json_mask_tokens", mask.tokens},
                        {"json_mask_ms_per_token", mask.mean_ms},
                        {"json_mask_max_ms", mask.max_ms},
                        {"json_mask_trie_build_ms", mask.trie_build_ms}};
  std::ofstream f(out_path);
  f << out.dump(2) << "\n";
  if (!f) return fail(out_path + ": cannot write");
  return 0;
}

namespace {

/// One clip's or image's rows for a tower (EncoderSpec's layout), the grid positions of an image's patches (empty for
/// audio) and the soft tokens they make.
struct TowerInput {
  int32_t rows = 0, soft = 0;
  std::vector<float> data;
  std::vector<int32_t> positions;
};

/// `rows × width` values in [0, 1) of a fixed generator: the benches' input.
std::vector<float> random_rows(int32_t rows, int32_t width) {
  std::vector<float> v(static_cast<size_t>(rows) * width);
  uint64_t rng = 0x5eed;
  for (float& x : v) x = static_cast<float>((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 40) / 16777216.0f;
  return v;
}

/// What --bench-image and --bench-audio measure: the tower `kind` ("vision", "audio") on `in`, the prefill of the
/// prompt its soft tokens become (begin, the soft tokens, end), both the median of several runs, with the machine's
/// int8 and float32 multiply-accumulate peaks measured in the same process; written to `out_path` beside `out`.
int bench_tower(const std::string& path, const std::string& out_path, int32_t threads, WeightsLoad load,
                const char* kind, const TowerInput& in, nlohmann::json out) {
  const ModelSpec& spec = saguaro_model_spec();
  const EncoderSpec& tower = std::string(kind) == "vision" ? *spec.vision : *spec.audio;
  std::string err;
  if (in.soft + 2 > spec.max_seq)
    return fail(path + ": the " + kind + " bench needs max_seq >= " + std::to_string(in.soft + 2) +
                ", the bundle has " + std::to_string(spec.max_seq));
  std::unique_ptr<Blob> blob = Blob::open(path, &err, load);
  if (!blob) return fail(err);
  std::unique_ptr<BoundModel> model = BoundModel::bind(spec, *blob, &err);
  if (!model) return fail(err);
  model->set_threads(threads);
  const kernels::Parallel* par = static_cast<const kernels::Parallel*>(model->state().parallel);
  std::vector<float> soft_tokens(static_cast<size_t>(in.soft) * tower.out_dim);
  auto encode = [&] {
    const double t0 = now_s();
    if (!model->encode(tower, in.data.data(), in.positions.empty() ? nullptr : in.positions.data(), in.rows,
                       soft_tokens.data()))
      throw std::runtime_error(std::string("out of memory for the ") + kind + " tower's arena");
    return now_s() - t0;
  };
  std::vector<int32_t> ids(static_cast<size_t>(in.soft) + 2, tower.pad_id);
  ids.front() = tower.begin_id, ids.back() = tower.end_id;
  std::vector<uint8_t> mask(ids.size(), 0);
  std::fill(mask.begin() + 1, mask.end() - 1, 1);
  std::vector<float> rows_in(ids.size() * static_cast<size_t>(spec.dim));
  std::vector<float> logits(static_cast<size_t>(spec.vocab));
  auto prefill = [&] {
    std::copy(soft_tokens.begin(), soft_tokens.end(), rows_in.begin() + spec.dim);
    model->clear_kv();
    const double t0 = now_s();
    const int32_t n = static_cast<int32_t>(ids.size());
    for (int32_t p = 0; p < n; p += spec.prefill_chunk)
      saguaro_model_prefill(model->state(), ids.data() + p, std::min(spec.prefill_chunk, n - p), p,
                            rows_in.data() + static_cast<size_t>(p) * spec.dim, mask.data() + p, logits.data(), false);
    return now_s() - t0;
  };
  // A streamed clip (the audio tower's step): every whole soft token's frames went through the step as they arrived;
  // at the end of the clip the last step over the rest remains. The state before it is made once (one step over the
  // whole tokens) and restored before each timed run. The steps run on one kept arena, as a stream's do.
  std::vector<float> state(tower.state_bytes / sizeof(float)), state_before, step_tokens;
  HugePageMemory step_arena;
  const int32_t token = tower.rows_per_token, before = in.rows > token ? (in.rows - 1) / token * token : 0;
  auto last_step = [&] {
    state = state_before;
    step_tokens.resize(static_cast<size_t>(in.rows - before + token - 1) / token * tower.out_dim);
    const double t0 = now_s();
    if (!model->encode_step(tower, in.data.data() + static_cast<size_t>(before) * tower.row_width, in.rows - before,
                            before, state.data(), step_tokens.data(), &step_arena))
      throw std::runtime_error(std::string("out of memory for the ") + kind + " tower's arena");
    return now_s() - t0;
  };
  if (tower.encode_step) {
    step_tokens.resize(static_cast<size_t>(before / token) * tower.out_dim);
    if (before > 0 && !model->encode_step(tower, in.data.data(), before, 0, state.data(), step_tokens.data(), &step_arena))
      throw std::runtime_error(std::string("out of memory for the ") + kind + " tower's arena");
    state_before = state;
    last_step();  // warm-up
  }
  encode();  // warm-up: the weights paged in, the arena's first touch
  prefill();
  const uint64_t peak_rss = peak_rss_bytes();
  const std::vector<double> encode_times = time_runs(encode), prefill_times = time_runs(prefill);
  if (tower.encode_step) {
    const std::vector<double> step_times = time_runs(last_step);
    out.update({{"last_step_frames", in.rows - before},
                {"last_step_ms", 1e3 * median(step_times)},
                {"last_step_runs", step_times.size()}});
  }
  const char *mac_isa = nullptr, *fma_isa = nullptr;
  const double mac_peak = mac_peak_gops(widest_mac_kernel(&mac_isa), par);
  const double fma_peak = mac_peak_gops(widest_fma_kernel(&fma_isa), par);
  out.update({{"model", spec.name},
              {"threads", model->threads()},
              {"soft_tokens", in.soft},
              {"encode_ms", 1e3 * median(encode_times)},
              {"encode_runs", encode_times.size()},
              {"prefill_tokens", ids.size()},
              {"prefill_ms", 1e3 * median(prefill_times)},
              {"prefill_runs", prefill_times.size()},
              {std::string(kind) + "_arena_bytes", tower.arena_bytes},
              {"peak_rss_bytes", peak_rss},
              {"mac_peak_gops", mac_peak},
              {"mac_isa", mac_isa},
              {"fma_peak_gflops", fma_peak},
              {"fma_isa", fma_isa}});
  std::ofstream f(out_path);
  f << out.dump(2) << "\n";
  if (!f) return fail(out_path + ": cannot write");
  return 0;
}

/// `bundle`'s weights.sgw when it is a directory.
std::string weights_path(const std::string& bundle) {
  struct stat st;
  return ::stat(bundle.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? bundle + "/weights.sgw" : bundle;
}

}  // namespace

int run_bench_image(const std::string& bundle, const std::string& out_path, int32_t threads, WeightsLoad load) {
  const ModelSpec& spec = saguaro_model_spec();
  const std::string path = weights_path(bundle);
  if (!spec.vision) return fail(path + ": --bench-image needs a model with a vision tower");
  const EncoderSpec& vision = *spec.vision;
  // A whole budget: the most nearly square grid of soft tokens the position table holds, of random pixels.
  const int32_t k = vision.pooling, soft = vision.max_rows / (k * k);
  int32_t tall = 1;
  for (int32_t a = 1; a * a <= soft; ++a)
    if (soft % a == 0 && soft / a * k <= vision.position_limit) tall = a;
  const int32_t wide = soft / tall;
  TowerInput in;
  in.soft = soft, in.rows = soft * k * k;
  in.data = random_rows(in.rows, vision.row_width);
  for (int32_t y = 0; y < tall * k; ++y)
    for (int32_t x = 0; x < wide * k; ++x) in.positions.insert(in.positions.end(), {x, y});
  return bench_tower(path, out_path, threads, load, "vision", in,
                     {{"patches", in.rows}, {"grid", {wide * k, tall * k}}});
}

int run_bench_audio(const std::string& bundle, const std::string& out_path, int32_t threads, WeightsLoad load) {
  const ModelSpec& spec = saguaro_model_spec();
  const std::string path = weights_path(bundle);
  if (!spec.audio) return fail(path + ": --bench-audio needs a model with an audio tower");
  const EncoderSpec& audio = *spec.audio;
  // 30 s, the longest clip: the valid frames of 480000 samples (Gemma 4's feature extractor), random values.
  constexpr int32_t kFrames = 2999;
  TowerInput in;
  in.rows = std::min(kFrames, audio.max_rows);
  in.soft = (in.rows + audio.rows_per_token - 1) / audio.rows_per_token;
  in.data = random_rows(in.rows, audio.row_width);
  return bench_tower(path, out_path, threads, load, "audio", in,
                     {{"frames", in.rows}, {"audio_seconds", (in.rows + 1) * 0.01}});
}

}  // namespace saguaro
