// A controller's workqueue, with client-go's semantics (util/workqueue): a key is queued at most
// once however often it is added (dirty set); a key being processed is not handed out again
// until done(), and if it was added meanwhile it is queued once more then, so every change after
// a key's processing started is processed again; delayed adds; and rate-limited re-adds (per-key
// exponential backoff combined with an overall token bucket, client-go's
// DefaultControllerRateLimiter).
//
// A pure data structure: time comes in as `now_ns` (the controller's monotonic clock), nothing
// here sleeps. Bounded: at most `capacity` distinct keys are dirty, processing or delayed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "base/status.h"

namespace dst::kube {

struct WorkqueueOptions {
  size_t capacity = 10'000;
  // Per key: base * 2^failures, at most max (client-go: 5 ms and 1000 s).
  int64_t backoff_base_ns = 5'000'000;
  int64_t backoff_max_ns = 1'000'000'000'000;
  // Overall: `qps` tokens a second, `burst` at most (client-go: 10 and 100).
  int64_t qps = 10;
  int64_t burst = 100;
};

class Workqueue {
 public:
  explicit Workqueue(WorkqueueOptions options = {});

  // Queues `key` unless it is already waiting; kResourceExhausted when `capacity` distinct keys
  // are already held.
  Status add(const std::string& key);
  // Adds `key` once `now_ns + delay_ns` has come (see promote_due).
  Status add_after(const std::string& key, int64_t delay_ns, int64_t now_ns);
  // A retry after a failure: delayed by the larger of the key's backoff and the token bucket's.
  Status add_rate_limited(const std::string& key, int64_t now_ns);
  // Clears the key's failure count (its processing succeeded).
  void forget(const std::string& key);
  int failures(const std::string& key) const;

  // Moves every delayed key whose time has come into the queue. Returns the time the next
  // delayed key is due, if any.
  std::optional<int64_t> promote_due(int64_t now_ns);
  // The next key to process, if one is queued; it is "processing" until done().
  std::optional<std::string> get();
  void done(const std::string& key);

  size_t queued() const { return queue_.size(); }
  size_t processing() const { return processing_.size(); }
  size_t delayed() const { return delayed_.size(); }

 private:
  size_t held() const;
  int64_t bucket_delay(int64_t now_ns);

  WorkqueueOptions options_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // queued, or added again while processing
  std::set<std::string> processing_;
  // Delayed adds: (due time, key), ordered; a key delayed twice keeps its earlier due time.
  std::set<std::pair<int64_t, std::string>> delayed_;
  std::map<std::string, int64_t> delayed_due_;
  std::map<std::string, int> failures_;
  // The token bucket as GCRA: the theoretical arrival time of the next token (integer ns).
  int64_t bucket_tat_ns_ = 0;
};

}  // namespace dst::kube
