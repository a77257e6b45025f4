// Benchmarks of the simulation kernel: fiber switches, scheduler throughput, network messages.
//
// Registered as "sim/..." so `dst bench sim` can select them; bench/bench_main.cc runs them
// standalone. Compare ratios within one run: these machines are shared and noisy.
#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>

#include "demo/demo_world.h"
#include "sim/network.h"
#include "sim/simulator.h"
#include "sim/sync.h"
#include "sim/wall_clock.h"

namespace dst::sim {
namespace {

// The floor: a bare Boost.Context round trip (main -> fiber -> main), no scheduler.
void BM_RawContextRoundTrip(benchmark::State& state) {
  namespace ctx = boost::context;
  bool done = false;
  ctx::fiber f([&done](ctx::fiber&& main) {
    while (!done) main = std::move(main).resume();
    return std::move(main);
  });
  for (auto _ : state) f = std::move(f).resume();
  done = true;
  f = std::move(f).resume();
}
BENCHMARK(BM_RawContextRoundTrip)->Name("sim/raw_context_round_trip");

// The fiber switch round trip: two fibers ping-pong through a pair of wait queues, each waking the
// other and blocking. Every wake is a traced event taken in (time, seq) order; inside a run loop
// the blocking fiber hands the CPU straight to the one it woke, so a round trip is two switches.
// One item is one round trip; a benchmark iteration runs 1000 of them, after which the pinger
// sleeps a nanosecond: virtual time must advance now and then, or a fast machine's millions of
// iterations at one instant would trip the scheduler's livelock limit (limits.h).
void BM_FiberSwitchRoundTrip(benchmark::State& state) {
  constexpr int kRoundTripsPerRun = 1000;
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  WaitQueue ping(sim), pong(sim);
  int rounds = 0;
  sim.spawn(p, "ponger", [&] {
    while (ping.wait() == WaitResult::kOk) pong.notify_one();
  });
  sim.spawn(p, "pinger", [&] {
    sim.yield();  // let the ponger start waiting
    while (true) {
      ping.notify_one();
      if (pong.wait() != WaitResult::kOk) return;
      if (++rounds % kRoundTripsPerRun == 0) {
        sim.stop();
        sim.sleep(1);
      }
    }
  });
  for (auto _ : state) sim.run_until_idle();
  state.SetItemsProcessed(state.iterations() * kRoundTripsPerRun);
  sim.kill(p);
}
BENCHMARK(BM_FiberSwitchRoundTrip)->Name("sim/fiber_switch_round_trip");

// One yield through the scheduler's own stack (single steps never hand off): the fiber yields
// (switch out, a wake event queued), the scheduler pops the event and switches back in. Every
// 1000 yields it sleeps a nanosecond, so virtual time advances (see the round trip above).
void BM_YieldViaScheduler(benchmark::State& state) {
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  bool stop = false;
  sim.spawn(p, "yielder", [&] {
    for (uint64_t n = 1; !stop; ++n) {
      sim.yield();
      if (n % 1000 == 0) sim.sleep(1);
    }
  });
  sim.step();  // start it
  for (auto _ : state) sim.step();
  stop = true;
  sim.run_until_idle();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_YieldViaScheduler)->Name("sim/yield_via_scheduler");

// Scheduler throughput with a realistic queue: 1024 pending timers at random future times, each of
// which reschedules itself when it fires.
void BM_SchedulerEvents(benchmark::State& state) {
  Simulator sim(1);
  Rng& rng = sim.rng("bench");
  struct Timer {
    Simulator* sim;
    Rng* rng;
    void fire() {
      Timer self = *this;
      sim->schedule_after(rng->uniform_int(1, 1'000'000), kNoProcess, [self]() mutable { self.fire(); });
    }
  };
  for (int i = 0; i < 1024; ++i) Timer{&sim, &rng}.fire();
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SchedulerEvents)->Name("sim/scheduler_events");

// Fibers sleeping on timers: each wake is a switch in and out plus a heap operation.
void BM_FiberSleepEvents(benchmark::State& state) {
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  bool stop = false;
  for (int i = 0; i < 64; ++i) {
    sim.spawn(p, "sleeper", [&sim, &stop, i] {
      Rng rng(static_cast<uint64_t>(i));
      while (!stop) sim.sleep(rng.uniform_int(1, 1'000'000));
    });
  }
  for (auto _ : state) sim.step();
  stop = true;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FiberSleepEvents)->Name("sim/fiber_sleep_events");

// Datagrams from one process to another across a link with latency: sent, delivered, received.
void BM_NetworkDatagrams(benchmark::State& state) {
  Simulator sim(1);
  const HostId a = sim.add_host("a"), b = sim.add_host("b");
  const ProcessId pa = sim.start_process(a, "sender"), pb = sim.start_process(b, "receiver");
  const SocketId out = *sim.net().bind(pa, 1);
  const SocketId in = *sim.net().bind(pb, 1);
  uint64_t received = 0;
  bool stop = false;
  sim.spawn(pa, "send", [&] {
    while (!stop) {
      (void)sim.net().send_to(out, Address{b, 1}, "0123456789abcdef0123456789abcdef");
      sim.sleep(microseconds(10));
    }
  });
  sim.spawn(pb, "recv", [&] {
    while (sim.net().recv_from(in).is_ok()) ++received;
  });
  for (auto _ : state) {
    const uint64_t target = received + 1;
    while (received < target) sim.step();
  }
  stop = true;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NetworkDatagrams)->Name("sim/network_datagrams");

// Request/response over an ordered stream: each item is one message delivered and read.
void BM_NetworkStreamMessages(benchmark::State& state) {
  Simulator sim(1);
  const HostId a = sim.add_host("a"), b = sim.add_host("b");
  const ProcessId pa = sim.start_process(a, "client"), pb = sim.start_process(b, "server");
  const ListenerId listener = *sim.net().listen(pb, 2);
  uint64_t messages = 0;
  sim.spawn(pb, "server", [&] {
    const StreamId s = *sim.net().accept(listener);
    while (true) {
      Result<std::string> m = sim.net().recv(s);
      if (!m.is_ok()) return;
      ++messages;
      (void)sim.net().send(s, std::move(*m));
    }
  });
  sim.spawn(pa, "client", [&] {
    const StreamId s = *sim.net().connect(pa, Address{b, 2});
    while (sim.net().send(s, "ping ping ping ping").is_ok()) {
      if (!sim.net().recv(s).is_ok()) return;
      ++messages;
    }
  });
  for (auto _ : state) {
    const uint64_t target = messages + 1;
    while (messages < target) sim.step();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NetworkStreamMessages)->Name("sim/network_stream_messages");

// The whole demo world (5 peers, faults, disk, streams): virtual seconds per wall second.
void BM_DemoWorld(benchmark::State& state) {
  uint64_t seed = 1;
  int64_t wall_ns = 0;
  uint64_t events = 0;
  for (auto _ : state) {
    Simulator sim(seed++);
    const int64_t start = wall_clock_ns();
    demo::DemoStats stats = demo::run_demo_world(sim, demo::DemoOptions{});
    wall_ns += wall_clock_ns() - start;
    events += sim.events_executed();
    benchmark::DoNotOptimize(stats);
  }
  state.counters["virtual_s_per_wall_s"] =
      benchmark::Counter(10.0 * static_cast<double>(state.iterations()) / (static_cast<double>(wall_ns) / 1e9));
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events) / (static_cast<double>(wall_ns) / 1e9));
}
BENCHMARK(BM_DemoWorld)->Name("sim/demo_world_10s")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dst::sim
