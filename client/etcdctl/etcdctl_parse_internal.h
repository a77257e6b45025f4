// Pieces shared by the etcdctl parsers (etcdctl_parse.cc, etcdctl_kv_builders.cc,
// etcdctl_commands.cc): the command table and the get/put/del request builders, which both the top
// level and txn op lines use. Not part of the library's public API.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/etcdctl/etcdctl_command.h"
#include "client/etcdctl/etcdctl_flags.h"

namespace dst::etcdctl::internal {

inline Status usage(std::string message) { return Status(StatusCode::kInvalidArgument, std::move(message)); }
// A flag value etcdctl checks itself after parsing (a bad sort order or target): it exits with
// ExitBadFeature (4), not ExitBadArgs (128). The shell maps kUnimplemented to that code.
inline Status bad_feature(std::string message) { return Status(StatusCode::kUnimplemented, std::move(message)); }

// get/put/del flag sets, shared by the top level and by txn op lines.
const std::vector<FlagSpec>& get_flags();
const std::vector<FlagSpec>& put_flags();
const std::vector<FlagSpec>& del_flags();

// The request etcdctl 3.4's getGetOp/getPutOp/getDelOp would build, with their error texts.
Result<etcdserverpb::RangeRequest> build_range(const ParsedFlags& f);
Result<etcdserverpb::PutRequest> build_put(const ParsedFlags& f);
Result<etcdserverpb::DeleteRangeRequest> build_delete(const ParsedFlags& f);

// One command: its words, its flags (besides the global -w) and how to build it.
struct CommandSpec {
  std::string_view path;  // "get", "lease grant", ...
  std::vector<FlagSpec> flags;
  std::function<Result<Command>(const ParsedFlags&, PrintOptions*)> build;
};

const std::vector<CommandSpec>& command_table();

}  // namespace dst::etcdctl::internal
