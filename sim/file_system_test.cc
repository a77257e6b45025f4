// Tests of the fiber-facing file system (sim/file_system.h, FileSystem over a host's Disk): fsync
// and sync_dir block for the device latency and queue behind each other; what fsync and sync_dir
// make durable; what a process crash and a power loss keep; that an fsync or sync_dir in flight at
// a power loss has no effect; injected fsync errors; read latency; append.
#include "sim/file_system.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dst::sim {
namespace {

constexpr DurationNs kFsync = milliseconds(3);

// One host with one process and a FileSystem on its disk; fsync takes exactly kFsync.
struct World {
  Simulator sim{7};
  HostId h = sim.add_host("h");
  ProcessId p = sim.start_process(h, "p");
  FileSystem fs{sim, h};

  Disk& disk() { return sim.host(h).disk(); }
  World() { disk().set_fsync_latency(DurationDist::constant(kFsync)); }

  // A file whose name is already durable (created and sync_dir'ed without taking virtual time), so
  // durable_content() shows exactly what fsync made durable.
  FileId durable_file(const std::string& name) {
    Result<FileId> f = fs.open(name, OpenMode::kCreateExclusive);
    EXPECT_TRUE(f.is_ok()) << f.status().to_string();
    disk().sync_dir();
    return *f;
  }

  std::string durable(const std::string& name) {
    Result<std::string> content = disk().durable_content(name);
    EXPECT_TRUE(content.is_ok()) << content.status().to_string();
    return content.is_ok() ? *content : "<not durable>";
  }

  std::string current(FileId f) {
    Result<std::string> content = disk().read(f, 0, 1 << 20);
    EXPECT_TRUE(content.is_ok()) << content.status().to_string();
    return content.is_ok() ? *content : "<unreadable>";
  }
};

// --- fsync timing ------------------------------------------------------------------------------

TEST(FileSystem, FsyncBlocksForTheDeviceLatency) {
  World w;
  const FileId f = w.durable_file("wal");
  Status st(StatusCode::kUnavailable, "not run");
  TimeNs started = -1, finished = -1;
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "record").is_ok());
    started = w.sim.now();
    st = w.fs.fsync(f);
    finished = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(started, 0);
  EXPECT_EQ(finished, kFsync);
  EXPECT_EQ(w.sim.now(), kFsync);
}

TEST(FileSystem, FsyncStartingLaterAlsoTakesTheLatency) {
  World w;
  const FileId f = w.durable_file("wal");
  TimeNs finished = -1;
  w.sim.spawn(w.p, "writer", [&] {
    w.sim.sleep(milliseconds(10));
    ASSERT_TRUE(w.fs.write(f, 0, "x").is_ok());
    ASSERT_TRUE(w.fs.fsync(f).is_ok());
    finished = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(finished, milliseconds(10) + kFsync);
}

TEST(FileSystem, ConcurrentFsyncsSerialize) {
  World w;
  const FileId a = w.durable_file("a");
  const FileId b = w.durable_file("b");
  TimeNs done_a = -1, done_b = -1;
  w.sim.spawn(w.p, "fsync-a", [&] {
    ASSERT_TRUE(w.fs.write(a, 0, "aaa").is_ok());
    ASSERT_TRUE(w.fs.fsync(a).is_ok());
    done_a = w.sim.now();
  });
  w.sim.spawn(w.p, "fsync-b", [&] {
    ASSERT_TRUE(w.fs.write(b, 0, "bbb").is_ok());
    ASSERT_TRUE(w.fs.fsync(b).is_ok());
    done_b = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(done_a, milliseconds(3));
  EXPECT_EQ(done_b, milliseconds(6));  // queued behind the first on the one device
  EXPECT_EQ(w.durable("a"), "aaa");
  EXPECT_EQ(w.durable("b"), "bbb");
}

TEST(FileSystem, ConcurrentFsyncsOfTheSameFileSerialize) {
  World w;
  const FileId f = w.durable_file("wal");
  std::vector<TimeNs> done;
  for (int i = 0; i < 3; ++i) {
    w.sim.spawn(w.p, "fsync-" + std::to_string(i), [&] {
      ASSERT_TRUE(w.fs.fsync(f).is_ok());
      done.push_back(w.sim.now());
    });
  }
  w.sim.run_until_idle();
  EXPECT_EQ(done, (std::vector<TimeNs>{milliseconds(3), milliseconds(6), milliseconds(9)}));
}

TEST(FileSystem, DisksOfDifferentHostsDoNotQueueTogether) {
  World w;
  const HostId h2 = w.sim.add_host("h2");
  const ProcessId p2 = w.sim.start_process(h2, "p2");
  FileSystem fs2(w.sim, h2);
  w.sim.host(h2).disk().set_fsync_latency(DurationDist::constant(kFsync));
  const FileId a = w.durable_file("a");
  const FileId b = *fs2.open("b", OpenMode::kCreate);
  TimeNs done_a = -1, done_b = -1;
  w.sim.spawn(w.p, "a", [&] {
    ASSERT_TRUE(w.fs.fsync(a).is_ok());
    done_a = w.sim.now();
  });
  w.sim.spawn(p2, "b", [&] {
    ASSERT_TRUE(fs2.fsync(b).is_ok());
    done_b = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(done_a, kFsync);
  EXPECT_EQ(done_b, kFsync);
}

// --- what fsync makes durable --------------------------------------------------------------------

TEST(FileSystem, FsyncMakesWrittenDataDurable) {
  World w;
  const FileId f = w.durable_file("wal");
  bool checked_before = false;
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "hello").is_ok());
    EXPECT_EQ(w.durable("wal"), "");  // written, in the page cache only
    checked_before = true;
    ASSERT_TRUE(w.fs.fsync(f).is_ok());
    EXPECT_EQ(w.durable("wal"), "hello");
  });
  w.sim.run_until_idle();
  EXPECT_TRUE(checked_before);
  EXPECT_EQ(w.durable("wal"), "hello");
  EXPECT_EQ(w.disk().stats().fsyncs, 1u);
}

TEST(FileSystem, FsyncCoversOnlyWritesMadeBeforeItBegan) {
  World w;
  const FileId f = w.durable_file("wal");
  w.sim.spawn(w.p, "syncer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "before").is_ok());
    ASSERT_TRUE(w.fs.fsync(f).is_ok());
  });
  w.sim.spawn(w.p, "late-writer", [&] {
    w.sim.sleep(milliseconds(1));  // while the fsync is in flight
    ASSERT_TRUE(w.fs.append(f, "+after").is_ok());
  });
  w.sim.run_until_idle();
  EXPECT_EQ(w.current(f), "before+after");
  EXPECT_EQ(w.durable("wal"), "before");
}

TEST(FileSystem, FsyncOfUnknownFileIsNotFound) {
  World w;
  Status st;
  TimeNs finished = -1;
  w.sim.spawn(w.p, "writer", [&] {
    st = w.fs.fsync(FileId{999});
    finished = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(st.code(), StatusCode::kNotFound) << st.to_string();
  EXPECT_EQ(finished, kFsync);  // the device still took its time
}

// --- process crash vs power loss -----------------------------------------------------------------

TEST(FileSystem, UnsyncedWriteIsLostOnPowerLoss) {
  World w;
  const FileId f = w.durable_file("data");
  w.sim.spawn(w.p, "writer", [&] { ASSERT_TRUE(w.fs.write(f, 0, "unsynced").is_ok()); });
  w.sim.run_until_idle();
  EXPECT_EQ(w.current(f), "unsynced");
  w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
  EXPECT_FALSE(w.sim.alive(w.p));
  // The next incarnation finds the file as last synced: empty.
  const ProcessId p2 = w.sim.start_process(w.h, "p2");
  Result<std::string> seen = Status(StatusCode::kUnavailable, "not run");
  w.sim.spawn(p2, "reader", [&] {
    Result<FileId> again = w.fs.open("data", OpenMode::kExisting);
    ASSERT_TRUE(again.is_ok());
    seen = w.fs.read(*again, 0, 100);
  });
  w.sim.run_until_idle();
  ASSERT_TRUE(seen.is_ok()) << seen.status().to_string();
  EXPECT_EQ(*seen, "");
  EXPECT_EQ(w.durable("data"), "");
}

TEST(FileSystem, SyncedPrefixSurvivesPowerLossUnsyncedTailDoesNot) {
  World w;
  const FileId f = w.durable_file("wal");
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.append(f, "synced.").is_ok());
    ASSERT_TRUE(w.fs.fsync(f).is_ok());
    ASSERT_TRUE(w.fs.append(f, "unsynced").is_ok());
  });
  w.sim.run_until_idle();
  EXPECT_EQ(w.current(f), "synced.unsynced");
  w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
  EXPECT_EQ(w.current(f), "synced.");
}

TEST(FileSystem, UnsyncedWriteSurvivesAProcessCrash) {
  World w;
  const FileId f = w.durable_file("data");
  w.sim.spawn(w.p, "writer", [&] { ASSERT_TRUE(w.fs.write(f, 0, "in cache").is_ok()); });
  w.sim.run_until_idle();
  w.sim.kill(w.p);  // the process dies; the host (and its page cache) lives on
  const ProcessId p2 = w.sim.start_process(w.h, "p2");
  Result<std::string> seen = Status(StatusCode::kUnavailable, "not run");
  w.sim.spawn(p2, "reader", [&] {
    Result<FileId> again = w.fs.open("data", OpenMode::kExisting);
    ASSERT_TRUE(again.is_ok());
    seen = w.fs.read(*again, 0, 100);
  });
  w.sim.run_until_idle();
  ASSERT_TRUE(seen.is_ok()) << seen.status().to_string();
  EXPECT_EQ(*seen, "in cache");
  // Still not durable: a later power loss would lose it.
  EXPECT_EQ(w.durable("data"), "");
  w.sim.kill(p2, KillOptions{.lose_unsynced = true});
  EXPECT_EQ(w.current(f), "");
}

TEST(FileSystem, FsyncInFlightAtPowerLossHasNoEffect) {
  World w;
  const FileId f = w.durable_file("wal");
  ASSERT_TRUE(w.fs.write(f, 0, "old").is_ok());
  ASSERT_TRUE(w.disk().complete_fsync(w.disk().begin_fsync(f)).is_ok());
  ASSERT_EQ(w.durable("wal"), "old");
  const uint64_t fsyncs_before = w.disk().stats().fsyncs;
  bool fsync_returned = false;
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "new").is_ok());
    (void)w.fs.fsync(f);
    fsync_returned = true;  // never reached: the fiber dies with its process
  });
  w.sim.schedule_at(milliseconds(1), kNoProcess,
                    [&] { w.sim.kill(w.p, KillOptions{.lose_unsynced = true}); });
  w.sim.run_until_idle();
  EXPECT_FALSE(fsync_returned);
  EXPECT_EQ(w.sim.now(), kFsync);      // the device completion still fired...
  EXPECT_EQ(w.durable("wal"), "old");  // ...and did nothing
  EXPECT_EQ(w.current(f), "old");
  EXPECT_EQ(w.disk().stats().fsyncs, fsyncs_before);
}

TEST(FileSystem, FsyncInFlightAtPowerLossDoesNotCoverTheNextIncarnationsWrites) {
  World w;
  const FileId f = w.durable_file("wal");
  TimeNs p2_fsync_done = -1;
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "doomed").is_ok());
    (void)w.fs.fsync(f);  // completes at 3ms, after the power loss
  });
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] {
    w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
    const ProcessId p2 = w.sim.start_process(w.h, "p2");
    w.sim.spawn(p2, "restarted", [&] {
      ASSERT_TRUE(w.fs.write(f, 0, "fresh").is_ok());
      w.sim.sleep(milliseconds(1));
      ASSERT_TRUE(w.fs.fsync(f).is_ok());
      p2_fsync_done = w.sim.now();
    });
  });
  w.sim.run_until(milliseconds(4));
  EXPECT_EQ(w.durable("wal"), "");  // the old completion at 3ms changed nothing
  w.sim.run_until_idle();
  // The device queue outlives the power loss: issued at 2ms, it waits for the 3ms one.
  EXPECT_EQ(p2_fsync_done, milliseconds(6));
  EXPECT_EQ(w.durable("wal"), "fresh");
}

TEST(FileSystem, FsyncInFlightAtPowerLossDoesNotConsumeAnInjectedFailure) {
  World w;
  const FileId f = w.durable_file("wal");
  w.disk().fail_fsyncs(1);
  Status after_restart;
  w.sim.spawn(w.p, "writer", [&] { (void)w.fs.fsync(f); });
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] {
    w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
    const ProcessId p2 = w.sim.start_process(w.h, "p2");
    w.sim.spawn(p2, "restarted", [&] { after_restart = w.fs.fsync(f); });
  });
  w.sim.run_until_idle();
  // The fsync that never happened did not use up the armed failure; the next real one gets it.
  EXPECT_EQ(after_restart.code(), StatusCode::kIoError) << after_restart.to_string();
  EXPECT_EQ(w.disk().stats().fsyncs, 1u);
  EXPECT_EQ(w.disk().stats().fsync_errors, 1u);
}

TEST(FileSystem, FsyncInFlightAtProcessCrashStillCompletes) {
  World w;
  const FileId f = w.durable_file("wal");
  bool fsync_returned = false;
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "data").is_ok());
    (void)w.fs.fsync(f);
    fsync_returned = true;
  });
  // A process crash, not a power loss: the kernel still finishes the fsync it was given.
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] { w.sim.kill(w.p); });
  w.sim.run_until(milliseconds(2));
  EXPECT_EQ(w.durable("wal"), "");
  w.sim.run_until_idle();
  EXPECT_FALSE(fsync_returned);
  EXPECT_EQ(w.sim.now(), kFsync);
  EXPECT_EQ(w.durable("wal"), "data");
}

TEST(FileSystem, CancelledFsyncReturnsCancelledButTheDeviceFinishes) {
  World w;
  const FileId f = w.durable_file("wal");
  Status st;
  TimeNs returned_at = -1;
  const FiberId fiber = w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "data").is_ok());
    st = w.fs.fsync(f);
    returned_at = w.sim.now();
  });
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] { w.sim.cancel(fiber); });
  w.sim.run_until_idle();
  EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.to_string();
  EXPECT_EQ(returned_at, milliseconds(1));
  EXPECT_EQ(w.durable("wal"), "data");  // the device completed it at 3ms regardless
}

// --- injected fsync failure ----------------------------------------------------------------------

TEST(FileSystem, FailedFsyncReturnsIoError) {
  World w;
  const FileId f = w.durable_file("wal");
  w.disk().fail_fsyncs(1);
  Status first, second, third;
  TimeNs first_done = -1;
  w.sim.spawn(w.p, "writer", [&] {
    ASSERT_TRUE(w.fs.write(f, 0, "lost").is_ok());
    first = w.fs.fsync(f);
    first_done = w.sim.now();
    second = w.fs.fsync(f);  // only one failure was armed
    ASSERT_TRUE(w.fs.append(f, "+kept").is_ok());
    third = w.fs.fsync(f);
  });
  w.sim.run_until_idle();
  EXPECT_EQ(first.code(), StatusCode::kIoError) << first.to_string();
  EXPECT_EQ(first_done, kFsync);  // the failure also takes the device's time
  EXPECT_TRUE(second.is_ok()) << second.to_string();
  EXPECT_TRUE(third.is_ok()) << third.to_string();
  EXPECT_EQ(w.disk().stats().fsync_errors, 1u);
  // Like Linux after an fsync error: the failed fsync's writes stay readable but never become
  // durable (the later successful fsyncs do not cover them); newer writes do.
  EXPECT_EQ(w.current(f), "lost+kept");
  EXPECT_EQ(w.durable("wal"), std::string(4, '\0') + "+kept");
}

TEST(FileSystem, EveryFsyncFailsUntilCleared) {
  World w;
  const FileId f = w.durable_file("wal");
  w.disk().fail_fsyncs(-1);
  std::vector<StatusCode> codes;
  w.sim.spawn(w.p, "writer", [&] {
    for (int i = 0; i < 3; ++i) codes.push_back(w.fs.fsync(f).code());
    w.disk().fail_fsyncs(0);
    codes.push_back(w.fs.fsync(f).code());
  });
  w.sim.run_until_idle();
  EXPECT_EQ(codes, (std::vector<StatusCode>{StatusCode::kIoError, StatusCode::kIoError,
                                            StatusCode::kIoError, StatusCode::kOk}));
}

// --- sync_dir ------------------------------------------------------------------------------------

TEST(FileSystem, SyncDirMakesACreatedNameDurable) {
  World w;
  TimeNs sync_dir_started = -1, sync_dir_done = -1;
  w.sim.spawn(w.p, "creator", [&] {
    Result<FileId> f = w.fs.open("snap", OpenMode::kCreateExclusive);
    ASSERT_TRUE(f.is_ok());
    ASSERT_TRUE(w.fs.write(*f, 0, "snapshot").is_ok());
    ASSERT_TRUE(w.fs.fsync(*f).is_ok());
    // The data is synced, but the name is not: strict POSIX needs the directory synced too.
    EXPECT_EQ(w.disk().durable_content("snap").status().code(), StatusCode::kNotFound);
    sync_dir_started = w.sim.now();
    ASSERT_TRUE(w.fs.sync_dir().is_ok());
    sync_dir_done = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(sync_dir_started, kFsync);
  EXPECT_EQ(sync_dir_done, 2 * kFsync);  // a sync_dir takes a device flush too
  EXPECT_EQ(w.durable("snap"), "snapshot");
  EXPECT_EQ(w.disk().stats().sync_dirs, 1u);
  // And it survives a power loss.
  w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
  EXPECT_TRUE(w.fs.exists("snap"));
}

TEST(FileSystem, CreatedNameWithoutSyncDirVanishesOnPowerLoss) {
  World w;
  w.sim.spawn(w.p, "creator", [&] {
    Result<FileId> f = w.fs.open("snap", OpenMode::kCreate);
    ASSERT_TRUE(f.is_ok());
    ASSERT_TRUE(w.fs.write(*f, 0, "snapshot").is_ok());
    ASSERT_TRUE(w.fs.fsync(*f).is_ok());
  });
  w.sim.run_until_idle();
  EXPECT_TRUE(w.fs.exists("snap"));
  w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
  EXPECT_FALSE(w.fs.exists("snap"));
}

TEST(FileSystem, SyncDirInFlightAtPowerLossHasNoEffect) {
  World w;
  bool returned = false;
  w.sim.spawn(w.p, "creator", [&] {
    ASSERT_TRUE(w.fs.open("new", OpenMode::kCreate).is_ok());
    (void)w.fs.sync_dir();
    returned = true;
  });
  w.sim.schedule_at(milliseconds(1), kNoProcess,
                    [&] { w.sim.kill(w.p, KillOptions{.lose_unsynced = true}); });
  w.sim.run_until_idle();
  EXPECT_FALSE(returned);
  EXPECT_EQ(w.sim.now(), kFsync);
  EXPECT_FALSE(w.fs.exists("new"));
  EXPECT_EQ(w.disk().stats().sync_dirs, 0u);
}

TEST(FileSystem, SyncDirInFlightAtPowerLossDoesNotCoverTheNextIncarnationsNames) {
  World w;
  w.sim.spawn(w.p, "syncer", [&] { (void)w.fs.sync_dir(); });  // due at 3ms
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] {
    w.sim.kill(w.p, KillOptions{.lose_unsynced = true});
    const ProcessId p2 = w.sim.start_process(w.h, "p2");
    w.sim.spawn(p2, "restarted",
                [&] { ASSERT_TRUE(w.fs.open("fresh", OpenMode::kCreate).is_ok()); });
  });
  w.sim.run_until_idle();
  EXPECT_EQ(w.sim.now(), kFsync);
  EXPECT_TRUE(w.fs.exists("fresh"));
  // The dead sync_dir completed after "fresh" was created, but it never happened: the name is
  // still pending and a second power loss removes it.
  EXPECT_EQ(w.disk().durable_content("fresh").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(w.disk().stats().sync_dirs, 0u);
  w.sim.kill(w.sim.process_on(w.h), KillOptions{.lose_unsynced = true});
  EXPECT_FALSE(w.fs.exists("fresh"));
}

TEST(FileSystem, SyncDirQueuesBehindFsync) {
  World w;
  const FileId f = w.durable_file("wal");
  TimeNs fsync_done = -1, sync_dir_done = -1;
  w.sim.spawn(w.p, "fsync", [&] {
    ASSERT_TRUE(w.fs.fsync(f).is_ok());
    fsync_done = w.sim.now();
  });
  w.sim.spawn(w.p, "sync-dir", [&] {
    ASSERT_TRUE(w.fs.sync_dir().is_ok());
    sync_dir_done = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(fsync_done, kFsync);
  EXPECT_EQ(sync_dir_done, 2 * kFsync);
}

// --- reads ---------------------------------------------------------------------------------------

TEST(FileSystem, ReadBlocksForTheReadLatency) {
  World w;
  const FileId f = w.durable_file("data");
  ASSERT_TRUE(w.fs.write(f, 0, "0123456789").is_ok());
  w.disk().set_read_latency(DurationDist::constant(milliseconds(5)));
  Result<std::string> got = Status(StatusCode::kUnavailable, "not run");
  TimeNs started = -1, finished = -1;
  w.sim.spawn(w.p, "reader", [&] {
    w.sim.sleep(milliseconds(1));
    started = w.sim.now();
    got = w.fs.read(f, 2, 4);
    finished = w.sim.now();
  });
  w.sim.run_until_idle();
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(*got, "2345");
  EXPECT_EQ(started, milliseconds(1));
  EXPECT_EQ(finished, milliseconds(6));
}

TEST(FileSystem, ReadWithoutLatencyDoesNotBlock) {
  World w;
  const FileId f = w.durable_file("data");
  ASSERT_TRUE(w.fs.write(f, 0, "abc").is_ok());
  Result<std::string> got = Status(StatusCode::kUnavailable, "not run");
  TimeNs finished = -1;
  w.sim.spawn(w.p, "reader", [&] {
    got = w.fs.read(f, 0, 100);  // default read latency: 0
    finished = w.sim.now();
  });
  w.sim.run_until_idle();
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(*got, "abc");
  EXPECT_EQ(finished, 0);
}

TEST(FileSystem, ReadsDoNotQueueBehindEachOtherOrBehindFsync) {
  World w;
  const FileId f = w.durable_file("data");
  ASSERT_TRUE(w.fs.write(f, 0, "abc").is_ok());
  w.disk().set_read_latency(DurationDist::constant(milliseconds(2)));
  std::vector<TimeNs> read_done;
  w.sim.spawn(w.p, "fsync", [&] { ASSERT_TRUE(w.fs.fsync(f).is_ok()); });
  for (int i = 0; i < 2; ++i) {
    w.sim.spawn(w.p, "reader", [&] {
      ASSERT_TRUE(w.fs.read(f, 0, 3).is_ok());
      read_done.push_back(w.sim.now());
    });
  }
  w.sim.run_until_idle();
  EXPECT_EQ(read_done, (std::vector<TimeNs>{milliseconds(2), milliseconds(2)}));
}

TEST(FileSystem, ReadOfUnknownFileIsNotFound) {
  World w;
  Result<std::string> got = std::string("not run");
  w.sim.spawn(w.p, "reader", [&] { got = w.fs.read(FileId{12345}, 0, 10); });
  w.sim.run_until_idle();
  ASSERT_FALSE(got.is_ok());
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
}

TEST(FileSystem, CancelledReadReturnsCancelled) {
  World w;
  const FileId f = w.durable_file("data");
  w.disk().set_read_latency(DurationDist::constant(milliseconds(5)));
  Result<std::string> got = std::string("not run");
  const FiberId fiber = w.sim.spawn(w.p, "reader", [&] { got = w.fs.read(f, 0, 10); });
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] { w.sim.cancel(fiber); });
  w.sim.run_until_idle();
  ASSERT_FALSE(got.is_ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCancelled);
}

// --- append and pass-throughs --------------------------------------------------------------------

TEST(FileSystem, AppendWritesAtTheEnd) {
  World w;
  const FileId f = w.durable_file("log");
  ASSERT_TRUE(w.fs.append(f, "ab").is_ok());
  ASSERT_TRUE(w.fs.append(f, "cd").is_ok());
  EXPECT_EQ(w.current(f), "abcd");
  // After an overwrite in the middle and a truncate, append still goes to the current end.
  ASSERT_TRUE(w.fs.write(f, 0, "X").is_ok());
  ASSERT_TRUE(w.fs.truncate(f, 3).is_ok());
  ASSERT_TRUE(w.fs.append(f, "!").is_ok());
  EXPECT_EQ(w.current(f), "Xbc!");
  Result<uint64_t> size = w.fs.size(f);
  ASSERT_TRUE(size.is_ok());
  EXPECT_EQ(*size, 4u);
}

TEST(FileSystem, AppendIsReadBackAndSyncedFromAFiber) {
  World w;
  const FileId f = w.durable_file("log");
  Result<std::string> got = Status(StatusCode::kUnavailable, "not run");
  w.sim.spawn(w.p, "appender", [&] {
    for (const char* rec : {"r1;", "r2;", "r3;"}) ASSERT_TRUE(w.fs.append(f, rec).is_ok());
    ASSERT_TRUE(w.fs.fsync(f).is_ok());
    got = w.fs.read(f, 0, 100);
  });
  w.sim.run_until_idle();
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(*got, "r1;r2;r3;");
  EXPECT_EQ(w.durable("log"), "r1;r2;r3;");
}

TEST(FileSystem, AppendToUnknownFileIsNotFound) {
  World w;
  EXPECT_EQ(w.fs.append(FileId{777}, "x").code(), StatusCode::kNotFound);
}

TEST(FileSystem, AppendHitsNoSpace) {
  World w;
  const FileId f = w.durable_file("log");
  w.disk().set_capacity(4);
  ASSERT_TRUE(w.fs.append(f, "abc").is_ok());
  EXPECT_EQ(w.fs.append(f, "de").code(), StatusCode::kNoSpace);
  EXPECT_EQ(w.current(f), "abc");  // a failed append leaves the file unchanged
}

TEST(FileSystem, NamespaceOperationsPassThroughToTheDisk) {
  World w;
  ASSERT_TRUE(w.fs.open("wal/1", OpenMode::kCreate).is_ok());
  ASSERT_TRUE(w.fs.open("wal/2", OpenMode::kCreate).is_ok());
  ASSERT_TRUE(w.fs.open("snap/1", OpenMode::kCreate).is_ok());
  EXPECT_EQ(w.fs.open("wal/1", OpenMode::kCreateExclusive).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(w.fs.open("missing", OpenMode::kExisting).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(w.fs.list("wal/"), (std::vector<std::string>{"wal/1", "wal/2"}));
  ASSERT_TRUE(w.fs.rename("wal/2", "wal/3").is_ok());
  ASSERT_TRUE(w.fs.remove("wal/1").is_ok());
  EXPECT_FALSE(w.fs.exists("wal/1"));
  EXPECT_FALSE(w.fs.exists("wal/2"));
  EXPECT_TRUE(w.fs.exists("wal/3"));
  EXPECT_EQ(w.fs.list(), (std::vector<std::string>{"snap/1", "wal/3"}));
  EXPECT_EQ(w.fs.host(), w.h);
  EXPECT_EQ(&w.disk(), &w.sim.host(w.h).disk());
}

}  // namespace
}  // namespace dst::sim
