// etcd 3.4's server flags that decide what a client can do, by etcd's names and with etcd's
// parsing (etcdmain/config.go, embed/etcd.go), for `dst shell --FLAG VALUE` and a scenario's
// cluster{}: --quota-backend-bytes, --max-txn-ops, --max-request-bytes, --snapshot-count,
// --auto-compaction-mode and --auto-compaction-retention.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "node/server/server.h"

namespace dst::etcdctl {

// The flags given so far (text as typed); applied to a member's options together, since the
// compaction mode decides how its retention reads.
struct EtcdServerFlags {
  std::vector<std::pair<std::string, std::string>> given;  // (name without dashes, value), in order
};

// The flags' names, without dashes, in the order the usage lists them.
const std::vector<std::string_view>& etcd_server_flag_names();

// Sets every given flag on `options`. etcd's rules: --quota-backend-bytes 0 is etcd's default
// (2 GiB) and a negative one turns the quota off; --max-txn-ops and --max-request-bytes 0 refuse
// every txn with an operation / every request; --snapshot-count 0 is etcd's default (100,000);
// --auto-compaction-retention 0 is off, an integer is hours (periodic) or revisions (revision),
// else a Go duration ("30m", "1h30m"; in revision mode etcd then reads its nanoseconds as a
// number of revisions, and so does this). Errors (kInvalidArgument) name the flag and what was
// expected; bounds beyond etcd's own keep the simulation's state bounded.
Status apply_etcd_server_flags(const EtcdServerFlags& flags, node::ServerOptions& options);

// --auto-compaction-mode and --auto-compaction-retention alone.
Result<node::AutoCompaction> parse_auto_compaction(std::string_view mode, std::string_view retention);

}  // namespace dst::etcdctl
