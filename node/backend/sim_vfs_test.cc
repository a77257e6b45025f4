// The sim VFS (sim_vfs.h): SQLite never touches the default VFS or a real file, VFS registration
// is per Backend, and two nodes' backends in one world stay apart.
#include "node/backend/sim_vfs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "node/backend/backend.h"
#include "node/backend/backend_test_util.h"

namespace dst::backend {
namespace {

using testing::dump;
using testing::in_fiber;
using testing::open_backend;
using testing::World;

// A default VFS that counts every call before passing it to the real one (the unix VFS).
struct GuardVfs {
  static inline sqlite3_vfs* real = nullptr;
  static inline int calls = 0;
  static int open(sqlite3_vfs*, const char* n, sqlite3_file* f, int fl, int* o) {
    ++calls;
    return real->xOpen(real, n, f, fl, o);
  }
  static int del(sqlite3_vfs*, const char* n, int s) {
    ++calls;
    return real->xDelete(real, n, s);
  }
  static int access(sqlite3_vfs*, const char* n, int fl, int* o) {
    ++calls;
    return real->xAccess(real, n, fl, o);
  }
  static int full(sqlite3_vfs*, const char* n, int len, char* o) {
    ++calls;
    return real->xFullPathname(real, n, len, o);
  }
  static int random(sqlite3_vfs*, int n, char* o) {
    ++calls;
    return real->xRandomness(real, n, o);
  }
  static int sleep(sqlite3_vfs*, int us) {
    ++calls;
    return us;
  }
  static int now(sqlite3_vfs*, double* o) {
    ++calls;
    return real->xCurrentTime(real, o);
  }
  static int now64(sqlite3_vfs*, sqlite3_int64* o) {
    ++calls;
    return real->xCurrentTimeInt64(real, o);
  }
};

TEST(SimVfs, NeitherTheDefaultVfsNorARealFileIsEverUsed) {
  namespace fs = std::filesystem;
  auto listing = [] {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(fs::current_path())) names.insert(e.path().string());
    return names;
  };
  const std::set<std::string> files_before = listing();
  GuardVfs::real = sqlite3_vfs_find(nullptr);
  ASSERT_NE(GuardVfs::real, nullptr);
  sqlite3_vfs guard = *GuardVfs::real;
  guard.zName = "dst-guard";
  guard.xOpen = GuardVfs::open;
  guard.xDelete = GuardVfs::del;
  guard.xAccess = GuardVfs::access;
  guard.xFullPathname = GuardVfs::full;
  guard.xRandomness = GuardVfs::random;
  guard.xSleep = GuardVfs::sleep;
  guard.xCurrentTime = GuardVfs::now;
  guard.xCurrentTimeInt64 = GuardVfs::now64;
  ASSERT_EQ(sqlite3_vfs_register(&guard, /*makeDflt=*/1), SQLITE_OK);
  {
    World w;
    std::unique_ptr<Backend> b = open_backend(w);
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(in_fiber(w, [&] {
                  for (int i = 0; i < 3000; ++i) {
                    Status s = b->put("key", "k" + std::to_string(i), std::string(1000, 'x'));
                    if (!s.is_ok()) return s;
                  }
                  if (Status s = b->set_applied(1); !s.is_ok()) return s;
                  if (Status s = b->commit(); !s.is_ok()) return s;
                  if (Status s = b->del_range("key", "k1", "k2"); !s.is_ok()) return s;
                  if (Status s = b->defragment(); !s.is_ok()) return s;
                  return b->close();
                }).is_ok());
    b.reset();
    w.power_loss(/*torn=*/true);
    b = open_backend(w);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(dump(w, *b)["key"].size(), 3000u - 1111u);
  }
  sqlite3_vfs_unregister(&guard);
  sqlite3_vfs_register(GuardVfs::real, /*makeDflt=*/1);
  EXPECT_EQ(GuardVfs::calls, 0);
  EXPECT_EQ(listing(), files_before);
}

TEST(SimVfs, EachBackendRegistersItsOwnVfsAndUnregistersIt) {
  World w;
  sim::HostId h2 = w.sim.add_host("h2");
  sim::ProcessId p2 = w.sim.start_process(h2, "node");
  std::unique_ptr<Backend> b1 = open_backend(w);
  std::unique_ptr<Backend> b2;
  w.sim.spawn(p2, "open", [&] { b2 = Backend::open(w.sim.env(p2), testing::kPath).value(); });
  w.sim.run_until_idle();
  ASSERT_NE(b2, nullptr);
  // Same path on two hosts: two independent files.
  w.run([&] { ASSERT_TRUE(b1->put("key", "who", "1").is_ok()); });
  w.sim.spawn(p2, "put", [&] { ASSERT_TRUE(b2->put("key", "who", "2").is_ok()); });
  w.sim.run_until_idle();
  w.run([&] { EXPECT_EQ(b1->get("key", "who")->value_or(""), "1"); });
  EXPECT_EQ(dump(w, *b1)["key"]["who"], "1");
  b1.reset();
  b2.reset();
  // Nothing is left registered: the default is still the only one SQLite would pick.
  for (sqlite3_vfs* v = sqlite3_vfs_find(nullptr); v != nullptr; v = v->pNext) {
    EXPECT_NE(std::string(v->zName).rfind("dst-sim-", 0), 0u) << v->zName;
  }
}

TEST(SimVfs, PageChecksumCoversEveryByteAndThePageNumber) {
  std::string page(limits::kBackendPageBytes, 'p');
  auto* bytes = reinterpret_cast<unsigned char*>(page.data());
  const uint64_t c = page_checksum(bytes, limits::kBackendPageBytes, 3);
  EXPECT_NE(page_checksum(bytes, limits::kBackendPageBytes, 4), c);
  page[limits::kBackendPageBytes - 9] ^= 1;  // last covered byte
  EXPECT_NE(page_checksum(bytes, limits::kBackendPageBytes, 3), c);
  page[limits::kBackendPageBytes - 9] ^= 1;
  page[limits::kBackendPageBytes - 1] ^= 1;  // the checksum's own bytes are not covered
  EXPECT_EQ(page_checksum(bytes, limits::kBackendPageBytes, 3), c);
}

}  // namespace
}  // namespace dst::backend
