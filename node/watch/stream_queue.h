// The outbound queue of one watch stream: responses in the order the stream's sender must send
// them, two budgets, and the wake-up of that sender.
//
// Event responses (anything carrying events) are bounded by limits::kWatchStreamQueueMax, like
// etcd's per-stream channel: a watcher that finds it full is not given the events but falls back
// to catching up from the store later, so the queue never grows and nothing is dropped.
// Control responses (created, canceled, progress) cannot fall back that way. etcd blocks its
// receive loop on a small control channel; here instead the store keeps
//     control responses queued + watchers on the stream <= kControlBudget
// so that every watcher can always queue its one final cancel, and refuses new watches (or defers
// progress answers) when the budget is spent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>

#include "base/limits.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::watch {

// A watcher queues at most a created ack and a cancel in its life, so twice the watchers of a
// full stream; the progress answers fit in what the stream's absent watchers leave over.
inline constexpr size_t kControlBudget = 2 * limits::kWatchersPerStreamMax;

class StreamQueue {
 public:
  struct Entry {
    etcdserverpb::WatchResponse response;
    uint64_t serial = 0;  // the watcher it belongs to (Watcher::serial), 0 for none
    bool carries_events = false;
  };

  // `wake` is called whenever the queue goes from empty to non-empty. It must not call back into
  // the store (it is meant to signal the sender fiber, which then calls pop()).
  explicit StreamQueue(std::function<void()> wake) : wake_(std::move(wake)) {}

  bool event_room() const { return event_responses_ < limits::kWatchStreamQueueMax; }
  size_t control_queued() const { return control_responses_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  // Asserts event_room(): callers check it and fall back to catch-up instead.
  void push_events(etcdserverpb::WatchResponse response, uint64_t serial);
  // Asserts the control budget was checked by the caller (see above).
  void push_control(etcdserverpb::WatchResponse response, uint64_t serial);
  std::optional<Entry> pop();

 private:
  void push(Entry entry);

  std::function<void()> wake_;
  std::deque<Entry> entries_;
  size_t event_responses_ = 0;
  size_t control_responses_ = 0;
};

}  // namespace dst::watch
