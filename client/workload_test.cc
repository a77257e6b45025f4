// The workload profiles, held to what client/workload.h promises, against scripted members that
// answer every request plausibly (a revision counter, a key found at that revision, a lease id):
// each profile's request kinds all occur, values are unique per write, pinned clients stay on
// their member, the compactor compacts behind the revision it read, paginated lists stay at one
// revision, informer-style watchers list before they watch, and a seed fixes the whole sequence.
#include "client/workload.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "client/fake_member_test_util.h"

namespace dst::client {
namespace {

using testing::FakeMembers;
using testing::Reply;

// Answers like a member whose store has every key: writes bump the revision, reads find the key
// at the current revision, list pages say "more" every other time.
struct PlausibleMember {
  int64_t revision = 1;
  int64_t next_lease = 100;
  int pages = 0;

  Reply operator()(size_t, const etcdserverpb::ApiRequest& r) {
    etcdserverpb::ApiResponse out;
    if (r.has_watch()) {
      if (!r.watch().has_create_request()) return Reply::silence();
      etcdserverpb::WatchResponse created;
      created.set_created(true);
      created.mutable_header()->set_revision(revision);
      return Reply::watch({created}, false);
    }
    if (r.has_range()) {
      auto* range = out.mutable_range();
      range->mutable_header()->set_revision(revision);
      auto* kv = range->add_kvs();
      kv->set_key(r.range().key());
      kv->set_mod_revision(revision);
      range->set_more(r.range().limit() > 0 && ++pages % 2 == 1);
    } else if (r.has_lease_grant()) {
      out.mutable_lease_grant()->set_id(next_lease++);
    } else if (r.has_lease_keep_alive()) {
      // Every fifth lease has expired: etcd answers its keep-alive with TTL 0.
      out.mutable_lease_keep_alive()->set_id(r.lease_keep_alive().id());
      out.mutable_lease_keep_alive()->set_ttl(r.lease_keep_alive().id() % 5 == 0 ? 0 : 3);
    } else {
      ++revision;
      out.mutable_put()->mutable_header()->set_revision(revision);  // the type does not matter here
    }
    return Reply::answer(out);
  }
};

struct WorkloadRun {
  explicit WorkloadRun(Profile profile, uint64_t seed = 3, const std::function<void(WorkloadOptions&)>& tweak = {})
      : sim(seed) {
    auto script = [this](size_t m, const etcdserverpb::ApiRequest& r) { return member(m, r); };
    for (size_t i = 0; i < 3; ++i) members.start(i, script);
    WorkloadOptions o;
    o.profile = profile;
    o.clients = 4;
    o.rate = 40;
    o.watchers = 2;
    o.compaction_every = sim::seconds(2);
    if (tweak) tweak(o);
    workload = std::make_unique<Workload>(sim, members.addresses(), o, recorder);
    workload->start(sim::seconds(20), sim::seconds(21));
    sim.run_until(sim::seconds(22));
  }
  const std::vector<history::Operation>& ops() const { return recorder.history().operations; }

  sim::Simulator sim;
  FakeMembers members{sim, 3};
  PlausibleMember member;
  history::MemoryRecorder recorder;
  std::unique_ptr<Workload> workload;
};

// The kinds of request a profile sends, by a name each.
std::string kind(const etcdserverpb::ApiRequest& r) {
  if (r.has_range()) {
    if (!r.range().range_end().empty()) return r.range().limit() > 0 ? "paged-list" : "list";
    return r.range().serializable() ? "stale-get" : "get";
  }
  if (r.has_put()) return r.put().lease() != 0 ? "put-with-lease" : "put";
  if (r.has_delete_range()) return "delete";
  if (r.has_lease_grant()) return "lease-grant";
  if (r.has_lease_revoke()) return "lease-revoke";
  if (r.has_compaction()) return "compaction";
  if (r.has_lease_keep_alive()) return "lease-keepalive";
  if (r.has_lease_time_to_live()) return "lease-ttl";
  if (r.has_txn()) {
    const auto& c = r.txn().compare(0);
    if (c.target() == etcdserverpb::Compare::MOD) return "cas-mod-revision";
    if (c.target() == etcdserverpb::Compare::CREATE) return "create-if-absent";
    if (c.target() == etcdserverpb::Compare::VALUE) return "cas-value";
    return "txn";
  }
  return "other";
}

std::set<std::string> kinds(const WorkloadRun& run) {
  std::set<std::string> out;
  for (const auto& op : run.ops()) out.insert(kind(op.request));
  return out;
}

// Every value a write carries: unique, and "c<client>.<n>" with the writing client's id.
void expect_unique_values(const WorkloadRun& run) {
  std::set<std::string> seen;
  for (const auto& op : run.ops()) {
    std::vector<std::string> values;
    if (op.request.has_put()) values.push_back(op.request.put().value());
    for (const auto& o : op.request.txn().success())
      if (o.has_request_put()) values.push_back(o.request_put().value());
    for (const std::string& v : values) {
      EXPECT_EQ(v.rfind("c" + std::to_string(op.client) + ".", 0), 0u) << v;
    }
    if (!values.empty()) {
      EXPECT_TRUE(seen.insert(values.front()).second) << values.front();
    }
  }
  EXPECT_GT(seen.size(), 100u);
}

TEST(Workload, EtcdKvSendsEveryKindItPromises) {
  WorkloadRun run(Profile::kEtcdKv);
  const std::set<std::string> want = {"get",          "stale-get",      "list",        "paged-list",
                                      "put",          "delete",         "lease-grant", "put-with-lease",
                                      "lease-revoke", "lease-keepalive", "lease-ttl",  "txn",
                                      "cas-mod-revision", "cas-value",  "compaction"};
  EXPECT_EQ(kinds(run), want);
  expect_unique_values(run);
  const WorkloadStats& s = run.workload->stats();
  EXPECT_EQ(s.operations, s.ok + s.failed + s.unknown);
  EXPECT_EQ(s.ok, s.operations);  // every member answered
  // The four clients and the compactor; watchers send no unary requests in this profile.
  EXPECT_EQ(run.workload->client_hosts().size(), 4u + 2u + 1u);
  EXPECT_EQ(s.watch_segments, 2u);
}

// The scans carry every range option of the mix, and the puts and deletes theirs.
TEST(Workload, EtcdKvScansAndWritesCarryEveryOption) {
  WorkloadRun run(Profile::kEtcdKv);
  std::set<std::string> seen;
  for (const auto& op : run.ops()) {
    const auto& r = op.request;
    if (r.has_range() && !r.range().range_end().empty()) {
      const auto& q = r.range();
      if (q.limit() > 0) seen.insert("limit");
      if (q.sort_order() != etcdserverpb::RangeRequest::NONE) seen.insert("sort-order");
      if (q.sort_target() != etcdserverpb::RangeRequest::KEY) seen.insert("sort-target");
      if (q.keys_only()) seen.insert("keys-only");
      if (q.count_only()) seen.insert("count-only");
      if (q.serializable()) seen.insert("serializable");
      if (q.revision() > 0) seen.insert("past-revision");
      if (q.min_mod_revision() || q.max_mod_revision() || q.min_create_revision() || q.max_create_revision())
        seen.insert("revision-filter");
    }
    if (r.has_put() && r.put().prev_kv()) seen.insert("put-prev-kv");
    if (r.has_put() && r.put().ignore_lease()) seen.insert("put-ignore-lease");
    if (r.has_delete_range() && r.delete_range().prev_kv()) seen.insert("delete-prev-kv");
    if (r.has_delete_range() && !r.delete_range().range_end().empty()) seen.insert("delete-range");
    for (const auto& c : r.txn().compare())
      if (c.target() == etcdserverpb::Compare::LEASE) seen.insert("compare-lease");
    for (const auto& f : r.txn().failure())
      if (f.has_request_range()) seen.insert("else-read");
  }
  EXPECT_EQ(seen, (std::set<std::string>{"limit", "sort-order", "sort-target", "keys-only", "count-only", "serializable",
                                         "past-revision", "revision-filter", "put-prev-kv", "put-ignore-lease",
                                         "delete-prev-kv", "delete-range", "compare-lease", "else-read"}));
}

// Every client keeps one member (pinned, or failing over from one that never failed here) or
// goes round robin over all of them, a request each (drawn per client: kv_client.h's Balance).
TEST(Workload, EachClientKeepsItsMemberOrGoesRoundRobin) {
  WorkloadRun run(Profile::kEtcdKv);
  std::map<uint32_t, std::vector<uint32_t>> members_of;
  for (const auto& op : run.ops())
    if (op.client <= 4) members_of[op.client].push_back(op.member);
  ASSERT_EQ(members_of.size(), 4u);
  for (const auto& [client, members] : members_of) {
    const bool one = std::set<uint32_t>(members.begin(), members.end()).size() == 1;
    bool round_robin = members.size() > 3;
    for (size_t i = 1; i < members.size(); ++i) round_robin = round_robin && members[i] == members[i - 1] % 3 + 1;
    EXPECT_TRUE(one || round_robin) << "client " << client;
  }
}

TEST(Workload, TheCompactorCompactsTwentyRevisionsBehindAndAlternatesPhysical) {
  WorkloadRun run(Profile::kEtcdKv);
  int64_t read_revision = 0;
  std::vector<bool> physical;
  for (const auto& op : run.ops()) {
    if (op.request.has_range() && op.request.range().key() == "compactor/probe")
      read_revision = op.response.range().header().revision();
    if (!op.request.has_compaction()) continue;
    EXPECT_EQ(op.request.compaction().revision(), read_revision - 20);
    physical.push_back(op.request.compaction().physical());
  }
  ASSERT_GE(physical.size(), 5u);
  for (size_t i = 0; i < physical.size(); ++i) EXPECT_EQ(physical[i], i % 2 == 1);
}

// workload{compaction_keep=0}: the compactor compacts at the very revision it read.
TEST(Workload, TheCompactorKeepsWhatItIsToldTo) {
  WorkloadRun run(Profile::kEtcdKv, 3, [](WorkloadOptions& o) { o.compaction_keep = 0; });
  int64_t read_revision = 0;
  int compactions = 0;
  for (const auto& op : run.ops()) {
    if (op.request.has_range() && op.request.range().key() == "compactor/probe")
      read_revision = op.response.range().header().revision();
    if (!op.request.has_compaction()) continue;
    EXPECT_EQ(op.request.compaction().revision(), read_revision);
    ++compactions;
  }
  EXPECT_GE(compactions, 5);
}

// keep_alive_stream: a client's stream renews each lease it granted every third of the shortest
// TTL, from one member, under a client id of its own; grants stay within the TTL range.
TEST(Workload, KeepAliveStreamsRenewTheClientsLeasesFromOneMember) {
  WorkloadRun run(Profile::kEtcdKv, 3, [](WorkloadOptions& o) {
    o.kv_mix.keep_alive_stream = 1;
    o.kv_mix.lease_ttl_min = 3;
    o.kv_mix.lease_ttl_max = 6;
  });
  std::map<uint32_t, std::set<int64_t>> granted;  // client -> leases
  std::map<uint32_t, std::set<uint32_t>> stream_members;
  std::map<uint32_t, std::vector<sim::TimeNs>> renewals;  // stream -> invoke times
  std::map<std::pair<uint32_t, int64_t>, std::vector<sim::TimeNs>> by_lease;  // (stream, lease) -> times
  for (const auto& op : run.ops()) {
    if (op.request.has_lease_grant()) {
      EXPECT_GE(op.request.lease_grant().ttl(), 3);
      EXPECT_LE(op.request.lease_grant().ttl(), 6);
      if (op.outcome == history::Outcome::kOk) granted[op.client].insert(op.response.lease_grant().id());
    }
    if (op.client < 500'000 || !op.request.has_lease_keep_alive()) continue;
    ASSERT_LE(op.client, 500'004u);
    stream_members[op.client].insert(op.member);
    renewals[op.client].push_back(op.invoke_ns);
    by_lease[{op.client, op.request.lease_keep_alive().id()}].push_back(op.invoke_ns);
  }
  ASSERT_EQ(renewals.size(), 4u);  // every client keeps its leases alive
  for (const auto& [stream, times] : renewals) {
    EXPECT_EQ(stream_members[stream].size(), 1u) << stream;  // the fake members never fail
    ASSERT_GT(times.size(), 10u) << stream;
    EXPECT_GE(times.back() - times.front(), sim::seconds(10));  // renewals go on through the run
  }
  size_t expired = 0;
  for (const auto& [stream_lease, times] : by_lease) {
    if (stream_lease.second % 5 == 0) {
      ++expired;
      EXPECT_EQ(times.size(), 1u) << "a lease answered with TTL 0 is dropped after that answer";
      continue;
    }
    // Rounds a second apart (TTL 3 s / 3): a live lease is renewed every round until revoked.
    for (size_t i = 1; i < times.size(); ++i) EXPECT_LE(times[i] - times[i - 1], sim::milliseconds(1100));
  }
  EXPECT_GT(expired, 0u);
  for (const auto& op : run.ops()) {
    if (op.client < 500'000 || !op.request.has_lease_keep_alive()) continue;
    EXPECT_TRUE(granted[op.client - 500'000].count(op.request.lease_keep_alive().id()))
        << "stream " << op.client << " renewed a lease its client never granted";
  }
}

TEST(Workload, KubernetesPagesAtOneRevisionAndCreatesOnlyAbsentKeys) {
  WorkloadRun run(Profile::kKubernetes);
  const std::set<std::string> got = kinds(run);
  for (const char* k : {"paged-list", "create-if-absent", "cas-mod-revision", "get", "list", "compaction"})
    EXPECT_TRUE(got.count(k)) << k;
  bool continued = false;
  for (size_t i = 1; i < run.ops().size(); ++i) {
    const auto& r = run.ops()[i].request;
    if (!r.has_range() || r.range().limit() == 0 || r.range().revision() == 0) continue;
    continued = true;  // a later page: pinned to its first page's revision, starting past its last key
    EXPECT_EQ(r.range().key().back(), '\0');
  }
  EXPECT_TRUE(continued);
  for (const auto& op : run.ops()) {
    if (kind(op.request) != "create-if-absent") continue;
    EXPECT_EQ(op.request.txn().compare(0).create_revision(), 0);
    EXPECT_EQ(op.request.txn().compare(0).key().rfind("/registry/pods/", 0), 0u);
  }
  // The watchers are informers: a list, then a watch from the list's revision + 1.
  ASSERT_EQ(run.recorder.history().watches.size(), 2u);
  for (const auto& w : run.recorder.history().watches) {
    const history::Operation* list = nullptr;
    for (const auto& op : run.ops())
      if (op.client == w.client && kind(op.request) == "list" && op.return_ns <= w.segments.at(0).created_ns) list = &op;
    ASSERT_NE(list, nullptr) << "watcher " << w.client << " did not list first";
    EXPECT_EQ(w.segments.at(0).request.start_revision(), list->response.range().header().revision() + 1);
  }
}

TEST(Workload, RegisterComparesTheValueItLastRead) {
  WorkloadRun run(Profile::kRegister);
  // (The list is a watcher reading the revision to start near.)
  EXPECT_EQ(kinds(run), (std::set<std::string>{"get", "put", "cas-value", "compaction", "list"}));
  for (const auto& op : run.ops()) {
    if (op.request.has_put()) {
      EXPECT_EQ(op.request.put().key(), "r/" + std::to_string(op.client % 10));
    }
  }
}

// Every request with its client and time, in invocation order.
std::vector<std::string> sequence(const WorkloadRun& run) {
  std::vector<std::string> out;
  for (const auto& op : run.ops())
    out.push_back(std::to_string(op.client) + "@" + std::to_string(op.invoke_ns) + ":" + op.request.SerializeAsString());
  return out;
}

TEST(Workload, ASeedFixesEveryRequestAndItsTime) {
  WorkloadRun a(Profile::kEtcdKv, 17), b(Profile::kEtcdKv, 17), c(Profile::kEtcdKv, 18);
  EXPECT_EQ(sequence(a), sequence(b));
  EXPECT_NE(sequence(a), sequence(c));
}

}  // namespace
}  // namespace dst::client
