// Randomized check of the lessor against a small model over many seeds: random grants, revokes,
// puts with and without leases, deletes, time passing, promotions, keep-alives, expiry scans,
// commits and crashes. After every step the lessor, the store's keys and its revision must equal
// the model; after a crash both fall back to the last commit and the member is a follower again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "base/limits.h"
#include "node/lease/lease_test_util.h"
#include "node/lease/lessor.h"

namespace dst::lease {
namespace {

using testing::del;
using testing::describe;
using testing::kSecond;
using testing::live_keys;
using testing::Member;
using testing::open_member;
using testing::put;
using testing::World;

// splitmix64: tiny, fully specified, the same on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [lo, hi] for a test (the modulo bias is irrelevant at these sizes).
  int64_t in(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }

 private:
  uint64_t state_;
};

constexpr int64_t kRetryNs = 3 * kSecond;
constexpr int64_t kMinTtl = 2;

struct Model {
  struct Lease {
    int64_t ttl = 0;
    int64_t expiry = kNeverNs;
    int64_t due = kNeverNs;
  };
  std::map<int64_t, Lease> leases;
  std::map<std::string, int64_t> keys;  // live key -> lease (0: none)
  int64_t rev = 1;
  bool primary = false;

  std::string describe() const {
    std::string s;
    for (const auto& [id, lease] : leases) {
      s += std::to_string(id) + ":" + std::to_string(lease.ttl) + "[";
      bool first = true;
      for (const auto& [key, owner] : keys) {
        if (owner != id) continue;
        s += (first ? "" : ",") + key;
        first = false;
      }
      s += "] ";
    }
    return s;
  }
  void demote() {
    primary = false;
    for (auto& [id, lease] : leases) lease.expiry = lease.due = kNeverNs;
  }
  void set_expiry(Lease& lease, int64_t expiry) { lease.expiry = lease.due = expiry; }
};

std::string key_name(int64_t i) { return "k" + std::to_string(i); }

// How often the interesting paths ran, over all seeds: a model test that never revokes a lease
// with keys or never sees an expiry proves little.
struct Coverage {
  int revokes_with_keys = 0;
  int leases_moved = 0;
  int expired_reported = 0;
  int expired_reported_again = 0;
  int renewals = 0;
  int renew_refused_expired = 0;
  int crashes_losing_writes = 0;
};

// One random step applied to both; returns a description for failure messages.
std::string step(SplitMix64& rng, Member& m, Model& model, int64_t& now, Coverage& cov) {
  Lessor& l = *m.lessor;
  const int64_t id = rng.in(1, 6);
  switch (rng.in(0, 10)) {
    case 0: {  // grant
      int64_t ttl = rng.in(-1, 12);
      if (rng.in(0, 30) == 0) ttl = limits::kLeaseTtlSecondsMax + 1;
      auto got = l.grant(id, ttl, now);
      if (ttl > limits::kLeaseTtlSecondsMax) {
        EXPECT_EQ(got.status().message(), kErrLeaseTtlTooLarge);
      } else if (model.leases.count(id)) {
        EXPECT_EQ(got.status().message(), kErrLeaseExists);
      } else {
        Model::Lease& lease = model.leases[id];
        lease.ttl = std::max(ttl, kMinTtl);
        if (model.primary) model.set_expiry(lease, now + lease.ttl * kSecond);
        EXPECT_TRUE(got.is_ok());
        if (got.is_ok()) {
          EXPECT_EQ(*got, lease.ttl);
        }
      }
      return "grant " + std::to_string(id) + " ttl " + std::to_string(ttl);
    }
    case 1: {  // revoke
      Status s = l.revoke(id);
      if (!model.leases.count(id)) {
        EXPECT_EQ(s.message(), kErrLeaseNotFound);
      } else {
        EXPECT_TRUE(s.is_ok()) << s.to_string();
        const size_t before = model.keys.size();
        std::erase_if(model.keys, [&](const auto& kv) { return kv.second == id; });
        if (model.keys.size() != before) {
          ++model.rev;
          ++cov.revokes_with_keys;
        }
        model.leases.erase(id);
      }
      return "revoke " + std::to_string(id);
    }
    case 2:
    case 3: {  // put, with a lease most of the time
      const std::string key = key_name(rng.in(0, 7));
      const int64_t lease = rng.in(0, 2) == 0 ? 0 : id;
      Status s = put(m, key, "v", lease);
      if (lease != 0 && !model.leases.count(lease)) {
        EXPECT_EQ(s.message(), kErrLeaseNotFound);
      } else {
        EXPECT_TRUE(s.is_ok()) << s.to_string();
        auto old = model.keys.find(key);
        if (old != model.keys.end() && old->second != 0 && lease != 0 && old->second != lease) ++cov.leases_moved;
        model.keys[key] = lease;
        ++model.rev;
      }
      return "put " + key + " lease " + std::to_string(lease);
    }
    case 4: {  // delete one key or a range
      const int64_t a = rng.in(0, 7);
      const int64_t b = rng.in(0, 1) ? 0 : rng.in(a + 1, 8);
      EXPECT_TRUE(del(m, key_name(a), b ? key_name(b) : "").is_ok());
      const size_t before = model.keys.size();
      std::erase_if(model.keys, [&](const auto& kv) {
        return b ? kv.first >= key_name(a) && kv.first < key_name(b) : kv.first == key_name(a);
      });
      if (model.keys.size() != before) ++model.rev;
      return "delete " + key_name(a) + (b ? ".." + key_name(b) : "");
    }
    case 5:  // time passes
      now += rng.in(0, 4000) * 1'000'000;
      return "now " + std::to_string(now);
    case 6: {  // leadership changes
      if (model.primary && rng.in(0, 1)) {
        l.demote();
        model.demote();
        return "demote";
      }
      const int64_t extend = rng.in(0, 2) * kSecond;
      l.promote(now, extend);
      model.primary = true;
      for (auto& [lid, lease] : model.leases) model.set_expiry(lease, now + lease.ttl * kSecond + extend);
      return "promote extend " + std::to_string(extend);
    }
    case 7: {  // keep-alive
      auto got = l.renew(id, now);
      auto it = model.leases.find(id);
      if (!model.primary) {
        EXPECT_EQ(got.status().message(), kErrNotPrimary);
      } else if (it == model.leases.end()) {
        EXPECT_EQ(got.status().message(), kErrLeaseNotFound);
      } else if (now >= it->second.expiry) {
        EXPECT_EQ(got.status().message(), kErrLeaseExpired);
        ++cov.renew_refused_expired;
      } else {
        ++cov.renewals;
        model.set_expiry(it->second, now + it->second.ttl * kSecond);
        EXPECT_TRUE(got.is_ok());
        if (got.is_ok()) {
          EXPECT_EQ(*got, it->second.ttl);
        }
      }
      return "renew " + std::to_string(id);
    }
    case 8: {  // expiry scan
      const size_t max = static_cast<size_t>(rng.in(1, 3));
      std::vector<std::pair<int64_t, int64_t>> due;  // (due, id)
      if (model.primary) {
        for (const auto& [lid, lease] : model.leases) {
          if (lease.due <= now) due.emplace_back(lease.due, lid);
        }
      }
      std::sort(due.begin(), due.end());
      if (due.size() > max) due.resize(max);
      std::vector<int64_t> want;
      for (const auto& [at, lid] : due) {
        ++(at == model.leases[lid].expiry ? cov.expired_reported : cov.expired_reported_again);
        want.push_back(lid);
        model.leases[lid].due = now + kRetryNs;
      }
      std::sort(want.begin(), want.end());
      EXPECT_EQ(l.expired(now, max), want);
      return "expired max " + std::to_string(max);
    }
    case 9: {  // time to live
      TimeToLive got = l.time_to_live(id, now, true);
      auto it = model.leases.find(id);
      if (it == model.leases.end()) {
        EXPECT_EQ(got.ttl_seconds, -1);
      } else {
        const int64_t expiry = it->second.expiry;
        EXPECT_EQ(got.ttl_seconds, (expiry == kNeverNs ? kNeverNs : expiry - now) / kSecond);
        EXPECT_EQ(got.granted_ttl_seconds, it->second.ttl);
      }
      return "ttl " + std::to_string(id);
    }
    default:
      return "";  // commits and crashes are done by the caller, outside the fiber
  }
}

void check(Member& m, const Model& model) {
  EXPECT_EQ(describe(*m.lessor), model.describe());
  std::vector<std::string> keys;
  for (const auto& [key, lease] : model.keys) {
    keys.push_back(key);
    EXPECT_EQ(m.lessor->lease_of(key), lease) << key;
  }
  EXPECT_EQ(live_keys(m), keys);
  EXPECT_EQ(m.kv->rev(), model.rev);
  EXPECT_EQ(m.lessor->primary(), model.primary);
  for (const auto& [id, lease] : model.leases) EXPECT_EQ(m.lessor->expiry_of(id), lease.expiry) << id;
  m.lessor->check_invariants();
}

void run_seed(uint64_t seed, Coverage& cov) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  SplitMix64 rng(seed);
  World w(seed);
  const LessorOptions options{.min_ttl_seconds = kMinTtl, .expired_retry_ns = kRetryNs};
  Member m = open_member(w, options);
  ASSERT_NE(m.lessor, nullptr);
  Model model;
  Model committed = model;
  int64_t now = 0;
  for (int i = 0; i < 400; ++i) {
    const int64_t choice = rng.in(0, 79);
    if (choice < 4) {  // commit: what a crash keeps from now on
      w.run([&] { ASSERT_TRUE(m.backend->commit().is_ok()); });
      committed = model;
      continue;
    }
    if (choice == 4) {  // crash: the open batch is lost, leadership too
      if (model.rev != committed.rev || model.leases.size() != committed.leases.size()) {
        ++cov.crashes_losing_writes;
      }
      w.process_crash();
      m = Member{};
      m = open_member(w, options);
      ASSERT_NE(m.lessor, nullptr);
      model = committed;
      model.demote();
      w.run([&] { check(m, model); });
      continue;
    }
    std::string what;
    w.run([&] {
      what = step(rng, m, model, now, cov);
      SCOPED_TRACE("step " + std::to_string(i) + ": " + what);
      check(m, model);
    });
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "first failure at step " << i << ": " << what;
      return;
    }
  }
}

TEST(LessorModel, MatchesTheModelOverManySeeds) {
  Coverage cov;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    run_seed(seed, cov);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(cov.revokes_with_keys, 100);
  EXPECT_GT(cov.leases_moved, 100);
  EXPECT_GT(cov.expired_reported, 100);
  EXPECT_GT(cov.expired_reported_again, 10);
  EXPECT_GT(cov.renewals, 100);
  EXPECT_GT(cov.renew_refused_expired, 10);
  EXPECT_GT(cov.crashes_losing_writes, 50);
  std::printf("coverage: revokes with keys %d, leases moved %d, expired %d (again %d), renewals %d "
              "(refused %d), crashes losing writes %d\n",
              cov.revokes_with_keys, cov.leases_moved, cov.expired_reported, cov.expired_reported_again,
              cov.renewals, cov.renew_refused_expired, cov.crashes_losing_writes);
}

}  // namespace
}  // namespace dst::lease
