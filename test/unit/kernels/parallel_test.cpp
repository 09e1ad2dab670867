// kernels::parallel_ranges (a contiguous share per thread, stealing when one runs dry) and parallel_threads, on
// pools of real threads that run at the same time, and on one that runs them in turn (predictable steals).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "saguaro/kernels/parallel.h"

namespace saguaro::kernels {
namespace {

/// A pool that starts threads 1 … threads−1 for every task and runs index 0 on the caller, all at once; thread
/// index `late` (if any) starts only after `delay`.
struct ConcurrentPool {
  explicit ConcurrentPool(int32_t threads, int32_t late = -1, std::chrono::milliseconds delay = {})
      : par{threads, this, &Run}, late(late), delay(delay), ids(threads) {}
  static void Run(void* pool, ParallelTask task, void* arg) {
    ConcurrentPool& self = *static_cast<ConcurrentPool*>(pool);
    ++self.runs;
    auto body = [&self, task, arg](int32_t t) {
      self.ids[t] = std::this_thread::get_id();
      if (t == self.late) std::this_thread::sleep_for(self.delay);
      task(arg, t);
    };
    std::vector<std::thread> others;
    for (int32_t t = 1; t < self.par.threads; ++t) others.emplace_back(body, t);
    body(0);
    for (std::thread& o : others) o.join();
  }
  /// The pool index of the thread with this id.
  int32_t index_of(std::thread::id id) const {
    return static_cast<int32_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
  }
  Parallel par;
  int32_t late;
  std::chrono::milliseconds delay;
  std::vector<std::thread::id> ids;
  int runs = 0;
};

/// The chunks each pool thread ran, in the order it ran them.
struct ChunkLog {
  explicit ChunkLog(int32_t threads) : by_thread(threads) {}
  void add(const ConcurrentPool& pool, int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mutex);
    by_thread[pool.index_of(std::this_thread::get_id())].emplace_back(b, e);
  }
  std::mutex mutex;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> by_thread;
};

TEST(ParallelRanges, EveryIndexOnceInAlignedChunksOnSeveralThreads) {
  constexpr int64_t kAlign = 8;
  for (int64_t n : {int64_t{9}, int64_t{301}, int64_t{3072}, int64_t{100003}})
    for (int32_t threads : {2, 3, 5, 9}) {  // 9: more threads than Job keeps inline
      ConcurrentPool pool(threads);
      std::vector<std::atomic<int>> seen(n);
      ChunkLog log(threads);
      parallel_ranges(&pool.par, n, kAlign, kMinParallelWork * 64, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
        log.add(pool, b, e);
      });
      EXPECT_EQ(pool.runs, 1);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i << ", " << threads << " threads";
      for (const auto& chunks : log.by_thread)
        for (const auto& [b, e] : chunks) {
          EXPECT_EQ(b % kAlign, 0) << "n " << n;
          EXPECT_TRUE(e % kAlign == 0 || e == n) << "n " << n;
          EXPECT_LT(b, e);
        }
    }
}

TEST(ParallelRanges, EachThreadStartsAtTheFrontOfItsOwnShare) {
  constexpr int64_t kN = 100003, kAlign = 8, kPerRow = 1024;
  for (int32_t threads : {2, 3, 5}) {
    ConcurrentPool pool(threads);
    ChunkLog log(threads);
    // A microsecond per row: every thread starts long before another could have run its own share and then taken
    // all of this one's (a thief takes a whole share only when no more than one chunk of it is left).
    parallel_ranges(&pool.par, kN, kAlign, kN * kPerRow, [&](int64_t b, int64_t e) {
      std::this_thread::sleep_for(std::chrono::microseconds(e - b));
      log.add(pool, b, e);
    });
    // Thieves take the back of a share, so its owner always starts at its front.
    for (int32_t t = 0; t < threads; ++t) {
      ASSERT_FALSE(log.by_thread[t].empty()) << "thread " << t;
      EXPECT_EQ(log.by_thread[t][0].first, (kN * t / threads + kAlign - 1) / kAlign * kAlign) << "thread " << t;
    }
  }
}

/// A pool that runs the task's thread indices one after another on the caller: thread t starts when t − 1 has
/// finished, so every steal is predictable.
struct SequentialPool {
  explicit SequentialPool(int32_t threads) : par{threads, this, &Run} {}
  static void Run(void* pool, ParallelTask task, void* arg) {
    SequentialPool& self = *static_cast<SequentialPool*>(pool);
    for (self.current = 0; self.current < self.par.threads; ++self.current) task(arg, self.current);
  }
  Parallel par;
  int32_t current = 0;
};

TEST(ParallelRanges, AThreadRunsItsShareInOneSequentialRunThenHalvesTheOthersThenTakesTheLastChunk) {
  constexpr int64_t kN = 4096, kAlign = 8, kPerRow = 1024;
  constexpr int64_t kMinChunk = kMinChunkWork / kPerRow;  // 32 rows, a multiple of kAlign
  SequentialPool pool(2);
  std::vector<std::vector<std::pair<int64_t, int64_t>>> chunks(2);
  parallel_ranges(&pool.par, kN, kAlign, kN * kPerRow,
                  [&](int64_t b, int64_t e) { chunks[pool.current].emplace_back(b, e); });
  // Thread 0 runs [0, 2048) front to back, then takes the back half of thread 1's share again and again
  // ([3072, 4096), [2560, 3072), … ) until no more than kMinChunk rows are left, then those too: thread 1, which
  // (in this pool) has not started, runs nothing.
  std::vector<std::pair<int64_t, int64_t>> runs;  // maximal runs of consecutive chunks
  for (const auto& [b, e] : chunks[0]) {
    if (!runs.empty() && runs.back().second == b)
      runs.back().second = e;
    else
      runs.emplace_back(b, e);
  }
  std::vector<std::pair<int64_t, int64_t>> expected = {{0, 2048}};
  for (int64_t front = 2048, back = kN; back - front > kMinChunk;) {
    const int64_t mid = front + (back - front) / 2;
    expected.emplace_back(mid, back);
    back = mid;
  }
  expected.emplace_back(2048, 2048 + kMinChunk);
  EXPECT_EQ(runs, expected);
  EXPECT_TRUE(chunks[1].empty());
}

TEST(ParallelRanges, TheLastUnclaimedChunkGoesToTheThreadThatIsFree) {
  // Eight items of one chunk each (decode attention's KV heads) on two threads; thread 0 runs an item in 50 ms,
  // thread 1 in 150 ms. Thread 1 claims item 4 at 0 ms and item 5 at 150; thread 0 runs items 0-3 by 200, takes the
  // back half of [6, 8) — item 7 — and at 250 the last unclaimed item, 6, which thread 1 would claim at 300. (Had
  // thread 1 been so late that thread 0 stole before it claimed item 5, thread 0 would take [6, 8) at once: the
  // same outcome.)
  ConcurrentPool pool(2);
  ChunkLog log(2);
  parallel_ranges(&pool.par, 8, 1, std::max(kMinChunkWork, kMinParallelWork) * 8, [&](int64_t b, int64_t e) {
    EXPECT_EQ(e - b, 1);
    const bool slow = pool.index_of(std::this_thread::get_id()) == 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(slow ? 150 : 50));
    log.add(pool, b, e);
  });
  std::vector<std::pair<int64_t, int64_t>> slow_items = log.by_thread[1];
  std::sort(slow_items.begin(), slow_items.end());
  using Items = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(slow_items, (Items{{4, 5}, {5, 6}}));
  EXPECT_EQ(log.by_thread[0].size(), 6u);
}

TEST(ParallelRanges, ThreadsThatFinishTakeTheShareOfALateThread) {
  constexpr int64_t kN = 4096, kAlign = 8;
  ConcurrentPool pool(2, /*late=*/1, std::chrono::milliseconds(200));
  ChunkLog log(2);
  std::vector<std::atomic<int>> seen(kN);
  parallel_ranges(&pool.par, kN, kAlign, kMinParallelWork * 64, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
    log.add(pool, b, e);
  });
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i;
  // Thread 0 ran most of thread 1's share [2048, 4096) while thread 1 slept; at most one small chunk is left to it.
  int64_t rows_late = 0;
  for (const auto& [b, e] : log.by_thread[1]) rows_late += e - b;
  EXPECT_LT(rows_late, kN / 8);
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
