#include "client/etcd_kv_turn.h"

#include <array>

#include "base/assert.h"
#include "client/kv_requests.h"

namespace dst::client {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;
using etcdserverpb::RangeRequest;

std::string random_key(size_t keys, sim::Rng& rng) { return "key/" + std::to_string(rng.uniform_u64(keys)); }

ApiRequest draw_put(const KvMix& m, const std::string& key, const std::string& value, int64_t lease, sim::Rng& rng) {
  ApiRequest r = put(key, value, lease);
  auto* p = r.mutable_put();
  if (rng.bernoulli(m.put_prev_kv)) p->set_prev_kv(true);
  if (rng.bernoulli(m.put_ignore_value)) {  // keep the key's value (fails if the key is absent)
    p->set_ignore_value(true);
    p->clear_value();
  }
  if (rng.bernoulli(m.put_ignore_lease)) {  // keep the key's lease
    p->set_ignore_lease(true);
    p->clear_lease();
  }
  return r;
}

ApiRequest draw_delete(const KvMix& m, size_t keys, sim::Rng& rng) {
  ApiRequest r = del(random_key(keys, rng));
  auto* d = r.mutable_delete_range();
  if (rng.bernoulli(m.del_range)) d->set_range_end(d->key() + "~");  // the key and every "key/N<suffix>"
  if (rng.bernoulli(m.del_prev_kv)) d->set_prev_kv(true);
  return r;
}

// A read-only txn nested in another: its branch is decided before the outer txn writes (etcd's
// compareToPath), so it reads `other` if `key` existed before the txn, else `key`. Read-only: a
// nested write to a key the outer txn writes is refused as a duplicate key.
etcdserverpb::RequestOp nested_read(const std::string& key, const std::string& other) {
  etcdserverpb::RequestOp op;
  auto* t = op.mutable_request_txn();
  compare(t, key, Compare::VERSION, Compare::GREATER)->set_version(0);
  t->add_success()->mutable_request_range()->set_key(other);
  t->add_failure()->mutable_request_range()->set_key(key);
  return op;
}

// A multi-op txn: if `key` exists, put it and delete `other`; else put `other` (and sometimes read).
ApiRequest draw_txn(const KvMix& m, const std::string& key, const std::string& other, const std::string& value,
                    sim::Rng& rng) {
  ApiRequest r;
  auto* t = r.mutable_txn();
  compare(t, key, Compare::VERSION, Compare::GREATER)->set_version(0);
  if (rng.bernoulli(m.txn_lease_compare)) compare(t, other, Compare::LEASE, Compare::EQUAL)->set_lease(0);
  *t->add_success() = put_op(key, value);
  if (other != key) *t->add_success() = delete_op(other);
  if (rng.bernoulli(m.txn_then_read)) t->add_success()->mutable_request_range()->set_key(key);  // its own write
  if (rng.bernoulli(m.txn_nested)) *t->add_success() = nested_read(key, other);
  *t->add_failure() = put_op(other, value);
  if (rng.bernoulli(m.txn_else_read)) t->add_failure()->mutable_request_range()->set_key(key);
  return r;
}

// Compare-and-set on the value: read, then write only if the value is still what was read.
void cas_value(const std::string& key, const std::string& value, const RunRequest& run) {
  history::Operation read = run(get(key));
  if (read.outcome != history::Outcome::kOk) return;
  ApiRequest r;
  auto* t = r.mutable_txn();
  if (read.response.range().kvs_size() == 0) {
    compare(t, key, Compare::CREATE, Compare::EQUAL)->set_create_revision(0);
  } else {
    compare(t, key, Compare::VALUE, Compare::EQUAL)->set_value(read.response.range().kvs(0).value());
  }
  *t->add_success() = put_op(key, value);
  t->add_failure()->mutable_request_range()->set_key(key);
  run(r);
}

// Lease work: grant, revoke, keep-alive or time-to-live of one of this client's leases.
void lease_turn(const KvMix& m, size_t kind, sim::Rng& rng, const RunRequest& run, ClientState& s) {
  ApiRequest r;
  if (kind == 0 || s.leases.empty()) {
    DST_ASSERT(m.lease_ttl_min >= 1 && m.lease_ttl_min <= m.lease_ttl_max);
    r.mutable_lease_grant()->set_ttl(
        m.lease_ttl_min + static_cast<int64_t>(rng.uniform_u64(static_cast<uint64_t>(m.lease_ttl_max - m.lease_ttl_min) + 1)));
    history::Operation op = run(r);
    if (op.outcome == history::Outcome::kOk && s.leases.size() < 8) s.leases.push_back(op.response.lease_grant().id());
    return;
  }
  const int64_t lease = s.leases[rng.uniform_u64(s.leases.size())];
  if (kind == 1) {
    r.mutable_lease_revoke()->set_id(s.leases.back());
    s.leases.pop_back();
  } else if (kind == 2) {
    r.mutable_lease_keep_alive()->set_id(lease);
  } else {
    r.mutable_lease_time_to_live()->set_id(lease);
    r.mutable_lease_time_to_live()->set_keys(rng.bernoulli(0.5));
  }
  run(r);
}

}  // namespace

ApiRequest draw_scan(const KvMix& m, size_t keys, sim::Rng& rng, int64_t last_revision) {
  ApiRequest r = list("key/");
  RangeRequest* q = r.mutable_range();
  if (rng.bernoulli(m.scan_sub_range)) {
    const uint64_t a = rng.uniform_u64(keys), b = rng.uniform_u64(keys);
    q->set_key("key/" + std::to_string(std::min(a, b)));
    q->set_range_end("key/" + std::to_string(std::max(a, b)) + "~");
  }
  if (rng.bernoulli(m.scan_limit)) q->set_limit(static_cast<int64_t>(1 + rng.uniform_u64(keys)));
  if (rng.bernoulli(m.scan_sort)) {
    q->set_sort_target(static_cast<RangeRequest::SortTarget>(rng.uniform_u64(5)));  // KEY..VALUE
    q->set_sort_order(static_cast<RangeRequest::SortOrder>(rng.uniform_u64(3)));    // NONE..DESCEND
  }
  if (rng.bernoulli(m.scan_keys_only)) q->set_keys_only(true);
  if (rng.bernoulli(m.scan_count_only)) q->set_count_only(true);
  if (rng.bernoulli(m.scan_serializable)) q->set_serializable(true);
  if (last_revision > 1 && rng.bernoulli(m.scan_filter)) {
    const int64_t at = rng.uniform_int(1, last_revision);
    switch (rng.uniform_u64(4)) {
      case 0: q->set_min_mod_revision(at); break;
      case 1: q->set_max_mod_revision(at); break;
      case 2: q->set_min_create_revision(at); break;
      default: q->set_max_create_revision(at); break;
    }
  }
  // A little behind the newest revision seen: mostly still there, sometimes compacted away.
  if (last_revision > 1 && rng.bernoulli(m.scan_past_revision))
    q->set_revision(std::max<int64_t>(1, last_revision - static_cast<int64_t>(rng.uniform_u64(30))));
  return r;
}

void etcd_kv_turn(const KvMix& m, size_t keys, sim::Rng& rng, const RunRequest& run, ClientState& s,
                  const std::string& value) {
  const std::string key = random_key(keys, rng);
  const std::string other = random_key(keys, rng);
  const std::array<uint64_t, 14> weights = {m.get,         m.stale_get,  m.list,       m.scan,     m.put,
                                            m.del,         m.lease_put,  m.lease_grant, m.lease_revoke, m.keep_alive,
                                            m.lease_ttl,   m.txn,        m.cas_mod,    m.cas_value};
  switch (rng.weighted_index(weights)) {
    case 0: run(get(key)); break;
    case 1: run(get(key, true)); break;
    case 2: run(list("key/")); break;
    case 3: run(draw_scan(m, keys, rng, s.last_revision)); break;
    case 4: run(draw_put(m, key, value, 0, rng)); break;
    case 5: run(draw_delete(m, keys, rng)); break;
    case 6:
      if (!s.leases.empty()) {
        run(draw_put(m, key, value, s.leases[rng.uniform_u64(s.leases.size())], rng));
        break;
      }
      [[fallthrough]];
    case 7: lease_turn(m, 0, rng, run, s); break;
    case 8: lease_turn(m, 1, rng, run, s); break;
    case 9: lease_turn(m, 2, rng, run, s); break;
    case 10: lease_turn(m, 3, rng, run, s); break;
    case 11: run(draw_txn(m, key, other, value, rng)); break;
    case 12: {
      // Compare-and-set on mod_revision: read, then write only if nobody wrote meanwhile.
      history::Operation read = run(get(key));
      if (read.outcome == history::Outcome::kOk) run(guarded(key, mod_revision_of(read), put_op(key, value)));
      break;
    }
    default: cas_value(key, value, run); break;
  }
}

}  // namespace dst::client
