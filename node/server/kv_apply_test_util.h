// Helpers for tests of the KV apply path (kv_apply.h): request builders, a one-line text of a
// range answer, and a fresh store in a simulated node process.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "node/backend/backend_test_util.h"
#include "node/mvcc/kv_store.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::node::testing {

using etcdserverpb::Compare;

inline std::string kv_text(const mvccpb::KeyValue& kv) {
  std::string s = kv.key() + " c" + std::to_string(kv.create_revision()) + " m" + std::to_string(kv.mod_revision()) +
                  " v" + std::to_string(kv.version());
  if (!kv.value().empty()) s += " =" + kv.value();
  return s;
}

inline std::string range_text(const etcdserverpb::RangeResponse& r) {
  std::string s = "rev " + std::to_string(r.header().revision()) + " count " + std::to_string(r.count());
  if (r.more()) s += " more";
  for (const auto& kv : r.kvs()) s += " [" + kv_text(kv) + "]";
  return s;
}

inline etcdserverpb::PutRequest put_req(const std::string& k, const std::string& v, bool prev = false) {
  etcdserverpb::PutRequest p;
  p.set_key(k);
  p.set_value(v);
  p.set_prev_kv(prev);
  return p;
}

inline etcdserverpb::RangeRequest get_req(const std::string& k, const std::string& end = "") {
  etcdserverpb::RangeRequest r;
  r.set_key(k);
  r.set_range_end(end);
  return r;
}

inline Compare cmp(Compare::CompareTarget target, Compare::CompareResult result, const std::string& key, int64_t n,
                   const std::string& value = "") {
  Compare c;
  c.set_key(key);
  c.set_target(target);
  c.set_result(result);
  switch (target) {
    case Compare::VERSION: c.set_version(n); break;
    case Compare::CREATE: c.set_create_revision(n); break;
    case Compare::MOD: c.set_mod_revision(n); break;
    case Compare::VALUE: c.set_value(value); break;
    case Compare::LEASE: c.set_lease(n); break;
    default: break;
  }
  return c;
}

template <typename F>
void with_store(F body) {
  backend::testing::World w;
  ASSERT_TRUE(w.run([&] {
    auto be = backend::Backend::open(w.env(), "n1/backend.db");
    ASSERT_TRUE(be.is_ok()) << be.status().to_string();
    auto store = mvcc::KvStore::open(**be);
    ASSERT_TRUE(store.is_ok());
    body(**store);
  }));
}

}  // namespace dst::node::testing
