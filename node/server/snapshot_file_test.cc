#include "node/server/snapshot_file.h"

#include <gtest/gtest.h>

#include "node/mvcc/kv_store.h"
#include "node/mvcc/revision.h"
#include "proto/etcd_kv.pb.h"

namespace dst::node {
namespace {

using etcdserverpb::KvSnapshot;

void add_row(KvSnapshot::Bucket* b, const std::string& k, const std::string& v) {
  auto* r = b->add_rows();
  r->set_key(k);
  r->set_value(v);
}

// Key bucket rows: rev 2 put a=1, rev 3 put b=2, rev 4 delete a, rev 5 put b=3; a lease row.
KvSnapshot sample() {
  KvSnapshot s;
  auto* key = s.add_buckets();
  key->set_name("key");
  auto put = [&](int64_t rev, const std::string& k, const std::string& v, int64_t create, int64_t version) {
    mvccpb::KeyValue kv;
    kv.set_key(k);
    kv.set_value(v);
    kv.set_create_revision(create);
    kv.set_mod_revision(rev);
    kv.set_version(version);
    add_row(key, mvcc::encode_revision({rev, 0}), kv.SerializeAsString());
  };
  put(2, "a", "1", 2, 1);
  put(3, "b", "2", 3, 1);
  mvccpb::KeyValue tomb;
  tomb.set_key("a");
  add_row(key, mvcc::encode_revision({4, 0}, true), tomb.SerializeAsString());
  put(5, "b", "3", 3, 2);
  auto* meta = s.add_buckets();
  meta->set_name("meta");
  auto* lease = s.add_buckets();
  lease->set_name("lease");
  add_row(lease, "\x01", "lease-record");
  s.set_applied_index(77);
  return s;
}

TEST(SnapshotFile, RoundTripsThroughTheFile) {
  const KvSnapshot s = sample();
  const std::string file = encode_snapshot_file(s.SerializeAsString());
  EXPECT_EQ(file.size(), s.ByteSizeLong() + kSnapshotTrailerBytes);
  auto back = read_snapshot_file(file, "snap.db");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->SerializeAsString(), s.SerializeAsString());
}

TEST(SnapshotFile, AFlippedByteFailsTheHashUnlessSkipped) {
  std::string file = encode_snapshot_file(sample().SerializeAsString());
  // Inside a value ("lease-record"), so the image still parses.
  const size_t at = file.find("lease-record");
  ASSERT_NE(at, std::string::npos);
  file[at] = 'L';
  auto bad = read_snapshot_file(file, "snap.db");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  EXPECT_NE(bad.status().message().find("snap.db: expected crc32c "), std::string::npos) << bad.status().message();
  EXPECT_TRUE(read_snapshot_file(file, "snap.db", /*skip_hash_check=*/true).is_ok());
}

TEST(SnapshotFile, ABareImageNeedsSkipHashCheck) {
  const std::string image = sample().SerializeAsString();
  auto refused = read_snapshot_file(image, "db");
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().message(), "db: snapshot missing hash but --skip-hash-check=false");
  EXPECT_TRUE(read_snapshot_file(image, "db", true).is_ok());
}

TEST(SnapshotFile, GarbageIsNotASnapshot) {
  for (const std::string& bytes : {std::string("\xff\xff\xff"), std::string(40, '\x07')}) {
    auto r = read_snapshot_file(bytes, "x", true);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
  }
}

TEST(SnapshotFile, StatusCountsRowsAndNamesTheNewestRevision) {
  auto st = snapshot_status(sample(), 1234);
  ASSERT_TRUE(st.is_ok());
  EXPECT_EQ(st->revision, 5);
  EXPECT_EQ(st->total_keys, 5u);  // 4 key rows and 1 lease row
  EXPECT_EQ(st->total_size, 1234u);
  // The hash covers every row: a changed value changes it.
  KvSnapshot other = sample();
  other.mutable_buckets(2)->mutable_rows(0)->set_value("other");
  EXPECT_NE(snapshot_status(other, 1234)->hash, st->hash);
}

TEST(SnapshotFile, RestoredImageKeepsRevisionsAndDropsTheAppliedIndex) {
  auto image = restored_image(sample(), {});
  ASSERT_TRUE(image.is_ok());
  KvSnapshot out;
  ASSERT_TRUE(out.ParseFromString(*image));
  EXPECT_EQ(out.applied_index(), 0u);
  EXPECT_EQ(*image_revision(out), 5);
  EXPECT_EQ(out.buckets(0).rows_size(), 4);
}

TEST(SnapshotFile, BumpMovesTheRevisionAndMarksItCompacted) {
  auto image = restored_image(sample(), {.bump_revision = 1000, .mark_compacted = true});
  ASSERT_TRUE(image.is_ok()) << image.status().to_string();
  KvSnapshot out;
  ASSERT_TRUE(out.ParseFromString(*image));
  EXPECT_EQ(*image_revision(out), 1005);
  int found = 0;
  for (const auto& row : out.buckets(1).rows()) {
    if (row.key() == mvcc::kScheduledCompactKey || row.key() == mvcc::kFinishedCompactKey) {
      EXPECT_EQ(*mvcc::decode_i64(row.value()), 1005);
      ++found;
    }
  }
  EXPECT_EQ(found, 2);
}

TEST(SnapshotFile, RestoreOptionsAreCheckedAsEtcdutlDoes) {
  const std::string both = "--mark-compacted required if --revision-bump > 0";
  EXPECT_EQ(validate_restore_options({.bump_revision = 5}).message(), both);
  EXPECT_EQ(validate_restore_options({.mark_compacted = true}).message(), both);
  EXPECT_FALSE(validate_restore_options({.bump_revision = -1, .mark_compacted = true}).is_ok());
  EXPECT_TRUE(validate_restore_options({}).is_ok());
  EXPECT_TRUE(validate_restore_options({.bump_revision = 1, .mark_compacted = true}).is_ok());
  EXPECT_FALSE(restored_image(sample(), {.bump_revision = 5}).is_ok());
}

TEST(SnapshotFile, TheBugReloadsLiveKeysFromRevisionTwo) {
  auto image = restored_image(sample(), {.bugs = Bugs::of(Bug::kRestoreRestartsRevisions)});
  ASSERT_TRUE(image.is_ok());
  KvSnapshot out;
  ASSERT_TRUE(out.ParseFromString(*image));
  ASSERT_EQ(out.buckets(0).rows_size(), 1);  // only b is live
  mvccpb::KeyValue kv;
  ASSERT_TRUE(kv.ParseFromString(out.buckets(0).rows(0).value()));
  EXPECT_EQ(kv.key(), "b");
  EXPECT_EQ(kv.value(), "3");
  EXPECT_EQ(kv.mod_revision(), 2);
  EXPECT_EQ(*image_revision(out), 2);  // the snapshot was at 5: revisions 3..5 will be handed out again
}

}  // namespace
}  // namespace dst::node
