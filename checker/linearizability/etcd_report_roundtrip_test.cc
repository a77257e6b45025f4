// A run exported as etcd's robustness report (history/export_etcd_report.h), read back
// (history/import_etcd_report.h) and checked with partial_kvs gets the verdict the run database's
// history gets: on recorded runs under faults (linearizable), and on the same runs mutated the way
// etcd_checker_run_test.cc mutates them (each a violation, in both). The workload is restricted to
// what a report can say (no value or lease compares, no nested txns, no range deletes or ignore
// flags, no watch filters); reads a report cannot express are left out by the export.
#include <gtest/gtest.h>

#include <cstdio>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/export_etcd_report.h"
#include "history/import_etcd_report.h"
#include "world/kv_run_world.h"

namespace dst::checker::etcd {
namespace {

using history::Outcome;

history::History record(client::Profile profile, uint64_t seed, size_t value_bytes) {
  sim::Simulator sim(seed);
  world::KvRunOptions o;
  o.workload.profile = profile;
  o.workload.rate = 50;
  o.workload.value_bytes = value_bytes;
  client::KvMix& m = o.workload.kv_mix;
  m.cas_value = 0;
  m.txn_nested = 0;
  m.txn_lease_compare = 0;
  m.del_range = 0;
  m.put_ignore_lease = 0;
  o.workload.watch_mix.filter_noput = o.workload.watch_mix.filter_nodelete = 0;
  o.workload.watch_mix.sub_range = 0;
  o.duration = sim::seconds(12);
  history::MemoryRecorder rec;
  world::KvRunResult r = world::run_kv_world(sim, o, rec);
  EXPECT_TRUE(r.invariants_ok);
  return rec.history();
}

struct RecordedRun {
  std::string name;
  history::History h;
};

const std::vector<RecordedRun>& runs() {
  static const std::vector<RecordedRun> out = [] {
    std::vector<RecordedRun> v;
    for (client::Profile p : {client::Profile::kEtcdKv, client::Profile::kKubernetes})
      for (uint64_t seed : {1, 2, 3})
        for (size_t bytes : {size_t{0}, size_t{24}})
          v.push_back(RecordedRun{std::string(client::profile_name(p)) + " seed " + std::to_string(seed) + " value_bytes " +
                              std::to_string(bytes),
                          record(p, seed, bytes)});
    return v;
  }();
  return out;
}

struct Verdicts {
  Verdict lin = Verdict::kUnknown;
  bool watch_ok = false;
  std::string text;
  bool violation() const { return lin == Verdict::kViolation || !watch_ok; }
};

Verdicts judge(const history::History& h, bool partial) {
  EtcdCheckOptions o;
  o.partial_kvs = partial;
  auto lin = check_etcd(h, o);
  EXPECT_TRUE(lin.is_ok()) << lin.status().message();
  watch::Options wo;
  wo.partial_kvs = partial;
  wo.compactions_recorded = !partial;
  const watch::Report w = watch::check(h, wo);
  Verdicts v{lin->verdict, w.ok(), lin->summary()};
  for (size_t i = 1; i < lin->violations.size(); ++i) v.text += "\n" + lin->violations[i].to_string();
  if (!w.ok()) v.text += "\n" + w.to_string();
  return v;
}

// The history as etcd's report holds it, read back.
history::History round_trip(const history::History& h, size_t* left_out = nullptr) {
  auto report = history::export_etcd_report(h);
  EXPECT_TRUE(report.is_ok()) << report.status().message();
  if (!report.is_ok()) return {};
  if (left_out) *left_out = report->reads_left_out + report->ops_left_out + report->watches_left_out;
  std::vector<history::ReportFile> files;
  for (const auto& c : report->clients) {
    const std::string dir = "client-" + std::to_string(c.id) + "/";
    if (!c.operations.empty()) files.push_back({dir + "operations.json", c.operations});
    if (!c.watch.empty()) files.push_back({dir + "watch.json", c.watch});
  }
  auto back = history::import_etcd_report_files(files);
  EXPECT_TRUE(back.is_ok()) << back.status().message();
  return back.is_ok() ? std::move(back->history) : history::History{};
}

void expect_same(const history::History& h, const std::string& what) {
  const Verdicts run = judge(h, false), report = judge(round_trip(h), true);
  EXPECT_EQ(run.lin, report.lin) << what << "\nrun: " << run.text << "\nreport: " << report.text;
  EXPECT_EQ(run.watch_ok, report.watch_ok) << what << "\nrun: " << run.text << "\nreport: " << report.text;
  std::printf("%s: run %s, report %s\n", what.c_str(), verdict_name(run.lin), verdict_name(report.lin));
}

TEST(EtcdReportRoundTrip, RecordedRunsGetTheRunsVerdict) {
  for (const RecordedRun& r : runs()) {
    size_t left_out = 0;
    const history::History back = round_trip(r.h, &left_out);
    EXPECT_GT(back.operations.size(), r.h.operations.size() / 2) << r.name << ": most operations survive";
    EXPECT_FALSE(back.watches.empty()) << r.name;
    const Verdicts run = judge(r.h, false), report = judge(back, true);
    EXPECT_EQ(run.lin, Verdict::kLinearizable) << r.name << "\n" << run.text;
    EXPECT_EQ(report.lin, Verdict::kLinearizable) << r.name << "\n" << report.text;
    EXPECT_TRUE(report.watch_ok) << r.name << "\n" << report.text;
    std::printf("%s: %zu -> %zu operations (%zu left out), %zu watches\n", r.name.c_str(), r.h.operations.size(),
                back.operations.size(), left_out, back.watches.size());
  }
}

// The first operation satisfying pred, or SIZE_MAX.
template <typename Pred>
size_t find_op(const history::History& h, Pred pred, size_t from = 0) {
  for (size_t i = from; i < h.operations.size(); ++i)
    if (pred(h.operations[i])) return i;
  return SIZE_MAX;
}

// A read the report can say: a plain linearizable range that returned something.
bool plain_read(const history::Operation& o) {
  if (o.outcome != Outcome::kOk || !o.request.has_range() || o.response.range().kvs_size() == 0) return false;
  const auto& q = o.request.range();
  return !q.serializable() && !q.keys_only() && !q.count_only() && q.sort_order() == 0 && q.sort_target() == 0 &&
         q.revision() == 0 && q.min_mod_revision() == 0 && q.max_mod_revision() == 0 && q.min_create_revision() == 0 &&
         q.max_create_revision() == 0 && q.range_end() != std::string(1, '\0');
}

TEST(EtcdReportRoundTrip, ChangedReadValuesAreViolationsInBoth) {
  for (const RecordedRun& r : runs()) {
    size_t tried = 0;
    for (size_t i = find_op(r.h, plain_read); i != SIZE_MAX && tried < 3; i = find_op(r.h, plain_read, i + 40)) {
      history::History h = r.h;
      h.operations[i].response.mutable_range()->mutable_kvs(0)->set_value("mutated");
      expect_same(h, r.name + " / read " + std::to_string(i) + " changed");
      ++tried;
    }
    EXPECT_GT(tried, 0u) << r.name;
  }
}

TEST(EtcdReportRoundTrip, AReturnMovedBeforeALowerWritesInvocationIsAViolationInBoth) {
  for (const RecordedRun& r : runs()) {
    history::History h = r.h;
    auto put_rev = [](const history::Operation& o) -> int64_t {
      return o.outcome == Outcome::kOk && o.request.has_put() ? o.response.put().header().revision() : 0;
    };
    const size_t a = find_op(h, [&](const history::Operation& o) { return put_rev(o) > 0; });
    ASSERT_NE(a, SIZE_MAX) << r.name;
    const size_t b = find_op(h, [&](const history::Operation& o) {
      return put_rev(o) > put_rev(h.operations[a]) && o.invoke_ns < h.operations[a].invoke_ns + 1'000'000'000;
    }, a + 1);
    if (b == SIZE_MAX) continue;
    h.operations[b].invoke_ns = std::min(h.operations[b].invoke_ns, h.operations[a].invoke_ns - 2);
    h.operations[b].return_ns = h.operations[a].invoke_ns - 1;
    expect_same(h, r.name + " / return moved");
  }
}

TEST(EtcdReportRoundTrip, AWatchEventDroppedIsAViolationInBoth) {
  size_t tried = 0;
  for (const RecordedRun& r : runs()) {
    history::History h = r.h;
    // Not from a segment's last response, so the watch still covers the revision afterwards.
    for (auto& w : h.watches) {
      if (w.segments.empty() || w.segments[0].responses.size() < 3) continue;
      auto& resp = w.segments[0].responses[w.segments[0].responses.size() / 2].response;
      if (resp.events_size() == 0) continue;
      resp.mutable_events()->DeleteSubrange(0, 1);
      ++tried;
      expect_same(h, r.name + " / watch " + std::to_string(w.id) + " lost an event");
      break;
    }
  }
  EXPECT_GT(tried, 3u);
}

TEST(EtcdReportRoundTrip, AFlippedCompareOutcomeIsAViolationInBoth) {
  size_t tried = 0;
  for (const RecordedRun& r : runs()) {
    history::History h = r.h;
    // A txn with one compare whose two branches answer alike (a put each): flipping `succeeded`
    // keeps the response well formed for the other branch.
    const size_t i = find_op(h, [](const history::Operation& o) {
      if (o.outcome != Outcome::kOk || !o.request.has_txn() || o.request.txn().compare_size() != 1) return false;
      const auto& t = o.request.txn();
      return t.success_size() == 1 && t.failure_size() == 1 && t.success(0).has_request_put() &&
             t.failure(0).has_request_put();
    });
    if (i == SIZE_MAX) continue;
    h.operations[i].response.mutable_txn()->set_succeeded(!h.operations[i].response.txn().succeeded());
    ++tried;
    expect_same(h, r.name + " / txn " + std::to_string(i) + " flipped");
  }
  EXPECT_GT(tried, 0u);
}

}  // namespace
}  // namespace dst::checker::etcd
