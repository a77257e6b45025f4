#include "client/watch_mix.h"

#include <algorithm>

#include "client/kv_requests.h"

namespace dst::client {

namespace {

void draw_options(const WatchMix& m, etcdserverpb::WatchCreateRequest& c, sim::Rng& rng) {
  c.set_prev_kv(rng.bernoulli(m.prev_kv));
  c.set_progress_notify(rng.bernoulli(m.progress_notify));
  if (rng.bernoulli(m.filter_noput)) c.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  else if (rng.bernoulli(m.filter_nodelete)) c.add_filters(etcdserverpb::WatchCreateRequest::NODELETE);
}

}  // namespace

etcdserverpb::WatchCreateRequest draw_watch(const WatchMix& m, const std::string& prefix, size_t keys, sim::Rng& rng) {
  etcdserverpb::WatchCreateRequest c;
  c.set_key(prefix);
  c.set_range_end(prefix_end(prefix));
  if (prefix == "key/" && rng.bernoulli(m.sub_range)) {
    const uint64_t a = rng.uniform_u64(keys), b = rng.uniform_u64(keys);
    c.set_key(prefix + std::to_string(std::min(a, b)));
    c.set_range_end(prefix + std::to_string(std::max(a, b)) + "~");
  }
  draw_options(m, c, rng);
  return c;
}

etcdserverpb::WatchCreateRequest draw_fanout_watch(const WatchMix& m, const std::string& prefix,
                                                   const std::string& key_stem, size_t keys, sim::Rng& rng) {
  etcdserverpb::WatchCreateRequest c;
  const std::string key = key_stem + std::to_string(rng.uniform_u64(keys));
  const double u = rng.uniform_real();
  if (u < m.fanout_single_key) {
    c.set_key(key);
  } else if (u < m.fanout_single_key + m.fanout_whole_prefix) {
    c.set_key(prefix);
    c.set_range_end(prefix_end(prefix));
  } else {
    c.set_key(key);
    c.set_range_end(prefix_end(key));  // the last character is a digit
  }
  draw_options(m, c, rng);
  return c;
}

WatchStart draw_start(const WatchMix& m, int64_t compact_revision, sim::Rng& rng) {
  if (compact_revision > 0) {
    const double u = rng.uniform_real();
    if (u < m.restart_below_compaction) return WatchStart::kBelowCompaction;
    if (u < m.restart_below_compaction + m.restart_at_compaction) return WatchStart::kAtCompaction;
    return WatchStart::kNow;
  }
  const double u = rng.uniform_real();
  if (u < m.start_at_beginning) return WatchStart::kBeginning;
  if (u < m.start_at_beginning + m.start_near) return WatchStart::kNear;
  return WatchStart::kNow;
}

int64_t near_revision(int64_t revision, sim::Rng& rng) {
  switch (rng.uniform_u64(3)) {
    case 0: return std::max<int64_t>(1, revision - 1 - static_cast<int64_t>(rng.uniform_u64(50)));
    case 1: return revision + 1;
    default: return revision + 2 + static_cast<int64_t>(rng.uniform_u64(19));
  }
}

}  // namespace dst::client
