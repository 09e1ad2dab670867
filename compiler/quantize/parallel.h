// Row-parallel loops over std::thread for the quantizers (internal to compiler/quantize/).
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace saguaro::quant::detail {

/// Worker count: set_num_threads() cap, else hardware_concurrency (at least 1).
int num_threads();

/// Calls fn(begin, end) on contiguous row ranges covering [0, n) in chunks of `chunk` rows, from up to
/// num_threads() threads; the first exception thrown by any call is rethrown after all threads join.
inline void parallel_rows(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (chunk < 1) chunk = 1;
  const int64_t chunks = (n + chunk - 1) / chunk;
  const int threads = static_cast<int>(std::min<int64_t>(num_threads(), chunks));
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  std::mutex mu;
  int64_t next = 0;
  std::exception_ptr error;
  auto worker = [&] {
    for (;;) {
      int64_t c;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (error || next >= chunks) return;
        c = next++;
      }
      try {
        fn(c * chunk, std::min(n, (c + 1) * chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace saguaro::quant::detail
