// Work splitting for the kernels: the generated code passes the runtime's thread pool as a Parallel, and a kernel
// cuts its independent outputs (matrix rows) into contiguous chunks that the threads claim as they go. Chunk
// bounds are multiples of the kernel's alignment, and every output is computed by the same code whatever chunk
// holds it, so results never depend on the thread count or on which thread ran which chunk.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace saguaro::kernels {

/// A task run once per thread index t in [0, threads).
using ParallelTask = void (*)(void* arg, int32_t t);

/// A thread pool as the kernels see it (runtime-min's ThreadPool provides one; null means one thread).
struct Parallel {
  int32_t threads;                                          // >= 1, the calling thread included
  void* pool;                                               // passed back to run
  void (*run)(void* pool, ParallelTask task, void* arg);    // task(arg, t) for every t; returns when all are done
};

/// Work (multiply-accumulates, or bytes streamed) below which a kernel stays on the calling thread: waking the
/// pool and waiting for the slowest thread costs a few microseconds, about what one thread does with this much.
constexpr int64_t kMinParallelWork = int64_t{1} << 17;

/// The smallest chunk a thread claims, in the same units: small enough that the last chunks even out threads
/// that ran at different speeds (two cores rarely stream memory equally fast), large enough that claiming one
/// (a compare-and-swap on a shared line, ~0.1 µs) stays under a few percent of running it.
constexpr int64_t kMinChunkWork = int64_t{1} << 15;

/// Guided self-scheduling of [0, n): the chunk that starts at `begin` holds 1/(2·threads) of what remains, rounded
/// up to a multiple of `align` and at least `min_chunk` (a multiple of `align`). A pure function of `begin`, so
/// the chunk bounds are the same in every run; only which thread claims which chunk varies.
inline int64_t guided_chunk_end(int64_t n, int64_t align, int64_t min_chunk, int32_t threads, int64_t begin) {
  const int64_t share = (n - begin + 2 * threads - 1) / (2 * threads);
  int64_t size = (share + align - 1) / align * align;
  if (size < min_chunk) size = min_chunk;
  return size < n - begin ? begin + size : n;
}

/// Calls f(begin, end) for chunks of [0, n) (guided_chunk_end) on the pool's threads, each thread claiming the
/// next chunk when it finishes one; directly with [0, n) when there is no pool, one thread, no more than one
/// block of `align`, or less than kMinParallelWork of `work` in all. f must accept any range whose bounds are
/// multiples of `align` (or n).
template <class F>
inline void parallel_ranges(const Parallel* par, int64_t n, int64_t align, int64_t work, F&& f) {
  if (!par || par->threads <= 1 || n <= align || work < kMinParallelWork) {
    f(int64_t{0}, n);
    return;
  }
  // Rows per kMinChunkWork, rounded up to the alignment.
  const int64_t per_row = work / n > 0 ? work / n : 1;
  const int64_t min_rows = (kMinChunkWork + per_row - 1) / per_row;
  struct Job {
    alignas(64) std::atomic<int64_t> next;  // start of the next unclaimed chunk, on a line of its own
    alignas(64) std::remove_reference_t<F>* f;
    int64_t n, align, min_chunk;
    int32_t threads;
  } job{{0}, &f, n, align, (min_rows + align - 1) / align * align, par->threads};
  par->run(
      par->pool,
      [](void* arg, int32_t) {
        Job& j = *static_cast<Job*>(arg);
        int64_t b = j.next.load(std::memory_order_relaxed);
        while (b < j.n) {
          const int64_t e = guided_chunk_end(j.n, j.align, j.min_chunk, j.threads, b);
          if (j.next.compare_exchange_weak(b, e, std::memory_order_relaxed)) {
            (*j.f)(b, e);
            b = j.next.load(std::memory_order_relaxed);
          }  // else b now holds the current start: try again from there
        }
      },
      &job);
}

/// Calls f(t) once for every thread t of the pool at the same time (f(0) alone without a pool): for work that
/// must run as one copy per thread, such as the benchmark's per-thread loops.
template <class F>
inline void parallel_threads(const Parallel* par, F&& f) {
  if (!par || par->threads <= 1) {
    f(int32_t{0});
    return;
  }
  par->run(par->pool, [](void* arg, int32_t t) { (*static_cast<std::remove_reference_t<F>*>(arg))(t); }, &f);
}

}  // namespace saguaro::kernels
