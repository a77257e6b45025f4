// What one etcdctl command line means, as data: the etcdserverpb request(s) it sends and the print
// options that shape its output. Produced by etcdctl_parse.h, consumed by `dst shell` (which sends
// the requests) and etcdctl_print.h (which renders the responses).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

// Global -w / --write-out. etcdctl 3.4 also knows "protobuf" and "table"; `dst shell` rejects them.
// kTable: member list and the endpoint commands only; etcdctl runs any other command and then
// fails to print it ("table not supported as output format", exit 4): prints_table().
enum class OutputFormat { kSimple, kJson, kFields, kTable, kProtobuf };

struct PrintOptions {
  OutputFormat format = OutputFormat::kSimple;
  bool print_value_only = false;  // get --print-value-only (simple format only)
  bool count_only = false;        // get --count-only: simple format prints the count (dst extension)
  // --hex: the simple format prints keys and values as "\x6b\x31" (etcdctl 3.4's addHexPrefix);
  // the other formats ignore it, as etcdctl 3.4's do.
  bool hex = false;
};

struct GetCommand {
  etcdserverpb::RangeRequest request;
};
struct PutCommand {
  etcdserverpb::PutRequest request;
};
struct DelCommand {
  etcdserverpb::DeleteRangeRequest request;
};
// `txn [-i]`: the request comes from the lines that follow, read with TxnParser (etcdctl_txn.h).
struct TxnCommand {
  bool interactive = false;  // -i: print the section prompts
};
struct CompactionCommand {
  etcdserverpb::CompactionRequest request;
};
// request.progress_notify is a dst extension (`watch --progress-notify`, which etcdctl 3.4 lacks and
// 3.5 added); everything else is what etcdctl 3.4 sends.
struct WatchCommand {
  etcdserverpb::WatchCreateRequest request;
};
struct LeaseGrantCommand {
  etcdserverpb::LeaseGrantRequest request;
};
struct LeaseRevokeCommand {
  etcdserverpb::LeaseRevokeRequest request;
};
struct LeaseTimeToLiveCommand {
  etcdserverpb::LeaseTimeToLiveRequest request;
};
struct LeaseKeepAliveCommand {
  etcdserverpb::LeaseKeepAliveRequest request;
  bool once = false;  // --once: one keep-alive, then exit; otherwise keep renewing until it expires
};
struct LeaseListCommand {
  etcdserverpb::LeaseLeasesRequest request;
};
// `defrag [--cluster]`: every endpoint given (or every member), one after the other.
struct DefragCommand {
  bool cluster = false;
};
struct AlarmCommand {
  etcdserverpb::AlarmRequest request;  // action GET (alarm list) or DEACTIVATE (alarm disarm)
};
struct EndpointStatusCommand {
  bool cluster = false;  // --cluster: every member's client URL instead of the given endpoints
};
struct EndpointHashKVCommand {
  etcdserverpb::HashKVRequest request;  // --rev
  bool cluster = false;
};
// `endpoint health`: a linearizable get of the key "health" from each endpoint, timed (etcdctl
// 3.4's ep_command.go: the endpoint is healthy if the get succeeds).
struct EndpointHealthCommand {
  bool cluster = false;
};
// `version`: etcdctl's own version and API version, whatever -w says.
struct VersionCommand {};
// `member add NAME --peer-urls=URL[,URL] [--learner]`: the name only shapes the printed
// ETCD_* lines (the member's own name comes when it starts).
struct MemberAddCommand {
  std::string name;
  std::string peer_urls;  // as given (ETCD_INITIAL_ADVERTISE_PEER_URLS)
  etcdserverpb::MemberAddRequest request;
};
struct MemberRemoveCommand {
  etcdserverpb::MemberRemoveRequest request;  // the ID, given in hex
};
struct MemberPromoteCommand {
  etcdserverpb::MemberPromoteRequest request;  // the ID, given in hex
};
// `member update ID --peer-urls=U1,U2`: new peer URLs for a member (split at commas, as etcdctl).
struct MemberUpdateCommand {
  etcdserverpb::MemberUpdateRequest request;
};
// `move-leader TARGET`: TARGET in hex; etcdctl finds the leader among the endpoints (Status) and
// asks it.
struct MoveLeaderCommand {
  uint64_t target = 0;
};
struct MemberListCommand {
  etcdserverpb::MemberListRequest request;
};
// `snapshot save FILE`: the first endpoint's backend as a snapshot file, written to FILE on the
// machine `dst shell` runs on (through FILE.part, renamed once complete, as etcdctl does).
struct SnapshotSaveCommand {
  std::string path;
};
// `snapshot status FILE`: hash, revision, keys and size of a snapshot file (no cluster involved).
struct SnapshotStatusCommand {
  std::string path;
};
// dst only: advance virtual time by duration_ns before reading the next line.
struct SleepCommand {
  int64_t duration_ns = 0;
};

using Command = std::variant<GetCommand, PutCommand, DelCommand, TxnCommand, CompactionCommand, WatchCommand,
                             LeaseGrantCommand, LeaseRevokeCommand, LeaseTimeToLiveCommand, LeaseKeepAliveCommand,
                             LeaseListCommand, DefragCommand, AlarmCommand, EndpointStatusCommand,
                             EndpointHashKVCommand, EndpointHealthCommand, MemberAddCommand, MemberRemoveCommand, MemberListCommand,
                             MoveLeaderCommand, MemberPromoteCommand, MemberUpdateCommand,
                             VersionCommand, SnapshotSaveCommand, SnapshotStatusCommand,
                             SleepCommand>;

// etcdctl's global client flags given on the line (unset: the session's defaults).
struct ClientOptions {
  // --endpoints, in order, as written ("http://n2:2379", "n2:2379"); repeated flags add up.
  std::vector<std::string> endpoints;  // at most kEndpointsMax
  // --command-timeout (default 5s; at most kCommandTimeoutMaxNs; zero or less has expired at once)
  std::optional<int64_t> command_timeout_ns;
  std::optional<int64_t> dial_timeout_ns;  // --dial-timeout (default 2s)
};
inline constexpr size_t kEndpointsMax = 64;
inline constexpr int64_t kCommandTimeoutMaxNs = int64_t{3600} * 1000 * 1000 * 1000;

// One parsed line: the command, how its results are to be printed, and the client flags.
struct Invocation {
  Command command;
  PrintOptions print;
  ClientOptions client;
};

}  // namespace dst::etcdctl
