// Real clients against a KV cluster under faults: every profile produces a history with ok,
// failed and unknown outcomes and complete watch streams, the cluster stays safe and live, and
// the members agree after the heal. (The linearizability and watch checkers judge these histories
// in checker/; here the run itself is under test.)
#include "world/kv_run_world.h"

#include <gtest/gtest.h>

#include <set>

#include "checker/watch/watch_checker.h"

namespace dst::world {
namespace {

struct Totals {
  uint64_t ops = 0, ok = 0, unknown = 0, watch_events = 0, segments = 0, faults = 0;
};

Totals run(client::Profile profile, uint64_t seed, bool faults, history::MemoryRecorder& rec) {
  sim::Simulator sim(seed);
  KvRunOptions o;
  o.workload.profile = profile;
  o.faults = faults;
  o.duration = sim::seconds(15);
  KvRunResult r = run_kv_world(sim, o, rec);
  const std::string where = std::string(client::profile_name(profile)) + " seed " + std::to_string(seed);
  EXPECT_TRUE(r.invariants_ok) << where << ": " << (r.violations.empty() ? "" : r.violations[0]);
  EXPECT_TRUE(r.liveness_ok) << where << ": " << r.liveness.detail;
  EXPECT_TRUE(r.members_agree) << where;
  Totals t;
  t.ops = r.workload.operations;
  t.ok = r.workload.ok;
  t.unknown = r.workload.unknown;
  t.watch_events = r.workload.watch_events;
  t.segments = r.workload.watch_segments;
  t.faults = rec.history().faults.size();
  // Every successful write that created a revision created its own: no two share one.
  std::set<int64_t> revisions;
  for (const history::Operation& op : rec.history().operations) {
    if (op.outcome != history::Outcome::kOk || !op.request.has_put()) continue;
    const int64_t rev = op.response.put().header().revision();
    EXPECT_TRUE(revisions.insert(rev).second) << where << ": two successful puts at revision " << rev;
    EXPECT_LE(op.invoke_ns, op.return_ns);
  }
  // Every watch stream was complete, ordered, atomic... (checker/watch).
  checker::watch::Report w = checker::watch::check(rec.history());
  EXPECT_TRUE(w.ok()) << where << ":\n" << w.to_string();
  return t;
}

TEST(KvRunWorld, EveryProfileRunsCleanWithoutFaults) {
  for (client::Profile p : {client::Profile::kEtcdKv, client::Profile::kKubernetes, client::Profile::kRegister}) {
    history::MemoryRecorder rec;
    Totals t = run(p, 1, false, rec);
    SCOPED_TRACE(std::string(client::profile_name(p)));
    EXPECT_GT(t.ops, 1000u);
    EXPECT_EQ(t.unknown, 0u) << "no faults, yet writes with unknown outcome";
    EXPECT_GT(t.ok, t.ops / 2);
    EXPECT_GT(t.watch_events, 100u);
  }
}

TEST(KvRunWorld, FaultsGiveUnknownOutcomesAndBrokenWatchesButStaySafe) {
  Totals all;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    for (client::Profile p : {client::Profile::kEtcdKv, client::Profile::kKubernetes}) {
      history::MemoryRecorder rec;
      Totals t = run(p, seed, true, rec);
      all.ops += t.ops;
      all.unknown += t.unknown;
      all.segments += t.segments;
      all.faults += t.faults;
      all.watch_events += t.watch_events;
    }
  }
  EXPECT_GT(all.faults, 0u);
  EXPECT_GT(all.unknown, 0u) << "faults never left a write's outcome unknown: the history is too easy";
  EXPECT_GT(all.segments, 8u * 2) << "no watch was ever resumed after a broken stream";
  std::printf("8 faulted runs: %llu operations, %llu unknown, %llu watch events, %llu watch segments\n",
              static_cast<unsigned long long>(all.ops), static_cast<unsigned long long>(all.unknown),
              static_cast<unsigned long long>(all.watch_events), static_cast<unsigned long long>(all.segments));
}

}  // namespace
}  // namespace dst::world
