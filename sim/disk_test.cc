// Tests for the simulated disk model: what survives crash() (clean and torn), fsync coverage and
// fault semantics, the namespace's sync_dir rules, space accounting, bit flips and determinism.
#include "sim/disk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/limits.h"

namespace dst::sim {
namespace {

constexpr uint64_t kSector = limits::kDiskSectorBytes;

DiskConfig test_config() {
  DiskConfig config;
  config.fsync_latency = DurationDist::constant(milliseconds(1));
  return config;
}

Disk make_disk(uint64_t seed = 1) { return Disk(test_config(), Rng(seed)); }

// Distinct, never-zero bytes, so a zero-filled hole or a byte from another write is detectable.
std::string pattern(size_t n, int salt) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char(1 + (i * 7 + size_t(salt) * 13) % 251);
  return s;
}

FileId create(Disk& disk, std::string_view name) {
  Result<FileId> r = disk.open(name, OpenMode::kCreate);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.value();
}

void write_ok(Disk& disk, FileId file, uint64_t offset, std::string_view data) {
  Status s = disk.write(file, offset, data);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
}

void fsync_ok(Disk& disk, FileId file) {
  Status s = disk.complete_fsync(disk.begin_fsync(file));
  ASSERT_TRUE(s.is_ok()) << s.to_string();
}

std::string contents(Disk& disk, FileId file) {
  Result<std::string> r = disk.read(file, 0, UINT64_MAX);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r.value() : std::string("<error>");
}

// The content under `name` after a crash, read through a fresh open as a restarted process would.
std::string contents_of(Disk& disk, std::string_view name) {
  Result<FileId> r = disk.open(name, OpenMode::kExisting);
  EXPECT_TRUE(r.is_ok()) << name << ": " << r.status().to_string();
  return r.is_ok() ? contents(disk, r.value()) : std::string("<missing>");
}

std::string durable(const Disk& disk, std::string_view name) {
  Result<std::string> r = disk.durable_content(name);
  EXPECT_TRUE(r.is_ok()) << name << ": " << r.status().to_string();
  return r.is_ok() ? r.value() : std::string("<missing>");
}

// A file named `name` holding `data` durably, name included.
FileId durable_file(Disk& disk, std::string_view name, std::string_view data) {
  FileId f = create(disk, name);
  if (!data.empty()) write_ok(disk, f, 0, data);
  fsync_ok(disk, f);
  disk.sync_dir();
  return f;
}

int hamming(const std::string& a, const std::string& b) {
  EXPECT_EQ(a.size(), b.size());
  int bits = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    bits += std::popcount(static_cast<unsigned>(static_cast<unsigned char>(a[i] ^ b[i])));
  }
  return bits;
}

// --- config --------------------------------------------------------------------------------

TEST(DiskConfigTest, Defaults) {
  DiskConfig config;
  EXPECT_EQ(config.capacity_bytes, limits::kDiskCapacityBytesDefault);
  EXPECT_EQ(config.fsync_latency.kind, DurationDist::Kind::kLogNormal);
  EXPECT_EQ(config.fsync_latency.min_ns, microseconds(100));
  EXPECT_EQ(config.fsync_latency.max_ns, milliseconds(500));
  EXPECT_EQ(config.read_latency.kind, DurationDist::Kind::kConstant);
  EXPECT_EQ(config.read_latency.a, 0);
}

// --- names ---------------------------------------------------------------------------------

TEST(DiskTest, OpenModes) {
  Disk disk = make_disk();
  EXPECT_EQ(disk.open("a", OpenMode::kExisting).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(disk.exists("a"));
  Result<FileId> a = disk.open("a", OpenMode::kCreateExclusive);
  ASSERT_TRUE(a.is_ok());
  EXPECT_TRUE(disk.exists("a"));
  EXPECT_EQ(disk.open("a", OpenMode::kCreateExclusive).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(disk.open("a", OpenMode::kCreate).value(), a.value());
  EXPECT_EQ(disk.open("a", OpenMode::kExisting).value(), a.value());
  EXPECT_NE(create(disk, "b"), a.value());
  EXPECT_EQ(disk.open("", OpenMode::kCreate).status().code(), StatusCode::kInvalidArgument);
}

TEST(DiskTest, ListIsSortedAndFiltersByPrefix) {
  Disk disk = make_disk();
  for (const char* name : {"b", "a/2", "ab", "a/0", "a/1", "c/a/x"}) create(disk, name);
  EXPECT_EQ(disk.list(), (std::vector<std::string>{"a/0", "a/1", "a/2", "ab", "b", "c/a/x"}));
  EXPECT_EQ(disk.list("a/"), (std::vector<std::string>{"a/0", "a/1", "a/2"}));
  EXPECT_EQ(disk.list("a"), (std::vector<std::string>{"a/0", "a/1", "a/2", "ab"}));
  EXPECT_EQ(disk.list("c/a/x"), (std::vector<std::string>{"c/a/x"}));
  EXPECT_TRUE(disk.list("d").empty());
  ASSERT_TRUE(disk.remove("a/1").is_ok());
  EXPECT_EQ(disk.list("a/"), (std::vector<std::string>{"a/0", "a/2"}));
}

TEST(DiskTest, CreatedFileWithoutSyncDirDisappearsOnCrash) {
  Disk disk = make_disk();
  FileId f = create(disk, "new");
  write_ok(disk, f, 0, "data");
  fsync_ok(disk, f);  // fsync of the file does not persist its directory entry
  EXPECT_EQ(disk.durable_content("new").status().code(), StatusCode::kNotFound);
  disk.crash(false);
  EXPECT_FALSE(disk.exists("new"));
  EXPECT_TRUE(disk.list().empty());
  EXPECT_EQ(disk.read(f, 0, 10).status().code(), StatusCode::kNotFound);  // inode freed
  EXPECT_EQ(disk.used_bytes(), 0u);
}

TEST(DiskTest, CreatedFileWithSyncDirSurvivesCrash) {
  Disk disk = make_disk();
  FileId f = create(disk, "new");
  disk.sync_dir();
  write_ok(disk, f, 0, "data");
  fsync_ok(disk, f);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "new"), "data");
  EXPECT_EQ(disk.open("new", OpenMode::kExisting).value(), f);  // same inode after the crash
}

TEST(DiskTest, AReplacedDiskIsEmptyAndUsableAndForgetsFaults) {
  Disk disk = make_disk();
  FileId old = durable_file(disk, "wal/0.wal", "records");
  disk.set_full(true);
  disk.fail_fsyncs(-1);
  disk.replace();
  EXPECT_TRUE(disk.list().empty());
  EXPECT_EQ(disk.used_bytes(), 0u);
  EXPECT_EQ(disk.read(old, 0, 1).status().code(), StatusCode::kNotFound);  // the old file is gone
  EXPECT_EQ(disk.durable_content("wal/0.wal").status().code(), StatusCode::kNotFound);
  FileId f = create(disk, "new");  // no longer full, and fsyncs work again
  disk.sync_dir();
  write_ok(disk, f, 0, "data");
  fsync_ok(disk, f);
  EXPECT_NE(f, old);  // file ids are never reused
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "new"), "data");
}

TEST(DiskTest, RenameWithoutSyncDirReverts) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "tmp", "payload");
  ASSERT_TRUE(disk.rename("tmp", "final").is_ok());
  EXPECT_FALSE(disk.exists("tmp"));
  EXPECT_EQ(contents_of(disk, "final"), "payload");
  EXPECT_EQ(disk.open("final", OpenMode::kExisting).value(), f);  // the inode moved, not copied
  EXPECT_EQ(disk.durable_content("final").status().code(), StatusCode::kNotFound);
  disk.crash(false);
  EXPECT_FALSE(disk.exists("final"));
  EXPECT_EQ(contents_of(disk, "tmp"), "payload");
}

TEST(DiskTest, RenameOverExistingWithSyncDirSurvives) {
  Disk disk = make_disk();
  durable_file(disk, "current", "old");
  FileId next = durable_file(disk, "next", "new");
  ASSERT_TRUE(disk.rename("next", "current").is_ok());
  EXPECT_EQ(contents_of(disk, "current"), "new");
  EXPECT_FALSE(disk.exists("next"));
  EXPECT_EQ(disk.used_bytes(), 6u);  // the replaced inode is still durable until sync_dir
  disk.sync_dir();
  EXPECT_EQ(disk.used_bytes(), 3u);  // ... and freed by it
  disk.crash(false);
  EXPECT_EQ(disk.list(), (std::vector<std::string>{"current"}));
  EXPECT_EQ(contents_of(disk, "current"), "new");
  EXPECT_EQ(disk.open("current", OpenMode::kExisting).value(), next);
}

TEST(DiskTest, RenameOverExistingWithoutSyncDirRestoresBoth) {
  Disk disk = make_disk();
  durable_file(disk, "current", "old");
  durable_file(disk, "next", "new");
  ASSERT_TRUE(disk.rename("next", "current").is_ok());
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "current"), "old");
  EXPECT_EQ(contents_of(disk, "next"), "new");
}

TEST(DiskTest, RenameEdgeCases) {
  Disk disk = make_disk();
  EXPECT_EQ(disk.rename("missing", "x").code(), StatusCode::kNotFound);
  durable_file(disk, "a", "x");
  ASSERT_TRUE(disk.rename("a", "a").is_ok());
  EXPECT_TRUE(disk.exists("a"));
  disk.crash(true);  // no pending namespace op from the self-rename, so nothing can tear
  EXPECT_EQ(contents_of(disk, "a"), "x");
  EXPECT_EQ(disk.rename("a", "").code(), StatusCode::kInvalidArgument);
}

TEST(DiskTest, RemoveWithoutSyncDirReverts) {
  Disk disk = make_disk();
  durable_file(disk, "f", "keep me");
  ASSERT_TRUE(disk.remove("f").is_ok());
  EXPECT_FALSE(disk.exists("f"));
  EXPECT_EQ(disk.remove("f").code(), StatusCode::kNotFound);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "f"), "keep me");
}

TEST(DiskTest, RemoveWithSyncDirIsPermanentAndFreesTheInode) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "gone");
  ASSERT_TRUE(disk.remove("f").is_ok());
  // Until the removal is durable the inode can still come back, so its FileId keeps working.
  write_ok(disk, f, 4, "!");
  EXPECT_EQ(contents(disk, f), "gone!");
  EXPECT_EQ(disk.used_bytes(), 5u);
  disk.sync_dir();
  EXPECT_EQ(disk.used_bytes(), 0u);
  EXPECT_EQ(disk.read(f, 0, 1).status().code(), StatusCode::kNotFound);
  disk.crash(false);
  EXPECT_FALSE(disk.exists("f"));
}

TEST(DiskTest, RemoveThenRecreateGetsANewInode) {
  Disk disk = make_disk();
  FileId old_id = durable_file(disk, "f", "old");
  ASSERT_TRUE(disk.remove("f").is_ok());
  FileId new_id = create(disk, "f");
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(contents(disk, new_id), "");
  disk.crash(false);
  EXPECT_EQ(disk.open("f", OpenMode::kExisting).value(), old_id);
  EXPECT_EQ(contents_of(disk, "f"), "old");
  EXPECT_EQ(disk.read(new_id, 0, 1).status().code(), StatusCode::kNotFound);
}

// --- data ----------------------------------------------------------------------------------

TEST(DiskTest, HolesReadAsZeros) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  write_ok(disk, f, 1000, "x");
  EXPECT_EQ(disk.size(f).value(), 1001u);
  EXPECT_EQ(contents(disk, f), std::string(1000, '\0') + "x");
  write_ok(disk, f, 2, "ab");
  EXPECT_EQ(contents(disk, f).substr(0, 5), std::string("\0\0ab\0", 5));
  fsync_ok(disk, f);
  disk.sync_dir();
  EXPECT_EQ(durable(disk, "f"), std::string("\0\0ab", 4) + std::string(996, '\0') + "x");
}

TEST(DiskTest, ReadPastEndIsShortOrEmpty) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  write_ok(disk, f, 0, "0123456789");
  EXPECT_EQ(disk.read(f, 5, 100).value(), "56789");
  EXPECT_EQ(disk.read(f, 2, 3).value(), "234");
  EXPECT_EQ(disk.read(f, 10, 5).value(), "");
  EXPECT_EQ(disk.read(f, 1000, 5).value(), "");
  EXPECT_EQ(disk.read(f, 0, 0).value(), "");
  EXPECT_EQ(disk.stats().bytes_read, 8u);
}

TEST(DiskTest, OverwriteInTheMiddle) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  write_ok(disk, f, 0, "aaaaaaaa");
  write_ok(disk, f, 3, "BB");
  EXPECT_EQ(contents(disk, f), "aaaBBaaa");
  write_ok(disk, f, 6, "CCCC");
  EXPECT_EQ(contents(disk, f), "aaaBBaCCCC");
}

TEST(DiskTest, EmptyWriteChangesNothing) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  write_ok(disk, f, 100, "");
  EXPECT_EQ(disk.size(f).value(), 0u);
  EXPECT_EQ(disk.begin_fsync(f).op_seq, 0u);  // no operation recorded
}

TEST(DiskTest, UnknownFileIdIsNotFound) {
  Disk disk = make_disk();
  create(disk, "f");
  const FileId bogus = 999;
  EXPECT_EQ(disk.read(bogus, 0, 1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(disk.write(bogus, 0, "x").code(), StatusCode::kNotFound);
  EXPECT_EQ(disk.truncate(bogus, 0).code(), StatusCode::kNotFound);
  EXPECT_EQ(disk.size(bogus).status().code(), StatusCode::kNotFound);
  FsyncTicket ticket = disk.begin_fsync(bogus);
  EXPECT_EQ(ticket.file, bogus);
  EXPECT_EQ(ticket.op_seq, 0u);
  EXPECT_EQ(disk.complete_fsync(ticket).code(), StatusCode::kNotFound);
  EXPECT_EQ(disk.stats().fsyncs, 0u);
}

TEST(DiskTest, FsyncOfFreedFileIsNotFound) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  write_ok(disk, f, 0, "x");
  FsyncTicket ticket = disk.begin_fsync(f);
  ASSERT_TRUE(disk.remove("f").is_ok());
  disk.sync_dir();  // created and removed in one batch: never durable, so freed
  EXPECT_EQ(disk.complete_fsync(ticket).code(), StatusCode::kNotFound);
}

TEST(DiskTest, TruncateIsPendingUntilFsync) {
  Disk disk = make_disk();
  const std::string data = pattern(100, 1);
  FileId f = durable_file(disk, "f", data);
  ASSERT_TRUE(disk.truncate(f, 10).is_ok());
  EXPECT_EQ(disk.size(f).value(), 10u);
  EXPECT_EQ(contents(disk, f), data.substr(0, 10));
  EXPECT_EQ(durable(disk, "f"), data);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "f"), data);

  ASSERT_TRUE(disk.truncate(f, 10).is_ok());
  fsync_ok(disk, f);
  EXPECT_EQ(durable(disk, "f"), data.substr(0, 10));
  ASSERT_TRUE(disk.truncate(f, 50).is_ok());  // growing truncate fills with zeros
  EXPECT_EQ(contents(disk, f), data.substr(0, 10) + std::string(40, '\0'));
  EXPECT_EQ(durable(disk, "f"), data.substr(0, 10));
  fsync_ok(disk, f);
  EXPECT_EQ(durable(disk, "f"), data.substr(0, 10) + std::string(40, '\0'));
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "f"), data.substr(0, 10) + std::string(40, '\0'));
}

TEST(DiskTest, TruncateThenWriteReplaysInOrder) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "abcdefgh");
  ASSERT_TRUE(disk.truncate(f, 2).is_ok());
  write_ok(disk, f, 4, "XY");
  EXPECT_EQ(contents(disk, f), std::string("ab\0\0XY", 6));
  fsync_ok(disk, f);
  EXPECT_EQ(durable(disk, "f"), std::string("ab\0\0XY", 6));
}

// --- durability ----------------------------------------------------------------------------

TEST(DiskTest, CrashDropsExactlyTheUnsyncedBytes) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  disk.sync_dir();
  const std::string a = pattern(1000, 1);
  const std::string b = pattern(700, 2);
  write_ok(disk, f, 0, a);
  fsync_ok(disk, f);
  write_ok(disk, f, 1000, b);
  write_ok(disk, f, 10, "overwrite");
  EXPECT_EQ(disk.size(f).value(), 1700u);
  EXPECT_EQ(durable(disk, "f"), a);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "f"), a);
  EXPECT_EQ(disk.used_bytes(), 1000u);
  EXPECT_EQ(disk.stats().crashes, 1u);
}

TEST(DiskTest, FsyncCoversOnlyOperationsBeforeBegin) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "");
  write_ok(disk, f, 0, "before");
  FsyncTicket ticket = disk.begin_fsync(f);
  EXPECT_EQ(ticket.file, f);
  write_ok(disk, f, 6, "after");
  ASSERT_TRUE(disk.complete_fsync(ticket).is_ok());
  EXPECT_EQ(contents(disk, f), "beforeafter");
  EXPECT_EQ(durable(disk, "f"), "before");
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "f"), "before");
}

TEST(DiskTest, OverlappingFsyncsCompleteInAnyOrder) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "");
  write_ok(disk, f, 0, "one");
  FsyncTicket first = disk.begin_fsync(f);
  write_ok(disk, f, 3, "two");
  FsyncTicket second = disk.begin_fsync(f);
  ASSERT_TRUE(disk.complete_fsync(second).is_ok());  // covers both writes
  EXPECT_EQ(durable(disk, "f"), "onetwo");
  ASSERT_TRUE(disk.complete_fsync(first).is_ok());  // nothing left to do
  EXPECT_EQ(durable(disk, "f"), "onetwo");
  EXPECT_EQ(disk.stats().fsyncs, 3u);
}

TEST(DiskTest, FsyncOfOneFileLeavesOthersPending) {
  Disk disk = make_disk();
  FileId a = durable_file(disk, "a", "");
  FileId b = durable_file(disk, "b", "");
  write_ok(disk, a, 0, "A");
  write_ok(disk, b, 0, "B");
  fsync_ok(disk, a);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "a"), "A");
  EXPECT_EQ(contents_of(disk, "b"), "");
}

TEST(DiskTest, TicketFromBeforeACrashCoversNothingNew) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "");
  write_ok(disk, f, 0, "lost");
  FsyncTicket stale = disk.begin_fsync(f);
  disk.crash(false);
  write_ok(disk, f, 0, "new");
  ASSERT_TRUE(disk.complete_fsync(stale).is_ok());
  EXPECT_EQ(durable(disk, "f"), "");
  EXPECT_EQ(contents(disk, f), "new");
}

TEST(DiskTest, FailedFsyncForgetsTheWritesItCovered) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "wal", "");
  write_ok(disk, f, 0, "record");
  disk.fail_fsyncs(1);
  Status s = disk.complete_fsync(disk.begin_fsync(f));
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("\"wal\""), std::string::npos) << s.message();
  EXPECT_EQ(contents(disk, f), "record");  // still in the cache
  EXPECT_EQ(durable(disk, "wal"), "");
  // The retry succeeds but has nothing to write back: fsyncgate.
  fsync_ok(disk, f);
  EXPECT_EQ(durable(disk, "wal"), "");
  EXPECT_EQ(disk.stats().fsyncs, 3u);  // durable_file's, the failed one and the retry
  EXPECT_EQ(disk.stats().fsync_errors, 1u);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "wal"), "");
  // Written again, it becomes durable.
  write_ok(disk, f, 0, "record");
  fsync_ok(disk, f);
  disk.crash(false);
  EXPECT_EQ(contents_of(disk, "wal"), "record");
}

TEST(DiskTest, FailedFsyncDropsOnlyCoveredOperations) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "");
  write_ok(disk, f, 0, "AAAA");
  FsyncTicket ticket = disk.begin_fsync(f);
  write_ok(disk, f, 4, "BBBB");
  disk.fail_fsyncs(1);
  EXPECT_EQ(disk.complete_fsync(ticket).code(), StatusCode::kIoError);
  fsync_ok(disk, f);
  // The dropped write's bytes never reach the medium; the later one lands after a hole.
  EXPECT_EQ(durable(disk, "f"), std::string(4, '\0') + "BBBB");
  EXPECT_EQ(contents(disk, f), "AAAABBBB");
}

TEST(DiskTest, FailFsyncsCountsDownOrFailsForever) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "");
  disk.fail_fsyncs(2);
  EXPECT_EQ(disk.complete_fsync(disk.begin_fsync(f)).code(), StatusCode::kIoError);
  EXPECT_EQ(disk.complete_fsync(disk.begin_fsync(f)).code(), StatusCode::kIoError);
  fsync_ok(disk, f);

  disk.fail_fsyncs(-1);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(disk.complete_fsync(disk.begin_fsync(f)).code(), StatusCode::kIoError);
  }
  disk.crash(false);  // faults persist across a crash
  EXPECT_EQ(disk.complete_fsync(disk.begin_fsync(f)).code(), StatusCode::kIoError);
  disk.fail_fsyncs(0);
  fsync_ok(disk, f);
  EXPECT_EQ(disk.stats().fsync_errors, 8u);
}

TEST(DiskTest, SyncDirMakesAllNamespaceOperationsDurable) {
  Disk disk = make_disk();
  durable_file(disk, "keep", "k");
  durable_file(disk, "drop", "d");
  durable_file(disk, "move", "m");
  create(disk, "fresh");
  ASSERT_TRUE(disk.remove("drop").is_ok());
  ASSERT_TRUE(disk.rename("move", "moved").is_ok());
  disk.sync_dir();
  EXPECT_EQ(disk.stats().sync_dirs, 4u);
  disk.crash(false);
  EXPECT_EQ(disk.list(), (std::vector<std::string>{"fresh", "keep", "moved"}));
  EXPECT_EQ(contents_of(disk, "moved"), "m");
}

// --- torn crashes --------------------------------------------------------------------------

// A multi-sector unsynced append after an unaligned synced prefix: a torn crash keeps the synced
// bytes plus a prefix of the append that ends at an absolute sector boundary (or all of it).
TEST(DiskTornTest, TornAppendKeepsASectorAlignedPrefix) {
  const uint64_t synced_len = 700;
  const uint64_t append_len = 3000;
  const std::string synced = pattern(synced_len, 1);
  const std::string intended = synced + pattern(append_len, 2);
  std::set<uint64_t> seen;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Disk disk = make_disk(seed);
    FileId f = durable_file(disk, "f", synced);
    write_ok(disk, f, synced_len, intended.substr(synced_len));
    disk.crash(true);
    const std::string got = contents_of(disk, "f");
    const uint64_t len = got.size();
    const bool valid_len = len == synced_len || len == intended.size() ||
                           (len > synced_len && len < intended.size() && len % kSector == 0);
    ASSERT_TRUE(valid_len) << "seed " << seed << " length " << len;
    ASSERT_EQ(got, intended.substr(0, len)) << "seed " << seed;
    ASSERT_EQ(durable(disk, "f"), got);
    ASSERT_EQ(disk.used_bytes(), len);
    seen.insert(len);
  }
  // Every outcome is reachable: nothing, each boundary 1024..3584, everything.
  std::set<uint64_t> all = {synced_len, intended.size()};
  for (uint64_t c = 1024; c < intended.size(); c += kSector) all.insert(c);
  EXPECT_EQ(seen, all);
}

// Several pending appends: a torn crash keeps the first k whole, then possibly part of the next.
TEST(DiskTornTest, TornCrashKeepsAPrefixOfTheOperations) {
  const std::string intended = pattern(4 * 1000, 3);
  std::set<uint64_t> seen;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Disk disk = make_disk(seed);
    FileId f = durable_file(disk, "f", "");
    for (int i = 0; i < 4; ++i) write_ok(disk, f, i * 1000, intended.substr(i * 1000, 1000));
    disk.crash(true);
    const std::string got = contents_of(disk, "f");
    const uint64_t len = got.size();
    ASSERT_TRUE(len % 1000 == 0 || len % kSector == 0) << "seed " << seed << " length " << len;
    ASSERT_EQ(got, intended.substr(0, len)) << "seed " << seed;
    seen.insert(len);
  }
  for (uint64_t whole : {0, 1000, 2000, 3000, 4000}) EXPECT_EQ(seen.count(whole), 1u) << whole;
  EXPECT_EQ(seen.count(1536), 1u);  // a cut inside the second write
}

// A reference model of one pending operation, for enumerating torn outcomes.
struct TestOp {
  bool is_truncate;
  uint64_t offset;  // or size
  std::string data;
};

void apply(std::string& s, const TestOp& op, uint64_t len) {
  if (op.is_truncate) {
    s.resize(op.offset, '\0');
    return;
  }
  if (s.size() < op.offset + len) s.resize(op.offset + len, '\0');
  s.replace(op.offset, len, op.data.substr(0, len));
}

// Every possible torn outcome for durable `base` and pending `ops`: the first k ops whole,
// optionally followed by a sector-aligned prefix of op k. `replayed` gets every op applied.
std::set<std::string> torn_outcomes(std::string base, const std::vector<TestOp>& ops,
                                    std::string* replayed) {
  std::set<std::string> out;
  for (const TestOp& op : ops) {
    out.insert(base);
    if (!op.is_truncate) {
      for (uint64_t c = op.offset + 1; c < op.offset + op.data.size(); ++c) {
        if (c % kSector != 0) continue;
        std::string cut = base;
        apply(cut, op, c - op.offset);
        out.insert(cut);
      }
    }
    apply(base, op, op.data.size());
  }
  out.insert(base);
  *replayed = base;
  return out;
}

// Random overwrites, appends and truncates: whatever a torn crash leaves must be one of the
// outcomes above, so it never invents bytes, reorders writes or tears off-boundary.
TEST(DiskTornTest, TornCrashNeverInventsBytes) {
  std::mt19937_64 gen(42);
  int intermediate = 0;  // outcomes that are neither all nor none of the pending ops
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Disk disk = make_disk(seed);
    const std::string base = pattern(gen() % 3000, int(seed));
    FileId f = durable_file(disk, "f", base);
    std::vector<TestOp> ops;
    const int n = 1 + int(gen() % 5);
    for (int i = 0; i < n; ++i) {
      TestOp op{gen() % 6 == 0, gen() % 4000, ""};
      if (!op.is_truncate) op.data = pattern(1 + gen() % 2000, int(seed * 10 + i));
      Status s = op.is_truncate ? disk.truncate(f, op.offset) : disk.write(f, op.offset, op.data);
      ASSERT_TRUE(s.is_ok());
      ops.push_back(op);
    }
    std::string replayed;
    const std::set<std::string> possible = torn_outcomes(base, ops, &replayed);
    ASSERT_EQ(contents(disk, f), replayed);  // the model's cache agrees with the reference
    disk.crash(true);
    const std::string got = contents_of(disk, "f");
    ASSERT_EQ(possible.count(got), 1u) << "seed " << seed << " length " << got.size();
    if (got != base && got != replayed) intermediate++;
  }
  EXPECT_GT(intermediate, 50);
}

TEST(DiskTornTest, TornCrashWithNothingPendingChangesNothing) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Disk disk = make_disk(seed);
    durable_file(disk, "a", pattern(5000, 1));
    durable_file(disk, "b", "");
    const uint64_t before = disk.digest();
    disk.crash(true);
    EXPECT_EQ(disk.digest(), before);
  }
}

TEST(DiskTornTest, TornNamespaceKeepsAPrefixOfOperations) {
  const std::vector<std::string> names = {"f1", "f2", "f3"};
  std::set<size_t> seen;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Disk disk = make_disk(seed);
    for (const std::string& name : names) create(disk, name);
    disk.crash(true);
    const std::vector<std::string> got = disk.list();
    ASSERT_LE(got.size(), names.size());
    ASSERT_EQ(got, std::vector<std::string>(names.begin(), names.begin() + got.size()))
        << "seed " << seed;
    seen.insert(got.size());
  }
  EXPECT_EQ(seen, (std::set<size_t>{0, 1, 2, 3}));
}

// Journaling file systems make rename atomic: a torn crash shows the old or the new name, never
// neither, and never both.
TEST(DiskTornTest, TornCrashNeverSplitsARename) {
  std::set<std::vector<std::string>> seen;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Disk disk = make_disk(seed);
    durable_file(disk, "snap", "old");
    durable_file(disk, "snap.tmp", "new");
    ASSERT_TRUE(disk.rename("snap.tmp", "snap").is_ok());
    disk.crash(true);
    const std::vector<std::string> got = disk.list();
    if (got.size() == 1) {
      ASSERT_EQ(got[0], "snap");
      ASSERT_EQ(contents_of(disk, "snap"), "new");
    } else {
      ASSERT_EQ(got, (std::vector<std::string>{"snap", "snap.tmp"})) << "seed " << seed;
      ASSERT_EQ(contents_of(disk, "snap"), "old");
      ASSERT_EQ(contents_of(disk, "snap.tmp"), "new");
    }
    seen.insert(got);
  }
  EXPECT_EQ(seen.size(), 2u);
}

TEST(DiskTornTest, SameSeedSameOutcome) {
  auto run = [](uint64_t seed) -> std::pair<uint64_t, std::string> {
    Disk disk = make_disk(seed);
    for (int i = 0; i < 5; ++i) {
      const std::string name = "f" + std::to_string(i);
      FileId f = durable_file(disk, name, pattern(600, i));
      write_ok(disk, f, 600, pattern(5000, i + 10));
      EXPECT_TRUE(disk.truncate(f, 3000).is_ok());
      write_ok(disk, f, 100, pattern(2000, i + 20));
    }
    create(disk, "x");
    EXPECT_TRUE(disk.rename("f1", "g1").is_ok());
    EXPECT_TRUE(disk.remove("f2").is_ok());
    (void)disk.schedule_fsync(0);  // latency draws share the rng with crash draws
    disk.crash(true);
    std::string state;
    for (const std::string& name : disk.list()) state += name + "=" + contents_of(disk, name) + ";";
    return {disk.digest(), state};
  };
  std::set<uint64_t> digests;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto first = run(seed);
    const auto second = run(seed);
    EXPECT_EQ(first, second) << "seed " << seed;
    digests.insert(first.first);
  }
  EXPECT_GT(digests.size(), 5u);  // the seed matters
}

// --- space ---------------------------------------------------------------------------------

TEST(DiskSpaceTest, DiskFullRejectsGrowthAndWritesNothing) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "0123456789");
  disk.set_full(true);
  Status s = disk.write(f, 8, "abcd");  // overlaps the end: grows, so refused entirely
  EXPECT_EQ(s.code(), StatusCode::kNoSpace);
  EXPECT_EQ(contents(disk, f), "0123456789");
  EXPECT_EQ(disk.write(f, 100, "x").code(), StatusCode::kNoSpace);
  EXPECT_EQ(disk.truncate(f, 11).code(), StatusCode::kNoSpace);
  EXPECT_EQ(disk.size(f).value(), 10u);
  EXPECT_EQ(disk.stats().no_space_errors, 3u);
  EXPECT_EQ(disk.begin_fsync(f).op_seq, 1u);  // only durable_file's write was recorded
  // Overwrites and shrinking do not grow usage.
  write_ok(disk, f, 0, "AB");
  ASSERT_TRUE(disk.truncate(f, 5).is_ok());
  EXPECT_EQ(contents(disk, f), "AB234");
  FileId g = create(disk, "g");  // an empty file takes no space
  EXPECT_EQ(disk.write(g, 0, "x").code(), StatusCode::kNoSpace);
  disk.set_full(false);
  write_ok(disk, f, 5, "xyz");
  EXPECT_EQ(contents(disk, f), "AB234xyz");
  EXPECT_EQ(disk.stats().no_space_errors, 4u);
}

TEST(DiskSpaceTest, CapacityLimitsTotalUsage) {
  DiskConfig config = test_config();
  config.capacity_bytes = 1000;
  Disk disk(config, Rng(1));
  FileId a = durable_file(disk, "a", std::string(600, 'a'));
  FileId b = create(disk, "b");
  write_ok(disk, b, 0, std::string(400, 'b'));
  EXPECT_EQ(disk.used_bytes(), 1000u);
  EXPECT_EQ(disk.write(b, 400, "x").code(), StatusCode::kNoSpace);
  EXPECT_EQ(disk.write(a, 1000, "x").code(), StatusCode::kNoSpace);  // a hole counts too
  EXPECT_EQ(disk.size(a).value(), 600u);
  write_ok(disk, b, 399, "B");  // overwriting is fine
  ASSERT_TRUE(disk.remove("a").is_ok());
  EXPECT_EQ(disk.used_bytes(), 1000u);  // not freed until the removal is durable
  EXPECT_EQ(disk.write(b, 400, "x").code(), StatusCode::kNoSpace);
  disk.sync_dir();
  EXPECT_EQ(disk.used_bytes(), 400u);
  write_ok(disk, b, 400, std::string(600, 'c'));
  EXPECT_EQ(disk.used_bytes(), 1000u);
  // Lowering the capacity below usage blocks growth but keeps the data.
  disk.set_capacity(500);
  EXPECT_EQ(disk.config().capacity_bytes, 500u);
  EXPECT_EQ(disk.write(b, 1000, "x").code(), StatusCode::kNoSpace);
  EXPECT_EQ(disk.size(b).value(), 1000u);
  ASSERT_TRUE(disk.truncate(b, 100).is_ok());
  write_ok(disk, b, 100, std::string(400, 'd'));
  EXPECT_EQ(disk.used_bytes(), 500u);
}

TEST(DiskSpaceTest, UsedBytesFollowsCrashes) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", std::string(50, 'x'));
  write_ok(disk, f, 50, std::string(100, 'y'));
  create(disk, "unsynced");
  EXPECT_EQ(disk.used_bytes(), 150u);
  disk.crash(false);
  EXPECT_EQ(disk.used_bytes(), 50u);
  ASSERT_TRUE(disk.truncate(f, 0).is_ok());
  EXPECT_EQ(disk.used_bytes(), 0u);
  disk.crash(false);
  EXPECT_EQ(disk.used_bytes(), 50u);
}

TEST(DiskLimitsTest, PendingOperationsPerFileAreBounded) {
  Disk disk = make_disk();
  FileId f = durable_file(disk, "f", "");
  for (size_t i = 0; i < limits::kDiskPendingOpsPerFileMax; ++i) {
    ASSERT_TRUE(disk.truncate(f, 0).is_ok());
  }
  EXPECT_EQ(disk.write(f, 0, "x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(disk.truncate(f, 0).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(disk.size(f).value(), 0u);
  fsync_ok(disk, f);
  write_ok(disk, f, 0, "x");
}

TEST(DiskLimitsTest, FilesPerDiskAreBounded) {
  Disk disk = make_disk();
  for (size_t i = 0; i < limits::kDiskFilesMax; ++i) create(disk, "f" + std::to_string(i));
  EXPECT_EQ(disk.open("one-more", OpenMode::kCreate).status().code(),
            StatusCode::kResourceExhausted);
  EXPECT_TRUE(disk.open("f0", OpenMode::kCreate).is_ok());  // opening an existing file is fine
  // Removed files count until freed, which needs the removal to be durable.
  ASSERT_TRUE(disk.remove("f0").is_ok());
  EXPECT_EQ(disk.open("one-more", OpenMode::kCreate).status().code(),
            StatusCode::kResourceExhausted);
  disk.sync_dir();
  EXPECT_TRUE(disk.open("one-more", OpenMode::kCreate).is_ok());
}

// --- faults: bit flips ---------------------------------------------------------------------

TEST(DiskFlipTest, OneBitFlipsExactlyOneBitInsideTheRange) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Disk disk = make_disk(seed);
    const std::string data = pattern(4096, 5);
    FileId f = durable_file(disk, "f", data);
    ASSERT_TRUE(disk.flip_bits("f", 1000, 100, 1).is_ok());
    const std::string now = contents(disk, f);
    ASSERT_EQ(hamming(now, data), 1);
    ASSERT_EQ(now.substr(0, 1000), data.substr(0, 1000));
    ASSERT_EQ(now.substr(1100), data.substr(1100));
    ASSERT_EQ(durable(disk, "f"), now);  // the medium decayed, not just the cache
    disk.crash(false);
    ASSERT_EQ(contents_of(disk, "f"), now);
  }
}

TEST(DiskFlipTest, FlipsExactlyTheRequestedNumberOfBits) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Disk disk = make_disk(seed);
    const std::string data = pattern(64, 6);
    FileId f = durable_file(disk, "f", data);
    const int bits = 1 + int(seed % 40);
    ASSERT_TRUE(disk.flip_bits("f", 10, 5, bits).is_ok());  // 40 bits in range: no repeats
    const std::string now = contents(disk, f);
    ASSERT_EQ(hamming(now, data), bits) << "seed " << seed;
    ASSERT_EQ(now.substr(0, 10), data.substr(0, 10));
    ASSERT_EQ(now.substr(15), data.substr(15));
    ASSERT_EQ(durable(disk, "f"), now);
    ASSERT_EQ(disk.stats().bits_flipped, uint64_t(bits));
  }
}

TEST(DiskFlipTest, ShorterDurableContentIsFlippedWhereItExists) {
  Disk disk = make_disk();
  const std::string synced = pattern(100, 7);
  const std::string cached = pattern(100, 8);
  FileId f = durable_file(disk, "f", synced);
  write_ok(disk, f, 100, cached);
  // All 800 bits of [50, 150): each byte is inverted, so the result is certain.
  ASSERT_TRUE(disk.flip_bits("f", 50, 100, 800).is_ok());
  std::string expect_current = synced + cached;
  for (size_t i = 50; i < 150; ++i) expect_current[i] = char(~expect_current[i]);
  std::string expect_durable = synced;
  for (size_t i = 50; i < 100; ++i) expect_durable[i] = char(~expect_durable[i]);
  EXPECT_EQ(contents(disk, f), expect_current);
  EXPECT_EQ(durable(disk, "f"), expect_durable);
}

TEST(DiskFlipTest, RejectsBadArguments) {
  Disk disk = make_disk();
  durable_file(disk, "f", pattern(100, 9));
  EXPECT_EQ(disk.flip_bits("missing", 0, 1, 1).code(), StatusCode::kNotFound);
  EXPECT_EQ(disk.flip_bits("f", 90, 11, 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(disk.flip_bits("f", 101, 0, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(disk.flip_bits("f", 0, 1, 9).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(disk.flip_bits("f", 0, 1, -1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(disk.stats().bits_flipped, 0u);
  EXPECT_TRUE(disk.flip_bits("f", 100, 0, 0).is_ok());
}

// --- timing --------------------------------------------------------------------------------

TEST(DiskTimingTest, FsyncsQueueBehindEachOther) {
  Disk disk = make_disk();
  EXPECT_EQ(disk.schedule_fsync(0), milliseconds(1));
  EXPECT_EQ(disk.schedule_fsync(0), milliseconds(2));
  EXPECT_EQ(disk.schedule_fsync(microseconds(1500)), milliseconds(3));
  EXPECT_EQ(disk.schedule_fsync(milliseconds(10)), milliseconds(11));  // idle device starts now
  disk.crash(false);
  EXPECT_EQ(disk.schedule_fsync(milliseconds(10)), milliseconds(12));  // the queue survives
}

TEST(DiskTimingTest, DefaultFsyncLatencySerializesWithinBounds) {
  Disk disk(DiskConfig(), Rng(7));
  TimeNs previous = 0;
  for (int i = 0; i < 200; ++i) {
    const TimeNs now = microseconds(300) * i;
    const TimeNs done = disk.schedule_fsync(now);
    const TimeNs start = std::max(now, previous);
    ASSERT_GE(done, start + microseconds(100));
    ASSERT_LE(done, start + milliseconds(500));
    previous = done;
  }
}

TEST(DiskTimingTest, ReadsDoNotQueue) {
  Disk disk = make_disk();
  EXPECT_EQ(disk.schedule_read(milliseconds(3)), milliseconds(3));
  disk.set_read_latency(DurationDist::constant(microseconds(250)));
  EXPECT_EQ(disk.schedule_read(milliseconds(3)), milliseconds(3) + microseconds(250));
  EXPECT_EQ(disk.schedule_read(milliseconds(3)), milliseconds(3) + microseconds(250));
  disk.set_fsync_latency(DurationDist::constant(milliseconds(5)));
  EXPECT_EQ(disk.schedule_fsync(0), milliseconds(5));
  EXPECT_EQ(disk.config().fsync_latency.a, double(milliseconds(5)));
}

// --- inspection ----------------------------------------------------------------------------

TEST(DiskTest, DigestTracksNamesAndContents) {
  Disk one = make_disk(1);
  Disk two = make_disk(2);  // the seed does not enter the digest
  EXPECT_EQ(one.digest(), two.digest());
  FileId f1 = create(one, "f");
  FileId f2 = create(two, "f");
  write_ok(one, f1, 0, "hello");
  write_ok(two, f2, 0, "hello");
  EXPECT_EQ(one.digest(), two.digest());
  const uint64_t hello = one.digest();
  write_ok(one, f1, 0, "j");
  EXPECT_NE(one.digest(), hello);
  write_ok(one, f1, 0, "h");  // same content again: the cached hash must have been refreshed
  EXPECT_EQ(one.digest(), hello);
  ASSERT_TRUE(one.rename("f", "g").is_ok());
  EXPECT_NE(one.digest(), hello);
  ASSERT_TRUE(one.rename("g", "f").is_ok());
  EXPECT_EQ(one.digest(), hello);
  ASSERT_TRUE(one.flip_bits("f", 0, 5, 1).is_ok());
  EXPECT_NE(one.digest(), hello);
  ASSERT_TRUE(one.truncate(f1, 0).is_ok());
  write_ok(one, f1, 0, "hello");
  EXPECT_EQ(one.digest(), hello);
}

TEST(DiskTest, StatsCountOperations) {
  Disk disk = make_disk();
  FileId f = create(disk, "f");
  write_ok(disk, f, 0, "12345");
  write_ok(disk, f, 5, "678");
  ASSERT_TRUE(disk.read(f, 2, 100).is_ok());
  fsync_ok(disk, f);
  disk.sync_dir();
  disk.crash(true);
  const DiskStats& stats = disk.stats();
  EXPECT_EQ(stats.bytes_written, 8u);
  EXPECT_EQ(stats.bytes_read, 6u);
  EXPECT_EQ(stats.fsyncs, 1u);
  EXPECT_EQ(stats.fsync_errors, 0u);
  EXPECT_EQ(stats.sync_dirs, 1u);
  EXPECT_EQ(stats.crashes, 1u);
}

TEST(DiskTest, DurableContentOfUnknownNameIsNotFound) {
  Disk disk = make_disk();
  EXPECT_EQ(disk.durable_content("nope").status().code(), StatusCode::kNotFound);
  durable_file(disk, "f", "x");
  ASSERT_TRUE(disk.remove("f").is_ok());
  EXPECT_EQ(durable(disk, "f"), "x");  // removal not durable yet
  disk.sync_dir();
  EXPECT_EQ(disk.durable_content("f").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dst::sim
