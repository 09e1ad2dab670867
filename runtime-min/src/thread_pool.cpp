// A small spinning-then-sleeping thread pool for kernels::Parallel (thread_pool.h).
#include "thread_pool.h"

#include <chrono>

namespace saguaro {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

// How long a worker spins for the next task before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(300);

}  // namespace

int32_t ThreadPool::hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int32_t>(n);
}

ThreadPool::ThreadPool(int32_t threads) {
  par_.threads = threads < 1 ? 1 : threads;
  par_.pool = this;
  par_.run = [](void* pool, kernels::ParallelTask task, void* arg) { static_cast<ThreadPool*>(pool)->run(task, arg); };
  for (int32_t t = 1; t < par_.threads; ++t) workers_.emplace_back([this, t] { work(t); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void ThreadPool::run(kernels::ParallelTask task, void* arg) {
  if (workers_.empty()) {
    task(arg, 0);
    return;
  }
  task_ = task, arg_ = arg;
  pending_.store(static_cast<int32_t>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  task(arg, 0);
  // Spin for the workers; on a busy machine a worker may wait for a core, so give the core away now and then.
  for (int i = 1; pending_.load(std::memory_order_acquire) != 0; ++i) {
    if (i % 1024 == 0)
      std::this_thread::yield();
    else
      cpu_relax();
  }
}

void ThreadPool::work(int32_t t) {
  uint64_t seen = 0;
  for (;;) {
    const auto spin_until = std::chrono::steady_clock::now() + kSpin;
    uint64_t g;
    for (int i = 0; (g = generation_.load(std::memory_order_acquire)) == seen; ++i) {
      if ((i & 255) == 255 && std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      } else {
        cpu_relax();
      }
    }
    seen = g;
    if (stop_.load(std::memory_order_acquire)) return;
    task_(arg_, t);
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace saguaro
