#include "node/server/snapshot_file.h"

#include "base/big_endian.h"

#include <map>

#include "base/crc32c.h"
#include "base/limits.h"
#include "base/probes.h"
#include "node/mvcc/kv_store.h"
#include "node/mvcc/revision.h"
#include "proto/etcd_kv.pb.h"

namespace dst::node {

namespace {

std::string hex32(uint32_t v) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = kDigits[v & 0xf];
  return s;
}

Result<etcdserverpb::KvSnapshot> parse_image(std::string_view image, std::string_view name) {
  etcdserverpb::KvSnapshot snap;
  if (!snap.ParseFromArray(image.data(), static_cast<int>(image.size())))
    return Status(StatusCode::kInvalidArgument, std::string(name) + ": not a snapshot file (unreadable image)");
  for (const auto& bucket : snap.buckets())
    if (bucket.name().empty() || bucket.name().size() > limits::kBackendBucketNameBytesMax)
      return Status(StatusCode::kInvalidArgument, std::string(name) + ": not a snapshot file (bad bucket name)");
  return snap;
}

const etcdserverpb::KvSnapshot::Bucket* find_bucket(const etcdserverpb::KvSnapshot& snap, std::string_view name) {
  for (const auto& b : snap.buckets())
    if (b.name() == name) return &b;
  return nullptr;
}

// The meta bucket's compaction revision under `key`, or -1 when absent.
Result<int64_t> meta_revision(const etcdserverpb::KvSnapshot& snap, std::string_view key) {
  const auto* meta = find_bucket(snap, mvcc::kMetaBucket);
  if (meta == nullptr) return int64_t{-1};
  for (const auto& row : meta->rows())
    if (row.key() == key) return mvcc::decode_i64(row.value());
  return int64_t{-1};
}

// kRestoreRestartsRevisions: a dump-and-load restore. Every live key is written again, one
// revision each from 2 up, as if by a fresh client; the history and the compaction point go.
Status rewrite_from_revision_two(etcdserverpb::KvSnapshot& snap) {
  std::map<std::string, mvccpb::KeyValue> live;  // by key, the newest row's value
  for (auto& bucket : *snap.mutable_buckets()) {
    if (bucket.name() != mvcc::kKeyBucket) continue;
    for (const auto& row : bucket.rows()) {  // in revision order
      auto rev = mvcc::decode_revision(row.key());
      mvccpb::KeyValue kv;
      if (!rev.is_ok() || !kv.ParseFromString(row.value()))
        return Status(StatusCode::kCorruption, "unreadable row in the snapshot's key bucket");
      if (rev->tombstone) {
        live.erase(kv.key());
      } else {
        live[kv.key()] = std::move(kv);
      }
    }
    bucket.clear_rows();
    int64_t next = 2;
    for (auto& [key, kv] : live) {
      kv.set_create_revision(next);
      kv.set_mod_revision(next);
      kv.set_version(1);
      auto* row = bucket.add_rows();
      row->set_key(mvcc::encode_revision(mvcc::Revision{next++, 0}));
      row->set_value(kv.SerializeAsString());
    }
  }
  for (auto& bucket : *snap.mutable_buckets())
    if (bucket.name() == mvcc::kMetaBucket) bucket.clear_rows();
  return Status::ok();
}

void set_meta(etcdserverpb::KvSnapshot& snap, std::string_view key, int64_t value) {
  etcdserverpb::KvSnapshot::Bucket* meta = nullptr;
  for (auto& b : *snap.mutable_buckets())
    if (b.name() == mvcc::kMetaBucket) meta = &b;
  if (meta == nullptr) {
    meta = snap.add_buckets();
    meta->set_name(std::string(mvcc::kMetaBucket));
  }
  for (auto& row : *meta->mutable_rows()) {
    if (row.key() == key) {
      row.set_value(mvcc::encode_i64(value));
      return;
    }
  }
  auto* row = meta->add_rows();
  row->set_key(std::string(key));
  row->set_value(mvcc::encode_i64(value));
}

}  // namespace

std::string encode_snapshot_file(std::string_view image) {
  std::string out(image);
  out.append(kSnapshotFileMagic);
  append_be(out, image.size(), 8);
  append_be(out, crc32c(image), 4);
  return out;
}

Result<etcdserverpb::KvSnapshot> read_snapshot_file(std::string_view bytes, std::string_view name,
                                                    bool skip_hash_check) {
  if (bytes.size() > limits::kSnapshotFileBytesMax)
    return Status(StatusCode::kInvalidArgument, std::string(name) + ": larger than " +
                                                    std::to_string(limits::kSnapshotFileBytesMax) + " bytes");
  const bool has_trailer = bytes.size() >= kSnapshotTrailerBytes &&
                           bytes.substr(bytes.size() - kSnapshotTrailerBytes, kSnapshotFileMagic.size()) == kSnapshotFileMagic &&
                           read_be(bytes.substr(bytes.size() - 12, 8)) == bytes.size() - kSnapshotTrailerBytes;
  if (!has_trailer) {
    // etcd's words for a db without its appended hash.
    if (!skip_hash_check)
      return Status(StatusCode::kInvalidArgument, std::string(name) + ": snapshot missing hash but --skip-hash-check=false");
    return parse_image(bytes, name);
  }
  const std::string_view image = bytes.substr(0, bytes.size() - kSnapshotTrailerBytes);
  const uint32_t want = static_cast<uint32_t>(read_be(bytes.substr(bytes.size() - 4, 4)));
  const uint32_t got = crc32c(image);
  if (want != got && !skip_hash_check) {
    DST_PROBE(kSnapshotFileHashMismatch);
    return Status(StatusCode::kCorruption, std::string(name) + ": expected crc32c " + hex32(want) + ", got " + hex32(got));
  }
  return parse_image(image, name);
}

Result<SnapshotStatus> snapshot_status(const etcdserverpb::KvSnapshot& snapshot, uint64_t file_size) {
  SnapshotStatus st;
  st.total_size = file_size;
  uint32_t crc = 0;
  for (const auto& bucket : snapshot.buckets()) {
    crc = crc32c_extend(crc, bucket.name().data(), bucket.name().size());
    const bool key_bucket = bucket.name() == mvcc::kKeyBucket;
    for (const auto& row : bucket.rows()) {
      crc = crc32c_extend(crc, row.key().data(), row.key().size());
      crc = crc32c_extend(crc, row.value().data(), row.value().size());
      ++st.total_keys;
      if (!key_bucket) continue;
      auto rev = mvcc::decode_revision(row.key());
      if (!rev.is_ok()) return Status(StatusCode::kCorruption, "unreadable revision in the snapshot's key bucket");
      st.revision = rev->rev.main;
    }
  }
  st.hash = crc;
  return st;
}

Result<int64_t> image_revision(const etcdserverpb::KvSnapshot& snapshot) {
  int64_t rev = 1;  // a store with nothing written is at revision 1
  if (const auto* keys = find_bucket(snapshot, mvcc::kKeyBucket)) {
    for (const auto& row : keys->rows()) {
      auto r = mvcc::decode_revision(row.key());
      if (!r.is_ok()) return Status(StatusCode::kCorruption, "unreadable revision in the snapshot's key bucket");
      rev = std::max(rev, r->rev.main);
    }
  }
  auto scheduled = meta_revision(snapshot, mvcc::kScheduledCompactKey);
  if (!scheduled.is_ok()) return scheduled.status();
  return std::max(rev, *scheduled);
}

Status validate_restore_options(const RestoreOptions& options) {
  if (options.bump_revision < 0)
    return Status(StatusCode::kInvalidArgument, "--bump-revision must not be negative");
  if (options.bump_revision > limits::kRestoreBumpRevisionMax)
    return Status(StatusCode::kInvalidArgument,
                  "--bump-revision at most " + std::to_string(limits::kRestoreBumpRevisionMax));
  // etcdutl's check and its words (it names the flag --revision-bump there).
  if ((options.bump_revision == 0) == options.mark_compacted)
    return Status(StatusCode::kInvalidArgument, "--mark-compacted required if --revision-bump > 0");
  return Status::ok();
}

Result<std::string> restored_image(const etcdserverpb::KvSnapshot& snapshot, const RestoreOptions& options) {
  if (options.bump_revision != 0 || options.mark_compacted) {
    Status v = validate_restore_options(options);
    if (!v.is_ok()) return v;
  }
  etcdserverpb::KvSnapshot out = snapshot;
  out.clear_applied_index();  // the new cluster's members set their own
  if (options.bugs.on(Bug::kRestoreRestartsRevisions)) {
    Status s = rewrite_from_revision_two(out);
    if (!s.is_ok()) return s;
    return out.SerializeAsString();
  }
  if (options.bump_revision > 0) {
    auto rev = image_revision(out);
    if (!rev.is_ok()) return rev.status();
    if (*rev > INT64_MAX / 2) return Status(StatusCode::kInvalidArgument, "the snapshot's revision is too large to bump");
    const int64_t bumped = *rev + options.bump_revision;
    set_meta(out, mvcc::kScheduledCompactKey, bumped);
    set_meta(out, mvcc::kFinishedCompactKey, bumped);
    DST_PROBE(kSnapshotRestoreBumpedRevision);
  }
  return out.SerializeAsString();
}

}  // namespace dst::node
