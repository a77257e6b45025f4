// A recorded history as etcd's robustness test report (`tests/robustness` in etcd-io/etcd; format:
// docs/research/history-formats.md section 3): per client, `client-<N>/operations.json` with its
// KV and lease operations as porcupine.Operation records and `client-<N>/watch.json` with its
// watches as model.WatchOperation records, each record as Go's json.MarshalIndent(x, "", "  ")
// plus "\n". What lets etcd's own checkers (its model, its watch validation) judge a dst run, and
// dst's importer read it back.
//
// The mapping, as etcd's recording client would have written the same requests and answers:
// - Client c (0-based) is client-(c+1). `ClientId` is porcupine's stream id: one counter over all
//   clients from 0, a client's stream taken at its first operation and renewed after each write
//   whose outcome is unknown (etcd's AppendableHistory.appendFailed; an unknown read keeps it).
//   Operations go in (invocation time, id) order. Call/Return are invoke_ns/return_ns; an unknown
//   outcome that never returned gets the history's latest time (not before its Call).
// - kOk: the response as etcd records it; kUnknown: only `Error` (the member's error text, else
//   "context deadline exceeded"). kFailed operations had no effect and are left out, except a
//   compaction refused as compacted or future, which etcd records as `ClientError`.
// - Range: Type "range". A plain put or single-key delete: a txn of one operation without
//   conditions. Txn: conditions `mod == r`, `version == v`, and "key absent" (`version == 0`,
//   `create == 0`); a txn whose only compare is "key exists" (`version|create|mod > 0` or `!= 0`)
//   is written as "key absent" with its branches swapped and Failure = succeeded, which means
//   exactly the same. Compaction, lease grant/revoke and defragment as etcd records them.
// - Values: etcd_report_format.h (shorter than 20 bytes as they are, longer ones as their FNV-1a
//   hash, a hash token as its hash), in every put, txn put and result alike.
// - Watches: one record per dst watch (clientv3 hides resumes): the first segment's request and
//   the responses clientv3 would hand the application: no `created` acks (a failed creation is a
//   response with its cancel reason as Error), no cancellation without a compaction (the channel
//   just closes; a compaction is a response with clientv3's ErrCompacted text), nothing after.
//
// Refused (kInvalidArgument naming the operation): puts with ignore_value/ignore_lease, range
// deletes, txn compares other than the above, nested txns, txn ranges etcd's model cannot
// evaluate, an ok response that does not answer its request. Left out and counted: kFailed
// operations and requests etcd's report has no type for (keep-alive, time-to-live, status,
// member and alarm requests, ...); ranges etcd's request cannot express (serializable, sorted
// other than by key ascending, count-only, revision filters, keys-only on one key, from-key,
// negative limits or revisions); watches with filters or fragmentation, over a range that is not
// a prefix, or whose segments differ in anything but the start revision.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "history/history.h"

namespace dst::history {

struct EtcdReportClient {
  uint32_t id = 0;         // N of client-N, >= 1
  std::string operations;  // operations.json text, "" if none
  std::string watch;       // watch.json text, "" if none
  size_t operations_written = 0, watches_written = 0;
};

struct EtcdReport {
  std::vector<EtcdReportClient> clients;  // by id; only clients with something written
  size_t reads_left_out = 0, ops_left_out = 0, watches_left_out = 0;
};

Result<EtcdReport> export_etcd_report(const History& h);

}  // namespace dst::history
