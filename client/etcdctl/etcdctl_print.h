// What etcdctl 3.4 prints for each command, as a function of the response(s) it received.
//
// Every printer returns an Output: the stdout text, the stderr text (etcdctl writes errors and
// watch cancellations there) and the exit code etcdctl would end with. Text is exact, newlines
// included, so `dst shell` can print it as is and tests can compare it with the reference page.
// Formats: simple and json for every command; fields for get/put/del/txn (see etcdctl_parse.h);
// protobuf as etcdctl_print_protobuf.h says.
// Endpoint names and ids are inputs: the caller passes what its simulated cluster uses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/etcdctl/etcdctl_command.h"
#include "client/etcdctl/etcdctl_results.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

// etcdctl's exit codes (ctlv3/command/error.go).
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitBadConnection = 2;
inline constexpr int kExitInvalidInput = 3;  // txn input errors, e.g. "Error: EOF"
inline constexpr int kExitBadFeature = 4;
inline constexpr int kExitInterrupted = 5;  // a watch the server canceled
inline constexpr int kExitBadArgs = 128;

struct Output {
  std::string out;
  std::string err;
  int exit_code = kExitSuccess;
  bool operator==(const Output&) const = default;
};

// "Error: <message>\n" on stderr, as etcdctl's ExitWithError prints every failure.
Output print_error(std::string_view message, int exit_code = kExitError);

// A request the server (or the simulated network) failed, worded as the command that sent it
// words it: "failed to grant lease (...)", "failed to revoke lease (...)", defrag's
// "Failed to defragment etcd member[EP] (...)", plain "Error: ..." for the rest; with the
// command's exit code. `endpoint` is only used by defrag and the endpoint commands.
// The endpoint commands print one "Failed to get the ... of endpoint EP (...)" line per failed
// endpoint, then the list of the others (empty: "[]" in JSON, a bare table), then this: hashkv's
// "Error: <the last failure>", status's silent exit 1 (etcdctl 3.4's ep_command.go).
Output print_request_error(const Command& command, std::string_view message, std::string_view endpoint = "");
Output print_endpoints_failed(const Command& command, std::string_view last_message);
// "Error: table not supported as output format", exit 4 (ExitBadFeature): what etcdctl prints
// after running a command whose result it cannot print as a table.
Output print_table_unsupported();
// The same for -w fields: "Error: fields not supported as output format", exit 4.
Output print_fields_unsupported();
// Where etcdctl 3.4.23's printer dereferences a nil pointer after the request succeeded (alarm
// list/disarm -w fields with no alarm: the answer has no header; member promote in any format but
// simple: its printers have no MemberPromote): Go's panic line on stderr, exit 2 (the goroutine
// trace that follows it in etcdctl is left out).
Output print_etcdctl_nil_panic();

// get/put/del: simple is etcdctl's key/value lines ("OK", the deleted count, prev kvs),
// json is etcd_json.h's rendering, fields the "Name" : value lines.
Output print_get(const etcdserverpb::RangeResponse& r, const PrintOptions& p);
Output print_put(const etcdserverpb::PutResponse& r, const PrintOptions& p);
Output print_del(const etcdserverpb::DeleteRangeResponse& r, const PrintOptions& p);
// SUCCESS/FAILURE, then a blank line before each op's own simple output.
Output print_txn(const etcdserverpb::TxnResponse& r, const PrintOptions& p);

// "compacted revision N" whatever -w says (etcdctl ignores it for compaction).
Output print_compaction(int64_t revision);

// One WatchResponse as the client library delivers it to etcdctl. Creation acks are not shown
// (clientv3 swallows them); a cancellation adds "watch was canceled (<reason>)" on stderr; a
// progress notification (dst's --progress-notify) adds "progress notify: REV", as etcdctl 3.5 does.
Output print_watch_response(const etcdserverpb::WatchResponse& r, const PrintOptions& p);
// After the server ended the watch: "Error: watch is canceled by the server", exit 5.
Output print_watch_ended();

Output print_lease_grant(const etcdserverpb::LeaseGrantResponse& r, const PrintOptions& p);
// etcdctl prints the id it asked to revoke, not one from the response.
Output print_lease_revoke(int64_t id, const etcdserverpb::LeaseRevokeResponse& r, const PrintOptions& p);
Output print_lease_time_to_live(const etcdserverpb::LeaseTimeToLiveResponse& r, bool with_keys,
                                const PrintOptions& p);
Output print_lease_keep_alive(const etcdserverpb::LeaseKeepAliveResponse& r, const PrintOptions& p);
// `lease keep-alive` without --once, once the lease is gone: "lease ID expired or revoked." (simple only).
Output print_lease_keep_alive_ended(int64_t id, const PrintOptions& p);
Output print_lease_list(const etcdserverpb::LeaseLeasesResponse& r, const PrintOptions& p);

// "Finished defragmenting etcd member[ENDPOINT]" (one line per endpoint; -w is ignored).
Output print_defrag(std::string_view endpoint);

// alarm list / alarm disarm: simple "memberID:N alarm:NOSPACE " per alarm (the trailing space is
// protobuf's compact text format), json the AlarmResponse.
Output print_alarm(const etcdserverpb::AlarmResponse& r, const PrintOptions& p);

// simple: one comma-separated line per endpoint, json: one array of {"Endpoint","Status"}.
Output print_endpoint_status(const std::vector<EndpointStatus>& statuses, const PrintOptions& p);
// endpoint health: simple writes "EP is healthy: successfully committed proposal: took = D" (or
// "EP is unhealthy: failed to commit proposal: ERR") to stderr; json, fields and table to stdout;
// then, if any endpoint failed, "Error: unhealthy cluster" and exit 1.
Output print_endpoint_health(const std::vector<EndpointHealth>& healths, const PrintOptions& p);
// member add: "Member %16x added to cluster %16x", then (simple only) the ETCD_* lines an operator
// starts the new member with: its name, the initial cluster (every member's name=peer URL, the
// new one under the given name), its peer URLs as given, state "existing".
Output print_member_add(const etcdserverpb::MemberAddResponse& r, const MemberAddCommand& c, const PrintOptions& p);
// member remove: "Member %16x removed from cluster %16x".
Output print_member_promote(uint64_t id, const etcdserverpb::MemberPromoteResponse& r, const PrintOptions& p);
Output print_member_remove(uint64_t id, const etcdserverpb::MemberRemoveResponse& r, const PrintOptions& p);
Output print_member_update(uint64_t id, const etcdserverpb::MemberUpdateResponse& r, const PrintOptions& p);
// version: the same two lines whatever -w says.
// "Leadership transferred from 1 to 2" (ids as types.ID prints them: hex); JSON: the answer
// ("{}": etcd 3.4's has no header); table and fields are unsupported (exit 4).
Output print_move_leader(uint64_t leader, uint64_t target, const etcdserverpb::MoveLeaderResponse& r, const PrintOptions& p);
Output print_version();
// `snapshot save`: "Snapshot saved at PATH" (etcdctl's zap info lines on stderr are not printed).
Output print_snapshot_saved(std::string_view path);
// `snapshot status`: "98156f68, 3, 6, 37 kB" (simple), {"hash":...,"revision":...,"totalKey":...,
// "totalSize":...} (json), etcdctl's fields and table forms.
struct DbStatus {
  uint32_t hash = 0;
  int64_t revision = 0;
  uint64_t total_key = 0;
  uint64_t total_size = 0;
};
Output print_snapshot_status(const DbStatus& s, const PrintOptions& p);
Output print_endpoint_hashkv(const std::vector<EndpointHashKV>& hashes, const PrintOptions& p);
Output print_member_list(const etcdserverpb::MemberListResponse& r, const PrintOptions& p);

}  // namespace dst::etcdctl
