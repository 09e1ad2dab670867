// kernels::parallel_ranges (guided chunks claimed by the threads) and parallel_threads, on a pool of real threads
// that run at the same time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels {
namespace {

/// A pool that starts threads 1 … threads−1 for every task and runs index 0 on the caller, all at once.
struct ConcurrentPool {
  explicit ConcurrentPool(int32_t threads) : par{threads, this, &Run} {}
  static void Run(void* pool, ParallelTask task, void* arg) {
    ConcurrentPool& self = *static_cast<ConcurrentPool*>(pool);
    ++self.runs;
    std::vector<std::thread> others;
    for (int32_t t = 1; t < self.par.threads; ++t) others.emplace_back(task, arg, t);
    task(arg, 0);
    for (std::thread& o : others) o.join();
  }
  Parallel par;
  int runs = 0;
};

TEST(GuidedChunks, TileTheRangeWithAlignedShrinkingChunks) {
  for (int64_t n : {1, 7, 8, 9, 64, 301, 1024, 3072, 151936})
    for (int64_t align : {1, 4, 8, 16})
      for (int64_t min_chunk : {align, 4 * align, 64 * align})
        for (int32_t threads : {2, 3, 5}) {
          int64_t b = 0, chunks = 0, last = n;
          while (b < n) {
            const int64_t e = guided_chunk_end(n, align, min_chunk, threads, b);
            ASSERT_GT(e, b);
            ASSERT_LE(e, n);
            if (e < n) {
              EXPECT_EQ(e % align, 0) << "n " << n << " align " << align;
              EXPECT_GE(e - b, min_chunk);
              EXPECT_LE(e - b, last);  // chunks never grow
            }
            last = e - b, b = e, ++chunks;
          }
          // Every chunk but the tail takes at least 1/(2·threads) of the rest, so the count grows with log(n).
          EXPECT_LE(chunks, 1 + 2 * threads * 20) << "n " << n;
        }
}

TEST(ParallelRanges, EveryIndexOnceInAlignedChunksOnSeveralThreads) {
  constexpr int64_t kN = 100003, kAlign = 8, kPerRow = 1024;
  constexpr int64_t kMinChunk = (kMinChunkWork / kPerRow + kAlign - 1) / kAlign * kAlign;  // rows of kMinChunkWork
  for (int32_t threads : {2, 3, 5}) {
    ConcurrentPool pool(threads);
    std::vector<std::atomic<int>> seen(kN);
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    std::vector<std::thread::id> runners;
    parallel_ranges(&pool.par, kN, kAlign, kN * kPerRow, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(mutex);
      chunks.emplace_back(b, e);
      runners.push_back(std::this_thread::get_id());
    });
    EXPECT_EQ(pool.runs, 1);
    for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i << ", " << threads << " threads";
    std::sort(chunks.begin(), chunks.end());
    EXPECT_GT(chunks.size(), static_cast<size_t>(threads)) << "no chunks left to even out the threads";
    for (size_t c = 0; c < chunks.size(); ++c) {
      EXPECT_EQ(chunks[c].first % kAlign, 0);
      // The same bounds as the schedule computed on one thread: only who ran a chunk may vary.
      EXPECT_EQ(chunks[c].second, guided_chunk_end(kN, kAlign, kMinChunk, threads, chunks[c].first));
    }
  }
}

TEST(ParallelRanges, SmallWorkStaysOnTheCallingThread) {
  ConcurrentPool pool(2);
  std::vector<std::pair<int64_t, int64_t>> calls;
  parallel_ranges(&pool.par, 1000, 8, kMinParallelWork - 1, [&](int64_t b, int64_t e) { calls.emplace_back(b, e); });
  parallel_ranges(&pool.par, 8, 8, kMinParallelWork * 100, [&](int64_t b, int64_t e) { calls.emplace_back(b, e); });
  parallel_ranges(nullptr, 1000, 8, kMinParallelWork * 100, [&](int64_t b, int64_t e) { calls.emplace_back(b, e); });
  EXPECT_EQ(pool.runs, 0);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], std::make_pair(int64_t{0}, int64_t{1000}));
  EXPECT_EQ(calls[1], std::make_pair(int64_t{0}, int64_t{8}));
  EXPECT_EQ(calls[2], std::make_pair(int64_t{0}, int64_t{1000}));
}

TEST(ParallelThreads, EveryThreadIndexExactlyOnce) {
  for (int32_t threads : {1, 2, 3, 5}) {
    ConcurrentPool pool(threads);
    std::vector<std::atomic<int>> ran(threads);
    parallel_threads(&pool.par, [&](int32_t t) { ran[t].fetch_add(1); });
    for (int32_t t = 0; t < threads; ++t) EXPECT_EQ(ran[t].load(), 1) << "thread " << t << " of " << threads;
  }
}

}  // namespace
}  // namespace saguaro::kernels
