#include "checker/linearizability/etcd_state.h"

#include <algorithm>
#include <set>

#include "base/assert.h"
#include "base/hash.h"

namespace dst::checker::etcd {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;
using etcdserverpb::RangeRequest;
using etcdserverpb::RequestOp;

Kv kv_from_proto(const mvccpb::KeyValue& kv) {
  return Kv{kv.value(), kv.create_revision(), kv.mod_revision(), kv.version(), kv.lease()};
}

mvccpb::KeyValue kv_to_proto(const std::string& key, const Kv& kv) {
  mvccpb::KeyValue p;
  p.set_key(key);
  p.set_value(kv.value);
  p.set_create_revision(kv.create_revision);
  p.set_mod_revision(kv.mod_revision);
  p.set_version(kv.version);
  p.set_lease(kv.lease);
  return p;
}

std::string describe_slot(const Slot& s) {
  switch (s.kind) {
    case Slot::Kind::kAbsent: return "absent";
    case Slot::Kind::kUncertain: return "uncertain";
    case Slot::Kind::kPresent: break;
  }
  std::string out = "\"" + s.kv.value + "\" (create " + std::to_string(s.kv.create_revision) + ", mod " +
                    std::to_string(s.kv.mod_revision) + ", ver " + std::to_string(s.kv.version);
  if (s.kv.lease != 0) out += ", lease " + std::to_string(s.kv.lease);
  return out + ")";
}

bool in_range(const std::string& k, const std::string& key, const std::string& end) {
  if (end.empty()) return k == key;
  if (end == std::string(1, '\0')) return k >= key;
  return k >= key && k < end;
}

Slot Timeline::at(const std::string& key, int64_t rev) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) return Slot::absent();
  const auto& changes = it->second;
  auto c = std::upper_bound(changes.begin(), changes.end(), rev,
                            [](int64_t r, const Change& ch) { return r < ch.rev; });
  if (c == changes.begin()) return Slot::absent();
  return std::prev(c)->slot;
}

void Timeline::set(const std::string& key, int64_t rev, Slot slot) {
  auto& changes = keys_[key];
  DST_ASSERT(changes.empty() || changes.back().rev <= rev);
  if (!changes.empty() && changes.back().rev == rev) {
    changes.back().slot = std::move(slot);
    return;
  }
  changes.push_back(Change{rev, std::move(slot)});
}

void Timeline::truncate_from(int64_t rev) {
  for (auto it = keys_.begin(); it != keys_.end();) {
    auto& changes = it->second;
    while (!changes.empty() && changes.back().rev >= rev) changes.pop_back();
    it = changes.empty() ? keys_.erase(it) : std::next(it);
  }
}

std::vector<std::string> Timeline::keys_with_lease(int64_t lease, int64_t rev) const {
  std::vector<std::string> out;
  for (const auto& [key, changes] : keys_) {
    Slot s = at(key, rev);
    if (s.present() && s.kv.lease == lease) out.push_back(key);
  }
  return out;
}

uint64_t Timeline::digest_changed_since(int64_t from, int64_t at, uint64_t seed) const {
  uint64_t h = seed;
  for (const auto& [key, changes] : keys_) {
    if (changes.empty() || changes.back().rev < from) continue;
    const Slot s = this->at(key, at);
    h = hash_combine(h, hash_bytes(key, seed));
    h = hash_combine(h, static_cast<uint64_t>(s.kind));
    if (!s.present()) continue;
    h = hash_combine(h, hash_bytes(s.kv.value, seed));
    for (int64_t v : {s.kv.create_revision, s.kv.mod_revision, s.kv.version, s.kv.lease})
      h = hash_combine(h, static_cast<uint64_t>(v));
  }
  return h;
}

namespace {

// The state at `base` with the changes of the request being executed on top (a txn's later ops
// see its earlier ones, as in etcd's write transaction).
class Overlay {
 public:
  Overlay(const Timeline& t, int64_t base, Execution& out, uint64_t* steps)
      : t_(t), base_(base), out_(out), steps_(steps) {}

  Slot get(const std::string& key) {
    ++*steps_;
    auto it = out_.changes.find(key);
    Slot s = it != out_.changes.end() ? it->second : t_.at(key, base_);
    if (s.uncertain()) mark_uncertain("key \"" + key + "\" is uncertain at revision " + std::to_string(base_));
    return s;
  }

  // Keys in [key, end) present now, in key order.
  std::vector<std::pair<std::string, Kv>> present(const std::string& key, const std::string& end) {
    std::set<std::string> keys;
    t_.for_keys(key, end, [&](const std::string& k) { keys.insert(k); });
    for (const auto& [k, s] : out_.changes)
      if (in_range(k, key, end)) keys.insert(k);
    std::vector<std::pair<std::string, Kv>> out;
    for (const std::string& k : keys) {
      Slot s = get(k);
      if (s.present()) out.emplace_back(k, s.kv);
    }
    return out;
  }

  void put(const std::string& key, Kv kv) { out_.changes[key] = Slot::present_kv(std::move(kv)); }
  void put_uncertain(const std::string& key) { out_.changes[key] = Slot::uncertain_slot(); }
  void remove(const std::string& key) { out_.changes[key] = Slot::absent(); }
  int64_t new_rev() const { return base_ + 1; }
  int64_t read_rev() const { return base_ + (out_.changes.empty() ? 0 : 1); }

  void mark_uncertain(const std::string& why) {
    if (!out_.uncertain) out_.uncertain_why = why;
    out_.uncertain = true;
  }

 private:
  const Timeline& t_;
  int64_t base_;
  Execution& out_;
  uint64_t* steps_;
};

// etcd 3.4's applierV3backend.Range, as the model's own code: the store hands out keys in key
// order, the count of every key in the range, and (unless an explicit sort order or a revision
// filter needs them all) only limit + 1 keys; then the revision filters, the sort (a target
// without an order sorts ascending: the limit + 1 keys fetched, so it pages by key first), the
// limit with `more`, keys_only.
void sort_like_etcd(std::vector<mvccpb::KeyValue>& kvs, const RangeRequest& r) {
  RangeRequest::SortOrder order = r.sort_order();
  if (order == RangeRequest::NONE && r.sort_target() != RangeRequest::KEY) order = RangeRequest::ASCEND;
  if (order == RangeRequest::NONE) return;
  auto target = [&](const mvccpb::KeyValue& kv) -> std::pair<int64_t, const std::string*> {
    switch (r.sort_target()) {
      case RangeRequest::VERSION: return {kv.version(), nullptr};
      case RangeRequest::CREATE: return {kv.create_revision(), nullptr};
      case RangeRequest::MOD: return {kv.mod_revision(), nullptr};
      case RangeRequest::VALUE: return {0, &kv.value()};
      default: return {0, &kv.key()};
    }
  };
  auto less = [&](const mvccpb::KeyValue& a, const mvccpb::KeyValue& b) {
    const auto [na, sa] = target(a);
    const auto [nb, sb] = target(b);
    return sa != nullptr ? *sa < *sb : na < nb;
  };
  std::stable_sort(kvs.begin(), kvs.end(), [&](const mvccpb::KeyValue& a, const mvccpb::KeyValue& b) {
    return order == RangeRequest::DESCEND ? less(b, a) : less(a, b);
  });
}

etcdserverpb::RangeResponse run_range(Overlay& o, const RangeRequest& r) {
  etcdserverpb::RangeResponse resp;
  if (r.revision() != 0) {
    o.mark_uncertain("a range at a revision inside a txn is not modelled");
    return resp;
  }
  const auto present = o.present(r.key(), r.range_end());
  resp.set_count(static_cast<int64_t>(present.size()));
  if (r.count_only()) return resp;
  const bool ordered = r.sort_order() != RangeRequest::NONE;
  const bool filters = r.min_mod_revision() || r.max_mod_revision() || r.min_create_revision() || r.max_create_revision();
  size_t fetched = present.size();
  if (!ordered && !filters && r.limit() > 0) fetched = std::min(fetched, static_cast<size_t>(r.limit()) + 1);
  std::vector<mvccpb::KeyValue> kvs;
  for (size_t i = 0; i < fetched; ++i) {
    const Kv& kv = present[i].second;
    if ((r.max_mod_revision() && kv.mod_revision > r.max_mod_revision()) ||
        (r.min_mod_revision() && kv.mod_revision < r.min_mod_revision()) ||
        (r.max_create_revision() && kv.create_revision > r.max_create_revision()) ||
        (r.min_create_revision() && kv.create_revision < r.min_create_revision()))
      continue;
    kvs.push_back(kv_to_proto(present[i].first, kv));
  }
  sort_like_etcd(kvs, r);
  if (r.limit() > 0 && kvs.size() > static_cast<size_t>(r.limit())) {
    kvs.resize(static_cast<size_t>(r.limit()));
    resp.set_more(true);
  }
  for (mvccpb::KeyValue& kv : kvs) {
    if (r.keys_only()) kv.clear_value();
    *resp.add_kvs() = std::move(kv);
  }
  return resp;
}

etcdserverpb::PutResponse run_put(Overlay& o, const etcdserverpb::PutRequest& r) {
  etcdserverpb::PutResponse resp;
  Slot prev = o.get(r.key());
  // ignore_value / ignore_lease keep the key's own; the key must exist (etcd answers "key not
  // found" otherwise, and a failed request is no part of the model's history).
  if ((r.ignore_value() || r.ignore_lease()) && !prev.present()) {
    o.mark_uncertain(prev.uncertain() ? "put with ignore_value/ignore_lease over an uncertain key"
                                      : "put with ignore_value/ignore_lease of an absent key succeeded");
    if (prev.uncertain()) o.put_uncertain(r.key());
    return resp;
  }
  Kv kv;
  kv.value = r.ignore_value() ? prev.kv.value : r.value();
  kv.lease = r.ignore_lease() ? prev.kv.lease : r.lease();
  kv.mod_revision = o.new_rev();
  kv.create_revision = prev.present() ? prev.kv.create_revision : o.new_rev();
  kv.version = prev.present() ? prev.kv.version + 1 : 1;
  if (r.prev_kv() && prev.present()) *resp.mutable_prev_kv() = kv_to_proto(r.key(), prev.kv);
  // Over an uncertain key the new create_revision and version are unknown too.
  if (prev.uncertain()) {
    o.put_uncertain(r.key());
  } else {
    o.put(r.key(), std::move(kv));
  }
  return resp;
}

etcdserverpb::DeleteRangeResponse run_delete(Overlay& o, const etcdserverpb::DeleteRangeRequest& r) {
  etcdserverpb::DeleteRangeResponse resp;
  auto kvs = o.present(r.key(), r.range_end());
  resp.set_deleted(static_cast<int64_t>(kvs.size()));
  for (const auto& [k, kv] : kvs) {
    if (r.prev_kv()) *resp.add_prev_kvs() = kv_to_proto(k, kv);
    o.remove(k);
  }
  return resp;
}

template <typename T>
int cmp3(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool compare_kv(const Compare& c, const Kv& kv) {
  int cmp = 0;
  switch (c.target()) {
    case Compare::VALUE: cmp = cmp3(kv.value, c.value()); break;
    case Compare::CREATE: cmp = cmp3(kv.create_revision, c.create_revision()); break;
    case Compare::MOD: cmp = cmp3(kv.mod_revision, c.mod_revision()); break;
    case Compare::VERSION: cmp = cmp3(kv.version, c.version()); break;
    case Compare::LEASE: cmp = cmp3(kv.lease, c.lease()); break;
    default: return false;
  }
  switch (c.result()) {
    case Compare::EQUAL: return cmp == 0;
    case Compare::NOT_EQUAL: return cmp != 0;
    case Compare::GREATER: return cmp > 0;
    case Compare::LESS: return cmp < 0;
    default: return false;
  }
}

// etcd: a missing key compares as all zeroes, except that no value equals a missing one.
bool evaluate(Overlay& o, const Compare& c) {
  auto kvs = o.present(c.key(), c.range_end());
  if (kvs.empty()) return c.target() != Compare::VALUE && compare_kv(c, Kv{});
  for (const auto& [k, kv] : kvs)
    if (!compare_kv(c, kv)) return false;
  return true;
}

// The compare outcome of every txn on the taken path, in depth-first order, evaluated on the state
// before the txn wrote anything: etcd decides every nested txn's branch up front (compareToPath),
// so a nested compare never sees the outer txn's own writes. `pre` must hold no writes.
void txn_compares(Overlay& pre, const etcdserverpb::TxnRequest& r, const etcdserverpb::TxnResponse* actual,
                  std::vector<bool>& out) {
  bool ok = true;
  for (const Compare& c : r.compare()) ok = evaluate(pre, c) && ok;
  out.push_back(ok);
  const bool taken = actual ? actual->succeeded() : ok;
  const auto& ops = taken ? r.success() : r.failure();
  for (int i = 0; i < ops.size(); ++i) {
    if (!ops[i].has_request_txn()) continue;
    const etcdserverpb::TxnResponse* nested =
        actual && i < actual->responses_size() && actual->responses(i).has_response_txn()
            ? &actual->responses(i).response_txn()
            : nullptr;
    txn_compares(pre, ops[i].request_txn(), nested, out);
  }
}

etcdserverpb::TxnResponse run_txn(Overlay& o, const etcdserverpb::TxnRequest& r, std::optional<bool> branch,
                                  const etcdserverpb::TxnResponse* actual, bool* compares_out,
                                  const std::vector<bool>& compares, size_t& at) {
  DST_ASSERT_LT(at, compares.size());
  const bool ok = compares[at++];
  if (compares_out) *compares_out = ok;
  const bool taken = branch.value_or(ok);
  etcdserverpb::TxnResponse resp;
  resp.set_succeeded(taken);
  const auto& ops = taken ? r.success() : r.failure();
  for (int i = 0; i < ops.size(); ++i) {
    const RequestOp& op = ops[i];
    etcdserverpb::ResponseOp* out = resp.add_responses();
    switch (op.request_case()) {
      case RequestOp::kRequestRange: *out->mutable_response_range() = run_range(o, op.request_range()); break;
      case RequestOp::kRequestPut: *out->mutable_response_put() = run_put(o, op.request_put()); break;
      case RequestOp::kRequestDeleteRange:
        *out->mutable_response_delete_range() = run_delete(o, op.request_delete_range());
        break;
      case RequestOp::kRequestTxn: {
        // A nested txn of an acknowledged one follows its recorded branch too.
        std::optional<bool> nested;
        if (actual && i < actual->responses_size() && actual->responses(i).has_response_txn())
          nested = actual->responses(i).response_txn().succeeded();
        const etcdserverpb::TxnResponse* nested_actual =
            nested ? &actual->responses(i).response_txn() : nullptr;
        bool nested_ok = true;
        *out->mutable_response_txn() =
            run_txn(o, op.request_txn(), nested, nested_actual, &nested_ok, compares, at);
        if (nested && *nested != nested_ok && compares_out) *compares_out = false;  // reported as a flag mismatch
        break;
      }
      default: o.mark_uncertain("empty request op in txn");
    }
  }
  return resp;
}

// What an imported history does not record of a key-value (EtcdCheckOptions::partial_kvs): its
// create_revision and lease. Cleared on both sides of a comparison, so only what was recorded counts.
void forget_unrecorded(mvccpb::KeyValue* kv) {
  kv->clear_create_revision();
  kv->clear_lease();
}

void strip_range(etcdserverpb::RangeResponse* r, bool partial_kvs) {
  r->clear_header();
  if (!partial_kvs) return;
  r->clear_more();
  for (auto& kv : *r->mutable_kvs()) forget_unrecorded(&kv);
}

void strip_put(etcdserverpb::PutResponse* r, bool partial_kvs) {
  r->clear_header();
  if (partial_kvs) r->clear_prev_kv();
}

void strip_delete(etcdserverpb::DeleteRangeResponse* r, bool partial_kvs) {
  r->clear_header();
  if (partial_kvs) r->clear_prev_kvs();
}

void strip_txn(etcdserverpb::TxnResponse* t, bool partial_kvs) {
  t->clear_header();
  for (auto& op : *t->mutable_responses()) {
    if (op.has_response_range()) strip_range(op.mutable_response_range(), partial_kvs);
    if (op.has_response_put()) strip_put(op.mutable_response_put(), partial_kvs);
    if (op.has_response_delete_range()) strip_delete(op.mutable_response_delete_range(), partial_kvs);
    if (op.has_response_txn()) strip_txn(op.mutable_response_txn(), partial_kvs);
  }
}

}  // namespace

Execution execute(const Timeline& t, int64_t base, const ApiRequest& req, const etcdserverpb::ApiResponse* actual,
                  uint64_t* steps) {
  Execution e;
  Overlay o(t, base, e, steps);
  switch (req.request_case()) {
    case ApiRequest::kRange: *e.response.mutable_range() = run_range(o, req.range()); break;
    case ApiRequest::kPut: *e.response.mutable_put() = run_put(o, req.put()); break;
    case ApiRequest::kDeleteRange: *e.response.mutable_delete_range() = run_delete(o, req.delete_range()); break;
    case ApiRequest::kTxn: {
      const bool forced = actual != nullptr && actual->has_txn();
      std::optional<bool> branch;
      if (forced) branch = actual->txn().succeeded();
      std::vector<bool> compares;
      {
        Overlay pre(t, base, e, steps);
        txn_compares(pre, req.txn(), forced ? &actual->txn() : nullptr, compares);
      }
      size_t at = 0;
      *e.response.mutable_txn() =
          run_txn(o, req.txn(), branch, forced ? &actual->txn() : nullptr, &e.compares_succeeded, compares, at);
      break;
    }
    default: o.mark_uncertain("not a KV request");
  }
  return e;
}

etcdserverpb::ApiResponse strip_headers(const etcdserverpb::ApiResponse& r, bool partial_kvs) {
  etcdserverpb::ApiResponse c = r;
  c.clear_call();
  if (c.has_range()) strip_range(c.mutable_range(), partial_kvs);
  if (c.has_put()) strip_put(c.mutable_put(), partial_kvs);
  if (c.has_delete_range()) strip_delete(c.mutable_delete_range(), partial_kvs);
  if (c.has_txn()) strip_txn(c.mutable_txn(), partial_kvs);
  return c;
}

bool same_response(const etcdserverpb::ApiResponse& a, const etcdserverpb::ApiResponse& b, bool partial_kvs) {
  std::string sa, sb;
  (void)strip_headers(a, partial_kvs).SerializeToString(&sa);
  (void)strip_headers(b, partial_kvs).SerializeToString(&sb);
  return sa == sb;
}

}  // namespace dst::checker::etcd
