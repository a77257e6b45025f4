#include "node/watch/stream_queue.h"

#include "base/assert.h"

namespace dst::watch {

void StreamQueue::push_events(etcdserverpb::WatchResponse response, uint64_t serial) {
  DST_ASSERT_MSG(event_room(), "event response queued on a full watch stream");
  DST_ASSERT(response.events_size() > 0);
  ++event_responses_;
  push(Entry{std::move(response), serial, true});
}

void StreamQueue::push_control(etcdserverpb::WatchResponse response, uint64_t serial) {
  DST_ASSERT_MSG(control_responses_ < kControlBudget, "control responses over the stream's budget");
  DST_ASSERT(response.events_size() == 0);
  ++control_responses_;
  push(Entry{std::move(response), serial, false});
}

void StreamQueue::push(Entry entry) {
  bool was_empty = entries_.empty();
  entries_.push_back(std::move(entry));
  if (was_empty && wake_) wake_();
}

std::optional<StreamQueue::Entry> StreamQueue::pop() {
  if (entries_.empty()) return std::nullopt;
  Entry e = std::move(entries_.front());
  entries_.pop_front();
  size_t& count = e.carries_events ? event_responses_ : control_responses_;
  DST_ASSERT_GT(count, 0u);
  --count;
  return e;
}

}  // namespace dst::watch
