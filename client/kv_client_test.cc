// The KV client's honest outcomes and its retry rules, against scripted members: an answer is ok,
// an etcd refusal is failed, silence or a broken connection makes a write unknown and a read
// failed, Unavailable from the member makes a write unknown; a client moves on to the next member
// only when it is not pinned, and only where nothing was sent or the member is gone.
#include "client/kv_client.h"

#include <gtest/gtest.h>

#include "client/fake_member_test_util.h"

namespace dst::client {
namespace {

using testing::FakeMembers;
using testing::get_request;
using testing::put_answer;
using testing::put_request;
using testing::Reply;
using testing::run_client;

constexpr int32_t kUnavailable = 14;
constexpr int32_t kInvalidArgument = 3;

etcdserverpb::ApiRequest txn(bool with_write_in_failure) {
  etcdserverpb::ApiRequest r;
  auto* t = r.mutable_txn();
  t->add_success()->mutable_request_range()->set_key("a");
  if (with_write_in_failure) t->add_failure()->mutable_request_put()->set_key("a");
  return r;
}

TEST(KvClientRules, WhatCountsAsAWrite) {
  EXPECT_TRUE(is_write(put_request("k", "v")));
  EXPECT_FALSE(is_write(get_request("k")));
  EXPECT_FALSE(is_write(txn(false)));  // reads on both branches
  EXPECT_TRUE(is_write(txn(true)));    // a write on the failure branch is still a write
  etcdserverpb::ApiRequest compact;
  compact.mutable_compaction()->set_revision(3);
  EXPECT_TRUE(is_write(compact));
  etcdserverpb::ApiRequest status;
  status.mutable_status();
  EXPECT_FALSE(is_write(status));
}

TEST(KvClientRules, AnsweredOutcomes) {
  etcdserverpb::ApiResponse unavailable = Reply::error(kUnavailable, "etcdserver: request timed out").response;
  etcdserverpb::ApiResponse invalid = Reply::error(kInvalidArgument, "etcdserver: key is not provided").response;
  EXPECT_EQ(classify(put_request("k", "v"), put_answer(2)), history::Outcome::kOk);
  EXPECT_EQ(classify(put_request("k", "v"), unavailable), history::Outcome::kUnknown);  // may still apply
  EXPECT_EQ(classify(get_request("k"), unavailable), history::Outcome::kFailed);        // a read changes nothing
  EXPECT_EQ(classify(put_request("k", "v"), invalid), history::Outcome::kFailed);       // refused: no effect
}

struct Fixture {
  sim::Simulator sim{5};
  FakeMembers members{sim, 3};
  history::MemoryRecorder recorder;

  KvClientOptions options(bool pinned, size_t member, sim::DurationNs timeout = sim::seconds(1)) {
    KvClientOptions o;
    o.id = 7;
    o.members = members.addresses();
    o.pinned = pinned;
    o.pinned_member = member;
    o.timeout = timeout;
    return o;
  }
  const history::Operation& op(size_t i) { return recorder.history().operations.at(i); }
};

TEST(KvClient, AnAnswerIsRecordedAtBothEndsWithTheMemberItWentTo) {
  Fixture f;
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::answer(put_answer(9)); });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(/*pinned=*/true, 1), f.recorder);
    (void)f.sim.sleep(sim::milliseconds(10));
    history::Operation op = c.execute(put_request("k", "v"));
    EXPECT_EQ(op.outcome, history::Outcome::kOk);
    EXPECT_EQ(op.response.put().header().revision(), 9);
  });
  ASSERT_EQ(f.recorder.history().operations.size(), 1u);
  EXPECT_EQ(f.op(0).client, 7u);
  EXPECT_EQ(f.op(0).member, 2u);  // 1-based
  EXPECT_EQ(f.op(0).outcome, history::Outcome::kOk);
  EXPECT_GT(f.op(0).return_ns, f.op(0).invoke_ns);
  EXPECT_EQ(f.members.received(1).size(), 1u);
}

// A stalled application (faults' client_stall): an answer that arrives during the stall is read,
// and its operation completes, only when the stall ends; a stall in force sends nothing.
TEST(KvClient, AStallDelaysTheCompletionOfTheRequestInFlightAndTheNextSend) {
  Fixture f;
  sim::TimeNs stalled_until = 0;
  sim::TimeNs answered_at = 0;
  f.members.start(0, [&](size_t, const etcdserverpb::ApiRequest&) {
    if (answered_at == 0) {
      answered_at = f.sim.now();
      stalled_until = f.sim.now() + sim::seconds(3);  // the client pauses while the answer travels
    }
    return Reply::answer(put_answer(9));
  });
  run_client(f.sim, [&] {
    KvClientOptions o = f.options(/*pinned=*/true, 0, sim::seconds(1));
    o.stalled_until = &stalled_until;
    KvClient c(f.sim, o, f.recorder);
    history::Operation first = c.execute(put_request("k", "v1"));
    EXPECT_EQ(first.outcome, history::Outcome::kOk);  // read late, not timed out
    stalled_until = f.sim.now() + sim::seconds(2);
    (void)c.execute(put_request("k", "v2"));
  });
  ASSERT_EQ(f.recorder.history().operations.size(), 2u);
  EXPECT_LT(f.op(0).invoke_ns, answered_at);
  EXPECT_GE(f.op(0).return_ns, answered_at + sim::seconds(3));
  EXPECT_GE(f.op(1).invoke_ns, f.op(0).return_ns + sim::seconds(2));  // nothing sent meanwhile
  EXPECT_EQ(f.members.received(0).size(), 2u);
}

TEST(KvClient, SilenceMakesAWriteUnknownAndAReadFailedThenAFreshConnection) {
  Fixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    return r.has_put() ? Reply::silence() : Reply::answer(etcdserverpb::ApiResponse());
  });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(true, 0, sim::milliseconds(500)), f.recorder);
    const sim::TimeNs sent = f.sim.now();
    EXPECT_EQ(c.execute(put_request("k", "v")).outcome, history::Outcome::kUnknown);
    EXPECT_GE(f.sim.now() - sent, sim::milliseconds(500));  // waited the whole timeout
    EXPECT_EQ(c.execute(get_request("k")).outcome, history::Outcome::kOk);
  });
  EXPECT_EQ(f.op(0).response.error().code(), kUnavailable);
  EXPECT_EQ(f.members.received(0).size(), 2u);
}

TEST(KvClient, AReadWithoutAnAnswerFailed) {
  Fixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::silence(); });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(true, 0, sim::milliseconds(300)), f.recorder);
    EXPECT_EQ(c.execute(get_request("k")).outcome, history::Outcome::kFailed);
  });
}

TEST(KvClient, UnavailableFromTheMemberIsUnknownForAWriteAndARefusalFailed) {
  Fixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (r.put().key() == "bad") return Reply::error(kInvalidArgument, "etcdserver: request is too large");
    return Reply::error(kUnavailable, "etcdserver: no leader");
  });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(true, 0), f.recorder);
    EXPECT_EQ(c.execute(put_request("k", "v")).outcome, history::Outcome::kUnknown);
    EXPECT_EQ(c.execute(put_request("bad", "v")).outcome, history::Outcome::kFailed);
  });
}

TEST(KvClient, NothingListeningIsFailedAndAPinnedClientStaysPut) {
  Fixture f;
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::answer(put_answer(2)); });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(true, 0), f.recorder);
    for (int i = 0; i < 2; ++i) {
      history::Operation op = c.execute(put_request("k", "v"));
      EXPECT_EQ(op.outcome, history::Outcome::kFailed);  // nothing was sent: certainly no effect
      EXPECT_EQ(op.member, 1u);
    }
    EXPECT_EQ(c.member(), 0u);
  });
  EXPECT_TRUE(f.members.received(1).empty());
}

TEST(KvClient, AnUnpinnedClientTriesTheNextMemberWhenOneCannotBeReached) {
  Fixture f;
  f.members.start(2, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::answer(put_answer(4)); });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(false, 0), f.recorder);
    history::Operation op = c.execute(put_request("k", "v"));
    EXPECT_EQ(op.outcome, history::Outcome::kOk);
    EXPECT_EQ(op.member, 3u);  // members 1 and 2 refused the connection
  });
}

TEST(KvClient, ABrokenConnectionMakesTheWriteUnknownAndMovesAnUnpinnedClientOn) {
  Fixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::die(); });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::answer(put_answer(6)); });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(false, 0, sim::seconds(30)), f.recorder);
    history::Operation first = c.execute(put_request("k", "v"));
    EXPECT_EQ(first.outcome, history::Outcome::kUnknown);  // it was sent: it may have been applied
    EXPECT_EQ(first.member, 1u);
    EXPECT_LT(first.return_ns - first.invoke_ns, sim::seconds(30));  // the reset, not the timeout
    history::Operation second = c.execute(put_request("k", "v2"));
    EXPECT_EQ(second.outcome, history::Outcome::kOk);
    EXPECT_EQ(second.member, 2u);
  });
}

TEST(KvClient, RoundRobinSendsEachRequestToTheNextMember) {
  Fixture f;
  for (size_t i = 0; i < 3; ++i)
    f.members.start(i, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::answer(put_answer(2)); });
  run_client(f.sim, [&] {
    KvClientOptions o = f.options(false, 0);
    o.balance = Balance::kRoundRobin;
    KvClient c(f.sim, o, f.recorder);
    std::vector<uint32_t> members;
    for (int i = 0; i < 6; ++i) members.push_back(c.execute(put_request("k", "v")).member);
    EXPECT_EQ(members, (std::vector<uint32_t>{2, 3, 1, 2, 3, 1}));
  });
}

TEST(KvClient, NoMemberToTalkToBacksOffDoublingUpToItsBound) {
  Fixture f;  // no member started: every connection is refused
  run_client(f.sim, [&] {
    KvClientOptions o = f.options(true, 0);
    o.backoff_base = sim::milliseconds(25);
    o.backoff_max = sim::milliseconds(100);
    KvClient c(f.sim, o, f.recorder);
    std::vector<sim::TimeNs> sent;
    for (int i = 0; i < 5; ++i) sent.push_back(c.execute(put_request("k", "v")).invoke_ns);
    // Between two requests: the backoff (25, 50, 100, 100 ms) and the refused handshake's round trip.
    const std::vector<sim::DurationNs> backoffs = {sim::milliseconds(25), sim::milliseconds(50), sim::milliseconds(100),
                                                   sim::milliseconds(100)};
    for (size_t i = 1; i < sent.size(); ++i) {
      EXPECT_GE(sent[i] - sent[i - 1], backoffs[i - 1]) << i;
      EXPECT_LT(sent[i] - sent[i - 1], backoffs[i - 1] + sim::milliseconds(5)) << i;
    }
  });
  EXPECT_EQ(f.recorder.history().operations.size(), 5u);  // each one recorded, failed
}

TEST(KvClient, APinnedClientKeepsItsMemberAfterABreak) {
  Fixture f;
  int seen = 0;
  f.members.start(0, [&seen](size_t, const etcdserverpb::ApiRequest&) {
    return ++seen == 1 ? Reply::close_connection() : Reply::answer(put_answer(3));
  });
  run_client(f.sim, [&] {
    KvClient c(f.sim, f.options(true, 0), f.recorder);
    EXPECT_EQ(c.execute(put_request("k", "v")).outcome, history::Outcome::kUnknown);
    history::Operation again = c.execute(put_request("k", "v"));
    EXPECT_EQ(again.outcome, history::Outcome::kOk);  // reconnected to the same member
    EXPECT_EQ(again.member, 1u);
  });
}

}  // namespace
}  // namespace dst::client
