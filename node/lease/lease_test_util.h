// Test support for node/lease: one member's backend, KvStore and Lessor on a simulated disk, opened
// in a node fiber, and the key-value writes the server would apply (validating a put's lease with
// exists() and passing the transaction's events to on_events). Header-only; for tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "node/backend/backend_test_util.h"
#include "node/lease/errors.h"
#include "node/lease/lessor.h"

namespace dst::lease::testing {

using backend::testing::World;

inline constexpr int64_t kSecond = 1'000'000'000;

struct Member {
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<mvcc::KvStore> kv;
  std::unique_ptr<Lessor> lessor;
};

// Opens (or reopens) the member's stores; must run in a fiber of the node process.
inline Member open_member_in_fiber(World& w, LessorOptions options = {},
                                   const std::string& path = backend::testing::kPath) {
  Member m;
  auto be = backend::Backend::open(w.env(), path);
  EXPECT_TRUE(be.is_ok()) << be.status().to_string();
  if (!be.is_ok()) return m;
  m.backend = std::move(*be);
  auto kv = mvcc::KvStore::open(*m.backend);
  EXPECT_TRUE(kv.is_ok()) << kv.status().to_string();
  if (!kv.is_ok()) return m;
  m.kv = std::move(*kv);
  auto lessor = Lessor::open(*m.backend, *m.kv, options);
  EXPECT_TRUE(lessor.is_ok()) << lessor.status().to_string();
  if (lessor.is_ok()) m.lessor = std::move(*lessor);
  return m;
}

inline Member open_member(World& w, LessorOptions options = {}) {
  Member m;
  w.run([&] { m = open_member_in_fiber(w, options); });
  return m;
}

// Applies a Put as the server does: the lease must exist, then the store writes and the lessor
// follows the transaction's events.
inline Status put(Member& m, const std::string& key, const std::string& value, int64_t lease = 0) {
  if (lease != 0 && !m.lessor->exists(lease)) return lease_not_found();
  mvcc::WriteTxn txn = m.kv->write();
  auto prev = txn.put(key, value, lease);
  if (!prev.is_ok()) return prev.status();
  txn.end();
  m.lessor->on_events(txn.events());
  return Status::ok();
}

inline Status del(Member& m, const std::string& key, const std::string& end = "") {
  mvcc::WriteTxn txn = m.kv->write();
  auto deleted = txn.delete_range(key, end);
  if (!deleted.is_ok()) return deleted.status();
  txn.end();
  m.lessor->on_events(txn.events());
  return Status::ok();
}

// Live keys of the store, in key order.
inline std::vector<std::string> live_keys(Member& m) {
  auto r = m.kv->range("", std::string(1, '\0'), {});
  EXPECT_TRUE(r.is_ok());
  std::vector<std::string> keys;
  if (r.is_ok()) {
    for (const auto& kv : r->kvs) keys.push_back(kv.key());
  }
  return keys;
}

// Everything the lessor answers about its replicated state, as one comparable string:
// "id:ttl[keys] ..." plus the key->lease map.
inline std::string describe(const Lessor& l) {
  std::string s;
  for (int64_t id : l.leases()) {
    TimeToLive t = l.time_to_live(id, 0, /*with_keys=*/true);
    s += std::to_string(id) + ":" + std::to_string(t.granted_ttl_seconds) + "[";
    for (size_t i = 0; i < t.keys.size(); ++i) {
      s += (i ? "," : "") + t.keys[i];
      EXPECT_EQ(l.lease_of(t.keys[i]), id);
    }
    s += "] ";
  }
  return s;
}

}  // namespace dst::lease::testing
