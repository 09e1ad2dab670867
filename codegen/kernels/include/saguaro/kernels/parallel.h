// Work splitting for the kernels: the generated code passes the runtime's thread pool as a Parallel, and a kernel
// cuts its independent outputs (matrix rows) into contiguous chunks that the threads run, each from its own share
// first, then by stealing from the others. Chunk bounds are multiples of the kernel's alignment, and every output
// is computed by the same code whatever chunk holds it, so results never depend on the thread count or on which
// thread ran which chunk.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
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

/// The smallest chunk a thread claims or steals, in the same units: small enough that stealing evens out threads
/// that ran at different speeds (two cores rarely stream memory equally fast), large enough that claiming one
/// (a compare-and-swap, ~0.1 µs) stays under a few percent of running it.
constexpr int64_t kMinChunkWork = int64_t{1} << 15;

namespace parallel_detail {

/// One thread's unclaimed rows [front, back), packed into one word so that its owner (claiming from the front)
/// and thieves (taking the back half) agree through a single compare-and-swap. On a cache line of its own.
struct alignas(64) RowRange {
  std::atomic<uint64_t> bounds;
  static uint64_t pack(int64_t front, int64_t back) {
    return static_cast<uint64_t>(front) | static_cast<uint64_t>(back) << 32;
  }
  static int64_t front(uint64_t v) { return static_cast<int64_t>(v & 0xffffffffu); }
  static int64_t back(uint64_t v) { return static_cast<int64_t>(v >> 32); }
};

/// The start of thread t's share of [0, n) when it is cut into `threads` contiguous shares at multiples of `align`.
inline int64_t share_begin(int64_t n, int64_t align, int32_t threads, int32_t t) {
  const int64_t b = (n * t / threads + align - 1) / align * align;
  return b < n ? b : n;
}

/// Claims [*b, *e) from the front of `r`: a quarter of what is left, rounded up to `align`, and at least
/// `min_chunk` rows (false when `r` is empty). Large first chunks keep a kernel's per-call setup (prefill's panel
/// decoding) rare; the shrinking tail leaves thieves something to take.
inline bool claim_front(RowRange& r, int64_t align, int64_t min_chunk, int64_t* b, int64_t* e) {
  uint64_t v = r.bounds.load(std::memory_order_relaxed);
  for (;;) {
    const int64_t front = RowRange::front(v), back = RowRange::back(v);
    if (front >= back) return false;
    int64_t chunk = ((back - front + 3) / 4 + align - 1) / align * align;
    if (chunk < min_chunk) chunk = min_chunk;
    const int64_t end = back - front > chunk ? front + chunk : back;
    if (r.bounds.compare_exchange_weak(v, RowRange::pack(end, back), std::memory_order_relaxed)) {
      *b = front, *e = end;
      return true;
    }
  }
}

/// Takes work from the fullest other range and makes it the range of thread `self` (empty by then): its back half
/// (cut at a multiple of `align`) when it holds more than `min_steal` rows, else all of it — its owner is still busy
/// with the chunk it claimed last, and leaving one chunk to a slower core would hold the others up at the join
/// (decode attention, eight KV heads of 7-11 thousand cycles each on two threads of unequal speed: 42 thousand cycles
/// with the last head left to its owner, 36 stolen). False when every other range is empty.
inline bool steal_half(RowRange* ranges, int32_t threads, int32_t self, int64_t align, int64_t min_steal) {
  for (;;) {
    int32_t victim = -1;
    uint64_t seen = 0;
    int64_t most = 0;
    for (int32_t t = 0; t < threads; ++t) {
      const uint64_t v = ranges[t].bounds.load(std::memory_order_relaxed);
      if (t != self && RowRange::back(v) - RowRange::front(v) > most)
        victim = t, seen = v, most = RowRange::back(v) - RowRange::front(v);
    }
    if (victim < 0) return false;
    const int64_t front = RowRange::front(seen), back = RowRange::back(seen);
    const int64_t mid = most > min_steal ? front + (most / 2 + align - 1) / align * align : front;
    if (ranges[victim].bounds.compare_exchange_strong(seen, RowRange::pack(front, mid), std::memory_order_relaxed)) {
      // Nobody else takes from an empty range, so the thief's own word is free to overwrite.
      ranges[self].bounds.store(RowRange::pack(mid, back), std::memory_order_relaxed);
      return true;
    }  // the owner or another thief moved first: look again
  }
}

}  // namespace parallel_detail

/// Calls f(begin, end) for chunks of [0, n) on the pool's threads; directly with [0, n) when there is no pool, one
/// thread, no more than one block of `align`, or less than kMinParallelWork of `work` in all. f must accept any
/// range whose bounds are multiples of `align` (or n).
///
/// Each thread owns one contiguous share of [0, n) and runs it front to back (claim_front), so the weights it streams
/// stay one sequential run for the hardware prefetcher (every jump to another address restarts its ramp: guided chunks,
/// each thread claiming the next chunk of one shared range, streamed Qwen3-0.6B's per-layer products at two threads at
/// ~70 % of the read rate). A thread that runs out takes the back half of the fullest other share (all of it when
/// no more than one chunk is left), so a slower core does not hold the others up at the join.
template <class F>
inline void parallel_ranges(const Parallel* par, int64_t n, int64_t align, int64_t work, F&& f) {
  using parallel_detail::RowRange;
  constexpr int32_t kInlineThreads = 8;
  if (!par || par->threads <= 1 || n <= align || work < kMinParallelWork || n >= (int64_t{1} << 32)) {
    f(int64_t{0}, n);
    return;
  }
  // Rows per kMinChunkWork, rounded up to the alignment.
  const int64_t per_row = work / n > 0 ? work / n : 1;
  const int64_t min_rows = (kMinChunkWork + per_row - 1) / per_row;
  struct Job {
    RowRange inline_ranges[kInlineThreads];
    std::unique_ptr<RowRange[]> more;  // when the pool has more threads than fit inline
    RowRange* ranges;
    std::remove_reference_t<F>* f;
    int64_t align, chunk;
    int32_t threads;
  } job;
  job.threads = par->threads;
  if (job.threads > kInlineThreads) job.more.reset(new RowRange[job.threads]);
  job.ranges = job.more ? job.more.get() : job.inline_ranges;
  for (int32_t t = 0; t < job.threads; ++t)
    job.ranges[t].bounds.store(RowRange::pack(parallel_detail::share_begin(n, align, job.threads, t),
                                              parallel_detail::share_begin(n, align, job.threads, t + 1)),
                               std::memory_order_relaxed);
  job.f = &f, job.align = align, job.chunk = (min_rows + align - 1) / align * align;
  par->run(
      par->pool,
      [](void* arg, int32_t t) {
        Job& j = *static_cast<Job*>(arg);
        int64_t b, e;
        do {
          while (parallel_detail::claim_front(j.ranges[t], j.align, j.chunk, &b, &e)) (*j.f)(b, e);
        } while (parallel_detail::steal_half(j.ranges, j.threads, t, j.align, j.chunk));
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
