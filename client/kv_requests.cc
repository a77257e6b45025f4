#include "client/kv_requests.h"
#include "base/key_range.h"

#include "base/assert.h"

namespace dst::client {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;

std::string prefix_end(std::string prefix) {
  // The workload's prefixes never end in 0xff: their end is the prefix with its last byte raised.
  DST_ASSERT(!prefix.empty() && static_cast<uint8_t>(prefix.back()) != 0xff);
  return prefix_range_end(prefix);
}

ApiRequest get(const std::string& key, bool serializable) {
  ApiRequest r;
  r.mutable_range()->set_key(key);
  r.mutable_range()->set_serializable(serializable);
  return r;
}

ApiRequest list(const std::string& prefix, int64_t limit, int64_t revision, const std::string& from) {
  ApiRequest r;
  r.mutable_range()->set_key(from.empty() ? prefix : from);
  r.mutable_range()->set_range_end(prefix_end(prefix));
  r.mutable_range()->set_limit(limit);
  r.mutable_range()->set_revision(revision);
  return r;
}

ApiRequest put(const std::string& key, const std::string& value, int64_t lease) {
  ApiRequest r;
  r.mutable_put()->set_key(key);
  r.mutable_put()->set_value(value);
  r.mutable_put()->set_lease(lease);
  return r;
}

ApiRequest del(const std::string& key) {
  ApiRequest r;
  r.mutable_delete_range()->set_key(key);
  return r;
}

Compare* compare(etcdserverpb::TxnRequest* t, const std::string& key, Compare::CompareTarget target,
                 Compare::CompareResult result) {
  Compare* c = t->add_compare();
  c->set_key(key);
  c->set_target(target);
  c->set_result(result);
  return c;
}

ApiRequest guarded(const std::string& key, int64_t mod_revision, etcdserverpb::RequestOp then) {
  ApiRequest r;
  auto* t = r.mutable_txn();
  if (mod_revision == 0) {
    compare(t, key, Compare::CREATE, Compare::EQUAL)->set_create_revision(0);
  } else {
    compare(t, key, Compare::MOD, Compare::EQUAL)->set_mod_revision(mod_revision);
  }
  *t->add_success() = std::move(then);
  t->add_failure()->mutable_request_range()->set_key(key);
  return r;
}

etcdserverpb::RequestOp put_op(const std::string& key, const std::string& value) {
  etcdserverpb::RequestOp op;
  op.mutable_request_put()->set_key(key);
  op.mutable_request_put()->set_value(value);
  return op;
}

etcdserverpb::RequestOp delete_op(const std::string& key) {
  etcdserverpb::RequestOp op;
  op.mutable_request_delete_range()->set_key(key);
  return op;
}

int64_t mod_revision_of(const history::Operation& op) {
  if (op.outcome != history::Outcome::kOk || op.response.range().kvs_size() == 0) return 0;
  return op.response.range().kvs(0).mod_revision();
}

}  // namespace dst::client
