// How a workload's watchers behave, drawn per watcher and per (re)start from its own random
// stream: what they watch (the whole prefix or a key range of it, NOPUT/NODELETE filters,
// prev_kv, progress notifications and requests), where they start (now, at the beginning, a
// revision read just before: a little in the past, the next one, or in the future), where they
// restart after a compaction cancel (at the compact revision, or one below it: canceled again),
// and whether they read slowly (a watch client the member's queue outruns). The defaults give
// every behaviour to some watchers; swarm{} may draw others.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "proto/etcd_rpc.pb.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace dst::client {

struct WatchMix {
  double prev_kv = 0.5, progress_notify = 0.5, progress_requests = 0.5;
  double filter_noput = 0.1, filter_nodelete = 0.1;
  double sub_range = 0.2;
  // The first start: at revision 1 (replay everything), near a revision read first, else now.
  double start_at_beginning = 0.35, start_near = 0.3;
  // After a compaction cancel: at the compact revision (the oldest served) or one below it.
  double restart_at_compaction = 0.5, restart_below_compaction = 0.1;
  // A slow reader waits this long after each response it takes (uniform, up to the max).
  double slow_reader = 0.15;
  sim::DurationNs slow_read_delay_max = sim::milliseconds(150);
  // Fan-out watches (draw_fanout_watch): one key, else the whole prefix, else the keys under one
  // key's name taken as a prefix.
  double fanout_single_key = 0.8, fanout_whole_prefix = 0.005;
};

// Where a watch (re)starts.
enum class WatchStart { kNow, kBeginning, kNear, kAtCompaction, kBelowCompaction };

// The watch's range and options (not its start); `keys` is the workload's key count ("key/"
// prefix: key ranges as the etcd-kv profile names its keys).
etcdserverpb::WatchCreateRequest draw_watch(const WatchMix& mix, const std::string& prefix, size_t keys, sim::Rng& rng);
// A watch of a fan-out stream (watch_fanout.h), where thousands share one stream: one key
// (`key_stem` + a number below `keys`), the keys whose names start with one key's name (key/12
// also covers key/120..key/129), or all of `prefix`; its options drawn as draw_watch draws them.
// Starts "now".
etcdserverpb::WatchCreateRequest draw_fanout_watch(const WatchMix& mix, const std::string& prefix,
                                                   const std::string& key_stem, size_t keys, sim::Rng& rng);
// The first start, or the restart after a compaction cancel (`compact_revision` > 0).
WatchStart draw_start(const WatchMix& mix, int64_t compact_revision, sim::Rng& rng);
// The revision to start at near `revision` (one read just before): a little in the past (1..50
// below), the next one, or in the future (2..20 above). At least 1.
int64_t near_revision(int64_t revision, sim::Rng& rng);

}  // namespace dst::client
