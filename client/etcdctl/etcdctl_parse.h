// Parsing etcdctl 3.4 command lines into Invocations (etcdctl_command.h).
//
// Covered: get, put, del, txn, compaction, watch, lease grant|revoke|timetolive|keep-alive|list,
// defrag, alarm list|disarm, endpoint status|hashkv, member list, and dst's own `sleep DURATION`.
// Errors carry etcdctl's own message text where etcdctl has one (printed by the caller as
// "Error: <message>"), e.g. "unknown flag: --foo" or
// "put command needs 1 argument and input from stdin or 2 arguments".
//
// Deliberate differences from etcdctl 3.4, all documented where they are implemented:
//  - `put KEY` without a value is an error (etcdctl would read the value from stdin, which in
//    `dst shell` is the script itself);
//  - `get --count-only` and `watch --progress-notify` are accepted (3.5 flags; 3.4 says
//    "unknown flag"), because a simulation wants them;
//  - `watch -i`, `watch ... -- CMD`, `defrag --data-dir` and `-w table|protobuf` are rejected.
#pragma once

#include <optional>
#include "base/key_range.h"
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/etcdctl/etcdctl_command.h"

namespace dst::etcdctl {

// clientv3.GetPrefixRangeEnd is dst::prefix_range_end (base/key_range.h).
using dst::prefix_range_end;

// A whole line: blank lines and '#' comments give std::nullopt.
Result<std::optional<Invocation>> parse_line(std::string_view line);

// An already split command line, e.g. {"get", "foo", "--prefix", "-w", "json"}.
Result<Invocation> parse_args(const std::vector<std::string>& args);

// Whether etcdctl 3.4 prints the command's result with -w table (member list, endpoint status,
// endpoint hashkv; compaction and defrag, which ignore -w); any other command runs, then fails to
// print: print_table_unsupported().
bool prints_table(const Command& c);
// The same for -w fields: every command but member add/remove/update/promote and move-leader;
// those run, then fail to print: print_fields_unsupported().
bool prints_fields(const Command& c);

// One operation line inside a txn: `put ...`, `get ...` or `del ...` with their flags (no global
// flags, as in etcdctl's txn reader), as the RequestOp etcdctl puts in the TxnRequest. Errors as
// etcdctl words them: "invalid txn compare request: LINE" for fewer than two words, "invalid txn
// request: LINE" for an unknown command or flag, and the command's own message otherwise.
Result<etcdserverpb::RequestOp> parse_txn_op(std::string_view line);

}  // namespace dst::etcdctl
