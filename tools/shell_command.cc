#include "tools/shell_command.h"

#include <cstdio>
#include <iostream>

#include "client/etcdctl/etcd_server_flags.h"
#include "sim/trace.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/shell_session.h"

namespace dst {
namespace {

// A value as a POSIX shell reads it back: bare when it is plain, else in single quotes.
std::string shell_quote(const std::string& v) {
  const bool plain = !v.empty() && v.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:+/") == std::string::npos;
  if (plain) return v;
  std::string out = "'";
  for (char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// etcd's server flags the shell's members take (client/etcdctl/etcd_server_flags.h), with their help.
constexpr std::pair<const char*, const char*> kServerFlags[] = {
    {"quota-backend-bytes", "backend size at which NOSPACE is raised (etcd's; 0: 2 GiB, negative: none)"},
    {"max-txn-ops", "operations (and compares) a txn may have (etcd's default 128)"},
    {"max-request-bytes", "largest request a member accepts (etcd's default 1572864)"},
    {"snapshot-count", "applied entries between snapshots (dst's default 1000; 0: etcd's 100000)"},
    {"auto-compaction-mode", "periodic or revision (etcd's default periodic)"},
    {"auto-compaction-retention", "0 (off, the default), hours or revisions, or a duration such as 30m"}};

// Sets the given server flags on every member's options; returns them as the reproduce command
// repeats them (" --max-txn-ops 2 ...").
Result<std::string> apply_server_flags(const cli::Args& args, node::ServerOptions& server) {
  etcdctl::EtcdServerFlags given;
  std::string text;
  for (const auto& [name, help] : kServerFlags) {
    if (std::optional<std::string> v = args.value(name)) {
      given.given.emplace_back(name, *v);
      text += std::string(" --") + name + " " + shell_quote(*v);
    }
  }
  Status st = etcdctl::apply_etcd_server_flags(given, server);
  if (!st.is_ok()) return st;
  return text;
}

// Feeds stdin's lines to a session on `world`; the trace hash last. Returns what the shell exits with.
int run_session(world::KvWorld& world, size_t member, bool exit_as_etcdctl) {
  shell::ShellOptions so;
  so.member = member;
  const std::unique_ptr<shell::ShellFiles> files = shell::local_files();  // snapshot save / status
  so.files = files.get();
  int last_exit = 0;  // of what the last line fed printed
  shell::ShellSession session(world, so, [&last_exit](const etcdctl::Output& o) {
    std::fputs(o.out.c_str(), stdout);
    std::fputs(o.err.c_str(), stderr);
    std::fflush(stdout);
    std::fflush(stderr);
    if (o.exit_code != 0) last_exit = o.exit_code;
  });
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!session.in_txn_body()) last_exit = 0;  // a new command line
    session.feed(line);
  }
  session.finish();
  std::fprintf(stderr, "# trace hash %s\n", sim::format_trace_hash(world.sim().trace().hash()).c_str());
  return exit_as_etcdctl ? last_exit : kExitPass;
}

}  // namespace

int shell_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst shell", argv);
  args.option("seed", "N", "the seed of the simulated cluster (default 1)");
  args.option("nodes", "N", "members in the cluster (default 3)");
  args.option("member", "N", "the member (1-based) requests go to, like etcdctl --endpoints (default 1)");
  for (const auto& [name, help] : kServerFlags) args.option(name, "V", std::string("etcd server flag: ") + help);
  args.flag("last-exit", "exit with the exit code etcdctl would have given the last command (for scripts that "
                         "compare with a real etcdctl, ci/compare-etcd.sh) instead of 0");
  if (std::optional<int> done = args.parse_or_exit(
          "\nReads etcdctl 3.4 command lines on stdin (put, get, del, txn, compaction, watch, lease ..., defrag,\n"
          "alarm list|disarm, endpoint status|hashkv|health, member list|add|remove|promote, move-leader,\n"
          "snapshot save|status FILE\n"
          "(files in the working directory), version, and `sleep DURATION` to let virtual time\n"
          "pass) and prints what etcdctl prints. Same seed and input, same output.\n")) {
    return *done;
  }
  Result<uint64_t> seed = args.u64("seed", 1);
  Result<uint64_t> nodes = args.u64("nodes", 3);
  Result<uint64_t> member = args.u64("member", 1);
  for (const Status* st : {&seed.status(), &nodes.status(), &member.status()}) {
    if (!st->is_ok()) {
      std::fprintf(stderr, "%s\n", st->message().c_str());
      return kExitUsage;
    }
  }
  if (*nodes < 1 || *nodes > 7) {
    std::fprintf(stderr, "dst shell: --nodes must be between 1 and 7, got %llu\n", static_cast<unsigned long long>(*nodes));
    return kExitUsage;
  }
  if (*member < 1 || *member > *nodes) {
    std::fprintf(stderr, "dst shell: --member must be between 1 and %llu, got %llu\n",
                 static_cast<unsigned long long>(*nodes), static_cast<unsigned long long>(*member));
    return kExitUsage;
  }
  world::KvWorldOptions wo;
  wo.seed = *seed;
  wo.nodes = *nodes;
  Result<std::string> given_text = apply_server_flags(args, wo.server);  // for the reproduce command
  if (!given_text.is_ok()) {
    std::fprintf(stderr, "dst shell: %s\n", given_text.status().message().c_str());
    return kExitUsage;
  }
  // Seed and reproduce command first, trace hash last; on stderr, so stdout is exactly etcdctl's.
  std::fprintf(stderr, "# seed %llu   reproduce: %s shell --seed %llu --nodes %llu --member %llu%s < INPUT\n",
               static_cast<unsigned long long>(*seed), self.c_str(), static_cast<unsigned long long>(*seed),
               static_cast<unsigned long long>(*nodes), static_cast<unsigned long long>(*member), given_text->c_str());
  world::KvWorld world(wo);
  if (!world.await_stable_leader()) {
    std::fprintf(stderr, "dst shell: the simulated cluster elected no leader within 30 s of virtual time\n");
    return kExitViolation;
  }
  return run_session(world, *member - 1, args.has("last-exit"));
}

}  // namespace dst
