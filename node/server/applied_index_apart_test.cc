// The bug zoo's applied-index-not-atomic (base/bugs.h) through the KV state machine: a power loss
// between the index's own sync and the batch's commit leaves the member claiming an entry whose
// write is gone; the correct state machine, under the same schedule, applies it again.
#include "node/server/applied_index_apart.h"

#include <gtest/gtest.h>

#include "node/server/kv_state_machine.h"
#include "sim/node_test_world.h"

namespace dst::node {
namespace {

using World = sim::testing::NodeWorld;

raftpb::Entry put_entry(uint64_t index, const std::string& key) {
  etcdserverpb::InternalRequest req;
  req.set_id(index);
  req.mutable_put()->set_key(key);
  req.mutable_put()->set_value("v");
  raftpb::Entry e;
  e.set_index(index);
  e.set_term(1);
  e.set_data(req.SerializeAsString());
  return e;
}

std::unique_ptr<KvStateMachine> open(World& w, Bugs bugs) {
  std::unique_ptr<KvStateMachine> sm;
  w.run([&] {
    KvStateMachineOptions options;
    options.bugs = bugs;
    auto opened = KvStateMachine::open(w.env(), "n1/backend.db", std::move(options));
    ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
    sm = std::move(opened).value();
  });
  return sm;
}

// Applies 1..5 and commits them, then applies 6 without a commit and loses power.
std::unique_ptr<KvStateMachine> apply_then_lose_power(World& w, Bugs bugs) {
  std::unique_ptr<KvStateMachine> sm = open(w, bugs);
  w.run([&] {
    for (uint64_t i = 1; i <= 5; ++i) ASSERT_TRUE(sm->apply(put_entry(i, "k" + std::to_string(i))).is_ok());
    ASSERT_TRUE(sm->backend().commit().is_ok());
    ASSERT_TRUE(sm->apply(put_entry(6, "lost")).is_ok());  // in the open batch only
  });
  w.power_loss();
  sm.reset();  // the dead process's state machine is abandoned without I/O
  return open(w, bugs);
}

bool has_key(World& w, KvStateMachine& sm, const std::string& key) {
  bool found = false;
  w.run([&] {
    auto r = sm.store().range(key, "", mvcc::RangeOptions{});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    found = !r->kvs.empty();
  });
  return found;
}

TEST(AppliedIndexApart, WithTheBugTheIndexRunsAheadOfTheDataAfterAPowerLoss) {
  World w;
  std::unique_ptr<KvStateMachine> sm = apply_then_lose_power(w, Bugs::of(Bug::kAppliedIndexNotAtomic));
  EXPECT_EQ(sm->applied_index(), 6u);  // entry 6 counts as applied...
  EXPECT_EQ(sm->backend().applied_index(), 5u);
  EXPECT_FALSE(has_key(w, *sm, "lost"));  // ...but its write is gone, and Raft will skip it
  w.run([&] { ASSERT_TRUE(sm->apply(put_entry(6, "lost")).is_ok()); });
  EXPECT_FALSE(has_key(w, *sm, "lost"));
  EXPECT_TRUE(has_key(w, *sm, "k5"));
}

TEST(AppliedIndexApart, WithoutTheBugTheEntryIsAppliedAgain) {
  World w;
  std::unique_ptr<KvStateMachine> sm = apply_then_lose_power(w, Bugs());
  EXPECT_EQ(sm->applied_index(), 5u);
  w.run([&] { ASSERT_TRUE(sm->apply(put_entry(6, "lost")).is_ok()); });
  EXPECT_TRUE(has_key(w, *sm, "lost"));
  EXPECT_FALSE(w.disk().exists("n1/backend.db.applied"));  // the correct member keeps no such file
}

TEST(AppliedIndexApart, SaveAndLoad) {
  World w;
  AppliedIndexApart apart(w.fs, "idx");
  w.run([&] {
    EXPECT_FALSE(apart.load().has_value());
    ASSERT_TRUE(apart.save(0x0102030405060708).is_ok());
    EXPECT_EQ(apart.load(), std::optional<uint64_t>(0x0102030405060708));
  });
  w.power_loss();
  w.run([&] { EXPECT_EQ(apart.load(), std::optional<uint64_t>(0x0102030405060708)); });  // synced at once
}

}  // namespace
}  // namespace dst::node
