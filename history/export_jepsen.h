// A recorded history as Jepsen's log lines (`dst export RUN.db --format jepsen-log`): every key
// the clients used as a register, one log per key, as Jepsen's etcd test would have logged it.
// What makes a register workload (`--profile register`) checkable by Jepsen's and Porcupine's
// tools, and by `dst check` with the register model, next to the etcd model's verdict on the run.
//
// The mapping: a range of one key is :read (nil when absent); a put is :write; a txn comparing
// the key's value and putting it on success (and nothing else) is :cas [expected new], :fail when
// its compare did not hold. Values become small integers per key, in order of first appearance
// (the empty value is 0, absent is nil), so equal values stay equal. An operation whose outcome is
// unknown is :info, and its client continues under a new process number (process + clients), as
// Jepsen does. Lines are in time order; at one instant, invocations come first.
//
// A range over several keys (a watcher's list) is a read of each register key it covers: every
// key some single-key operation names; splitting it only weakens it. Operations a register cannot
// say (deletes, other txns, keys-only ranges, reads at a past revision, puts with a lease or
// ignore flags) are an input error naming the operation; those that cannot change a key
// (compaction, lease grants and reads, status, count-only ranges), serializable reads (stale by
// design) and filtered or reordered ranges (they hide keys) are left out.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "history/history.h"

namespace dst::history {

struct JepsenKeyLog {
  std::string key;
  std::string text;       // the log lines
  size_t operations = 0;  // client operations in it
};

// The logs, by key (byte order).
Result<std::vector<JepsenKeyLog>> export_jepsen_log(const History& h);

}  // namespace dst::history
