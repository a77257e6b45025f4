#include "node/server/repeat_txn_event.h"

#include <utility>

namespace dst::node {

void RepeatLastTxnEvent::pass(etcdserverpb::WatchResponse& response) {
  const int64_t watch = response.watch_id();
  if (response.canceled()) {
    pending_.erase(watch);
    return;
  }
  const int n = response.events_size();
  if (n == 0) return;  // a progress notification or a created ack carries nothing to repeat
  const bool ends_in_txn = n >= 2 && response.events(n - 1).kv().mod_revision() ==
                                         response.events(n - 2).kv().mod_revision();
  mvccpb::Event last = response.events(n - 1);
  if (auto it = pending_.find(watch); it != pending_.end()) {
    // The bug: the earlier txn's last event goes out a second time, first in this response.
    response.mutable_events()->Add(std::move(it->second));
    for (int i = n; i > 0; --i) response.mutable_events()->SwapElements(i, i - 1);
    pending_.erase(it);
  }
  if (ends_in_txn) pending_[watch] = std::move(last);
}

}  // namespace dst::node
