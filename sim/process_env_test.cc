// A process's Env (sim/env.h): its own host's clocks, sleeping on them, fibers that die with the
// process, sockets owned by it, exiting that keeps the page cache, wrappers, and the fiber
// primitives built on it.
#include "sim/process_env.h"

#include <gtest/gtest.h>

#include "sim/sync.h"

namespace dst::sim {
namespace {

struct TwoHosts {
  Simulator sim{11};
  HostId a = sim.add_host("a");
  HostId b = sim.add_host("b");
  ProcessId pa = sim.start_process(a, "pa");
  ProcessId pb = sim.start_process(b, "pb");
};

TEST(ProcessEnv, OneEnvPerProcessWithItsOwnHostsClocks) {
  TwoHosts w;
  Env& ea = w.sim.env(w.pa);
  EXPECT_EQ(&ea, &w.sim.env(w.pa));  // made once, kept
  w.sim.host(w.b).clock().jump_wall(seconds(30));
  w.sim.host(w.b).clock().set_drift_ppm(100'000, 0);  // b's clocks run 10% fast
  w.sim.run_for(seconds(10));
  Env& eb = w.sim.env(w.pb);
  EXPECT_EQ(ea.now(), seconds(10));
  EXPECT_EQ(ea.monotonic_now(), seconds(10));
  EXPECT_EQ(ea.wall_now(), seconds(10));
  EXPECT_EQ(eb.monotonic_now(), seconds(11));
  EXPECT_EQ(eb.wall_now(), seconds(41));
}

TEST(ProcessEnv, SleepRunsOnTheHostsClockAndSpawnedFibersDieWithTheProcess) {
  TwoHosts w;
  w.sim.host(w.b).clock().set_drift_ppm(100'000, 0);
  Env& eb = w.sim.env(w.pb);
  TimeNs woke = 0;
  bool child_finished = false;
  eb.spawn("sleeper", [&] {
    ASSERT_EQ(eb.sleep(seconds(11)), WaitResult::kOk);  // 11 s of b's fast clock: 10 s of true time
    woke = eb.now();
    eb.spawn("child", [&] {
      (void)eb.sleep(seconds(100));
      child_finished = true;
    });
  });
  w.sim.run_for(seconds(20));
  EXPECT_EQ(woke, seconds(10));
  w.sim.kill(w.pb);
  w.sim.run_for(seconds(200));
  EXPECT_FALSE(child_finished);
  EXPECT_FALSE(eb.alive());
}

TEST(ProcessEnv, ExitEndsTheProcessAndKeepsThePageCache) {
  TwoHosts w;
  Env& ea = w.sim.env(w.pa);
  bool after_exit = false;
  ea.spawn("main", [&] {
    Result<FileId> f = ea.files().open("data", OpenMode::kCreate);
    ASSERT_TRUE(f.is_ok());
    ASSERT_TRUE(ea.files().write(*f, 0, "unsynced").is_ok());
    ea.exit();
    after_exit = true;  // never reached
  });
  w.sim.run_until_idle();
  EXPECT_FALSE(after_exit);
  EXPECT_FALSE(w.sim.alive(w.pa));
  ProcessId again = w.sim.start_process(w.a, "pa2");
  Env& e2 = w.sim.env(again);
  std::string read;
  e2.spawn("reader", [&] {
    Result<FileId> f = e2.files().open("data", OpenMode::kExisting);
    ASSERT_TRUE(f.is_ok());
    read = *e2.files().read(*f, 0, 8);
  });
  w.sim.run_until_idle();
  EXPECT_EQ(read, "unsynced");  // a process exit is not a power loss
}

TEST(ProcessEnv, SocketsAreTheProcesssOwn) {
  TwoHosts w;
  Env& ea = w.sim.env(w.pa);
  Env& eb = w.sim.env(w.pb);
  std::string got;
  Status client_saw = Status::ok();
  eb.spawn("server", [&] {
    Result<ListenerId> l = eb.sockets().listen(7);
    ASSERT_TRUE(l.is_ok());
    Result<StreamId> s = eb.sockets().accept(*l);
    ASSERT_TRUE(s.is_ok());
    got = *eb.sockets().recv(*s);
  });
  ea.spawn("client", [&] {
    (void)ea.sleep(milliseconds(1));
    Result<StreamId> s = ea.sockets().connect(Address{w.b, 7});
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    EXPECT_EQ(ea.sockets().local_address(*s).host, w.a);
    ASSERT_TRUE(ea.sockets().send(*s, "hello").is_ok());
    client_saw = ea.sockets().recv(*s).status();  // until the other end goes away
  });
  w.sim.run_for(seconds(1));
  EXPECT_EQ(got, "hello");
  EXPECT_TRUE(client_saw.is_ok());  // still waiting
  w.sim.kill(w.pb);  // what pb owned (its listener, its end of the stream) goes with it
  w.sim.run_for(seconds(1));
  EXPECT_EQ(client_saw.code(), StatusCode::kUnavailable) << client_saw.to_string();
  Result<ListenerId> again = w.sim.net().listen(w.sim.start_process(w.b, "pb2"), 7);
  EXPECT_TRUE(again.is_ok()) << again.status().to_string();
}

// A wrapper changes what it overrides and forwards the rest, fiber primitives included.
class StoppedWallClock : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  TimeNs wall_now() const override { return 0; }
};

TEST(ProcessEnv, AWrapperOverridesOneCallAndForwardsTheRest) {
  TwoHosts w;
  StoppedWallClock env(w.sim.env(w.pa));
  Channel<int> ch(env, 1);
  Event done(env);
  int got = 0;
  env.spawn("receiver", [&] {
    got = *ch.recv().second;
    done.set();
  });
  env.spawn("sender", [&] {
    ASSERT_EQ(env.sleep(seconds(3)), WaitResult::kOk);
    ASSERT_EQ(ch.send(42), WaitResult::kOk);
  });
  w.sim.run_until_idle();
  EXPECT_TRUE(done.is_set());
  EXPECT_EQ(got, 42);
  EXPECT_EQ(env.now(), seconds(3));
  EXPECT_EQ(env.monotonic_now(), seconds(3));
  EXPECT_EQ(env.wall_now(), 0);
}

TEST(ProcessEnvDeathTest, SleepingForAnotherProcessIsRefused) {
  TwoHosts w;
  Env& ea = w.sim.env(w.pa);
  EXPECT_DEATH(
      {
        w.sim.env(w.pb).spawn("intruder", [&] { (void)ea.sleep(seconds(1)); });
        w.sim.run_until_idle();
      },
      "Env::sleep of process pa called from outside its fibers");
}

}  // namespace
}  // namespace dst::sim
