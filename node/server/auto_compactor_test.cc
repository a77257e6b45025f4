// etcd 3.4's automatic compactors (etcdserver/api/v3compactor periodic.go, revision.go), driven by
// a simulated clock with a store whose revision grows by 100 a second.
#include "node/server/auto_compactor.h"

#include <gtest/gtest.h>

#include <vector>

#include "node/mvcc/kv_store.h"
#include "sim/simulator.h"

namespace dst::node {
namespace {

struct Asked {
  sim::TimeNs at = 0;
  int64_t revision = 0;
};

// A member the compactor runs on: revision 1 + elapsed/10ms; leads when `leading` says so; its API
// answers a compaction with `answer` (a header, or an error).
class FakeMember {
 public:
  explicit FakeMember(AutoCompaction config) : config_(config) {}

  std::function<bool(sim::TimeNs)> leading = [](sim::TimeNs) { return true; };
  std::function<std::string(int64_t)> error_for;  // empty or returning "": the compaction succeeds
  std::function<int64_t(sim::TimeNs)> revision_at = [](sim::TimeNs now) { return 1 + now / sim::milliseconds(10); };

  void run(sim::DurationNs d) {
    const sim::ProcessId p = sim_.start_process(sim_.add_host("n1"), "member");
    sim::Env& env = sim_.env(p);
    AutoCompactorHooks hooks;
    hooks.leads = [this] { return leading(sim_.now()); };
    hooks.revision = [this] { return revision_at(sim_.now()); };
    hooks.handle = [this](const etcdserverpb::ApiRequest& req) {
      asked.push_back(Asked{sim_.now(), req.compaction().revision()});
      etcdserverpb::ApiResponse out;
      const std::string e = error_for ? error_for(req.compaction().revision()) : "";
      if (e.empty()) out.mutable_compaction()->mutable_header()->set_revision(1);
      else out.mutable_error()->set_message(e);
      return out;
    };
    hooks.observe = [this](const AutoCompactionEvent& e) { events.push_back(e); };
    sim_.spawn(p, "auto-compactor", [&env, this, hooks] { run_auto_compactor(env, config_, hooks); });
    sim_.run_for(d);
  }

  std::vector<Asked> asked;
  std::vector<AutoCompactionEvent> events;

 private:
  AutoCompaction config_;
  sim::Simulator sim_{7};
};

AutoCompaction periodic(sim::DurationNs period) {
  AutoCompaction c;
  c.period = period;
  return c;
}

TEST(AutoCompactor, PeriodicCompactsEveryPeriodToTheRevisionOfAboutAPeriodBefore) {
  FakeMember m(periodic(sim::seconds(1)));
  m.run(sim::milliseconds(4050));
  // Notes every 100 ms; the first compaction waits a whole period after the start, then one a
  // second, each to the oldest of the last 11 notes (1.0-1.1 s before).
  ASSERT_EQ(m.asked.size(), 4u);
  for (size_t i = 0; i < m.asked.size(); ++i) {
    EXPECT_EQ(m.asked[i].at, sim::seconds(1 + static_cast<int64_t>(i))) << i;
    const int64_t noted_at_ms = i == 0 ? 0 : 1000 * static_cast<int64_t>(i) - 100;
    EXPECT_EQ(m.asked[i].revision, 1 + noted_at_ms / 10) << i;
  }
  // The world is told of each one twice: sent, then answered.
  ASSERT_EQ(m.events.size(), 8u);
  EXPECT_FALSE(m.events[0].returned);
  EXPECT_TRUE(m.events[1].returned);
  EXPECT_TRUE(m.events[1].response.has_compaction());
}

TEST(AutoCompactor, LongPeriodsCompactHourlyAfterTheFirstPeriod) {
  FakeMember m(periodic(sim::seconds(3 * 3600)));
  m.run(sim::seconds(5 * 3600 + 60));
  // etcd: a retention over an hour notes every 6 minutes and, after the first 3 h, compacts hourly.
  ASSERT_EQ(m.asked.size(), 3u);
  EXPECT_EQ(m.asked[0].at, sim::seconds(3 * 3600));
  EXPECT_EQ(m.asked[1].at, sim::seconds(4 * 3600));
  EXPECT_EQ(m.asked[2].at, sim::seconds(5 * 3600));
  // 31 notes kept (3 h / 6 min + 1): the oldest is from 3 h before the one about to be taken.
  EXPECT_EQ(m.asked[1].revision, 1 + (sim::seconds(4 * 3600) - sim::seconds(3 * 3600) - sim::seconds(360)) / sim::milliseconds(10));
}

TEST(AutoCompactor, FollowersDoNotCompact) {
  FakeMember m(periodic(sim::seconds(1)));
  m.leading = [](sim::TimeNs now) { return now >= sim::milliseconds(2500); };
  m.run(sim::milliseconds(3550));
  ASSERT_EQ(m.asked.size(), 2u);
  EXPECT_EQ(m.asked[0].at, sim::milliseconds(2500));  // the first note after it leads
  EXPECT_EQ(m.asked[1].at, sim::milliseconds(3500));
}

TEST(AutoCompactor, AlreadyCompactedIsASuccessAndAFailureIsRetriedAtTheNextNote) {
  FakeMember done(periodic(sim::seconds(1)));
  done.error_for = [](int64_t) { return std::string(mvcc::kErrCompacted); };
  done.run(sim::milliseconds(2050));
  ASSERT_EQ(done.asked.size(), 2u);  // 1 s, 2 s: a success each
  EXPECT_EQ(done.asked[1].at, sim::seconds(2));

  FakeMember failing(periodic(sim::seconds(1)));
  failing.error_for = [](int64_t) { return std::string("etcdserver: request timed out"); };
  failing.run(sim::milliseconds(1350));
  ASSERT_EQ(failing.asked.size(), 4u);  // 1.0, 1.1, 1.2, 1.3 s
  EXPECT_EQ(failing.asked[3].at, sim::milliseconds(1300));
}

TEST(AutoCompactor, RevisionModeKeepsTheNewestRevisionsEveryFiveMinutes) {
  AutoCompaction c;
  c.mode = AutoCompaction::Mode::kRevision;
  c.revisions = 1000;
  FakeMember m(c);
  m.run(sim::seconds(601));
  ASSERT_EQ(m.asked.size(), 2u);
  EXPECT_EQ(m.asked[0].at, sim::seconds(300));
  EXPECT_EQ(m.asked[0].revision, 1 + 30'000 - 1000);
  EXPECT_EQ(m.asked[1].revision, 1 + 60'000 - 1000);
}

TEST(AutoCompactor, RevisionModeSkipsWhatItCompactedLastAndRevisionsBelowOne) {
  AutoCompaction c;
  c.mode = AutoCompaction::Mode::kRevision;
  c.revisions = 1'000'000;  // more than the store ever has: nothing to compact
  FakeMember m(c);
  m.run(sim::seconds(901));
  EXPECT_TRUE(m.asked.empty());

  c.revisions = 10;
  FakeMember idle(c);
  idle.revision_at = [](sim::TimeNs) { return int64_t{500}; };  // nothing written: the same target
  idle.run(sim::seconds(1201));
  ASSERT_EQ(idle.asked.size(), 1u);
  EXPECT_EQ(idle.asked[0].revision, 490);
}

}  // namespace
}  // namespace dst::node
