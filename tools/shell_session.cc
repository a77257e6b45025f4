#include "tools/shell_session.h"

#include <algorithm>
#include <variant>

#include <google/protobuf/descriptor.h>

#include "base/assert.h"
#include "base/parse_number.h"

#include "node/lease/errors.h"
#include "node/server/membership.h"
#include "rpc/etcd_connection.h"
#include "client/etcdctl/etcdctl_parse.h"
#include "client/etcdctl/go_format.h"

namespace dst::shell {

namespace {

using etcdctl::Output;
using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;

// What the server answers a keep-alive for a lease that is gone.
constexpr int64_t kLeaseGone = 0;

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace

ShellSession::ShellSession(world::KvWorld& world, ShellOptions options, Sink sink)
    : world_(world), options_(options), sink_(std::move(sink)) {
  DST_ASSERT_LT(options_.member, world_.cluster().size());
  // A host of its own: a host runs one process, and the client host's runs the foreground lines.
  sim::HostId host = world_.sim().add_host("shell-background");
  background_process_ = world_.sim().start_process(host, "shell-background");
}

ShellSession::~ShellSession() {
  // Background watches and keep-alives refer to this session: end them while it still exists.
  if (world_.sim().alive(background_process_)) world_.sim().kill(background_process_);
}

std::string ShellSession::endpoint(size_t i) const { return "http://n" + std::to_string(i + 1) + ":2379"; }

std::optional<size_t> ShellSession::member_of(const std::string& endpoint) const {
  std::string_view rest = endpoint;
  for (std::string_view scheme : {"http://", "https://"})
    if (rest.substr(0, scheme.size()) == scheme) rest.remove_prefix(scheme.size());
  const std::string_view port = ":2379";
  if (rest.size() < 2 + port.size() || rest[0] != 'n' || rest.substr(rest.size() - port.size()) != port) return {};
  const std::string_view digits = rest.substr(1, rest.size() - 1 - port.size());
  if (digits.empty() || digits.size() > 3 || digits[0] == '0' ||
      digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return {};
  }
  const size_t n = parse_unsigned<size_t>(digits).value_or(0);
  if (n > world_.cluster().size()) return {};
  return n - 1;
}

ShellSession::Target ShellSession::kv_target() const {
  if (client_.endpoints.empty()) return Target{endpoint(options_.member), options_.member};
  for (const std::string& e : client_.endpoints) {
    const std::optional<size_t> m = member_of(e);
    if (m && world_.cluster().up(*m)) return Target{e, m};
  }
  return Target{client_.endpoints.front(), member_of(client_.endpoints.front())};
}

std::vector<ShellSession::Target> ShellSession::endpoint_targets(bool cluster) const {
  std::vector<Target> out;
  if (cluster) {
    // The members' client URLs (etcdctl reads them from the member list): nodes started and not
    // removed (a node made for a failed member add is none).
    for (size_t i = 0; i < world_.cluster().size(); ++i)
      if (world_.cluster().started(i) && !world_.cluster().removed(i)) out.push_back(Target{endpoint(i), i});
  } else if (client_.endpoints.empty()) {
    out.push_back(Target{endpoint(options_.member), options_.member});
  } else {
    for (const std::string& e : client_.endpoints) out.push_back(Target{e, member_of(e)});
  }
  return out;
}

void ShellSession::run_line(std::function<void()> body) {
  // Room for every request of the line to time out (a line asks at most kEndpointsMax endpoints
  // and a txn's alarm list/disarm a few more), so the bound never cuts a line short.
  const sim::DurationNs timeout = std::max<sim::DurationNs>(command_timeout(), 0);
  world_.run_client(std::move(body), timeout * (etcdctl::kEndpointsMax + 8) + sim::seconds(120));
}

sim::DurationNs ShellSession::command_timeout() const {
  return client_.command_timeout_ns.value_or(options_.command_timeout);
}

void ShellSession::feed(const std::string& line) {
  if (skip_txn_blank_lines_ > 0) {
    // The rest of a malformed txn's body: etcdctl exited at its bad line, so none of it runs.
    if (line.find_first_not_of(" \t\r") == std::string::npos) --skip_txn_blank_lines_;
    return;
  }
  if (txn_) {
    // The txn's own lines: compares, success ops, failure ops, separated by blank lines.
    const int blank_lines_left = txn_->blank_lines_left();
    Result<bool> done = txn_->feed(line);
    if (!done.is_ok()) {
      emit(etcdctl::print_error(done.status().message(), etcdctl::kExitInvalidInput));
      txn_.reset();
      skip_txn_blank_lines_ = blank_lines_left;
      return;
    }
    if (!*done) {
      if (std::string prompt = txn_->take_prompt(); !prompt.empty()) emit(Output{prompt, "", 0});
      return;
    }
    etcdserverpb::TxnRequest request = txn_->request();
    txn_.reset();
    printing(txn_print_, etcdctl::TxnCommand{}, [&] { run_txn(request, txn_print_); });
    return;
  }
  auto parsed = etcdctl::parse_line(line);
  if (!parsed.is_ok()) {
    emit(etcdctl::print_error(parsed.status().message(), parsed.status().code() == StatusCode::kUnimplemented
                                                             ? etcdctl::kExitBadFeature
                                                             : etcdctl::kExitBadArgs));
    return;
  }
  if (!parsed->has_value()) return;  // blank line or comment
  client_ = (*parsed)->client;
  // A txn line only opens its body: the body's end runs it (and prints, or refuses a table).
  if (std::holds_alternative<etcdctl::TxnCommand>((*parsed)->command)) return run(**parsed);
  printing((*parsed)->print, (*parsed)->command, [&] { run(**parsed); });
}

// -w table or -w fields for a command etcdctl has no such printer for: it runs the command, and
// where that succeeds, fails to print its result (a failure is printed as usual, before any result).
void ShellSession::printing(const etcdctl::PrintOptions& print, const etcdctl::Command& cmd,
                            const std::function<void()>& body) {
  const bool table = print.format == etcdctl::OutputFormat::kTable;
  const bool unprintable = (table && !etcdctl::prints_table(cmd)) ||
                           (print.format == etcdctl::OutputFormat::kFields && !etcdctl::prints_fields(cmd));
  if (!unprintable) return body();
  Sink kept = sink_;
  bool failed = false;
  sink_ = [&](const etcdctl::Output& o) {
    if (o.exit_code == 0) return;
    failed = true;
    kept(o);
  };
  body();
  sink_ = std::move(kept);
  if (!failed) emit(table ? etcdctl::print_table_unsupported() : etcdctl::print_fields_unsupported());
}

void ShellSession::finish() {
  if (txn_) {
    emit(etcdctl::print_error(txn_->end_of_input().message(), etcdctl::kExitInvalidInput));
    txn_.reset();
  }
  world_.advance(options_.drain);
}

namespace {

// clientv3's default MaxCallSendMsgSize (2 MiB): etcdctl refuses a bigger request before sending.
constexpr size_t kClientSendBytesMax = 2 * 1024 * 1024;

// The size gRPC measures: the etcd request message itself (a PutRequest...), not our envelope.
size_t request_message_bytes(const ApiRequest& req) {
  const google::protobuf::OneofDescriptor* oneof = ApiRequest::descriptor()->FindOneofByName("request");
  DST_ASSERT(oneof != nullptr);
  const google::protobuf::FieldDescriptor* field = req.GetReflection()->GetOneofFieldDescriptor(req, oneof);
  return field == nullptr ? 0 : req.GetReflection()->GetMessage(req, field).ByteSizeLong();
}

}  // namespace

std::optional<ApiResponse> ShellSession::call(const etcdctl::Command& cmd, ApiRequest req, const Target& target,
                                              std::string* failure) {
  const auto failed = [&](const std::string& msg) {
    emit(etcdctl::print_request_error(cmd, msg, target.name));
    if (failure != nullptr) *failure = msg;
    return std::nullopt;
  };
  if (const size_t bytes = request_message_bytes(req); bytes > kClientSendBytesMax) {
    return failed("rpc error: code = ResourceExhausted desc = trying to send message larger than max (" +
                  std::to_string(bytes) + " vs. " + std::to_string(kClientSendBytesMax) + ")");
  }
  // An address no member has, a member that is down, or no time at all: the context expires.
  rpc::Connection* conn = target.member ? world_.connection(*target.member) : nullptr;
  if (conn == nullptr || command_timeout() <= 0) return failed("context deadline exceeded");
  auto r = conn->call(std::move(req), command_timeout());
  if (!r.is_ok()) {
    // etcdctl's context expires first on a timeout; a broken connection shows gRPC's words.
    return failed(r.status().code() == StatusCode::kTimeout ? "context deadline exceeded"
                                                            : "rpc error: code = Unavailable desc = transport is closing");
  }
  if (r->has_error()) return failed(r->error().message());
  return std::move(r).value();
}

void ShellSession::run_txn(const etcdserverpb::TxnRequest& txn, const etcdctl::PrintOptions& print) {
  etcdctl::Command cmd = etcdctl::TxnCommand{};
  run_line([&] {
    ApiRequest req;
    *req.mutable_txn() = txn;
    if (auto r = call(cmd, req, kv_target())) emit(etcdctl::print_txn(r->txn(), print));
  });
}

// One request of the line's command to its endpoint (kv_target): `fill` writes the request,
// `show` prints the answer; a failure prints the command's error line.
template <typename Fill, typename Show>
void ShellSession::unary_call(const etcdctl::Command& cmd, Fill fill, Show show) {
  const Target target = kv_target();
  run_line([&] {
    ApiRequest req;
    fill(req);
    if (auto r = call(cmd, req, target)) show(*r);
  });
}

void ShellSession::run(const etcdctl::Invocation& inv) {
  const etcdctl::PrintOptions& print = inv.print;
  const etcdctl::Command& cmd = inv.command;
  auto unary = [&](auto fill, auto show) { unary_call(cmd, fill, show); };
  std::visit(
      Overloaded{
          [&](const etcdctl::GetCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_range() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_get(r.range(), print)); });
          },
          [&](const etcdctl::PutCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_put() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_put(r.put(), print)); });
          },
          [&](const etcdctl::DelCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_delete_range() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_del(r.delete_range(), print)); });
          },
          [&](const etcdctl::TxnCommand& c) {
            txn_.emplace(c.interactive);
            txn_print_ = print;
            if (std::string prompt = txn_->take_prompt(); !prompt.empty()) emit(Output{prompt, "", 0});
          },
          [&](const etcdctl::CompactionCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_compaction() = c.request; },
                  [&](ApiResponse&) { emit(etcdctl::print_compaction(c.request.revision())); });
          },
          [&](const etcdctl::WatchCommand& c) { start_watch(c, print); },
          [&](const etcdctl::LeaseGrantCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_lease_grant() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_lease_grant(r.lease_grant(), print)); });
          },
          [&](const etcdctl::LeaseRevokeCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_lease_revoke() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_lease_revoke(c.request.id(), r.lease_revoke(), print)); });
          },
          [&](const etcdctl::LeaseTimeToLiveCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_lease_time_to_live() = c.request; },
                  [&](ApiResponse& r) {
                    emit(etcdctl::print_lease_time_to_live(r.lease_time_to_live(), c.request.keys(), print));
                  });
          },
          [&](const etcdctl::LeaseKeepAliveCommand& c) { run_keep_alive(c, cmd, print); },
          [&](const etcdctl::LeaseListCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_lease_leases() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_lease_list(r.lease_leases(), print)); });
          },
          // Maintenance, cluster and the shell's own commands.
          [&](const auto&) { run_admin(inv); },
      },
      cmd);
}

// The maintenance and cluster commands (and sleep), run()'s other half.
void ShellSession::run_admin(const etcdctl::Invocation& inv) {
  const etcdctl::PrintOptions& print = inv.print;
  const etcdctl::Command& cmd = inv.command;
  auto unary = [&](auto fill, auto show) { unary_call(cmd, fill, show); };
  std::visit(
      Overloaded{
          [&](const etcdctl::DefragCommand& c) {
            // Each endpoint in turn; a failure is printed and the next one is still defragmented.
            run_line([&] {
              for (const Target& t : endpoint_targets(c.cluster)) {
                ApiRequest q;
                q.mutable_defragment();
                if (call(cmd, q, t)) emit(etcdctl::print_defrag(t.name));
              }
            });
          },
          [&](const etcdctl::AlarmCommand& c) { run_alarm(c, cmd, print); },
          [&](const etcdctl::EndpointStatusCommand& c) { run_endpoint_status(c, cmd, print); },
          [&](const etcdctl::EndpointHashKVCommand& c) { run_endpoint_hashkv(c, cmd, print); },
          [&](const etcdctl::EndpointHealthCommand& c) { run_endpoint_health(c, cmd, print); },
          [&](const etcdctl::VersionCommand&) { emit(etcdctl::print_version()); },
          [&](const etcdctl::MemberAddCommand& c) { run_member_add(c, cmd, print); },
          [&](const etcdctl::MemberRemoveCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_member_remove() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_member_remove(c.request.id(), r.member_remove(), print)); });
          },
          [&](const etcdctl::MoveLeaderCommand& c) { run_move_leader(c, cmd, print); },
          [&](const etcdctl::MemberPromoteCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_member_promote() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_member_promote(c.request.id(), r.member_promote(), print)); });
          },
          [&](const etcdctl::MemberUpdateCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_member_update() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_member_update(c.request.id(), r.member_update(), print)); });
          },
          [&](const etcdctl::MemberListCommand& c) {
            unary([&](ApiRequest& q) { *q.mutable_member_list() = c.request; },
                  [&](ApiResponse& r) { emit(etcdctl::print_member_list(r.member_list(), print)); });
          },
          [&](const etcdctl::SnapshotSaveCommand& c) { run_snapshot_save(c, cmd); },
          [&](const etcdctl::SnapshotStatusCommand& c) { run_snapshot_status(c, print); },
          [&](const etcdctl::SleepCommand& c) { world_.advance(c.duration_ns); },
          [&](const auto&) { DST_UNREACHABLE("run() handles the KV and lease commands"); },
      },
      cmd);
}

// etcdctl's move-leader: Status on each endpoint in turn until one says it leads (a failure ends
// the command), then MoveLeader there. One deadline per request here, where etcdctl shares one
// --command-timeout between them.
void ShellSession::run_move_leader(const etcdctl::MoveLeaderCommand& c, const etcdctl::Command& cmd,
                                   const etcdctl::PrintOptions& print) {
  const std::vector<Target> targets = endpoint_targets(false);
  run_line([&] {
    std::vector<std::string> names;
    for (const Target& t : targets) {
      names.push_back(t.name);
      ApiRequest q;
      q.mutable_status();
      std::optional<ApiResponse> r = call(cmd, q, t);
      if (!r) return;
      if (r->status().header().member_id() != r->status().leader()) continue;
      ApiRequest move;
      move.mutable_move_leader()->set_targetid(c.target);
      if (std::optional<ApiResponse> m = call(cmd, move, t))
        emit(etcdctl::print_move_leader(r->status().leader(), c.target, m->move_leader(), print));
      return;
    }
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : " ") + n;
    emit(etcdctl::print_error("no leader endpoint given at [" + list + "]", etcdctl::kExitBadArgs));
  });
}

void ShellSession::run_alarm(const etcdctl::AlarmCommand& c, const etcdctl::Command& cmd,
                             const etcdctl::PrintOptions& print) {
  const Target m = kv_target();
  run_line([&] {
    if (c.request.action() != etcdserverpb::AlarmRequest::DEACTIVATE || c.request.memberid() != 0 ||
        c.request.alarm() != etcdserverpb::NONE) {
      ApiRequest q;
      *q.mutable_alarm() = c.request;
      if (auto r = call(cmd, q, m)) emit(etcdctl::print_alarm(r->alarm(), print));
      return;
    }
    // `alarm disarm` (clientv3's AlarmDisarm with no member): list, then disarm each one, and
    // print the alarms that were disarmed.
    ApiRequest list;
    list.mutable_alarm()->set_action(etcdserverpb::AlarmRequest::GET);
    auto listed = call(cmd, list, m);
    if (!listed) return;
    etcdserverpb::AlarmResponse all;
    for (const auto& a : listed->alarm().alarms()) {
      ApiRequest d;
      d.mutable_alarm()->set_action(etcdserverpb::AlarmRequest::DEACTIVATE);
      d.mutable_alarm()->set_memberid(a.memberid());
      d.mutable_alarm()->set_alarm(a.alarm());
      auto done = call(cmd, d, m);
      if (!done) return;
      for (const auto& x : done->alarm().alarms()) *all.add_alarms() = x;
    }
    emit(etcdctl::print_alarm(all, print));
  });
}

// `member add`: the new member is the next node (its peer URL must be http://nK:2380 with K one
// past the last node: where the simulation has a host for it). Once added, the shell starts it, as
// an operator does with the printed ETCD_* settings; it joins and catches up from the leader.
void ShellSession::run_member_add(const etcdctl::MemberAddCommand& c, const etcdctl::Command& cmd,
                                  const etcdctl::PrintOptions& print) {
  world::SimCluster& cluster = world_.cluster();
  // A node made for an add that failed was never started: the next add is for it again.
  const bool reuse = cluster.size() > 0 && !cluster.started(cluster.size() - 1);
  const size_t next = reuse ? cluster.size() - 1 : cluster.size();
  const std::string next_url = node::member_peer_url(next + 1, node::ServerOptions{}.raft_port);
  Result<uint64_t> id = node::member_id_from_peer_url(c.request.peerurls(0));
  // An existing member's URL or a malformed one: the member answers (etcd's errors).
  const bool names_new_node = id.is_ok() && *id > next;
  if (names_new_node && c.request.peerurls(0) != next_url) {
    return emit(etcdctl::print_error("dst shell: the next member's peer URL is " + next_url, etcdctl::kExitBadArgs));
  }
  if (names_new_node && !reuse) {
    Result<size_t> added = cluster.add_node();
    if (!added.is_ok()) return emit(etcdctl::print_error(added.status().message(), etcdctl::kExitBadArgs));
  }
  run_line([&] {
    ApiRequest q;
    *q.mutable_member_add() = c.request;
    if (auto r = call(cmd, q, kv_target())) emit(etcdctl::print_member_add(r->member_add(), c, print));
  });
  // Started once the cluster has it, answered or not (an add whose answer timed out may have been
  // applied): a voter that never starts could cost the cluster its quorum for good.
  if (!names_new_node || cluster.started(next)) return;
  const std::optional<size_t> leader = cluster.leader();
  if (!leader) return;
  const raftpb::ConfState cs = cluster.server(*leader)->raft().conf_state();
  const uint64_t new_id = next + 1;
  const auto names = [&](const auto& ids) { return std::find(ids.begin(), ids.end(), new_id) != ids.end(); };
  if (names(cs.voters()) || names(cs.learners())) cluster.start(next);
}

// `lease keep-alive`: a background stream, or with --once one request.
void ShellSession::run_keep_alive(const etcdctl::LeaseKeepAliveCommand& c, const etcdctl::Command& cmd,
                                  const etcdctl::PrintOptions& print) {
  if (!c.once) return start_keep_alive(c.request.id(), print);
  run_line([&] {
    ApiRequest q;
    *q.mutable_lease_keep_alive() = c.request;
    auto r = call(cmd, q, kv_target());
    if (!r) return;
    // The member answers a keep-alive of an unknown (revoked, expired) lease with TTL 0; clientv3's
    // KeepAliveOnce turns that into ErrLeaseNotFound, which etcdctl prints and exits 2 with.
    if (r->lease_keep_alive().ttl() <= 0) return emit(etcdctl::print_request_error(cmd, lease::kErrLeaseNotFound));
    emit(etcdctl::print_lease_keep_alive(r->lease_keep_alive(), print));
  });
}

// One request per endpoint the command asks (endpoint_targets), the answers printed together.
template <typename Answer, typename Ask, typename Take, typename Print>
void ShellSession::per_endpoint(bool cluster, const etcdctl::Command& cmd, Ask ask, Take take, Print print) {
  run_line([&] {
    std::vector<Answer> answers;
    std::string failure;  // the last endpoint's that failed
    for (const Target& t : endpoint_targets(cluster)) {
      ApiRequest q;
      ask(q);
      if (auto r = call(cmd, q, t, &failure)) answers.push_back(Answer{t.name, take(*r)});
    }
    emit(print(answers));  // even empty, as etcdctl displays the list it has
    if (!failure.empty()) emit(etcdctl::print_endpoints_failed(cmd, failure));
  });
}

void ShellSession::run_endpoint_status(const etcdctl::EndpointStatusCommand& c, const etcdctl::Command& cmd,
                                       const etcdctl::PrintOptions& print) {
  per_endpoint<etcdctl::EndpointStatus>(
      c.cluster, cmd, [](ApiRequest& q) { q.mutable_status(); }, [](const ApiResponse& r) { return r.status(); },
      [&](const std::vector<etcdctl::EndpointStatus>& all) { return etcdctl::print_endpoint_status(all, print); });
}

void ShellSession::run_endpoint_hashkv(const etcdctl::EndpointHashKVCommand& c, const etcdctl::Command& cmd,
                                       const etcdctl::PrintOptions& print) {
  per_endpoint<etcdctl::EndpointHashKV>(
      c.cluster, cmd, [&](ApiRequest& q) { *q.mutable_hash_kv() = c.request; },
      [](const ApiResponse& r) { return r.hash_kv(); },
      [&](const std::vector<etcdctl::EndpointHashKV>& all) { return etcdctl::print_endpoint_hashkv(all, print); });
}

// `endpoint health`: each endpoint's answer to a linearizable get of "health", timed in virtual
// time; a failure is that endpoint's error, not a line of its own.
void ShellSession::run_endpoint_health(const etcdctl::EndpointHealthCommand& c, const etcdctl::Command& cmd,
                                       const etcdctl::PrintOptions& print) {
  run_line([&] {
    std::vector<etcdctl::EndpointHealth> all;
    for (const Target& t : endpoint_targets(c.cluster)) {
      ApiRequest q;
      q.mutable_range()->set_key("health");
      std::string failure;
      const sim::TimeNs start = world_.sim().now();
      const bool ok = call(cmd, q, t, &failure).has_value();
      all.push_back({t.name, ok, etcdctl::go_duration_string(world_.sim().now() - start), failure});
    }
    emit(etcdctl::print_endpoint_health(all, print));
  });
}

void ShellSession::start_watch(const etcdctl::WatchCommand& w, const etcdctl::PrintOptions& print) {
  ++background_;
  sim::Simulator& sim = world_.sim();
  etcdserverpb::WatchCreateRequest create = w.request;
  const size_t first = kv_target().member.value_or(options_.member);
  sim.spawn(background_process_, "shell-watch", [this, &sim, create, print, first]() mutable {
    size_t member = first;
    for (;;) {
      // clientv3 keeps a watch alive across broken connections: it reconnects (to the next
      // member) and resumes from the revision after the last one it delivered.
      auto conn = rpc::Connection::open(sim.current_env(), world_.member_address(member));
      if (conn.is_ok()) {
        const uint64_t call = (*conn)->open_watch();
        etcdserverpb::WatchRequest req;
        *req.mutable_create_request() = create;
        if ((*conn)->send_watch(call, req).is_ok()) {
          for (;;) {
            auto resp = (*conn)->recv_watch(call, sim::kForever);
            if (!resp.is_ok()) break;
            for (const auto& e : resp->events()) create.set_start_revision(e.kv().mod_revision() + 1);
            emit(etcdctl::print_watch_response(*resp, print));
            if (resp->canceled()) {
              emit(etcdctl::print_watch_ended());
              return;
            }
          }
        }
      }
      if (sim.sleep(sim::milliseconds(100)) != sim::WaitResult::kOk) return;
      member = (member + 1) % world_.cluster().size();
    }
  });
}

void ShellSession::start_keep_alive(int64_t id, const etcdctl::PrintOptions& print) {
  ++background_;
  sim::Simulator& sim = world_.sim();
  const size_t member = kv_target().member.value_or(options_.member);
  // etcdctl's stream has no command timeout (context.TODO): each renewal waits the session's.
  const sim::DurationNs timeout = options_.command_timeout;
  sim.spawn(background_process_, "shell-keep-alive", [this, &sim, id, print, member, timeout] {
    etcdctl::Command cmd = etcdctl::LeaseKeepAliveCommand{};
    for (;;) {
      auto conn = rpc::Connection::open(sim.current_env(), world_.member_address(member));
      int64_t ttl = 1;
      if (conn.is_ok()) {
        ApiRequest q;
        q.mutable_lease_keep_alive()->set_id(id);
        auto r = (*conn)->call(q, timeout);
        if (r.is_ok() && r->has_lease_keep_alive()) {
          ttl = r->lease_keep_alive().ttl();
          if (ttl <= kLeaseGone) {
            emit(etcdctl::print_lease_keep_alive_ended(id, print));
            return;
          }
          emit(etcdctl::print_lease_keep_alive(r->lease_keep_alive(), print));
        } else if (r.is_ok() && r->has_error()) {
          emit(etcdctl::print_request_error(cmd, r->error().message()));
          return;
        }
      }
      // clientv3 renews every TTL/3.
      if (sim.sleep(sim::seconds(ttl) / 3 + 1) != sim::WaitResult::kOk) return;
    }
  });
}

}  // namespace dst::shell
