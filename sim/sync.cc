// WaitQueue; the other primitives are templates in sync.h.
#include "sim/sync.h"

#include <algorithm>

namespace dst::sim {

WaitResult WaitQueue::wait_until(TimeNs deadline) {
  if (waiters_.size() >= compact_at_) {
    // Drop tickets whose waits ended; they would never wake anything.
    RingQueue<WaitTicket> live;
    for (size_t i = 0; i < waiters_.size(); ++i) {
      if (sim_->waiting(waiters_[i])) live.push_back(waiters_[i]);
    }
    std::swap(waiters_, live);
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
  RingQueue<WaitTicket> all;
  std::swap(all, waiters_);
  for (size_t i = 0; i < all.size(); ++i) sim_->wake(all[i], result);
}

}  // namespace dst::sim
