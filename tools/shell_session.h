// `dst shell`: etcdctl-style lines in, etcdctl's output out, against a simulated cluster.
//
// Each line is parsed as etcdctl 3.4 would (client/etcdctl), sent as a client request to one
// member of a KvWorld, and answered with exactly what etcdctl prints (`-w json` or simple). The
// whole session is a function of the seed and the input: virtual time advances only while a
// request is in flight and on `sleep DURATION`.
//
// `watch` and `lease keep-alive` (without --once) run in the background, as if etcdctl ran in
// another terminal: their output appears, in virtual-time order, between the outputs of later
// lines. When the input ends, the session lets `drain` of virtual time pass so that watches print
// what was already in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "client/etcdctl/etcdctl_print.h"
#include "client/etcdctl/etcdctl_txn.h"
#include "tools/shell_files.h"
#include "world/kv_world.h"

namespace dst::shell {

struct ShellOptions {
  size_t member = 0;  // the member (0-based) requests go to, like etcdctl --endpoints=ONE
  // etcdctl's --command-timeout default: a request unanswered after it prints
  // "Error: context deadline exceeded".
  sim::DurationNs command_timeout = sim::seconds(5);
  sim::DurationNs drain = sim::seconds(1);
  // Where snapshot save/status keep files (the machine's for `dst shell`); null: they fail with
  // an error saying so. Must outlive the session.
  ShellFiles* files = nullptr;
};

class ShellSession {
 public:
  using Sink = std::function<void(const etcdctl::Output&)>;
  ShellSession(world::KvWorld& world, ShellOptions options, Sink sink);
  ~ShellSession();

  // One input line (without its newline).
  void feed(const std::string& line);
  // End of input: reports an unfinished txn ("Error: EOF") and drains the background watches.
  void finish();
  // Name of member i as the shell prints it ("http://n1:2379").
  std::string endpoint(size_t i) const;
  // Inside a txn's body (being read, or a malformed one being skipped): the next line fed is not
  // a command of its own.
  bool in_txn_body() const { return txn_.has_value() || skip_txn_blank_lines_ > 0; }

 private:
  // An endpoint a command asks: its name as printed, and the member it names (none: an address
  // no member has, which never answers).
  struct Target {
    std::string name;
    std::optional<size_t> member;
  };
  // The member an endpoint names: "http://n2:2379", "n2:2379" (https too); none otherwise.
  std::optional<size_t> member_of(const std::string& endpoint) const;
  // The endpoint a KV, lease or maintenance command uses: the line's first --endpoints whose member
  // is up (clientv3's balancer skips the unreachable ones), else its first; the session's member
  // without --endpoints.
  Target kv_target() const;
  // The endpoints an endpoint command asks: every member with --cluster, else the line's
  // --endpoints in order (repeats included, as etcdctl asks them), else the session's member.
  std::vector<Target> endpoint_targets(bool cluster) const;
  sim::DurationNs command_timeout() const;
  // Runs one line's client code (KvWorld::run_client) with a bound no line reaches.
  void run_line(std::function<void()> body);
  void run(const etcdctl::Invocation& inv);
  void run_admin(const etcdctl::Invocation& inv);
  template <typename Fill, typename Show>
  void unary_call(const etcdctl::Command& cmd, Fill fill, Show show);
  void printing(const etcdctl::PrintOptions& print, const etcdctl::Command& cmd, const std::function<void()>& body);
  void run_txn(const etcdserverpb::TxnRequest& txn, const etcdctl::PrintOptions& print);
  void run_alarm(const etcdctl::AlarmCommand& c, const etcdctl::Command& cmd, const etcdctl::PrintOptions& print);
  void run_endpoint_status(const etcdctl::EndpointStatusCommand& c, const etcdctl::Command& cmd,
                           const etcdctl::PrintOptions& print);
  void run_endpoint_health(const etcdctl::EndpointHealthCommand& c, const etcdctl::Command& cmd,
                           const etcdctl::PrintOptions& print);
  void run_endpoint_hashkv(const etcdctl::EndpointHashKVCommand& c, const etcdctl::Command& cmd,
                           const etcdctl::PrintOptions& print);
  void run_move_leader(const etcdctl::MoveLeaderCommand& c, const etcdctl::Command& cmd,
                       const etcdctl::PrintOptions& print);
  void run_member_add(const etcdctl::MemberAddCommand& c, const etcdctl::Command& cmd,
                      const etcdctl::PrintOptions& print);
  // snapshot save / status (shell_snapshot.cc).
  void run_snapshot_save(const etcdctl::SnapshotSaveCommand& c, const etcdctl::Command& cmd);
  void run_snapshot_status(const etcdctl::SnapshotStatusCommand& c, const etcdctl::PrintOptions& print);
  void run_keep_alive(const etcdctl::LeaseKeepAliveCommand& c, const etcdctl::Command& cmd,
                      const etcdctl::PrintOptions& print);
  template <typename Answer, typename Ask, typename Take, typename Print>
  void per_endpoint(bool cluster, const etcdctl::Command& cmd, Ask ask, Take take, Print print);
  void start_watch(const etcdctl::WatchCommand& w, const etcdctl::PrintOptions& print);
  void start_keep_alive(int64_t id, const etcdctl::PrintOptions& print);
  // One unary call to `target` inside a client fiber; the response or the error line.
  // `failure`, when given, receives the message of a failed request (which is printed either way).
  std::optional<etcdserverpb::ApiResponse> call(const etcdctl::Command& cmd, etcdserverpb::ApiRequest req,
                                                const Target& target, std::string* failure = nullptr);
  void emit(etcdctl::Output o) { sink_(o); }

  world::KvWorld& world_;
  ShellOptions options_;
  Sink sink_;
  std::optional<etcdctl::TxnParser> txn_;  // while reading a txn's lines
  int skip_txn_blank_lines_ = 0;            // while skipping the rest of a malformed txn's body
  etcdctl::PrintOptions txn_print_;
  etcdctl::ClientOptions client_;  // the client flags of the last command line (a txn's for its body)
  // Background watches and keep-alives run in their own client process, killed with the session.
  sim::ProcessId background_process_ = sim::kNoProcess;
  size_t background_ = 0;  // watch / keep-alive fibers started
};

}  // namespace dst::shell
