#include "client/workload.h"

#include <algorithm>
#include <array>
#include <memory>

#include "client/kv_client.h"
#include "client/kv_requests.h"
#include "client/watch_client.h"
#include "client/watch_fanout.h"

namespace dst::client {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;

namespace {
// clientv3's retry backoff (25 ms between attempts), doubled per failure as gRPC's reconnect
// backoff grows, up to 500 ms: a client whose members are down waits instead of spinning, and
// still tries again soon enough to use a member that came back.
constexpr sim::DurationNs kClientBackoffBase = sim::milliseconds(25);
constexpr sim::DurationNs kClientBackoffMax = sim::milliseconds(500);
// A client's keep-alive stream records under its own client id, this far above the client's
// (below the scenario's own clients at 1,000,000).
constexpr uint32_t kKeepAliveClientIdBase = 500'000;
}  // namespace

namespace {
// What a profile's watchers watch: every key its clients write.
std::string watch_prefix(Profile p) {
  switch (p) {
    case Profile::kEtcdKv: return "key/";
    case Profile::kKubernetes: return "/registry/pods/";
    case Profile::kRegister: return "r/";
  }
  return "r/";
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
    : sim_(sim), members_(std::move(members)), options_(options), recorder_(recorder), controls_(options.watchers),
      client_stalls_(options.clients, 0) {
  DST_ASSERT(!members_.empty());
  DST_ASSERT_GT(options_.rate, 0.0);
  DST_ASSERT_GE(options_.keys, 1u);
}

void Workload::start(sim::TimeNs until, sim::TimeNs watchers_until) {
  DST_ASSERT_GE(watchers_until, until);
  clients_until_ = until;
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
  first_fanout_id_ = next_id;
  for (size_t i = 0; i < options_.fanout_streams; ++i)
    spawn("fanout" + std::to_string(i + 1), &Workload::run_fanout_stream, watchers_until);
}

namespace {

// kubernetes: paginated lists at one revision, creates and guarded updates and deletes.
void kubernetes_turn(size_t keys, sim::Rng& rng, const RunRequest& run, const std::string& value) {
  const std::string prefix = "/registry/pods/";
  const std::string key = prefix + "pod-" + std::to_string(rng.uniform_u64(keys));
  static constexpr std::array<uint64_t, 4> kWeights = {20, 25, 40, 15};
  switch (rng.weighted_index(kWeights)) {
    case 0: {
      // A paginated list at one revision, as the apiserver pages with continue tokens.
      history::Operation page = run(list(prefix, 5));
      int64_t rev = page.outcome == history::Outcome::kOk ? page.response.range().header().revision() : 0;
      for (int pages = 0; pages < 100 && page.outcome == history::Outcome::kOk && page.response.range().more();
           ++pages) {
        const auto& kvs = page.response.range().kvs();
        page = run(list(prefix, 5, rev, kvs[kvs.size() - 1].key() + std::string(1, '\0')));
      }
      break;
    }
    case 1: run(guarded(key, 0, put_op(key, value))); break;
    default: {
      history::Operation read = run(get(key));
      const int64_t mod = mod_revision_of(read);
      if (mod == 0) break;
      run(guarded(key, mod, rng.bernoulli(0.75) ? put_op(key, value) : delete_op(key)));
      break;
    }
  }
}

// register: reads, writes and compare-and-swaps of one key per client.
void register_turn(const std::string& key, sim::Rng& rng, const RunRequest& run, ClientState& s, const std::string& value) {
  static constexpr std::array<uint64_t, 3> kWeights = {50, 25, 25};
  switch (rng.weighted_index(kWeights)) {
    case 0: {
      history::Operation read = run(get(key));
      if (read.outcome == history::Outcome::kOk)
        s.last_read = read.response.range().kvs_size() ? read.response.range().kvs(0).value() : "";
      break;
    }
    case 1: run(put(key, value)); break;
    default: {
      ApiRequest r;
      auto* t = r.mutable_txn();
      compare(t, key, Compare::VALUE, Compare::EQUAL)->set_value(s.last_read);
      *t->add_success() = put_op(key, value);
      run(r);
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
  // clientv3's ways of picking members, drawn per client: pinned to one, failing over, round robin.
  const double u = rng.uniform_real();
  ko.balance = options_.mix_pinned && u < 0.3 ? Balance::kPinned : u < 0.65 ? Balance::kFailover : Balance::kRoundRobin;
  ko.pinned_member = id % members_.size();
  ko.timeout = options_.request_timeout;
  ko.backoff_base = kClientBackoffBase;
  ko.backoff_max = kClientBackoffMax;
  ko.stalled_until = &client_stalls_[id - 1];
  KvClient kv(sim_, ko, recorder_);
  // Shared with the client's keep-alive stream (a fiber of the same process), which may outlive
  // this call by one renewal.
  auto shared = std::make_shared<ClientState>();
  ClientState& state = *shared;
  const RunRequest run = [&](ApiRequest r) {
    history::Operation op = kv.execute(std::move(r));
    count(op);
    if (op.outcome == history::Outcome::kOk)
      state.last_revision = std::max(state.last_revision, history::response_revision(op.response));
    return op;
  };
  if (options_.profile == Profile::kEtcdKv && options_.kv_mix.keep_alive_stream > 0 &&
      rng.bernoulli(options_.kv_mix.keep_alive_stream)) {
    sim_.spawn(sim_.current_process(), "keep-alive", [this, id, shared, until, member = ko.pinned_member] {
      run_keep_alives(id, shared, member, until);
    });
  }
  uint64_t seq = 0;
  const double mean_gap_ns = 1e9 / options_.rate;
  while (sim_.now() < until) {
    if (sim_.sleep(static_cast<sim::DurationNs>(rng.exponential(mean_gap_ns))) != sim::WaitResult::kOk) return;
    if (sim_.now() >= until) return;
    std::string value = "c" + std::to_string(id) + "." + std::to_string(seq++);
    if (value.size() < options_.value_bytes) value.resize(options_.value_bytes, '_');  // still unique: its name leads
    switch (options_.profile) {
      case Profile::kEtcdKv: etcd_kv_turn(options_.kv_mix, options_.keys, rng, run, state, value); break;
      case Profile::kKubernetes: kubernetes_turn(options_.keys, rng, run, value); break;
      case Profile::kRegister: register_turn("r/" + std::to_string(id % options_.keys), rng, run, state, value); break;
    }
  }
}

void Workload::count(const history::Operation& op) {
  ++stats_.operations;
  if (op.outcome == history::Outcome::kOk) ++stats_.ok;
  else if (op.outcome == history::Outcome::kFailed) ++stats_.failed;
  else ++stats_.unknown;
}

// clientv3's KeepAlive: one stream on one member (failing over when it breaks) renews every lease
// the client holds each third of the shortest TTL it may grant (lease_ttl_min, at least 100 ms);
// a lease the cluster answers with TTL 0 (expired, revoked) is dropped, as clientv3 ends its
// keep-alive channel. It records under a client id of its own: a history client has one request
// in flight at a time.
void Workload::run_keep_alives(uint32_t id, std::shared_ptr<ClientState> state, size_t member, sim::TimeNs until) {
  KvClientOptions ko;
  ko.id = kKeepAliveClientIdBase + id;
  ko.members = members_;
  ko.balance = Balance::kFailover;
  ko.pinned_member = member;
  ko.timeout = options_.request_timeout;
  ko.backoff_base = kClientBackoffBase;
  ko.backoff_max = kClientBackoffMax;
  ko.stalled_until = &client_stalls_[id - 1];  // one application: its keep-alives stall with it
  KvClient kv(sim_, ko, recorder_);
  const sim::DurationNs period =
      std::max<sim::DurationNs>(sim::milliseconds(100), sim::seconds(options_.kv_mix.lease_ttl_min) / 3);
  while (sim_.now() < until) {
    if (sim_.sleep(period) != sim::WaitResult::kOk || sim_.now() >= until) return;
    const std::vector<int64_t> leases = state->leases;  // the client's turns change it meanwhile
    for (int64_t lease : leases) {
      if (sim_.now() >= until) return;
      ApiRequest r;
      r.mutable_lease_keep_alive()->set_id(lease);
      const history::Operation op = kv.execute(std::move(r));
      count(op);
      // etcd answers a keep-alive of an expired or revoked lease with TTL 0 (clientv3 then ends
      // that lease's channel); a failed or lost keep-alive says nothing about the lease.
      if (op.outcome == history::Outcome::kOk && op.response.lease_keep_alive().ttl() <= 0)
        std::erase(state->leases, lease);
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
  const WatchMix& mix = options_.watch_mix;
  // Some watchers ask for progress every 700 ms, the way a watch cache does; some read slowly.
  wo.progress_every = rng.bernoulli(mix.progress_requests) ? sim::milliseconds(700) : 0;
  if (rng.bernoulli(mix.slow_reader)) wo.read_delay = 1 + static_cast<sim::DurationNs>(rng.uniform_u64(mix.slow_read_delay_max));
  const std::string prefix = watch_prefix(options_.profile);
  DST_ASSERT(id > options_.clients && id - options_.clients <= controls_.size());
  wo.control = &controls_[id - options_.clients - 1];
  // Restarted after a cancellation by compaction, or after a rewind (the same watch from an older
  // revision), until the end.
  int64_t compact_revision = 0;
  std::optional<int64_t> rewind_to;
  for (int restarts = 0; restarts < 1000 && sim_.now() < until; ++restarts) {
    if (rewind_to) {
      wo.request.set_start_revision(*rewind_to);
      rewind_to.reset();
      WatchClientResult r = run_watch(sim_, wo, recorder_, until);
      if (!account_watch(r, compact_revision, rewind_to)) return;
      continue;
    }
    wo.request = draw_watch(mix, prefix, options_.keys, rng);
    const WatchStart start = draw_start(mix, compact_revision, rng);
    // An informer (kubernetes) lists first; a watcher starting near "now" reads the revision.
    if (options_.profile == Profile::kKubernetes || start == WatchStart::kNear) {
      std::optional<int64_t> revision = read_revision(id, wo.member, prefix);
      if (!revision) {
        if (sim_.sleep(sim::milliseconds(200)) != sim::WaitResult::kOk) return;
        continue;
      }
      wo.request.set_start_revision(options_.profile == Profile::kKubernetes ? *revision + 1
                                                                             : near_revision(*revision, rng));
    } else if (start == WatchStart::kBeginning) {
      wo.request.set_start_revision(1);  // replay everything from the start
    } else if (start == WatchStart::kAtCompaction || start == WatchStart::kBelowCompaction) {
      // As many clients do after a cancel: rewatch from the compact revision it named, the
      // oldest still served; or one below it, still compacted: canceled again.
      wo.request.set_start_revision(std::max<int64_t>(1, compact_revision - (start == WatchStart::kBelowCompaction)));
    }
    WatchClientResult r = run_watch(sim_, wo, recorder_, until);
    if (!account_watch(r, compact_revision, rewind_to)) return;
  }
}

bool Workload::account_watch(const WatchClientResult& r, int64_t& compact_revision, std::optional<int64_t>& rewind_to) {
  stats_.watch_events += r.events;
  stats_.watch_segments += r.segments;
  if (r.rewound) {
    ++stats_.watches_rewound;
    rewind_to = r.rewind_to;
    return true;
  }
  if (!r.canceled) return false;
  ++stats_.watches_canceled;
  compact_revision = r.compact_revision;
  return true;
}

void Workload::run_fanout_stream(uint32_t id, sim::TimeNs until) {
  const size_t stream = id - first_fanout_id_;
  DST_ASSERT_LT(stream, options_.fanout_streams);
  sim::Rng& rng = sim_.rng("workload/fanout" + std::to_string(stream + 1));
  WatchFanoutOptions fo;
  fo.id = id;
  fo.members = members_;
  fo.member = stream % members_.size();
  // The stream's share: the watches are dealt out in turn, so the shares differ by one at most.
  const size_t share = options_.fanout_watches / options_.fanout_streams +
                       (stream < options_.fanout_watches % options_.fanout_streams ? 1 : 0);
  const std::string prefix = watch_prefix(options_.profile);
  const std::string stem = options_.profile == Profile::kKubernetes ? prefix + "pod-" : prefix;
  fo.watches.reserve(share);
  for (size_t i = 0; i < share; ++i) fo.watches.push_back(draw_fanout_watch(options_.watch_mix, prefix, stem, options_.keys, rng));
  // Asked for progress as a watch cache asks, but for the whole stream at once.
  fo.progress_every = rng.bernoulli(options_.watch_mix.progress_requests) ? sim::seconds(1) : 0;
  const WatchFanoutStats s = run_watch_fanout(sim_, fo, recorder_, until);
  stats_.watch_events += s.events;
  stats_.watch_segments += s.segments;
  stats_.watches_canceled += s.canceled;
  stats_.fanout_watches += s.watches;
  stats_.fanout_streams_opened += s.streams;
  stats_.fanout_stray_responses += s.stray_responses;
}

void Workload::stall_watcher(size_t n, sim::TimeNs until) {
  DST_ASSERT(n >= 1 && n <= controls_.size());
  controls_[n - 1].stalled_until = std::max(controls_[n - 1].stalled_until, until);
}

void Workload::stall_client(size_t n, sim::TimeNs until) {
  DST_ASSERT(n >= 1 && n <= client_stalls_.size());
  client_stalls_[n - 1] = std::max(client_stalls_[n - 1], std::min(until, clients_until_));
}

void Workload::rewind_watcher(size_t n, int64_t revisions) {
  DST_ASSERT(n >= 1 && n <= controls_.size());
  DST_ASSERT_GT(revisions, 0);
  controls_[n - 1].rewind_by = revisions;
}

std::optional<int64_t> Workload::read_revision(uint32_t id, size_t member, const std::string& prefix) {
  KvClientOptions ko;
  ko.id = id;
  ko.members = members_;
  ko.pinned_member = member;
  ko.timeout = options_.request_timeout;
  KvClient kv(sim_, ko, recorder_);
  history::Operation l = kv.execute(list(prefix));
  if (l.outcome != history::Outcome::kOk) return std::nullopt;
  return l.response.range().header().revision();
}

void Workload::run_compactor(uint32_t id, sim::TimeNs until) {
  KvClientOptions ko;
  ko.id = id;
  ko.members = members_;
  ko.timeout = options_.request_timeout;
  ko.backoff_base = kClientBackoffBase;
  ko.backoff_max = kClientBackoffMax;
  KvClient kv(sim_, ko, recorder_);
  bool physical = false;
  while (sim_.now() < until) {
    if (sim_.sleep(options_.compaction_every) != sim::WaitResult::kOk) return;
    if (sim_.now() >= until) return;
    history::Operation r = kv.execute(get("compactor/probe"));
    if (r.outcome != history::Outcome::kOk) continue;
    // Keep a little history (by default) so that watchers slightly behind are not all canceled.
    const int64_t rev = r.response.range().header().revision() - options_.compaction_keep;
    if (rev <= 1) continue;
    ApiRequest c;
    c.mutable_compaction()->set_revision(rev);
    c.mutable_compaction()->set_physical(physical);
    physical = !physical;
    kv.execute(c);
  }
}

}  // namespace dst::client
