#include "node/mvcc/kv_store.h"

#include "base/big_endian.h"

#include "base/assert.h"
#include "base/crc32c.h"
#include "base/hash.h"
#include "base/limits.h"
#include "base/probes.h"

namespace dst::mvcc {

namespace {

// Revisions deleted per backend call while compacting (etcd deletes in batches of 1000 too, so a
// big compaction does not hold one huge batch).
constexpr size_t kCompactionBatch = 1000;

Status compacted() { return Status(StatusCode::kOutOfRange, kErrCompacted); }
Status future_rev() { return Status(StatusCode::kOutOfRange, kErrFutureRev); }

}  // namespace

std::string encode_i64(int64_t v) {
  return be64(static_cast<uint64_t>(v));
}

Result<int64_t> decode_i64(std::string_view s) {
  if (s.size() != 8) return Status(StatusCode::kCorruption, "meta value is not 8 bytes");
  return static_cast<int64_t>(read_be(s));
}

// --- KvStore ------------------------------------------------------------------------------------

Result<std::unique_ptr<KvStore>> KvStore::open(backend::Backend& backend, backend::FaultHook fault_hook,
                                               StoreOptions options) {
  std::unique_ptr<KvStore> store(new KvStore(backend));
  store->fault_hook_ = std::move(fault_hook);
  store->options_ = options;
  Status s = store->restore();
  if (!s.is_ok()) return s;
  return store;
}

Status KvStore::restore() {
  int64_t scheduled = -1, finished = -1;  // never compacted
  for (auto [key, out] : {std::pair{kScheduledCompactKey, &scheduled}, std::pair{kFinishedCompactKey, &finished}}) {
    auto v = backend_.get(kMetaBucket, key);
    if (!v.is_ok()) return v.status();
    if (!v->has_value()) continue;
    auto n = decode_i64(**v);
    if (!n.is_ok()) return n.status();
    *out = *n;
  }
  // Replay the key bucket in revision order. Bounded by the bucket's size.
  Status corrupt;
  Status s = backend_.range(kKeyBucket, "", "", 0, [&](std::string_view k, std::string_view v) {
    auto rev = decode_revision(k);
    mvccpb::KeyValue kv;
    if (!rev.is_ok() || !kv.ParseFromArray(v.data(), static_cast<int>(v.size()))) {
      corrupt = Status(StatusCode::kCorruption, "unreadable revision in the key bucket");
      return false;
    }
    current_rev_ = std::max(current_rev_, rev->rev.main);
    if (rev->tombstone) {
      index_.restore(kv.key(), Revision{}, rev->rev, 0, true);
    } else {
      index_.restore(kv.key(), Revision{kv.create_revision(), 0}, rev->rev, kv.version(), false);
    }
    return true;
  });
  if (!s.is_ok()) return s;
  if (!corrupt.is_ok()) return corrupt;
  // A compaction point is a revision that existed; after a crash the store may hold nothing newer.
  if (options_.bugs.on(Bug::kCompactionRevisionDecrease)) {
    // etcd before #17780 trusted only the finished compaction: after a crash that compacted away
    // the newest row (a tombstone) but did not record the finish, the store reopens at a lower
    // revision, and finishing the compaction at what is now a future revision fails (etcd logged
    // "compaction encountered error" and went on with the old compaction revision).
    current_rev_ = std::max(current_rev_, finished);
    if (scheduled > current_rev_) scheduled = finished;
  } else {
    current_rev_ = std::max(current_rev_, scheduled);
  }
  compact_rev_ = scheduled;
  if (scheduled > finished) {
    DST_PROBE(kMvccCompactionFinishedAtOpen);
    index_.compact(scheduled);
    return finish_compaction(scheduled);
  }
  if (scheduled > 0) index_.compact(scheduled);
  return Status::ok();
}

Result<mvccpb::KeyValue> KvStore::fetch(Revision rev) {
  auto v = backend_.get(kKeyBucket, encode_revision(rev));
  if (!v.is_ok()) return v.status();
  if (!v->has_value()) {
    // The backend call may block; meanwhile the apply fiber may have compacted past this read's
    // revision (the read then fails as etcd's would had it started later) or replaced the whole
    // store with a snapshot (the caller retries on the new store). Otherwise the index and the
    // backend disagree: a bug.
    if (retired_) return Status(StatusCode::kUnavailable, kErrStoreReplaced);
    if (rev.main < compact_rev_) return compacted();
    DST_UNREACHABLE("index points at revision " + rev.to_string() + " missing from the backend");
  }
  mvccpb::KeyValue kv;
  if (!kv.ParseFromString(**v)) return Status(StatusCode::kCorruption, "unreadable value at revision " + rev.to_string());
  return kv;
}

Result<RangeResult> KvStore::range_at(const std::string& key, const std::string& end, const RangeOptions& options,
                                      int64_t read_rev) {
  RangeResult r;
  r.rev = current_rev_;
  int64_t at = options.rev;
  if (at > read_rev) return future_rev();
  if (at <= 0) at = read_rev;
  if (at < compact_rev_) {
    DST_PROBE(kMvccRangeCompacted);
    return compacted();
  }
  size_t total = 0;
  size_t limit = options.count_only ? 1 : static_cast<size_t>(std::max<int64_t>(options.limit, 0));
  std::vector<IndexedKey> keys = index_.range(key, end, at, limit, &total);
  r.count = static_cast<int64_t>(total);
  if (!options.count_only && limit > 0 && total > keys.size()) DST_PROBE(kMvccRangeMore);
  if (options.count_only) return r;
  for (const IndexedKey& k : keys) {
    auto kv = fetch(k.at.modified);
    if (!kv.is_ok()) return kv.status();
    r.kvs.push_back(std::move(kv).value());
  }
  return r;
}

Result<RangeResult> KvStore::range(const std::string& key, const std::string& end, const RangeOptions& options) {
  return range_at(key, end, options, current_rev_);
}

Status KvStore::compact(int64_t rev) {
  DST_ASSERT_MSG(!write_open_, "compaction during a write transaction");
  if (rev <= compact_rev_) return compacted();
  if (rev > current_rev_) return future_rev();
  compact_rev_ = rev;
  Status s = backend_.put(kMetaBucket, kScheduledCompactKey, encode_i64(rev));
  if (!s.is_ok()) return s;
  index_.compact(rev);
  fault(kFaultAfterCompactionScheduled);
  return finish_compaction(rev);
}

Status KvStore::finish_compaction(int64_t rev) {
  // Everything at or below `rev` that no read at >= rev needs goes from the backend.
  std::set<Revision> keep = index_.keep(rev);
  // Either bug switch drops the tombstone at `rev`, as etcd's compaction did (see StoreOptions).
  const bool drop_tombstone_at_rev =
      options_.bugs.on(Bug::kWatchDropAtCompaction) || options_.bugs.on(Bug::kCompactionRevisionDecrease);
  std::string end = encode_revision(Revision{rev + 1, 0});
  std::string from;
  // Bounded: every pass deletes up to kCompactionBatch revisions and moves `from` forward.
  for (;;) {
    std::vector<std::string> doomed;
    Status s = backend_.range(kKeyBucket, from, end, 0, [&](std::string_view k, std::string_view) {
      from = std::string(k) + '\0';  // resume after this key next pass
      auto d = decode_revision(k);
      // Rows of the compaction revision itself stay (see compact() in the header): a watcher may
      // resume exactly there. The next compaction removes them like any other.
      if (d.is_ok() && d->rev.main == rev && !(drop_tombstone_at_rev && d->tombstone)) return true;
      if (d.is_ok() && keep.count(d->rev) && !d->tombstone) return true;
      doomed.emplace_back(k);
      return doomed.size() < kCompactionBatch;
    });
    if (!s.is_ok()) return s;
    fault(kFaultBeforeCompactionBatch);
    for (const std::string& k : doomed) {
      s = backend_.del(kKeyBucket, k);
      if (!s.is_ok()) return s;
    }
    if (options_.bugs.on(Bug::kCompactionRevisionDecrease)) {
      // etcd commits each batch of compaction deletions at once (and finishedCompactRev only
      // with a later one): a crash from here on keeps these deletions but not the finish.
      s = backend_.commit();
      if (!s.is_ok()) return s;
    }
    fault(kFaultAfterCompactionBatch);
    if (doomed.size() < kCompactionBatch) break;
  }
  DST_PROBE(kMvccCompacted);
  return backend_.put(kMetaBucket, kFinishedCompactKey, encode_i64(rev));
}

Result<std::vector<mvccpb::Event>> KvStore::history(const std::string& key, const std::string& end,
                                                    int64_t from_rev, int64_t to_rev) {
  if (to_rev - from_rev >= limits::kWatchSyncRevisionsMax) {
    return Status(StatusCode::kInvalidArgument, "history span " + std::to_string(from_rev) + ".." +
                                                    std::to_string(to_rev) + " wider than kWatchSyncRevisionsMax");
  }
  if (from_rev < compact_rev_) return compacted();
  if (to_rev > current_rev_) return future_rev();
  std::vector<mvccpb::Event> out;
  if (from_rev > to_rev) return out;
  // The visitor may not call the backend, so rows are collected first and decoded after.
  std::vector<std::pair<std::string, std::string>> rows;
  Status s = backend_.range(kKeyBucket, encode_revision(Revision{from_rev, 0}),
                            encode_revision(Revision{to_rev + 1, 0}), 0, [&](std::string_view k, std::string_view v) {
                              rows.emplace_back(k, v);
                              return true;
                            });
  if (!s.is_ok()) return s;
  // The read may block; meanwhile the apply fiber may have compacted past `from_rev` and deleted
  // part of what this read was to return (swarm.lua seed 371: a watch from revision 1 was sent
  // 273.. as if 1..272 had never been, while a compaction of 392 ran). Fail as a read that
  // started after the compaction would: the watch is canceled with the compaction revision.
  if (from_rev < compact_rev_) {
    DST_PROBE(kMvccHistoryCompactedWhileRead);
    return compacted();
  }
  for (const auto& [k, v] : rows) {
    auto rev = decode_revision(k);
    mvccpb::Event ev;
    if (!rev.is_ok() || !ev.mutable_kv()->ParseFromString(v)) {
      return Status(StatusCode::kCorruption, "unreadable revision in the key bucket");
    }
    if (!in_range(ev.kv().key(), key, end)) continue;
    if (rev->tombstone) {
      // Tombstone rows hold only the key; the event names the deletion's revision too.
      ev.set_type(mvccpb::Event::DELETE);
      ev.mutable_kv()->set_mod_revision(rev->rev.main);
    }
    if (ev.kv().mod_revision() != rev->rev.main) {
      return Status(StatusCode::kCorruption, "value stored under revision " + rev->rev.to_string() +
                                                 " names mod_revision " + std::to_string(ev.kv().mod_revision()));
    }
    out.push_back(std::move(ev));
  }
  return out;
}

Result<uint64_t> KvStore::hash_at(int64_t rev) {
  auto r = range_at("", std::string(1, '\0'), RangeOptions{.rev = rev}, current_rev_);
  if (!r.is_ok()) return r.status();
  uint64_t h = hash_combine(0x6b76, static_cast<uint64_t>(rev));
  for (const mvccpb::KeyValue& kv : r->kvs) h = hash_combine(h, hash_bytes(kv.SerializeAsString()));
  return h;
}

Result<uint32_t> KvStore::etcd_hash_kv(int64_t rev) {
  if (rev > 0 && rev <= compact_rev_) return compacted();
  if (rev > current_rev_) return future_rev();
  if (rev <= 0) rev = current_rev_;
  const std::set<Revision> keep = index_.keep(rev);
  uint32_t crc = crc32c(kKeyBucket);
  Status corrupt;
  Status s = backend_.range(kKeyBucket, "", encode_revision(Revision{rev + 1, 0}), 0,
                            [&](std::string_view k, std::string_view v) {
                              auto kr = decode_revision(k);
                              if (!kr.is_ok()) {
                                corrupt = kr.status();
                                return false;
                              }
                              if (kr->rev.main <= compact_rev_) {
                                // etcd's compaction deleted a tombstone at the compaction revision
                                // too; this store keeps it for watchers, and hashes it as etcd
                                // would hash what it has.
                                const bool kept = keep.empty() ? !kr->tombstone : keep.count(kr->rev) > 0;
                                if (!kept) return true;
                              }
                              crc = crc32c_extend(crc, k.data(), k.size());
                              crc = crc32c_extend(crc, v.data(), v.size());
                              return true;
                            });
  if (!s.is_ok()) return s;
  if (!corrupt.is_ok()) return corrupt;
  return crc;
}

// --- WriteTxn -----------------------------------------------------------------------------------

WriteTxn::WriteTxn(KvStore& store) : store_(&store), begin_rev_(store.current_rev_) {
  DST_ASSERT_MSG(!store.write_open_, "one write transaction at a time");
  store.write_open_ = true;
}

WriteTxn::~WriteTxn() {
  if (store_ && !ended_) end();
}

int64_t WriteTxn::read_rev() const { return begin_rev_ + (events_.empty() ? 0 : 1); }

Result<RangeResult> WriteTxn::range(const std::string& key, const std::string& end, const RangeOptions& options) {
  auto r = store_->range_at(key, end, options, read_rev());
  if (r.is_ok()) r->rev = read_rev();
  return r;
}

Result<std::optional<mvccpb::KeyValue>> WriteTxn::put(const std::string& key, const std::string& value, int64_t lease,
                                                     Prev read_prev) {
  const int64_t rev = begin_rev_ + 1;
  std::optional<mvccpb::KeyValue> prev;
  int64_t created = rev;
  int64_t version = 1;
  if (std::optional<KeyAt> at = store_->index_.get(key, rev)) {
    if (read_prev == Prev::kRead) {
      auto kv = store_->fetch(at->modified);
      if (!kv.is_ok()) return kv.status();
      prev = std::move(kv).value();
    }
    created = at->created.main;
    version = at->version + 1;
  }
  Revision r{rev, static_cast<int64_t>(events_.size())};
  mvccpb::Event ev;
  ev.set_type(mvccpb::Event::PUT);
  mvccpb::KeyValue* kv = ev.mutable_kv();
  kv->set_key(key);
  kv->set_value(value);
  kv->set_create_revision(created);
  kv->set_mod_revision(rev);
  kv->set_version(version);
  kv->set_lease(lease);
  Status s = store_->backend_.put(kKeyBucket, encode_revision(r), kv->SerializeAsString());
  if (!s.is_ok()) return s;
  store_->index_.put(key, r);
  events_.push_back(std::move(ev));
  return prev;
}

Result<std::vector<mvccpb::KeyValue>> WriteTxn::delete_range(const std::string& key, const std::string& end,
                                                            Prev read_prev) {
  const int64_t rev = begin_rev_ + 1;
  std::vector<IndexedKey> keys = store_->index_.range(key, end, read_rev(), 0, nullptr);
  if (keys.empty()) DST_PROBE(kMvccDeleteMissingKey);
  std::vector<mvccpb::KeyValue> deleted;
  deleted.reserve(keys.size());
  for (const IndexedKey& k : keys) {
    if (read_prev == Prev::kRead) {
      auto prev = store_->fetch(k.at.modified);
      if (!prev.is_ok()) return prev.status();
      deleted.push_back(std::move(prev).value());
    } else {
      deleted.emplace_back().set_key(k.key);
      deleted.back().set_mod_revision(k.at.modified.main);
    }
    Revision r{rev, static_cast<int64_t>(events_.size())};
    mvccpb::Event ev;
    ev.set_type(mvccpb::Event::DELETE);
    ev.mutable_kv()->set_key(k.key);
    ev.mutable_kv()->set_mod_revision(rev);
    mvccpb::KeyValue tomb;
    tomb.set_key(k.key);
    Status s = store_->backend_.put(kKeyBucket, encode_revision(r, true), tomb.SerializeAsString());
    if (!s.is_ok()) return s;
    Status t = store_->index_.tombstone(k.key, r);
    DST_ASSERT_MSG(t.is_ok(), t.to_string());
    events_.push_back(std::move(ev));
  }
  return deleted;
}

int64_t WriteTxn::end() {
  DST_ASSERT(!ended_);
  ended_ = true;
  store_->write_open_ = false;
  if (events_.empty()) return store_->current_rev_;
  store_->current_rev_ = begin_rev_ + 1;
  if (store_->observer_) store_->observer_(events_, store_->current_rev_);
  return store_->current_rev_;
}

}  // namespace dst::mvcc
