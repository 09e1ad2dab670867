// The chat server's queue for the generator: turns in arrival order, and a waiter that gives up is skipped.
#include "turn_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace saguaro::handoff {
namespace {

using std::chrono::milliseconds;

// Waiters queue one after another behind the holder of the first turn; the third gives up before its turn.
TEST(TurnQueue, TurnsGoInArrivalOrderSkippingThoseWhoLeft) {
  TurnQueue queue;
  ASSERT_TRUE(queue.wait_turn([] { return true; }, milliseconds(10)));  // the holder
  std::mutex m;
  std::vector<int> order;
  std::atomic<bool> third_left{false};
  std::vector<std::thread> waiters;
  for (int k = 0; k < 5; ++k) {
    waiters.emplace_back([&, k] {
      auto wanted = [&, k] { return !(k == 2 && third_left); };
      if (!queue.wait_turn(wanted, milliseconds(10))) return;
      {
        std::lock_guard<std::mutex> lock(m);
        order.push_back(k);
      }
      queue.end_turn();
    });
    std::this_thread::sleep_for(milliseconds(100));  // waiter k takes its ticket before k + 1
  }
  third_left = true;
  std::this_thread::sleep_for(milliseconds(50));  // waiter 2 notices and gives up its place
  queue.end_turn();
  for (auto& t : waiters) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 3, 4}));
}

// A waiter whose turn comes just as it gives up passes the turn on instead of keeping it.
TEST(TurnQueue, GivingUpAtOnesTurnPassesItOn) {
  TurnQueue queue;
  ASSERT_TRUE(queue.wait_turn([] { return true; }, milliseconds(10)));
  std::atomic<bool> asked{false};
  std::thread leaver([&] {
    EXPECT_FALSE(queue.wait_turn(
        [&] {
          queue.end_turn();  // the holder ends its turn while the leaver is deciding to leave
          asked = true;
          return false;
        },
        milliseconds(10)));
  });
  leaver.join();
  EXPECT_TRUE(asked);
  EXPECT_TRUE(queue.wait_turn([] { return false; }, milliseconds(10)));  // free at once, nobody holds it
  queue.end_turn();
}

}  // namespace
}  // namespace saguaro::handoff
