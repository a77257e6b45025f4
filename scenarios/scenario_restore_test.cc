// Disaster recovery in a scenario: snapshot_save(), disaster(), restore{} on a running world, what
// the history records of them, and the checkers' verdicts across the restore (correct, and with
// the restore-restarts-revisions bug).
#include <gtest/gtest.h>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "scenarios/scenario.h"

namespace dst::scenarios {
namespace {

struct RestoreRun {
  sim::Simulator sim{7};
  history::MemoryRecorder recorder;
  world::KvRunResult result;
  std::unique_ptr<Scenario> scenario;
  RestoreRun(const std::string& code, Bugs bugs = {}) {
    auto s = Scenario::load_source("dr.lua", code, 7);
    EXPECT_TRUE(s.is_ok()) << s.status().message();
    scenario = std::move(s).value();
    world::KvRunOptions options = scenario->run_options();
    auto configure = options.configure_cluster;
    options.configure_cluster = [configure, bugs](world::ClusterOptions& co) {
      if (configure) configure(co);
      co.server.bugs = bugs;
    };
    result = world::run_kv_world(sim, options, recorder);
  }
  const history::History& history() const { return recorder.history(); }
};

const char* kRestoreScript =
    "workload{clients=3, rate=60, watchers=2}\n"
    "run_for(s(8))\n"
    "at(s(2), function() snapshot_save(1, 'first') end)\n"
    "at(s(3), function() disaster() end)\n"
    "at(s(4), function() restore{snapshot='first', bump=1000} end)\n";

TEST(ScenarioRestore, TheRestoredClusterContinuesFromTheSnapshot) {
  RestoreRun r(kRestoreScript);
  ASSERT_FALSE(r.scenario->runtime_error()) << *r.scenario->runtime_error();
  const history::History& h = r.history();
  ASSERT_EQ(h.restores.size(), 1u);
  const history::Restore& x = h.restores[0];
  EXPECT_EQ(x.disaster_ns - x.restore_ns, -sim::seconds(1));
  EXPECT_EQ(x.bump, 1000);
  EXPECT_EQ(x.snapshot, "first");
  EXPECT_GT(x.revision, 1);
  // The snapshot operation is in the history with its revision, without the file's bytes.
  bool snapshot_seen = false;
  size_t lost = 0, after = 0;
  for (const history::Operation& op : h.operations) {
    if (op.request.has_snapshot() && op.outcome == history::Outcome::kOk) {
      snapshot_seen = true;
      EXPECT_EQ(op.response.snapshot().header().revision(), x.revision);
      EXPECT_TRUE(op.response.snapshot().blob().empty());
    }
    const int64_t rev = history::response_revision(op.response);
    if (op.outcome != history::Outcome::kOk || rev == 0) continue;
    if (op.invoke_ns < x.disaster_ns && rev > x.revision) ++lost;
    if (op.invoke_ns >= x.restore_ns) {
      ++after;
      EXPECT_GT(rev, x.revision + x.bump - 1) << "op " << op.id;  // the restored cluster starts at R + B
    }
  }
  EXPECT_TRUE(snapshot_seen);
  EXPECT_GT(lost, 0u);  // acknowledged after the snapshot, lost by design
  EXPECT_GT(after, 0u);
  // The disaster is a window in the report: from the loss to the restore.
  bool window = false;
  for (const history::Fault& f : h.faults)
    if (f.kind == "disaster") window = f.start_ns == x.disaster_ns && f.end_ns == x.restore_ns && f.target == "n1,n2,n3";
  EXPECT_TRUE(window);
  EXPECT_TRUE(r.result.liveness_ok) << r.result.liveness.detail;
  EXPECT_TRUE(r.result.members_agree) << r.result.agreement_detail;
  auto lin = checker::etcd::check_etcd(h);
  ASSERT_TRUE(lin.is_ok());
  EXPECT_EQ(lin->verdict, checker::Verdict::kLinearizable) << lin->summary();
  const checker::watch::Report watch = checker::watch::check(h);
  EXPECT_TRUE(watch.ok()) << watch.to_string();
}

TEST(ScenarioRestore, ARestoreThatRestartsRevisionsIsCaught) {
  RestoreRun r(kRestoreScript, Bugs::of(Bug::kRestoreRestartsRevisions));
  ASSERT_FALSE(r.scenario->runtime_error()) << *r.scenario->runtime_error();
  auto lin = checker::etcd::check_etcd(r.history());
  ASSERT_TRUE(lin.is_ok());
  ASSERT_EQ(lin->verdict, checker::Verdict::kViolation);
  EXPECT_EQ(lin->violations.front().rule, "restore-revision") << lin->summary();
  EXPECT_FALSE(checker::watch::check(r.history()).ok());
}

TEST(ScenarioRestore, MisuseIsAnErrorThatNamesTheLine) {
  RestoreRun no_disaster("workload{clients=1, watchers=0}\nrun_for(s(3))\nat(s(1), function() restore{} end)\n");
  ASSERT_TRUE(no_disaster.scenario->runtime_error());
  EXPECT_NE(no_disaster.scenario->runtime_error()->find("dr.lua:3: restore(): no disaster to recover from"), std::string::npos)
      << *no_disaster.scenario->runtime_error();
  RestoreRun no_file("workload{clients=1, watchers=0}\nrun_for(s(3))\nat(s(1), function() disaster(); restore{} end)\n");
  ASSERT_TRUE(no_file.scenario->runtime_error());
  EXPECT_NE(no_file.scenario->runtime_error()->find("no snapshot of the lost cluster was saved"), std::string::npos)
      << *no_file.scenario->runtime_error();
  // A file saved before a restore is the old cluster's: restoring it again would continue a
  // history the restored cluster has left.
  RestoreRun stale("workload{clients=1, watchers=0}\nrun_for(s(8))\n"
                   "at(s(2), function() snapshot_save(1, 'old') end)\n"
                   "at(s(3), function() disaster() end)\n"
                   "at(s(4), function() restore{snapshot='old'} end)\n"
                   "at(s(6), function() disaster() end)\n"
                   "at(s(7), function() restore{snapshot='old'} end)\n");
  ASSERT_TRUE(stale.scenario->runtime_error());
  EXPECT_NE(stale.scenario->runtime_error()->find("dr.lua:7: restore(): snapshot \"old\" was saved before restore 1"),
            std::string::npos)
      << *stale.scenario->runtime_error();
  RestoreRun bad_bump("workload{clients=1, watchers=0}\nrun_for(s(3))\nat(s(1), function() restore{bump=-1} end)\n");
  ASSERT_TRUE(bad_bump.scenario->runtime_error());
  EXPECT_NE(bad_bump.scenario->runtime_error()->find("restore{}: field 'bump'"), std::string::npos)
      << *bad_bump.scenario->runtime_error();
}

}  // namespace
}  // namespace dst::scenarios
