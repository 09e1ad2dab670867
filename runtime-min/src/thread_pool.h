// The thread pool the generated code's kernels split their work over (saguaro::kernels::Parallel).
//
// `threads - 1` workers wait for a generation counter to move; run() publishes a task, bumps the counter, runs
// index 0 itself and spins until every worker has finished its index. Workers spin briefly after each task
// (decode issues a few hundred kernel calls per token, microseconds apart) and then sleep on a condition
// variable, so an idle pool costs no CPU.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "saguaro/kernels/parallel.h"

namespace saguaro {

class ThreadPool {
 public:
  /// A pool of `threads` (>= 1) threads, the caller of run() included.
  explicit ThreadPool(int32_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int32_t threads() const { return par_.threads; }
  /// What generated code receives (ModelState::parallel).
  const kernels::Parallel* parallel() const { return &par_; }
  /// task(arg, t) for every t in [0, threads); returns when all have finished. Not reentrant.
  void run(kernels::ParallelTask task, void* arg);

  /// The number of hardware threads (at least 1).
  static int32_t hardware_threads();

 private:
  void work(int32_t t);

  kernels::Parallel par_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int32_t> pending_{0};
  std::atomic<bool> stop_{false};
  kernels::ParallelTask task_ = nullptr;
  void* arg_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace saguaro
