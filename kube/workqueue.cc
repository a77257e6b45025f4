#include "kube/workqueue.h"

#include <algorithm>

#include "base/assert.h"

namespace dst::kube {

Workqueue::Workqueue(WorkqueueOptions options) : options_(options) {
  DST_ASSERT_GT(options_.capacity, 0u);
  DST_ASSERT_GT(options_.backoff_base_ns, 0);
  DST_ASSERT_GE(options_.backoff_max_ns, options_.backoff_base_ns);
  DST_ASSERT_GT(options_.qps, 0);
  DST_ASSERT_GT(options_.burst, 0);
}

size_t Workqueue::held() const {
  // Keys in more than one place count once each place: a bound, not an exact count.
  return dirty_.size() + processing_.size() + delayed_due_.size();
}

Status Workqueue::add(const std::string& key) {
  if (dirty_.count(key)) return Status::ok();
  if (held() >= options_.capacity) {
    return Status(StatusCode::kResourceExhausted, "workqueue full (" + std::to_string(options_.capacity) + " keys)");
  }
  dirty_.insert(key);
  // A key being processed goes back in the queue when done() is called.
  if (!processing_.count(key)) queue_.push_back(key);
  return Status::ok();
}

Status Workqueue::add_after(const std::string& key, int64_t delay_ns, int64_t now_ns) {
  if (delay_ns <= 0) return add(key);
  const int64_t due = now_ns + delay_ns;
  auto it = delayed_due_.find(key);
  if (it != delayed_due_.end()) {
    if (it->second <= due) return Status::ok();  // already due sooner
    delayed_.erase({it->second, key});
    it->second = due;
    delayed_.insert({due, key});
    return Status::ok();
  }
  if (held() >= options_.capacity) {
    return Status(StatusCode::kResourceExhausted, "workqueue full (" + std::to_string(options_.capacity) + " keys)");
  }
  delayed_due_.emplace(key, due);
  delayed_.insert({due, key});
  return Status::ok();
}

int64_t Workqueue::bucket_delay(int64_t now_ns) {
  const int64_t emission = 1'000'000'000 / options_.qps;
  const int64_t tolerance = (options_.burst - 1) * emission;
  const int64_t start = std::max(bucket_tat_ns_, now_ns);
  bucket_tat_ns_ = start + emission;
  return std::max<int64_t>(0, start - tolerance - now_ns);
}

Status Workqueue::add_rate_limited(const std::string& key, int64_t now_ns) {
  int& n = failures_[key];
  // base * 2^n, saturating at max (n is bounded by the shift that reaches it).
  int64_t backoff = options_.backoff_base_ns;
  for (int i = 0; i < n && backoff < options_.backoff_max_ns; ++i) backoff = std::min(backoff * 2, options_.backoff_max_ns);
  if (backoff < options_.backoff_max_ns) ++n;
  return add_after(key, std::max(backoff, bucket_delay(now_ns)), now_ns);
}

void Workqueue::forget(const std::string& key) { failures_.erase(key); }

int Workqueue::failures(const std::string& key) const {
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

std::optional<int64_t> Workqueue::promote_due(int64_t now_ns) {
  // Bounded by the number of delayed keys.
  while (!delayed_.empty() && delayed_.begin()->first <= now_ns) {
    const std::string key = delayed_.begin()->second;
    delayed_.erase(delayed_.begin());
    delayed_due_.erase(key);
    Status s = add(key);
    DST_ASSERT_MSG(s.is_ok(), "a delayed key freed its own place");
  }
  if (delayed_.empty()) return std::nullopt;
  return delayed_.begin()->first;
}

std::optional<std::string> Workqueue::get() {
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  DST_ASSERT(dirty_.erase(key) == 1);
  processing_.insert(key);
  return key;
}

void Workqueue::done(const std::string& key) {
  DST_ASSERT_MSG(processing_.erase(key) == 1, "done() for a key that is not being processed");
  if (dirty_.count(key)) queue_.push_back(key);
}

}  // namespace dst::kube
