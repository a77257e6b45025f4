// What clients saw during a run, in memory: every KV/lease operation with its invocation and
// return (virtual) time and outcome, and every watch with every response it received. Recorded by
// the clients (client/), stored in the run database (history/run_db.h), read back by the checkers
// (checker/) and the reports. Requests and responses are kept as the API's protobuf messages, so
// the checkers judge exactly what went over the wire.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "history/kube_history.h"
#include "proto/etcd_api.pb.h"

namespace dst::history {

// Virtual time of an operation that never returned (its client timed out or died): unknown
// outcomes may take effect at any time after their invocation.
inline constexpr int64_t kNeverReturned = std::numeric_limits<int64_t>::max();

enum class Outcome : uint8_t {
  kOk,       // the response came back without an error: it took effect (writes) / it was served
  kFailed,   // an error that means the request certainly had no effect (e.g. a compared txn that
             // failed validation, "key is not provided", a request the member refused before
             // proposing); the error is in response.error()
  kUnknown,  // no answer, a timeout, a broken connection, or an error after which the write may
             // still be applied (etcd's "request timed out"): it may or may not have taken effect
};
const char* outcome_name(Outcome o);

// The store revision a response's header carries (range, put, delete, txn, compaction, lease
// grant/revoke); 0 for any other response.
int64_t response_revision(const etcdserverpb::ApiResponse& r);

struct Operation {
  uint64_t id = 0;        // dense, in invocation order
  uint32_t client = 0;    // the client (process) that issued it; one operation at a time per client
  uint32_t member = 0;    // the member it was sent to (1-based; 0: unknown)
  int64_t invoke_ns = 0;  // virtual time the client sent it
  // Virtual time the answer arrived or the client gave up; kNeverReturned if the run ended first.
  // Checkers treat a kUnknown operation as never returning whatever this says: it may take
  // effect at any time after its invocation.
  int64_t return_ns = kNeverReturned;
  etcdserverpb::ApiRequest request;    // range, put, delete_range, txn, compaction, lease_grant, lease_revoke
  Outcome outcome = Outcome::kUnknown;
  etcdserverpb::ApiResponse response;  // kOk: the answer; kFailed: the error; kUnknown: empty or the error
};

// One response a watch received, with the time it arrived.
struct WatchResponse {
  int64_t at_ns = 0;
  etcdserverpb::WatchResponse response;
};

// One logical watch of a client: created once; when its stream broke the client resumed it (on
// the same or another member) from the last revision it had seen + 1, recorded as a new segment.
struct WatchSegment {
  uint32_t member = 0;
  int64_t created_ns = 0;
  etcdserverpb::WatchCreateRequest request;  // start_revision as sent for this segment
  std::vector<WatchResponse> responses;      // in arrival order
  bool broken = false;                       // the stream broke after these responses
};

struct Watch {
  uint64_t id = 0;
  uint32_t client = 0;
  std::vector<WatchSegment> segments;
};

struct Fault {
  std::string kind;    // "partition", "crash", "power-loss", "pause", "slow-fsync", ...
  std::string target;  // "n2", "n1|n2,n3", ...
  int64_t start_ns = 0;
  int64_t end_ns = kNeverReturned;  // healed at (kNeverReturned: until the end of the run)
};

// One step of the fault schedule as the run applied it (faults/fault_step.h). `lua` is the
// step's Lua table (faults/schedule_text.h): what `dst schedule` writes out and a replay reads
// back; the other fields repeat what it says, for queries.
struct ScheduleStep {
  int64_t at_ns = 0;
  std::string origin;  // "random", "script", "config" or "timed"
  uint64_t call = 0;   // origin "script": the script's n-th fault call
  std::string kind;    // "partition", "kill", ...
  std::string lua;     // {at=..., kind="kill", node=2, ...}
};

// A cluster restored from a snapshot (etcd's disaster recovery): at `disaster_ns` every member's
// storage was lost; at `restore_ns` a new cluster started from a snapshot file whose store was at
// `revision`, moved ahead by `bump` (etcdutl's --bump-revision, with --mark-compacted: the new
// cluster starts at revision + bump, compacted there). What was acknowledged after the snapshot's
// revision is lost by design; nothing at or before it may be. Checkers judge each timeline of
// revisions on its own (restore_epochs.h).
struct Restore {
  int64_t disaster_ns = 0;
  int64_t restore_ns = 0;  // >= disaster_ns
  int64_t revision = 0;    // >= 1
  int64_t bump = 0;        // >= 0; > 0 means marked compacted too
  std::string snapshot;    // the file's name, for reports
};

// Restores a history holds at most (each one is a whole cluster's loss), and the largest revision
// or bump one may name (so that revision + bump, summed over every restore, never overflows).
inline constexpr size_t kRestoresMax = 64;
inline constexpr int64_t kRestoreRevisionMax = int64_t{1} << 55;

struct History {
  std::vector<Operation> operations;  // by id
  std::vector<Watch> watches;         // by id
  std::vector<Fault> faults;
  std::vector<ScheduleStep> schedule;  // in the order the steps were applied
  std::vector<Informer> informers;    // by id (kube_history.h)
  std::vector<Restore> restores;      // in time order, at most kRestoresMax
};

}  // namespace dst::history
