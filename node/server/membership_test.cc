// etcd's membership rules on their own: peer URLs, the transport's view of peers, the strict
// reconfiguration checks (each branch of mayAddMember / mayRemoveMember) and apply validation.
#include "node/server/membership.h"

#include <gtest/gtest.h>

namespace dst::node {
namespace {

using sim::seconds;

raftpb::ConfState conf(std::initializer_list<uint64_t> voters, std::initializer_list<uint64_t> learners = {}) {
  raftpb::ConfState cs;
  for (uint64_t v : voters) cs.add_voters(v);
  for (uint64_t l : learners) cs.add_learners(l);
  return cs;
}

raftpb::ConfChange change(raftpb::ConfChangeType type, uint64_t id) {
  raftpb::ConfChange cc;
  cc.set_type(type);
  cc.set_node_id(id);
  return cc;
}

const MemberUrls kUrls(2380);

// Peers heard from every second over [from, to).
PeerActivity heard(std::initializer_list<uint64_t> peers, sim::TimeNs from, sim::TimeNs to) {
  PeerActivity a(seconds(5));
  for (sim::TimeNs t = from; t < to; t += seconds(1))
    for (uint64_t p : peers) a.heard(p, t);
  return a;
}

TEST(Membership, PeerUrls) {
  EXPECT_EQ(*member_id_from_peer_url("http://n4:2380"), 4u);
  EXPECT_EQ(*member_id_from_peer_url(member_peer_url(17, 2380)), 17u);
  for (const char* bad : {"", "http://n:2380", "http://n0:2380", "https://n4:2380", "http://n4", "http://n4:",
                          "http://n4:99999", "http://n4x:2380", "http://host:2380"}) {
    Result<uint64_t> r = member_id_from_peer_url(bad);
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_EQ(r.status().message(), kErrMemberBadUrls) << bad;
  }
}

TEST(Membership, PeerActivityTracksTheCurrentConnection) {
  PeerActivity a(seconds(5));
  EXPECT_FALSE(a.active_since(2, 0));
  a.heard(2, seconds(1));
  a.heard(2, seconds(4));
  EXPECT_EQ(a.active_since(2, seconds(6)), seconds(1));
  EXPECT_FALSE(a.active_since(2, seconds(10)));  // silent longer than the idle bound
  a.heard(2, seconds(12));                       // a new connection
  EXPECT_EQ(a.active_since(2, seconds(12)), seconds(12));
  EXPECT_TRUE(a.ever_heard(2));
  EXPECT_FALSE(a.ever_heard(3));
}

TEST(Membership, MayAddMember) {
  const sim::TimeNs now = seconds(20);
  // Every voter connected for the health interval.
  EXPECT_TRUE(may_add_member(conf({1, 2, 3}), 1, false, heard({2, 3}, 0, now), now).is_ok());
  // One voter connected for less than the interval.
  PeerActivity late = heard({2}, 0, now);
  late.heard(3, now - seconds(2));
  EXPECT_EQ(may_add_member(conf({1, 2, 3}), 1, false, late, now).message(), kErrUnhealthy);
  // Voters never started: 3 voters (1 started) + the new one need 3 started.
  EXPECT_EQ(may_add_member(conf({1, 2, 3}), 1, false, PeerActivity(seconds(5)), now).message(),
            kErrNotEnoughStarted);
  // A learner needs no started quorum, but still every voter connected.
  EXPECT_EQ(may_add_member(conf({1, 2, 3}), 1, true, PeerActivity(seconds(5)), now).message(), kErrUnhealthy);
  // A single-node cluster may add a second member.
  EXPECT_TRUE(may_add_member(conf({1}), 1, false, PeerActivity(seconds(5)), now).is_ok());
}

TEST(Membership, MayRemoveMember) {
  const sim::TimeNs now = seconds(20);
  const PeerActivity all = heard({2, 3}, 0, now);
  EXPECT_TRUE(may_remove_member(conf({1, 2, 3}), 1, 3, all, now).is_ok());
  // A learner: always.
  EXPECT_TRUE(may_remove_member(conf({1, 2, 3}, {4}), 1, 4, PeerActivity(seconds(5)), now).is_ok());
  // Member 3 is down: removing it is safe; removing 2 leaves 1 connected of 2.
  const PeerActivity three_down = heard({2}, 0, now);
  EXPECT_TRUE(may_remove_member(conf({1, 2, 3}), 1, 3, heard({2, 3}, 0, seconds(10)), now).is_ok());
  EXPECT_EQ(may_remove_member(conf({1, 2, 3}), 1, 2, three_down, now).message(), kErrNotEnoughStarted);
  PeerActivity three_was_up = heard({2, 3}, 0, seconds(10));
  for (sim::TimeNs t = seconds(10); t < now; t += seconds(1)) three_was_up.heard(2, t);
  EXPECT_EQ(may_remove_member(conf({1, 2, 3}), 1, 2, three_was_up, now).message(), kErrUnhealthy);
}

TEST(Membership, ValidateAtApply) {
  const raftpb::ConfState cs = conf({1, 2, 3}, {4});
  EXPECT_TRUE(validate_conf_change(change(raftpb::CONF_CHANGE_ADD_NODE, 5), cs, {}, kUrls).is_ok());
  EXPECT_EQ(validate_conf_change(change(raftpb::CONF_CHANGE_ADD_NODE, 2), cs, {}, kUrls).message(), kErrMemberExists);
  EXPECT_EQ(validate_conf_change(change(raftpb::CONF_CHANGE_ADD_NODE, 7), cs, {7}, kUrls).message(), kErrMemberNotFound);
  EXPECT_EQ(validate_conf_change(change(raftpb::CONF_CHANGE_ADD_LEARNER_NODE, 5), cs, {}, kUrls).message(),
            kErrTooManyLearners);
  EXPECT_TRUE(validate_conf_change(change(raftpb::CONF_CHANGE_REMOVE_NODE, 4), cs, {}, kUrls).is_ok());
  EXPECT_EQ(validate_conf_change(change(raftpb::CONF_CHANGE_REMOVE_NODE, 9), cs, {}, kUrls).message(), kErrMemberNotFound);
  raftpb::ConfChange cc = change(raftpb::CONF_CHANGE_REMOVE_NODE, 3);
  cc.set_context(conf_change_context(0x0300000000000123ull));
  EXPECT_EQ(conf_change_request_id(cc), 0x0300000000000123ull);
  cc.set_context("x1");
  EXPECT_FALSE(conf_change_request_id(cc));
  cc.set_context("");
  EXPECT_FALSE(conf_change_request_id(cc));
}

// etcd's UpdateNode: a member of the cluster, URLs no other member has (its own are fine); an
// addition's URLs must be free too. MemberUrls keeps only what differs from the ID's own URL.
TEST(Membership, PeerUrlsOfMembersAddUpdateAndSnapshot) {
  const raftpb::ConfState cs = conf({1, 2, 3}, {4});
  MemberUrls urls(2380);
  EXPECT_EQ(urls.of(2), std::vector<std::string>{"http://n2:2380"});
  urls.set(2, {"http://10.0.0.2:2380", "http://n2:2390"});
  EXPECT_EQ(urls.of(2), (std::vector<std::string>{"http://10.0.0.2:2380", "http://n2:2390"}));
  EXPECT_TRUE(urls.taken({"x", "http://n2:2390"}, cs, 0));
  EXPECT_FALSE(urls.taken({"http://n2:2390"}, cs, 2));
  EXPECT_FALSE(urls.taken({"http://n2:2380"}, cs, 0));  // no longer member 2's
  EXPECT_TRUE(urls.taken({"http://n4:2380"}, cs, 0));   // a learner's
  EXPECT_FALSE(urls.taken({"http://n9:2380"}, cs, 0));  // not a member

  auto update = [](uint64_t id, std::vector<std::string> peer_urls) {
    raftpb::ConfChange cc = change(raftpb::CONF_CHANGE_UPDATE_NODE, id);
    cc.set_context(conf_change_context(5, false, peer_urls));
    return cc;
  };
  EXPECT_EQ(conf_change_peer_urls(update(3, {"a", "b"})), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(conf_change_request_id(update(3, {"a"})), 5u);
  EXPECT_TRUE(validate_conf_change(update(3, {"http://n3:2381"}), cs, {}, urls).is_ok());
  EXPECT_TRUE(validate_conf_change(update(2, {"http://n2:2390"}), cs, {}, urls).is_ok());
  EXPECT_EQ(validate_conf_change(update(3, {"http://n2:2390"}), cs, {}, urls).message(), kErrPeerUrlExists);
  EXPECT_EQ(validate_conf_change(update(9, {"x"}), cs, {}, urls).message(), kErrMemberNotFound);
  EXPECT_EQ(validate_conf_change(update(3, {"x"}), cs, {3}, urls).message(), kErrMemberNotFound);
  EXPECT_EQ(validate_conf_change(update(3, {}), cs, {}, urls).message(), kErrMemberBadUrls);
  EXPECT_EQ(validate_conf_change(update(3, std::vector<std::string>(kPeerUrlsMax + 1, "u")), cs, {}, urls).message(),
            kErrMemberBadUrls);
  raftpb::ConfChange add = change(raftpb::CONF_CHANGE_ADD_NODE, 5);
  add.set_context(conf_change_context(6, false, {"http://n5:2380", "http://n2:2390"}));
  EXPECT_EQ(validate_conf_change(add, cs, {}, urls).message(), kErrPeerUrlExists);

  raftpb::SnapshotMetadata meta;
  urls.set(3, {"http://n3:2380"});  // its own URL: nothing to keep
  urls.save(&meta);
  ASSERT_EQ(meta.member_peer_urls_size(), 1);
  MemberUrls loaded(2380);
  loaded.load(meta);
  EXPECT_EQ(loaded.of(2), urls.of(2));
  urls.erase(2);
  EXPECT_EQ(urls.of(2), std::vector<std::string>{"http://n2:2380"});
}

// etcd's IsReadyToPromoteMember: the learner counts as started; the voters with it need a started
// quorum. Voters {1,2,3} + learner: 4 members, quorum 3; self (1) + learner = 2 started.
TEST(Membership, PromoteNeedsAStartedQuorumWithTheLearner) {
  const sim::TimeNs now = seconds(60);
  EXPECT_EQ(may_promote_member(conf({1, 2, 3}, {4}), 1, PeerActivity(seconds(5))).message(), kErrNotEnoughStarted);
  EXPECT_TRUE(may_promote_member(conf({1, 2, 3}, {4}), 1, heard({2}, 0, now)).is_ok());
  EXPECT_TRUE(may_promote_member(conf({1}, {2}), 1, PeerActivity(seconds(5))).is_ok());
  EXPECT_EQ(may_promote_member(conf({1, 2, 3, 5, 6}, {4}), 1, heard({2}, 0, now)).message(), kErrNotEnoughStarted);
  EXPECT_TRUE(may_promote_member(conf({1, 2, 3, 5, 6}, {4}), 1, heard({2, 3}, 0, now)).is_ok());
}

// etcd's promotion: an ADD_NODE marked IsPromote, valid only for a learner of the cluster.
TEST(Membership, ValidatePromotion) {
  const raftpb::ConfState cs = conf({1, 2, 3}, {4});
  auto promote = [](uint64_t id) {
    raftpb::ConfChange cc = change(raftpb::CONF_CHANGE_ADD_NODE, id);
    cc.set_context(conf_change_context(77, true));
    return cc;
  };
  EXPECT_TRUE(conf_change_promotes(promote(4)));
  EXPECT_EQ(conf_change_request_id(promote(4)), 77u);
  EXPECT_TRUE(validate_conf_change(promote(4), cs, {}, kUrls).is_ok());
  EXPECT_EQ(validate_conf_change(promote(2), cs, {}, kUrls).message(), kErrMemberNotLearner);
  EXPECT_EQ(validate_conf_change(promote(9), cs, {}, kUrls).message(), kErrMemberNotFound);
  EXPECT_EQ(validate_conf_change(promote(4), cs, {4}, kUrls).message(), kErrMemberNotFound);
  raftpb::ConfChange plain = change(raftpb::CONF_CHANGE_ADD_NODE, 4);
  plain.set_context(conf_change_context(77));
  EXPECT_FALSE(conf_change_promotes(plain));
  EXPECT_EQ(validate_conf_change(plain, cs, {}, kUrls).message(), kErrMemberExists);
}

}  // namespace
}  // namespace dst::node
