// etcd's automatic compaction (--auto-compaction-mode / --auto-compaction-retention, etcd 3.4's
// etcdserver/api/v3compactor): a loop in the member's process that asks its own API for a
// Compaction, exactly as a client's, while the member leads (etcd pauses it on followers).
//
// - periodic, retention T: every T/10 (at most 6 min) the loop notes the store's revision; once T
//   has passed since the last success (then every min(T, 1 h)) it compacts to the oldest revision
//   noted, i.e. the one from about T ago. A failure is retried at the next note.
// - revision, retention N: every 5 minutes it compacts to (current revision - N) when that is
//   positive and not what it compacted last.
// "required revision has been compacted" counts as a success in both, as in etcd.
#pragma once

#include <cstdint>
#include <functional>

#include "proto/etcd_api.pb.h"
#include "sim/env.h"
#include "sim/time.h"

namespace dst::node {

struct AutoCompaction {
  enum class Mode { kPeriodic, kRevision };
  Mode mode = Mode::kPeriodic;
  sim::DurationNs period = 0;  // kPeriodic: the retention window; 0 is off
  int64_t revisions = 0;       // kRevision: revisions kept; 0 is off
  bool enabled() const { return mode == Mode::kPeriodic ? period > 0 : revisions > 0; }
};

// The longest periodic retention accepted (etcd has none; ~42 days keeps the loop's notes bounded).
inline constexpr sim::DurationNs kAutoCompactionPeriodMax = sim::seconds(1000 * 3600);

// etcd's fixed interval of the revision mode.
inline constexpr sim::DurationNs kAutoCompactionRevisionInterval = sim::seconds(300);

// One compaction the compactor asks for, as the world learns it (ServerObserver): told once when
// sent (returned false) and once more when answered (returned true, with the answer). A member
// that dies in between never tells the second: the outcome is unknown.
struct AutoCompactionEvent {
  int64_t revision = 0;
  bool returned = false;
  etcdserverpb::ApiResponse response;  // when returned: the answer or its error
};

// What the loop needs of its member, as functions (the API server gives them; tests fake them).
struct AutoCompactorHooks {
  std::function<bool()> leads;                       // this member is the leader now
  std::function<int64_t()> revision;                 // the local store's current revision
  std::function<etcdserverpb::ApiResponse(const etcdserverpb::ApiRequest&)> handle;  // the member's API
  std::function<void(const AutoCompactionEvent&)> observe;  // may be empty
};

// Runs until the process dies (call from a fiber of the member's process). `config` must be enabled.
void run_auto_compactor(sim::Env& env, const AutoCompaction& config, const AutoCompactorHooks& hooks);

}  // namespace dst::node
