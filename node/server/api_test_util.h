// The client-API test fixture: a 3-member KV cluster in a KvWorld, a client session running in a
// fiber, and builders for the requests the tests send.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "world/kv_world.h"

namespace dst::node::testing {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using sim::seconds;
using world::KvWorld;
using world::KvWorldOptions;

class ApiTest : public ::testing::Test {
 protected:
  void start(KvWorldOptions o = {}) {
    world_ = std::make_unique<KvWorld>(std::move(o));
    ASSERT_TRUE(world_->await_stable_leader());
    leader_ = *world_->cluster().leader();
    follower_ = (leader_ + 1) % 3;
    other_ = (leader_ + 2) % 3;
  }

  // One unary call to member i, from inside a client fiber.
  ApiResponse call(size_t i, ApiRequest req, sim::DurationNs timeout = seconds(30)) {
    rpc::Connection* c = world_->connection(i);
    EXPECT_NE(c, nullptr);
    if (c == nullptr) return {};
    auto r = c->call(std::move(req), timeout);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? std::move(r).value() : ApiResponse();
  }
  // Runs a client session; the test fails if it does not finish within the bound.
  void session(std::function<void()> body, sim::DurationNs bound = seconds(120)) {
    ASSERT_TRUE(world_->run_client(std::move(body), bound)) << "client session did not finish";
  }

  static ApiRequest put(const std::string& k, const std::string& v) {
    ApiRequest r;
    r.mutable_put()->set_key(k);
    r.mutable_put()->set_value(v);
    return r;
  }
  static ApiRequest get(const std::string& k, bool serializable = false, int64_t rev = 0) {
    ApiRequest r;
    r.mutable_range()->set_key(k);
    r.mutable_range()->set_serializable(serializable);
    r.mutable_range()->set_revision(rev);
    return r;
  }
  static ApiRequest del(const std::string& k, const std::string& end = "") {
    ApiRequest r;
    r.mutable_delete_range()->set_key(k);
    r.mutable_delete_range()->set_range_end(end);
    return r;
  }
  static ApiRequest compact(int64_t rev, bool physical = false) {
    ApiRequest r;
    r.mutable_compaction()->set_revision(rev);
    r.mutable_compaction()->set_physical(physical);
    return r;
  }
  static ApiRequest alarm(etcdserverpb::AlarmRequest::AlarmAction action, uint64_t member = 0,
                          etcdserverpb::AlarmType type = etcdserverpb::NONE) {
    ApiRequest r;
    r.mutable_alarm()->set_action(action);
    r.mutable_alarm()->set_memberid(member);
    r.mutable_alarm()->set_alarm(type);
    return r;
  }
  uint64_t member_id(size_t i) const { return world_->cluster().server(i)->id(); }

  std::unique_ptr<KvWorld> world_;
  size_t leader_ = 0, follower_ = 0, other_ = 0;
};

}  // namespace dst::node::testing
