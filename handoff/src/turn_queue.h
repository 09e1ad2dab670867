// First come, first served turns at one resource (the chat server's generator: one model, one KV cache), which a
// waiter may give up. A plain mutex wakes waiters in no particular order, which stretches the tail of the time to
// first token under load; and a waiter whose client left must not keep a place.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>

namespace saguaro::handoff {

class TurnQueue {
 public:
  // Waits for the caller's turn (true), or gives its place up (false) as soon as `wanted`, asked every `poll` while
  // waiting (without the queue's lock: it may block), returns false.
  bool wait_turn(const std::function<bool()>& wanted, std::chrono::milliseconds poll);
  // Ends the turn wait_turn gave; the next waiter's begins.
  void end_turn();

 private:
  void advance_locked();

  std::mutex mutex_;
  std::condition_variable turn_changed_;
  unsigned long long next_ticket_ = 0, serving_ = 0;
  std::set<unsigned long long> abandoned_;  // tickets given up before their turn
};

}  // namespace saguaro::handoff
