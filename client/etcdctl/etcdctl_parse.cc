#include "client/etcdctl/etcdctl_parse.h"

#include "client/etcdctl/etcdctl_parse_internal.h"
#include "client/etcdctl/etcdctl_tokenize.h"
#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

using internal::command_table;
using internal::CommandSpec;
using internal::usage;

// The persistent flags of etcdctl's root command that `dst shell` honours (the others, TLS, auth,
// --debug, keep-alive and discovery, are rejected as unknown).
const FlagSpec kRootFlags[] = {{"write-out", 'w', FlagKind::kString},
                               {"hex", 0, FlagKind::kBool},
                               {"endpoints", 0, FlagKind::kStringSlice},
                               {"command-timeout", 0, FlagKind::kDuration},
                               {"dial-timeout", 0, FlagKind::kDuration}};

// A root flag written "--name VALUE": VALUE is not a command word.
bool root_flag_takes_next(std::string_view a) {
  return a == "-w" || a == "--write-out" || a == "--endpoints" || a == "--command-timeout" || a == "--dial-timeout";
}

const CommandSpec* find_command(std::string_view path) {
  for (const CommandSpec& c : command_table())
    if (c.path == path) return &c;
  return nullptr;
}

bool is_group(std::string_view word) {
  return word == "lease" || word == "alarm" || word == "endpoint" || word == "member" || word == "snapshot";
}

std::string group_subcommands(std::string_view group) {
  std::string out;
  for (const CommandSpec& c : command_table()) {
    if (c.path.substr(0, group.size() + 1) != std::string(group) + " ") continue;
    out += (out.empty() ? "" : ", ") + std::string(c.path.substr(group.size() + 1));
  }
  return out;
}

// Finds the command words (skipping flags and the value of -w/--write-out, which may come before
// them) and returns the remaining arguments in order.
Result<const CommandSpec*> split_command(const std::vector<std::string>& args, std::vector<std::string>* rest) {
  std::string path;
  bool need_sub = false;
  bool done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takes_next = root_flag_takes_next(a);
    if (done || (a.size() > 1 && a[0] == '-')) {
      rest->push_back(a);
      if (!done && takes_next && i + 1 < args.size()) rest->push_back(args[++i]);
      if (a == "--") done = true;
      continue;
    }
    if (path.empty()) {
      path = a;
      need_sub = is_group(a);
      done = !need_sub;
    } else if (need_sub) {
      path += " " + a;
      need_sub = false;
      done = true;
    } else {
      rest->push_back(a);
    }
  }
  if (path.empty()) return usage("no command given (expected e.g. get, put, del, txn, watch, lease grant)");
  if (need_sub) return usage(path + " needs a subcommand: " + group_subcommands(path));
  const CommandSpec* spec = find_command(path);
  if (spec == nullptr) {
    const size_t space = path.find(' ');
    if (space == std::string::npos) return usage("unknown command " + go_quote(path) + " for \"etcdctl\"");
    return usage("unknown command " + go_quote(path.substr(space + 1)) + " for \"etcdctl " + path.substr(0, space) +
                 "\" (expected one of: " + group_subcommands(path.substr(0, space)) + ")");
  }
  return spec;
}

Result<OutputFormat> output_format(const std::string& name) {
  if (name == "simple") return OutputFormat::kSimple;
  if (name == "json") return OutputFormat::kJson;
  if (name == "fields") return OutputFormat::kFields;
  if (name == "table") return OutputFormat::kTable;
  if (name == "protobuf") return OutputFormat::kProtobuf;
  return Status(StatusCode::kUnimplemented, "unsupported output format");  // ExitBadFeature
}

}  // namespace

bool prints_table(const Command& c) {
  // compaction and defrag print their line whatever -w says; sleep is the shell's own.
  return std::holds_alternative<MemberListCommand>(c) || std::holds_alternative<EndpointStatusCommand>(c) ||
         std::holds_alternative<EndpointHashKVCommand>(c) || std::holds_alternative<CompactionCommand>(c) ||
         std::holds_alternative<DefragCommand>(c) || std::holds_alternative<SleepCommand>(c) ||
         std::holds_alternative<EndpointHealthCommand>(c) || std::holds_alternative<VersionCommand>(c) ||
         std::holds_alternative<SnapshotSaveCommand>(c) || std::holds_alternative<SnapshotStatusCommand>(c);
}

bool prints_fields(const Command& c) {
  // etcdctl's fieldsPrinter has nothing for member add/remove/update/promote and move-leader.
  return !std::holds_alternative<MemberAddCommand>(c) && !std::holds_alternative<MemberRemoveCommand>(c) &&
         !std::holds_alternative<MemberUpdateCommand>(c) && !std::holds_alternative<MemberPromoteCommand>(c) &&
         !std::holds_alternative<MoveLeaderCommand>(c);
}

Result<std::optional<Invocation>> parse_line(std::string_view line) {
  if (is_blank_or_comment(line)) return std::optional<Invocation>();
  auto args = tokenize_shell(line);
  if (!args.is_ok()) return args.status();
  auto inv = parse_args(*args);
  if (!inv.is_ok()) return inv.status();
  return std::optional<Invocation>(std::move(*inv));
}

Result<Invocation> parse_args(const std::vector<std::string>& args) {
  std::vector<std::string> rest;
  auto spec = split_command(args, &rest);
  if (!spec.is_ok()) return spec.status();
  std::vector<FlagSpec> flags = (*spec)->flags;
  flags.insert(flags.end(), std::begin(kRootFlags), std::end(kRootFlags));
  auto parsed = parse_flags(rest, flags);
  if (!parsed.is_ok()) return parsed.status();
  ClientOptions client;
  client.endpoints = parsed->get_slice("endpoints");
  if (client.endpoints.size() > kEndpointsMax)
    return usage("dst shell takes at most " + std::to_string(kEndpointsMax) + " --endpoints, got " +
                 std::to_string(client.endpoints.size()));
  for (const char* name : {"command-timeout", "dial-timeout"}) {
    if (!parsed->has(name)) continue;
    const int64_t ns = parsed->get_duration_ns(name, 0);
    if (ns > kCommandTimeoutMaxNs) return usage(std::string("dst shell takes --") + name + " of at most 1h");
    (std::string_view(name) == "command-timeout" ? client.command_timeout_ns : client.dial_timeout_ns) = ns;
  }
  PrintOptions print;
  // etcdctl refuses an unknown format when it makes its client: after the command's own argument
  // checks, and never for `version`, which makes none.
  auto format = output_format(parsed->get_string("write-out", "simple"));
  print.format = format.is_ok() ? *format : OutputFormat::kSimple;
  print.hex = parsed->get_bool("hex");
  auto command = (*spec)->build(*parsed, &print);
  if (!command.is_ok()) return command.status();
  const bool makes_client = !std::holds_alternative<VersionCommand>(*command) && !std::holds_alternative<SleepCommand>(*command);
  if (!format.is_ok() && makes_client) return format.status();
  return Invocation{std::move(*command), print, std::move(client)};
}

Result<etcdserverpb::RequestOp> parse_txn_op(std::string_view line) {
  const std::string text(line);
  auto args = tokenize_txn_op(line);
  if (!args.is_ok()) return args.status();
  if (args->size() < 2) return usage("invalid txn compare request: " + text);
  const std::string& name = (*args)[0];
  const std::vector<FlagSpec>* flags = name == "put"   ? &internal::put_flags()
                                       : name == "get" ? &internal::get_flags()
                                       : name == "del" ? &internal::del_flags()
                                                       : nullptr;
  if (flags == nullptr) return usage("invalid txn request: " + text);
  auto parsed = parse_flags(std::vector<std::string>(args->begin() + 1, args->end()), *flags);
  // A flag etcdctl's cobra rejects becomes the generic txn error; the commands' own checks keep
  // their messages (etcdctl exits from inside them).
  if (!parsed.is_ok()) return usage("invalid txn request: " + text);
  etcdserverpb::RequestOp op;
  if (name == "put") {
    auto r = internal::build_put(*parsed);
    if (!r.is_ok()) return r.status();
    *op.mutable_request_put() = std::move(*r);
  } else if (name == "get") {
    auto r = internal::build_range(*parsed);
    if (!r.is_ok()) return r.status();
    *op.mutable_request_range() = std::move(*r);
  } else {
    auto r = internal::build_delete(*parsed);
    if (!r.is_ok()) return r.status();
    *op.mutable_request_delete_range() = std::move(*r);
  }
  return op;
}

}  // namespace dst::etcdctl
