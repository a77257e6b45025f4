// The etcdctl 3.4 command table: each command's words, flags and argument checks, with etcdctl's
// error texts (etcdctl/ctlv3/command/*_command.go), plus dst's `sleep`.
#include <cctype>
#include <limits>

#include "client/etcdctl/etcdctl_parse.h"
#include "client/etcdctl/etcdctl_parse_internal.h"
#include "client/etcdctl/go_format.h"

namespace dst::etcdctl::internal {

namespace {

Result<int64_t> lease_id_arg(const std::string& arg) {
  auto id = go_parse_int(arg, 16);
  if (!id.is_ok()) return usage("bad lease ID arg (" + id.status().message() + "), expecting ID in Hex");
  return *id;
}

Result<Command> get(const ParsedFlags& f, PrintOptions* print) {
  auto r = build_range(f);
  if (!r.is_ok()) return r.status();
  if (f.get_bool("print-value-only")) {
    if (print->format != OutputFormat::kSimple) return usage("print-value-only is only for `--write-out=simple`");
    print->print_value_only = true;
  }
  print->count_only = f.get_bool("count-only");
  return Command(GetCommand{std::move(*r)});
}

Result<Command> put(const ParsedFlags& f, PrintOptions*) {
  auto r = build_put(f);
  if (!r.is_ok()) return r.status();
  return Command(PutCommand{std::move(*r)});
}

Result<Command> del(const ParsedFlags& f, PrintOptions*) {
  auto r = build_delete(f);
  if (!r.is_ok()) return r.status();
  return Command(DelCommand{std::move(*r)});
}

Result<Command> txn(const ParsedFlags& f, PrintOptions*) {
  if (!f.positional().empty()) return usage("txn command does not accept argument");
  return Command(TxnCommand{f.get_bool("interactive")});
}

Result<Command> compaction(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1) return usage("compaction command needs 1 argument");
  auto rev = go_parse_int(f.positional()[0], 10);
  if (!rev.is_ok()) return rev.status();  // etcdctl prints the bare strconv error
  CompactionCommand c;
  c.request.set_revision(*rev);
  c.request.set_physical(f.get_bool("physical"));
  return Command(std::move(c));
}

Result<Command> watch(const ParsedFlags& f, PrintOptions*) {
  if (f.get_bool("interactive")) return usage("dst shell does not support watch -i (interactive watch)");
  const auto& pos = f.positional();
  if (pos.empty() || pos.size() > 2) return usage("bad number of arguments");
  if (pos.size() == 2 && f.get_bool("prefix")) return usage("`range_end` and `--prefix` are mutually exclusive");
  WatchCommand w;
  std::string key = pos[0];
  std::string range_end = pos.size() == 2 ? pos[1] : "";
  if (f.get_bool("prefix")) {  // clientv3.WithPrefix: an empty prefix watches every key
    if (key.empty()) {
      key = range_end = std::string(1, '\0');
    } else {
      range_end = prefix_range_end(key);
    }
  }
  w.request.set_key(key);
  w.request.set_range_end(range_end);
  w.request.set_start_revision(f.get_int("rev"));
  w.request.set_prev_kv(f.get_bool("prev-kv"));
  w.request.set_progress_notify(f.get_bool("progress-notify"));  // dst extension, see etcdctl_command.h
  return Command(std::move(w));
}

Result<Command> lease_grant(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1) return usage("lease grant command needs TTL argument");
  auto ttl = go_parse_int(f.positional()[0], 10);
  if (!ttl.is_ok()) return usage("bad TTL (" + ttl.status().message() + ")");
  LeaseGrantCommand c;
  c.request.set_ttl(*ttl);
  return Command(std::move(c));
}

Result<Command> lease_revoke(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1) return usage("lease revoke command needs 1 argument");
  auto id = lease_id_arg(f.positional()[0]);
  if (!id.is_ok()) return id.status();
  LeaseRevokeCommand c;
  c.request.set_id(*id);
  return Command(std::move(c));
}

Result<Command> lease_timetolive(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1) return usage("lease timetolive command needs lease ID as argument");
  auto id = lease_id_arg(f.positional()[0]);
  if (!id.is_ok()) return id.status();
  LeaseTimeToLiveCommand c;
  c.request.set_id(*id);
  c.request.set_keys(f.get_bool("keys"));
  return Command(std::move(c));
}

Result<Command> lease_keep_alive(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1) return usage("lease keep-alive command needs lease ID as argument");
  auto id = lease_id_arg(f.positional()[0]);
  if (!id.is_ok()) return id.status();
  LeaseKeepAliveCommand c;
  c.request.set_id(*id);
  c.once = f.get_bool("once");
  return Command(std::move(c));
}

Result<Command> alarm(const ParsedFlags& f, etcdserverpb::AlarmRequest::AlarmAction action, const char* name) {
  if (!f.positional().empty()) return usage(std::string("alarm ") + name + " command accepts no arguments");
  AlarmCommand c;
  c.request.set_action(action);  // disarm: memberID 0 and alarm NONE mean "every alarm"
  return Command(std::move(c));
}

Result<Command> sleep(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1)
    return usage("sleep needs 1 argument: a duration like 500ms, 1s, 1m30s or 2h");
  auto ns = go_parse_duration(f.positional()[0]);
  if (!ns.is_ok()) return ns.status();
  if (*ns < 0) return usage("sleep needs a non-negative duration, got " + f.positional()[0]);
  return Command(SleepCommand{*ns});
}

// strings.Split(urls, ","): empty pieces included.
void split_peer_urls(const std::string& urls, google::protobuf::RepeatedPtrField<std::string>* out) {
  size_t begin = 0;
  for (;;) {
    const size_t comma = urls.find(',', begin);
    *out->Add() = urls.substr(begin, comma - begin);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
}

Result<Command> member_add(const ParsedFlags& f, PrintOptions*) {
  const std::vector<std::string>& args = f.positional();
  if (args.empty()) return usage("member name not provided");
  if (args.size() > 1) {
    std::string why = "too many arguments";
    for (const std::string& a : args) {
      std::string lower = a;
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (lower.rfind("http", 0) == 0) why += ", did you mean --peer-urls=" + a;
    }
    return usage(why);
  }
  MemberAddCommand c;
  c.name = args[0];
  c.peer_urls = f.get_string("peer-urls");
  if (c.peer_urls.empty()) return usage("member peer urls not provided");
  split_peer_urls(c.peer_urls, c.request.mutable_peerurls());
  c.request.set_islearner(f.get_bool("learner"));
  return Command(std::move(c));
}

// A member command's one argument, the member's ID in hex (member_command.go's words).
template <typename MemberCommand>
Result<Command> member_by_id(const ParsedFlags& f) {
  if (f.positional().size() != 1) return usage("member ID is not provided");
  auto id = go_parse_uint(f.positional()[0], 16);
  if (!id.is_ok()) return usage("bad member ID arg (" + id.status().message() + "), expecting ID in Hex");
  MemberCommand c;
  c.request.set_id(*id);
  return Command(std::move(c));
}

Result<Command> member_remove(const ParsedFlags& f, PrintOptions*) { return member_by_id<MemberRemoveCommand>(f); }
Result<Command> member_promote(const ParsedFlags& f, PrintOptions*) { return member_by_id<MemberPromoteCommand>(f); }

// member_command.go's order: the ID's checks, then the URLs'.
Result<Command> member_update(const ParsedFlags& f, PrintOptions*) {
  Result<Command> c = member_by_id<MemberUpdateCommand>(f);
  if (!c.is_ok()) return c;
  const std::string urls = f.get_string("peer-urls");
  if (urls.empty()) return usage("member peer urls not provided");
  split_peer_urls(urls, std::get<MemberUpdateCommand>(*c).request.mutable_peerurls());
  return c;
}

Result<Command> move_leader(const ParsedFlags& f, PrintOptions*) {
  if (f.positional().size() != 1) return usage("move-leader command needs 1 argument");
  auto target = go_parse_uint(f.positional()[0], 16);
  if (!target.is_ok()) return usage(target.status().message());
  return Command(MoveLeaderCommand{*target});
}

std::vector<CommandSpec> make_table() {
  using K = FlagKind;
  using etcdserverpb::AlarmRequest;
  std::vector<CommandSpec> t;
  t.push_back({"get", get_flags(), get});
  t.push_back({"put", put_flags(), put});
  t.push_back({"del", del_flags(), del});
  t.push_back({"txn", {{"interactive", 'i', K::kBool}}, txn});
  t.push_back({"compaction", {{"physical", 0, K::kBool}}, compaction});
  t.push_back({"watch",
               {{"interactive", 'i', K::kBool},
                {"prefix", 0, K::kBool},
                {"rev", 0, K::kInt64},
                {"prev-kv", 0, K::kBool},
                {"progress-notify", 0, K::kBool}},
               watch});
  t.push_back({"lease grant", {}, lease_grant});
  t.push_back({"lease revoke", {}, lease_revoke});
  t.push_back({"lease timetolive", {{"keys", 0, K::kBool}}, lease_timetolive});
  t.push_back({"lease keep-alive", {{"once", 0, K::kBool}}, lease_keep_alive});
  t.push_back({"lease list", {}, [](const ParsedFlags&, PrintOptions*) -> Result<Command> {
                 return Command(LeaseListCommand{});
               }});
  // etcdctl's defrag also has --data-dir (a data directory no member uses): not in a simulation.
  t.push_back({"defrag", {{"cluster", 0, K::kBool}}, [](const ParsedFlags& f, PrintOptions*) -> Result<Command> {
                 return Command(DefragCommand{f.get_bool("cluster")});
               }});
  t.push_back({"alarm list", {}, [](const ParsedFlags& f, PrintOptions*) {
                 return alarm(f, AlarmRequest::GET, "list");
               }});
  t.push_back({"alarm disarm", {}, [](const ParsedFlags& f, PrintOptions*) {
                 return alarm(f, AlarmRequest::DEACTIVATE, "disarm");
               }});
  t.push_back({"endpoint status", {{"cluster", 0, K::kBool}}, [](const ParsedFlags& f, PrintOptions*) {
                 return Result<Command>(Command(EndpointStatusCommand{f.get_bool("cluster")}));
               }});
  t.push_back({"endpoint hashkv", {{"cluster", 0, K::kBool}, {"rev", 0, K::kInt64}},
               [](const ParsedFlags& f, PrintOptions*) {
                 EndpointHashKVCommand c;
                 c.request.set_revision(f.get_int("rev"));
                 c.cluster = f.get_bool("cluster");
                 return Result<Command>(Command(std::move(c)));
               }});
  t.push_back({"endpoint health", {{"cluster", 0, K::kBool}}, [](const ParsedFlags& f, PrintOptions*) {
                 return Result<Command>(Command(EndpointHealthCommand{f.get_bool("cluster")}));
               }});
  t.push_back({"version", {}, [](const ParsedFlags&, PrintOptions*) -> Result<Command> {
                 return Command(VersionCommand{});
               }});
  t.push_back({"member add", {{"peer-urls", 0, K::kString}, {"learner", 0, K::kBool}}, member_add});
  t.push_back({"member remove", {}, member_remove});
  t.push_back({"move-leader", {}, move_leader});
  t.push_back({"member promote", {}, member_promote});
  t.push_back({"member update", {{"peer-urls", 0, K::kString}}, member_update});
  t.push_back({"snapshot save", {}, [](const ParsedFlags& f, PrintOptions*) -> Result<Command> {
                 if (f.positional().size() != 1) return usage("snapshot save expects one argument");
                 return Command(SnapshotSaveCommand{f.positional()[0]});
               }});
  t.push_back({"snapshot status", {}, [](const ParsedFlags& f, PrintOptions*) -> Result<Command> {
                 if (f.positional().size() != 1) return usage("snapshot status requires exactly one argument");
                 return Command(SnapshotStatusCommand{f.positional()[0]});
               }});
  t.push_back({"member list", {}, [](const ParsedFlags&, PrintOptions*) -> Result<Command> {
                 return Command(MemberListCommand{});
               }});
  t.push_back({"sleep", {}, sleep});
  return t;
}

}  // namespace

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = make_table();
  return table;
}

}  // namespace dst::etcdctl::internal
