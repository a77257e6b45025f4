// The lessor's replicated half: recovery, grant, revoke and the key attachments that follow the
// key-value writes (see lessor.h). The leader-only half is in lessor_primary.cc.
#include "node/lease/lessor.h"

#include <algorithm>

#include "base/limits.h"
#include "node/lease/errors.h"
#include "node/lease/lease_record.h"

namespace dst::lease {

Result<std::unique_ptr<Lessor>> Lessor::open(backend::Backend& backend, mvcc::KvStore& kv,
                                             LessorOptions options) {
  DST_ASSERT_GT(options.min_ttl_seconds, 0);
  DST_ASSERT_LE(options.min_ttl_seconds, limits::kLeaseTtlSecondsMax);
  DST_ASSERT_GT(options.expired_retry_ns, 0);
  std::unique_ptr<Lessor> lessor(new Lessor(backend, kv, options));
  if (Status s = lessor->load(); !s.is_ok()) return s;
  return lessor;
}

Status Lessor::reload(backend::Backend& backend, mvcc::KvStore& kv) {
  backend_ = &backend;
  kv_ = &kv;
  return load();
}

Status Lessor::load() {
  leases_.clear();
  key_lease_.clear();
  due_.clear();
  orphan_keys_ = 0;
  Result<std::vector<leasepb::Lease>> records = load_lease_records(*backend_);
  if (!records.is_ok()) return records.status();
  for (const leasepb::Lease& record : *records) {
    Lease lease;
    // As etcd's initAndRecover: a record granted under a smaller minimum (the election timeout
    // changed between runs) is raised to today's minimum, in memory only.
    lease.ttl_seconds = std::max(record.ttl(), options_.min_ttl_seconds);
    leases_.emplace(record.id(), std::move(lease));
    // A primary keeps every lease in due_, here at "never" until renewed or promoted again.
    if (primary_) due_.emplace(kNeverNs, record.id());
  }
  if (Status s = attach_live_keys(); !s.is_ok()) return s;
  check_invariants();
  return Status::ok();
}

// Attachments are not persisted: every live key carries its lease in its own KeyValue, as in
// etcd, where the mvcc store's restore re-attaches them.
Status Lessor::attach_live_keys() {
  size_t total = 0;
  // Keys (and their revisions) only, no values: bounded by the index, which is in memory anyway.
  std::vector<mvcc::IndexedKey> live = kv_->index().range("", std::string(1, '\0'), kv_->rev(), 0, &total);
  for (const mvcc::IndexedKey& k : live) {
    Result<mvcc::RangeResult> got = kv_->range(k.key, "", {});
    if (!got.is_ok()) return got.status();
    DST_ASSERT_EQ(got->kvs.size(), 1u);
    const int64_t id = got->kvs[0].lease();
    if (id == 0) continue;
    if (!exists(id)) {
      ++orphan_keys_;
      continue;
    }
    attach(id, k.key);
  }
  return Status::ok();
}

Result<int64_t> Lessor::grant(int64_t id, int64_t ttl_seconds, int64_t now_ns) {
  // The order of the checks is etcd's: an id of 0 is "not found", then the TTL bound, then the
  // duplicate check.
  if (id == 0) return lease_not_found();
  if (ttl_seconds > limits::kLeaseTtlSecondsMax) return lease_ttl_too_large();
  const int64_t ttl = std::max(ttl_seconds, options_.min_ttl_seconds);
  if (exists(id)) return lease_exists();
  if (leases_.size() >= limits::kLeasesMax) return too_many_leases();
  leasepb::Lease record;
  record.set_id(id);
  record.set_ttl(ttl);
  if (Status s = put_lease_record(*backend_, record); !s.is_ok()) return s;
  Lease& lease = leases_[id];
  lease.ttl_seconds = ttl;
  // etcd refreshes a lease granted on the primary at once; anywhere else it lives "forever".
  if (primary_) {
    set_expiry(id, lease, expiry_after(now_ns, ttl, 0));
  }
  return ttl;
}

Status Lessor::revoke(int64_t id) {
  auto it = leases_.find(id);
  if (it == leases_.end()) return lease_not_found();
  // std::set iterates in key order: every member deletes in the same order, so the sub revisions
  // and therefore the backend hashes agree (etcd sorts the keys for the same reason).
  const std::vector<std::string> keys(it->second.keys.begin(), it->second.keys.end());
  {
    mvcc::WriteTxn txn = kv_->write();
    for (const std::string& key : keys) {
      Result<std::vector<mvccpb::KeyValue>> deleted = txn.delete_range(key, "", mvcc::Prev::kSkip);
      if (!deleted.is_ok()) return deleted.status();  // a failed backend: the node restarts
      DST_ASSERT_EQ(deleted->size(), 1u);             // attached keys are live keys
    }
    // In the same backend batch as the deletions: a crash keeps both or neither.
    if (Status s = delete_lease_record(*backend_, id); !s.is_ok()) return s;
    txn.end();
  }
  for (const std::string& key : keys) detach(key);
  it = leases_.find(id);  // the commit observer may have run on_events inside end()
  DST_ASSERT(it != leases_.end());
  DST_ASSERT(it->second.keys.empty());
  if (primary_) due_.erase({it->second.due_ns, id});
  leases_.erase(it);
  return Status::ok();
}

void Lessor::on_events(const std::vector<mvccpb::Event>& events) {
  for (const mvccpb::Event& event : events) {
    const std::string& key = event.kv().key();
    if (event.type() == mvccpb::Event::DELETE) {
      detach(key);
      continue;
    }
    const int64_t id = event.kv().lease();
    if (lease_of(key) == id) continue;  // re-put under the same lease (or none)
    detach(key);
    if (id == 0) continue;
    DST_ASSERT_MSG(exists(id), "a put attached key \"" + key + "\" to unknown lease " + std::to_string(id) +
                                   "; the caller must validate puts with exists()");
    attach(id, key);
  }
}

int64_t Lessor::lease_of(const std::string& key) const {
  auto it = key_lease_.find(key);
  return it == key_lease_.end() ? 0 : it->second;
}

std::vector<int64_t> Lessor::leases() const {
  std::vector<int64_t> ids;
  ids.reserve(leases_.size());
  for (const auto& [id, lease] : leases_) ids.push_back(id);
  return ids;
}

void Lessor::attach(int64_t id, const std::string& key) {
  DST_ASSERT_NE(id, 0);
  DST_ASSERT(key_lease_.count(key) == 0);
  leases_.at(id).keys.insert(key);
  key_lease_.emplace(key, id);
}

void Lessor::detach(const std::string& key) {
  auto it = key_lease_.find(key);
  if (it == key_lease_.end()) return;
  const size_t erased = leases_.at(it->second).keys.erase(key);
  DST_ASSERT_EQ(erased, 1u);
  key_lease_.erase(it);
}

void Lessor::check_invariants() const {
  size_t attached = 0;
  for (const auto& [id, lease] : leases_) {
    DST_ASSERT_NE(id, 0);
    DST_ASSERT_GE(lease.ttl_seconds, options_.min_ttl_seconds);
    for (const std::string& key : lease.keys) {
      auto it = key_lease_.find(key);
      DST_ASSERT(it != key_lease_.end());
      DST_ASSERT_EQ(it->second, id);
    }
    attached += lease.keys.size();
    if (primary_) {
      DST_ASSERT(due_.count({lease.due_ns, id}) == 1);
      DST_ASSERT_GE(lease.due_ns, lease.expiry_ns);
    } else {
      DST_ASSERT_EQ(lease.expiry_ns, kNeverNs);
    }
  }
  DST_ASSERT_EQ(attached, key_lease_.size());
  DST_ASSERT_EQ(due_.size(), primary_ ? leases_.size() : 0u);
}

}  // namespace dst::lease
