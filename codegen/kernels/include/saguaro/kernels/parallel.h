// Static work splitting for the kernels: the generated code passes the runtime's thread pool as a Parallel, and a
// kernel cuts its independent outputs (matrix rows) into one contiguous range per thread. Every output is
// computed by the same code whatever range it falls in, so results never depend on the thread count.
#pragma once

#include <cstdint>

namespace saguaro::kernels {

/// A task run once per thread index t in [0, threads).
using ParallelTask = void (*)(void* arg, int32_t t);

/// A thread pool as the kernels see it (runtime-min's ThreadPool provides one; null means one thread).
struct Parallel {
  int32_t threads;                                          // >= 1, the calling thread included
  void* pool;                                               // passed back to run
  void (*run)(void* pool, ParallelTask task, void* arg);    // task(arg, t) for every t; returns when all are done
};

/// Range t of `threads` near-equal ranges of [0, n) whose bounds are multiples of `align` (except n itself).
inline void split_range(int64_t n, int64_t align, int32_t threads, int32_t t, int64_t* begin, int64_t* end) {
  const int64_t blocks = (n + align - 1) / align;
  const int64_t b = blocks * t / threads * align, e = blocks * (t + 1) / threads * align;
  *begin = b < n ? b : n;
  *end = e < n ? e : n;
}

/// Work (multiply-accumulates, or bytes streamed) below which a kernel stays on the calling thread: waking the
/// pool and waiting for the slowest thread costs a few microseconds, about what one thread does with this much.
constexpr int64_t kMinParallelWork = int64_t{1} << 17;

/// Calls f(begin, end) for the thread ranges of [0, n) (split_range), on the pool's threads; directly with [0, n)
/// when there is no pool, one thread, no more than one block, or less than kMinParallelWork of `work` in all.
template <class F>
inline void parallel_ranges(const Parallel* par, int64_t n, int64_t align, int64_t work, F&& f) {
  if (!par || par->threads <= 1 || n <= align || work < kMinParallelWork) {
    f(int64_t{0}, n);
    return;
  }
  struct Job {
    F* f;
    int64_t n, align;
    int32_t threads;
  } job{&f, n, align, par->threads};
  par->run(
      par->pool,
      [](void* arg, int32_t t) {
        const Job& j = *static_cast<const Job*>(arg);
        int64_t b, e;
        split_range(j.n, j.align, j.threads, t, &b, &e);
        if (b < e) (*j.f)(b, e);
      },
      &job);
}

}  // namespace saguaro::kernels
