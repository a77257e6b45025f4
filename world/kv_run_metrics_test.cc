// The periodic metrics of a KV run (KvRunOptions::metrics_every): every member sampled every
// interval with the values the run database's metrics table documents, consistent with each
// other and with what the run did; the sampler changes nothing the clients see; and a run
// recorded through RunDbRecorder reads its metrics back from the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unistd.h>

#include "history/run_db.h"
#include "history/run_db_recorder.h"
#include "world/kv_run_world.h"

namespace dst::world {
namespace {

KvRunOptions short_run(sim::DurationNs metrics_every) {
  KvRunOptions o;
  o.workload.profile = client::Profile::kEtcdKv;
  o.duration = sim::seconds(6);
  o.recovery_bound = sim::seconds(10);
  o.settle = sim::seconds(2);
  o.metrics_every = metrics_every;
  return o;
}

// Samples by (name, member) in time order.
using Series = std::map<std::pair<std::string, uint32_t>, std::vector<std::pair<int64_t, int64_t>>>;
Series series(const std::vector<history::Metric>& metrics) {
  Series s;
  for (const history::Metric& m : metrics) s[{m.name, m.member}].push_back({m.at_ns, m.value});
  return s;
}

TEST(KvRunMetrics, EveryMemberIsSampledEveryIntervalWithConsistentValues) {
  sim::Simulator sim(7);
  history::MemoryRecorder rec;
  const KvRunOptions o = short_run(sim::milliseconds(500));
  const sim::TimeNs start = sim.now();
  KvRunResult r = run_kv_world(sim, o, rec);
  ASSERT_TRUE(r.liveness_ok) << r.liveness.detail;
  ASSERT_TRUE(r.members_agree);
  EXPECT_EQ(rec.metrics_dropped(), 0u);
  const Series s = series(rec.metrics());
  const sim::DurationNs run_ns = sim.now() - start;
  for (uint32_t m = 1; m <= o.nodes; ++m) {
    SCOPED_TRACE("member " + std::to_string(m));
    const auto& up = s.at({"up", m});
    // One sample every 500 ms from the clients' start (after the first election) to the end, plus
    // the final one at the very end.
    ASSERT_GE(up.size(), 3u);
    EXPECT_LE(up.front().first - start, sim::seconds(10));
    EXPECT_EQ(up.back().first, start + run_ns);
    EXPECT_GE(up.size(), static_cast<size_t>((start + run_ns - up.front().first) / sim::milliseconds(500)));
    for (size_t i = 1; i + 1 < up.size(); ++i) EXPECT_EQ(up[i].first - up[i - 1].first, sim::milliseconds(500));
    EXPECT_LE(up.back().first - up[up.size() - 2].first, sim::milliseconds(500));
    // Every value of an up member, at the same instants as its "up" = 1 samples.
    size_t up_samples = 0;
    for (const auto& [at, v] : up) up_samples += v == 1;
    EXPECT_EQ(up.back().second, 1) << "every member is up at the end of the run";
    for (const char* name : kKvRunMetricNames) {
      if (std::string(name) == "up") continue;
      EXPECT_EQ(s.at({name, m}).size(), up_samples) << name;
    }
    const auto& commit = s.at({"commit_index", m});
    const auto& applied = s.at({"applied_index", m});
    const auto& term = s.at({"term", m});
    const auto& role = s.at({"role", m});
    for (size_t i = 0; i < commit.size(); ++i) {
      EXPECT_EQ(commit[i].first, applied[i].first);
      EXPECT_LE(applied[i].second, commit[i].second) << "applied past the commit index at " << applied[i].first;
      EXPECT_GE(term[i].second, 1);
      EXPECT_GE(role[i].second, 0);
      EXPECT_LE(role[i].second, 3);
    }
    EXPECT_GT(s.at({"revision", m}).back().second, 20) << "the workload wrote, and the store shows it";
  }
  // The cluster had a leader most of the time, and at the end every member knows the same one,
  // at the same applied index and revision (the run checked agreement before the final sample).
  const auto& leader = s.at({"leader", 0});
  size_t with_leader = 0;
  for (const auto& [at, v] : leader) with_leader += v != 0;
  EXPECT_GT(with_leader, leader.size() / 2);
  const int64_t final_leader = leader.back().second;
  ASSERT_NE(final_leader, 0);
  EXPECT_EQ(s.at({"role", static_cast<uint32_t>(final_leader)}).back().second, 1);
  std::set<int64_t> applied_end, revision_end, known_leader;
  for (uint32_t m = 1; m <= o.nodes; ++m) {
    applied_end.insert(s.at({"applied_index", m}).back().second);
    revision_end.insert(s.at({"revision", m}).back().second);
    known_leader.insert(s.at({"leader", m}).back().second);
  }
  EXPECT_EQ(applied_end.size(), 1u);
  EXPECT_EQ(revision_end.size(), 1u);
  EXPECT_EQ(known_leader, std::set<int64_t>{final_leader});
  // Faults showed up in the metrics: some member was down at some sample, or the term moved.
  bool some_down = false, term_moved = false;
  for (uint32_t m = 1; m <= o.nodes; ++m) {
    for (const auto& [at, v] : s.at({"up", m})) some_down |= v == 0;
    term_moved |= s.at({"term", m}).back().second > s.at({"term", m}).front().second;
  }
  EXPECT_TRUE(some_down || term_moved) << "a faulted run whose metrics show no fault";
}

// The sampler only reads: the same seed with and without it gives the clients the same history.
TEST(KvRunMetrics, SamplingDoesNotChangeTheRun) {
  auto record = [](sim::DurationNs every, size_t* metrics) {
    sim::Simulator sim(3);
    history::MemoryRecorder rec;
    KvRunResult r = run_kv_world(sim, short_run(every), rec);
    *metrics = rec.metrics().size();
    std::string bytes;
    for (const history::Operation& op : rec.history().operations)
      bytes += std::to_string(op.client) + "/" + std::to_string(op.member) + "/" + std::to_string(op.invoke_ns) + "/" +
               std::to_string(op.return_ns) + "/" + history::outcome_name(op.outcome) + "/" +
               op.request.SerializeAsString() + op.response.SerializeAsString() + "\n";
    for (const history::Watch& w : rec.history().watches)
      for (const history::WatchSegment& seg : w.segments)
        for (const history::WatchResponse& resp : seg.responses)
          bytes += std::to_string(resp.at_ns) + resp.response.SerializeAsString();
    for (const std::string& f : r.fault_log) bytes += f + "\n";
    return bytes;
  };
  size_t with = 0, without = 0;
  const std::string a = record(sim::milliseconds(500), &with);
  const std::string b = record(0, &without);
  EXPECT_GT(with, 100u);
  EXPECT_EQ(without, 0u);
  EXPECT_GT(a.size(), 10'000u);
  EXPECT_TRUE(a == b) << "the sampler changed what the clients saw";
}

TEST(KvRunMetrics, RunDbRecorderWritesTheMetricsTable) {
  const std::string path = ::testing::TempDir() + "/kv_run_metrics_" + std::to_string(::getpid()) + ".db";
  std::filesystem::remove(path);
  size_t in_memory = 0;
  {
    auto w = history::RunDbWriter::create(path);
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    std::unique_ptr<history::RunDbWriter> writer = std::move(w).value();
    ASSERT_TRUE(writer->begin_run(history::RunInfo{}).is_ok());
    history::RunDbRecorder rec(*writer);
    sim::Simulator sim(11);
    KvRunOptions o = short_run(sim::seconds(1));
    o.duration = sim::seconds(3);
    run_kv_world(sim, o, rec);
    ASSERT_TRUE(rec.status().is_ok()) << rec.status().to_string();
    in_memory = rec.metrics().size();
    ASSERT_TRUE(writer->close().is_ok());
  }
  auto reader = history::RunDbReader::open(path);
  ASSERT_TRUE(reader.is_ok()) << reader.status().to_string();
  auto metrics = reader->read_metrics();
  ASSERT_TRUE(metrics.is_ok()) << metrics.status().to_string();
  EXPECT_GT(in_memory, 50u);
  EXPECT_EQ(metrics->size(), in_memory);
  std::set<std::string> names;
  for (const history::MetricSample& m : *metrics) names.insert(m.name);
  for (const char* name : kKvRunMetricNames) EXPECT_TRUE(names.count(name)) << name;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dst::world
