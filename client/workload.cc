#include "client/workload.h"

#include <algorithm>
#include <array>
#include <memory>

#include "client/kv_client.h"
#include "client/watch_client.h"

namespace dst::client {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;

// The range end that makes [prefix, end) every key starting with prefix (prefixes here never end
// in 0xff).
std::string prefix_end(std::string prefix) {
  DST_ASSERT(!prefix.empty() && static_cast<uint8_t>(prefix.back()) != 0xff);
  prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

ApiRequest get(const std::string& key, bool serializable = false) {
  ApiRequest r;
  r.mutable_range()->set_key(key);
  r.mutable_range()->set_serializable(serializable);
  return r;
}

ApiRequest list(const std::string& prefix, int64_t limit = 0, int64_t revision = 0, const std::string& from = "") {
  ApiRequest r;
  r.mutable_range()->set_key(from.empty() ? prefix : from);
  r.mutable_range()->set_range_end(prefix_end(prefix));
  r.mutable_range()->set_limit(limit);
  r.mutable_range()->set_revision(revision);
  return r;
}

ApiRequest put(const std::string& key, const std::string& value, int64_t lease = 0) {
  ApiRequest r;
  r.mutable_put()->set_key(key);
  r.mutable_put()->set_value(value);
  r.mutable_put()->set_lease(lease);
  return r;
}

ApiRequest del(const std::string& key) {
  ApiRequest r;
  r.mutable_delete_range()->set_key(key);
  return r;
}

Compare* compare(etcdserverpb::TxnRequest* t, const std::string& key, Compare::CompareTarget target,
                 Compare::CompareResult result) {
  Compare* c = t->add_compare();
  c->set_key(key);
  c->set_target(target);
  c->set_result(result);
  return c;
}

// A txn guarded by the key's mod_revision (0: the key must not exist), then `then`, else a read
// of the key: the optimistic-concurrency write every Kubernetes object update is.
ApiRequest guarded(const std::string& key, int64_t mod_revision, etcdserverpb::RequestOp then) {
  ApiRequest r;
  auto* t = r.mutable_txn();
  if (mod_revision == 0) {
    compare(t, key, Compare::CREATE, Compare::EQUAL)->set_create_revision(0);
  } else {
    compare(t, key, Compare::MOD, Compare::EQUAL)->set_mod_revision(mod_revision);
  }
  *t->add_success() = std::move(then);
  t->add_failure()->mutable_request_range()->set_key(key);
  return r;
}

etcdserverpb::RequestOp put_op(const std::string& key, const std::string& value) {
  etcdserverpb::RequestOp op;
  op.mutable_request_put()->set_key(key);
  op.mutable_request_put()->set_value(value);
  return op;
}

etcdserverpb::RequestOp delete_op(const std::string& key) {
  etcdserverpb::RequestOp op;
  op.mutable_request_delete_range()->set_key(key);
  return op;
}

// The key's mod_revision in a successful single-key read (0: absent or the read failed).
int64_t mod_revision_of(const history::Operation& op) {
  if (op.outcome != history::Outcome::kOk || op.response.range().kvs_size() == 0) return 0;
  return op.response.range().kvs(0).mod_revision();
}

}  // namespace

Result<Profile> parse_profile(std::string_view name) {
  if (name == "etcd-kv") return Profile::kEtcdKv;
  if (name == "kubernetes") return Profile::kKubernetes;
  if (name == "register") return Profile::kRegister;
  return Status(StatusCode::kInvalidArgument,
                "unknown workload profile '" + std::string(name) + "'; profiles: etcd-kv, kubernetes, register");
}

std::string_view profile_name(Profile p) {
  switch (p) {
    case Profile::kEtcdKv: return "etcd-kv";
    case Profile::kKubernetes: return "kubernetes";
    case Profile::kRegister: return "register";
  }
  return "?";
}

Workload::Workload(sim::Simulator& sim, std::vector<sim::Address> members, WorkloadOptions options,
                   history::Recorder& recorder)
    : sim_(sim), members_(std::move(members)), options_(options), recorder_(recorder) {
  DST_ASSERT(!members_.empty());
  DST_ASSERT_GT(options_.rate, 0.0);
  DST_ASSERT_GE(options_.keys, 1u);
}

void Workload::start(sim::TimeNs until, sim::TimeNs watchers_until) {
  DST_ASSERT_GE(watchers_until, until);
  uint32_t next_id = 1;
  auto spawn = [&](const std::string& name, auto body, sim::TimeNs until) {
    sim::HostId host = sim_.add_host(name);
    hosts_.push_back(host);
    sim::ProcessId p = sim_.start_process(host, name);
    const uint32_t id = next_id++;
    sim_.spawn(p, name, [this, body, id, until] { (this->*body)(id, until); });
  };
  for (size_t i = 0; i < options_.clients; ++i) spawn("client" + std::to_string(i + 1), &Workload::run_client, until);
  for (size_t i = 0; i < options_.watchers; ++i)
    spawn("watcher" + std::to_string(i + 1), &Workload::run_watcher, watchers_until);
  if (options_.compaction_every > 0) spawn("compactor", &Workload::run_compactor, until);
}

namespace {

// One client's state between its operations, and how it sends one (counted in the stats).
template <typename Run>
struct ClientTurn {
  const WorkloadOptions& options;
  sim::Rng& rng;
  uint32_t id;
  Run& run;
  std::vector<int64_t> leases;  // granted by this client and not revoked by it
  std::string last_read;        // register: the value the last read saw
};

// etcd-kv: gets, lists, puts, deletes, leases, txns and compare-and-set on mod_revision.
template <typename Run>
void etcd_kv_turn(ClientTurn<Run>& c, const std::string& value) {
  const std::string key = "key/" + std::to_string(c.rng.uniform_u64(c.options.keys));
  const std::string other = "key/" + std::to_string(c.rng.uniform_u64(c.options.keys));
  static constexpr std::array<uint64_t, 10> kWeights = {25, 5, 5, 25, 8, 6, 3, 2, 10, 11};
  switch (c.rng.weighted_index(kWeights)) {
    case 0: c.run(get(key)); break;
    case 1: c.run(get(key, true)); break;
    case 2: c.run(list("key/")); break;
    case 3: c.run(put(key, value)); break;
    case 4: c.run(del(key)); break;
    case 5:
      if (!c.leases.empty()) {
        c.run(put(key, value, c.leases[c.rng.uniform_u64(c.leases.size())]));
        break;
      }
      [[fallthrough]];
    case 6: {
      ApiRequest g;
      g.mutable_lease_grant()->set_ttl(static_cast<int64_t>(10 + c.rng.uniform_u64(20)));
      history::Operation op = c.run(g);
      if (op.outcome == history::Outcome::kOk && c.leases.size() < 8) c.leases.push_back(op.response.lease_grant().id());
      break;
    }
    case 7: {
      if (c.leases.empty()) break;
      ApiRequest r;
      r.mutable_lease_revoke()->set_id(c.leases.back());
      c.leases.pop_back();
      c.run(r);
      break;
    }
    case 8: {
      ApiRequest r;
      auto* t = r.mutable_txn();
      compare(t, key, Compare::VERSION, Compare::GREATER)->set_version(0);
      *t->add_success() = put_op(key, value);
      if (other != key) *t->add_success() = delete_op(other);
      *t->add_failure() = put_op(other == key ? key : other, value);
      c.run(r);
      break;
    }
    default: {
      // Compare-and-set on mod_revision: read, then write only if nobody wrote meanwhile.
      history::Operation read = c.run(get(key));
      if (read.outcome != history::Outcome::kOk) break;
      c.run(guarded(key, mod_revision_of(read), put_op(key, value)));
      break;
    }
  }
}

// kubernetes: paginated lists at one revision, creates and guarded updates and deletes.
template <typename Run>
void kubernetes_turn(ClientTurn<Run>& c, const std::string& value) {
  const std::string prefix = "/registry/pods/";
  const std::string key = prefix + "pod-" + std::to_string(c.rng.uniform_u64(c.options.keys));
  static constexpr std::array<uint64_t, 4> kWeights = {20, 25, 40, 15};
  switch (c.rng.weighted_index(kWeights)) {
    case 0: {
      // A paginated list at one revision, as the apiserver pages with continue tokens.
      history::Operation page = c.run(list(prefix, 5));
      int64_t rev = page.outcome == history::Outcome::kOk ? page.response.range().header().revision() : 0;
      for (int pages = 0; pages < 100 && page.outcome == history::Outcome::kOk && page.response.range().more();
           ++pages) {
        const auto& kvs = page.response.range().kvs();
        page = c.run(list(prefix, 5, rev, kvs[kvs.size() - 1].key() + std::string(1, '\0')));
      }
      break;
    }
    case 1: c.run(guarded(key, 0, put_op(key, value))); break;
    default: {
      history::Operation read = c.run(get(key));
      const int64_t mod = mod_revision_of(read);
      if (mod == 0) break;
      c.run(guarded(key, mod, c.rng.bernoulli(0.75) ? put_op(key, value) : delete_op(key)));
      break;
    }
  }
}

// register: reads, writes and compare-and-swaps of one key per client.
template <typename Run>
void register_turn(ClientTurn<Run>& c, const std::string& value) {
  const std::string key = "r/" + std::to_string(c.id % c.options.keys);
  static constexpr std::array<uint64_t, 3> kWeights = {50, 25, 25};
  switch (c.rng.weighted_index(kWeights)) {
    case 0: {
      history::Operation read = c.run(get(key));
      if (read.outcome == history::Outcome::kOk)
        c.last_read = read.response.range().kvs_size() ? read.response.range().kvs(0).value() : "";
      break;
    }
    case 1: c.run(put(key, value)); break;
    default: {
      ApiRequest r;
      auto* t = r.mutable_txn();
      compare(t, key, Compare::VALUE, Compare::EQUAL)->set_value(c.last_read);
      *t->add_success() = put_op(key, value);
      c.run(r);
      break;
    }
  }
}

}  // namespace

void Workload::run_client(uint32_t id, sim::TimeNs until) {
  sim::Rng& rng = sim_.rng("workload/client" + std::to_string(id));
  KvClientOptions ko;
  ko.id = id;
  ko.members = members_;
  ko.pinned = options_.mix_pinned && id % 2 == 0;
  ko.pinned_member = id % members_.size();
  ko.timeout = options_.request_timeout;
  KvClient kv(sim_, ko, recorder_);
  uint64_t seq = 0;
  auto run = [&](ApiRequest r) {
    history::Operation op = kv.execute(std::move(r));
    ++stats_.operations;
    if (op.outcome == history::Outcome::kOk) ++stats_.ok;
    else if (op.outcome == history::Outcome::kFailed) ++stats_.failed;
    else ++stats_.unknown;
    return op;
  };
  ClientTurn<decltype(run)> turn{options_, rng, id, run, {}, {}};
  const double mean_gap_ns = 1e9 / options_.rate;
  while (sim_.now() < until) {
    if (sim_.sleep(static_cast<sim::DurationNs>(rng.exponential(mean_gap_ns))) != sim::WaitResult::kOk) return;
    if (sim_.now() >= until) return;
    const std::string value = "c" + std::to_string(id) + "." + std::to_string(seq++);
    switch (options_.profile) {
      case Profile::kEtcdKv: etcd_kv_turn(turn, value); break;
      case Profile::kKubernetes: kubernetes_turn(turn, value); break;
      case Profile::kRegister: register_turn(turn, value); break;
    }
  }
}

void Workload::run_watcher(uint32_t id, sim::TimeNs until) {
  sim::Rng& rng = sim_.rng("workload/watcher" + std::to_string(id));
  WatchClientOptions wo;
  wo.id = id;
  wo.members = members_;
  wo.member = id % members_.size();
  wo.pinned = false;
  // Half the watchers ask for progress every 700 ms, the way a watch cache does.
  wo.progress_every = rng.bernoulli(0.5) ? sim::milliseconds(700) : 0;
  std::string prefix;
  switch (options_.profile) {
    case Profile::kEtcdKv: prefix = "key/"; break;
    case Profile::kKubernetes: prefix = "/registry/pods/"; break;
    case Profile::kRegister: prefix = "r/"; break;
  }
  // Restarted after a cancellation by compaction (from the current revision or the compact
  // revision then), until the end.
  int64_t compact_revision = 0;
  for (int restarts = 0; restarts < 1000 && sim_.now() < until; ++restarts) {
    auto& c = wo.request;
    c.Clear();
    c.set_key(prefix);
    c.set_range_end(prefix_end(prefix));
    c.set_prev_kv(rng.bernoulli(0.5));
    c.set_progress_notify(rng.bernoulli(0.5));
    if (options_.profile == Profile::kKubernetes) {
      // An informer: list, then watch from the list's revision + 1.
      KvClientOptions ko;
      ko.id = id;
      ko.members = members_;
      ko.pinned_member = wo.member;
      ko.timeout = options_.request_timeout;
      KvClient kv(sim_, ko, recorder_);
      history::Operation l = kv.execute(list(prefix));
      if (l.outcome != history::Outcome::kOk) {
        if (sim_.sleep(sim::milliseconds(200)) != sim::WaitResult::kOk) return;
        continue;
      }
      c.set_start_revision(l.response.range().header().revision() + 1);
    } else if (restarts == 0 && rng.bernoulli(0.5)) {
      c.set_start_revision(1);  // replay everything from the start
    } else if (restarts > 0 && compact_revision > 0 && rng.bernoulli(0.5)) {
      // After a cancellation by compaction, as many clients do: rewatch from the compact
      // revision the cancel named, the oldest still served (the rest restart from now).
      c.set_start_revision(compact_revision);
    }
    WatchClientResult r = run_watch(sim_, wo, recorder_, until);
    stats_.watch_events += r.events;
    stats_.watch_segments += r.segments;
    if (!r.canceled) return;
    ++stats_.watches_canceled;
    compact_revision = r.compact_revision;
  }
}

void Workload::run_compactor(uint32_t id, sim::TimeNs until) {
  KvClientOptions ko;
  ko.id = id;
  ko.members = members_;
  ko.timeout = options_.request_timeout;
  KvClient kv(sim_, ko, recorder_);
  bool physical = false;
  while (sim_.now() < until) {
    if (sim_.sleep(options_.compaction_every) != sim::WaitResult::kOk) return;
    if (sim_.now() >= until) return;
    history::Operation r = kv.execute(get("compactor/probe"));
    if (r.outcome != history::Outcome::kOk) continue;
    // Keep a little history so that watchers slightly behind are not all canceled.
    const int64_t rev = r.response.range().header().revision() - 20;
    if (rev <= 1) continue;
    ApiRequest c;
    c.mutable_compaction()->set_revision(rev);
    c.mutable_compaction()->set_physical(physical);
    physical = !physical;
    kv.execute(c);
  }
}

}  // namespace dst::client
