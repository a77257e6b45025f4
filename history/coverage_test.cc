// A run's coverage: probe counts by name, the API surface its operations and watches used (type,
// option, outcome), and a catalogue that names everything a run can reach exactly once.
#include "history/coverage.h"

#include <gtest/gtest.h>

#include <set>

namespace dst::history {
namespace {

Operation op(etcdserverpb::ApiRequest r, Outcome outcome) {
  Operation o;
  o.request = std::move(r);
  o.outcome = outcome;
  return o;
}

TEST(Coverage, ProbesCountByName) {
  ProbeCounts counts;
  counts.hits[static_cast<size_t>(Probe::kWatchCompactionCancel)] = 3;
  Coverage c;
  add_probe_coverage(counts, c);
  add_probe_coverage(counts, c);
  EXPECT_EQ(c, (Coverage{{"watch.compaction-cancel", 6}}));
}

TEST(Coverage, OperationsByTypeOptionAndOutcome) {
  History h;
  etcdserverpb::ApiRequest range;
  range.mutable_range()->set_key("a");
  range.mutable_range()->set_range_end("b");
  range.mutable_range()->set_limit(2);
  h.operations.push_back(op(range, Outcome::kOk));
  etcdserverpb::ApiRequest put;
  put.mutable_put()->set_key("k");
  put.mutable_put()->set_prev_kv(true);
  h.operations.push_back(op(put, Outcome::kUnknown));
  etcdserverpb::ApiRequest txn;
  auto* c = txn.mutable_txn()->add_compare();
  c->set_target(etcdserverpb::Compare::VALUE);
  txn.mutable_txn()->add_failure()->mutable_request_range()->set_key("k");
  h.operations.push_back(op(txn, Outcome::kFailed));
  Coverage got;
  add_api_coverage(h, got);
  EXPECT_EQ(got, (Coverage{{"api.range.any.ok", 1},
                           {"api.range.limit.ok", 1},
                           {"api.range.range.ok", 1},
                           {"api.put.any.unknown", 1},
                           {"api.put.prev-kv.unknown", 1},
                           {"api.txn.any.failed", 1},
                           {"api.txn.compare-value.failed", 1},
                           {"api.txn.else-read.failed", 1}}));
}

TEST(Coverage, WatchesByOptionAndWhatTheyReceived) {
  History h;
  Watch w;
  WatchSegment first;
  first.request.set_key("k");
  first.request.set_prev_kv(true);
  first.request.add_filters(etcdserverpb::WatchCreateRequest::NODELETE);
  WatchResponse created;
  created.response.set_created(true);
  WatchResponse event;
  event.response.add_events()->mutable_kv()->set_mod_revision(3);
  WatchResponse progress;
  progress.response.mutable_header()->set_revision(5);
  first.responses = {created, event, progress};
  WatchSegment second;
  second.request.set_start_revision(6);
  WatchResponse cancel;
  cancel.response.set_canceled(true);
  cancel.response.set_compact_revision(9);
  second.responses = {cancel};
  w.segments = {first, second};
  h.watches.push_back(w);
  Coverage got;
  add_api_coverage(h, got);
  EXPECT_EQ(got, (Coverage{{"api.watch.any", 2},
                           {"api.watch.prev-kv", 1},
                           {"api.watch.filter-nodelete", 1},
                           {"api.watch.start-now", 1},
                           {"api.watch.start-past", 1},
                           {"api.watch.resumed", 1},
                           {"api.watch.events", 1},
                           {"api.watch.progress", 1},
                           {"api.watch.canceled-compacted", 1}}));
}

TEST(Coverage, TheCatalogueNamesEachReachableItemOnceWithAMeaning) {
  std::set<std::string> names;
  for (const CoverageItem& item : coverage_catalogue()) {
    EXPECT_TRUE(names.insert(item.name).second) << item.name;
    EXPECT_LE(item.name.size(), kCoverageNameBytesMax);
    EXPECT_FALSE(item.meaning.empty()) << item.name;
    EXPECT_EQ(item.name.find_first_of(" \t\n"), std::string::npos) << item.name;
  }
  for (Probe p : all_probes()) EXPECT_TRUE(names.count(std::string(probe_name(p)))) << probe_name(p);
  EXPECT_TRUE(names.count("api.range.limit.ok"));
  EXPECT_FALSE(names.count("api.range.any.unknown"));  // a read never ends unknown
  EXPECT_TRUE(names.count("api.put.any.unknown"));
  EXPECT_EQ(coverage_meaning("api.watch.prev-kv"), "a watch asking for previous values");
  EXPECT_EQ(coverage_meaning("no.such"), "");
  EXPECT_LT(names.size(), kCoverageNamesMax);
}

}  // namespace
}  // namespace dst::history
