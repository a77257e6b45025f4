// WaitQueue; the other primitives are templates in sync.h.
#include "sim/sync.h"

#include <algorithm>

namespace dst::sim {

WaitResult WaitQueue::wait_until(TimeNs deadline) {
  if (waiters_.size() >= compact_at_) {
    // Drop tickets whose waits ended; they would never wake anything.
    std::deque<WaitTicket> live;
    for (const WaitTicket& t : waiters_) {
      if (sim_->waiting(t)) live.push_back(t);
    }
    waiters_.swap(live);
    compact_at_ = std::max<size_t>(16, waiters_.size() * 2);
  }
  waiters_.push_back(sim_->current_ticket());
  return sim_->block(deadline);
}

bool WaitQueue::notify_one(WaitResult result) {
  while (!waiters_.empty()) {
    const WaitTicket t = waiters_.front();
    waiters_.pop_front();
    if (sim_->wake(t, result)) return true;
  }
  return false;
}

void WaitQueue::notify_all(WaitResult result) {
  std::deque<WaitTicket> all;
  all.swap(waiters_);
  for (const WaitTicket& t : all) sim_->wake(t, result);
}

}  // namespace dst::sim
