#include "turn_queue.h"

namespace saguaro::handoff {

bool TurnQueue::wait_turn(const std::function<bool()>& wanted, std::chrono::milliseconds poll) {
  std::unique_lock<std::mutex> lock(mutex_);
  const unsigned long long ticket = next_ticket_++;
  while (!turn_changed_.wait_for(lock, poll, [&] { return ticket == serving_; })) {
    lock.unlock();
    const bool still_wanted = wanted();
    lock.lock();
    if (still_wanted) continue;
    if (ticket == serving_) {  // the turn came meanwhile: pass it on
      advance_locked();
      turn_changed_.notify_all();
    } else {
      abandoned_.insert(ticket);
    }
    return false;
  }
  return true;
}

void TurnQueue::end_turn() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    advance_locked();
  }
  turn_changed_.notify_all();
}

void TurnQueue::advance_locked() {
  ++serving_;
  while (abandoned_.erase(serving_) > 0) ++serving_;
}

}  // namespace saguaro::handoff
