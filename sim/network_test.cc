// Tests of the simulated network (sim/network.h): datagram delivery, loss, duplication, partitions,
// counters and bandwidth; stream setup, ordering, close, partitions shorter and longer than the
// break timeout, process kills, pauses, and determinism of a small networked world.
#include "sim/network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/simulator.h"

namespace dst::sim {
namespace {

LinkConfig fixed_latency(DurationNs latency) {
  LinkConfig c;
  c.latency = DurationDist::constant(latency);
  return c;
}

// Three hosts a, b, c with one process each; every link has a constant latency.
struct Net {
  explicit Net(DurationNs latency = milliseconds(1), uint64_t seed = 1) : sim(seed) {
    net().set_default_link(fixed_latency(latency));
  }
  Network& net() { return sim.net(); }

  Simulator sim;
  HostId a = sim.add_host("a");
  HostId b = sim.add_host("b");
  HostId c = sim.add_host("c");
  ProcessId pa = sim.start_process(a, "pa");
  ProcessId pb = sim.start_process(b, "pb");
  ProcessId pc = sim.start_process(c, "pc");
};

SocketId bind_ok(Net& n, ProcessId p, uint16_t port) {
  Result<SocketId> s = n.net().bind(p, port);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return s.is_ok() ? s.value() : 0;
}

struct Received {
  TimeNs at;
  Address from;
  std::string payload;
  bool operator==(const Received&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Received& r) {
  return os << "{" << format_time(r.at) << " " << r.from.to_string() << " '" << r.payload << "'}";
}

// A fiber of `p` that receives datagrams on `socket` forever, appending them to `out`.
void spawn_datagram_sink(Net& n, ProcessId p, SocketId socket, std::vector<Received>& out) {
  n.sim.spawn(p, "sink", [&n, socket, &out] {
    while (true) {
      Result<Datagram> d = n.net().recv_from(socket);
      if (!d.is_ok()) return;
      out.push_back({n.sim.now(), d->from, d->payload});
    }
  });
}

// A connected stream: pa (on host a) connected to pb's listener on b:port.
struct Conn {
  ListenerId listener = 0;
  StreamId client = 0;  // pa's end
  StreamId server = 0;  // pb's end
  TimeNs connected_at = -1;
  TimeNs accepted_at = -1;
};

Conn connect_pair(Net& n, uint16_t port = 80) {
  Conn conn;
  Result<ListenerId> l = n.net().listen(n.pb, port);
  EXPECT_TRUE(l.is_ok()) << l.status().to_string();
  conn.listener = l.value();
  n.sim.spawn(n.pb, "acceptor", [&n, &conn] {
    Result<StreamId> s = n.net().accept(conn.listener);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    conn.server = s.value();
    conn.accepted_at = n.sim.now();
  });
  n.sim.spawn(n.pa, "connector", [&n, &conn, port] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, port});
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    conn.client = s.value();
    conn.connected_at = n.sim.now();
  });
  n.sim.run_until_idle();
  EXPECT_NE(conn.client, 0u);
  EXPECT_NE(conn.server, 0u);
  return conn;
}

struct Got {
  TimeNs at;
  StatusCode code;
  std::string message;  // the payload when ok
  bool operator==(const Got&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Got& g) {
  return os << "{" << format_time(g.at) << " " << status_code_name(g.code) << " '" << g.message << "'}";
}

Got got_from(Simulator& sim, const Result<std::string>& r) {
  return r.is_ok() ? Got{sim.now(), StatusCode::kOk, r.value()} : Got{sim.now(), r.status().code(), ""};
}

// A fiber of `p` that receives from `stream` until an error, recording everything.
void spawn_stream_reader(Net& n, ProcessId p, StreamId stream, std::vector<Got>& out) {
  n.sim.spawn(p, "reader", [&n, stream, &out] {
    while (true) {
      Result<std::string> r = n.net().recv(stream);
      out.push_back(got_from(n.sim, r));
      if (!r.is_ok()) return;
    }
  });
}

std::vector<std::string> payloads(const std::vector<Got>& got) {
  std::vector<std::string> out;
  for (const Got& g : got) {
    if (g.code == StatusCode::kOk) out.push_back(g.message);
  }
  return out;
}

// =============================================================================================
// Datagrams

TEST(NetworkDatagram, ArrivesAfterExactlyTheConfiguredLatency) {
  Net n;
  n.net().set_link(n.a, n.b, fixed_latency(milliseconds(3)));
  EXPECT_EQ(n.net().link(n.a, n.b).latency.kind, DurationDist::Kind::kConstant);
  const SocketId sa = bind_ok(n, n.pa, 100);
  const SocketId sb = bind_ok(n, n.pb, 200);
  std::vector<Received> at_b, at_a;
  spawn_datagram_sink(n, n.pb, sb, at_b);
  spawn_datagram_sink(n, n.pa, sa, at_a);
  n.sim.schedule_at(milliseconds(1), kNoProcess, [&] {
    EXPECT_TRUE(n.net().send_to(sa, Address{n.b, 200}, "hello").is_ok());
    EXPECT_TRUE(n.net().send_to(sb, Address{n.a, 100}, "back").is_ok());  // b->a keeps the default
  });
  n.sim.run_until_idle();
  EXPECT_EQ(at_b, (std::vector<Received>{{milliseconds(4), Address{n.a, 100}, "hello"}}));
  EXPECT_EQ(at_a, (std::vector<Received>{{milliseconds(2), Address{n.b, 200}, "back"}}));
}

TEST(NetworkDatagram, LatencySamplesStayWithinTheDistribution) {
  Net n;
  LinkConfig cfg;
  cfg.latency = DurationDist::uniform(milliseconds(2), milliseconds(7));
  n.net().set_link(n.a, n.b, cfg);
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  for (int i = 0; i < 200; ++i) {
    n.sim.schedule_at(milliseconds(10), kNoProcess,
                      [&, i] { ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, std::to_string(i)).is_ok()); });
  }
  n.sim.run_until_idle();
  ASSERT_EQ(got.size(), 200u);
  std::set<TimeNs> distinct;
  bool reordered = false;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_GE(got[i].at, milliseconds(12));
    EXPECT_LE(got[i].at, milliseconds(17));
    distinct.insert(got[i].at);
    if (got[i].payload != std::to_string(i)) reordered = true;
  }
  EXPECT_GT(distinct.size(), 150u);  // independent samples, not one value
  EXPECT_TRUE(reordered);            // independent latencies reorder datagrams
}

TEST(NetworkDatagram, LossOneDropsEverythingAndCountsIt) {
  Net n;
  LinkConfig lossy = fixed_latency(milliseconds(1));
  lossy.loss = 1.0;
  n.net().set_link(n.a, n.b, lossy);
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "12345").is_ok());
  std::optional<StatusCode> result;
  TimeNs returned_at = -1;
  n.sim.spawn(n.pb, "reader", [&] {
    Result<Datagram> d = n.net().recv_from(sb, seconds(1));
    result = d.status().code();
    returned_at = n.sim.now();
  });
  n.sim.run_until_idle();
  EXPECT_EQ(result, StatusCode::kTimeout);
  EXPECT_EQ(returned_at, seconds(1));
  const LinkCounters& c = n.net().counters(n.a, n.b);
  EXPECT_EQ(c.sent, 20u);
  EXPECT_EQ(c.dropped, 20u);
  EXPECT_EQ(c.delivered, 0u);
  EXPECT_EQ(c.bytes_sent, 100u);
  EXPECT_EQ(c.bytes_delivered, 0u);
}

TEST(NetworkDatagram, DuplicateOneDeliversEveryDatagramTwice) {
  Net n(milliseconds(2));
  LinkConfig dup = fixed_latency(milliseconds(2));
  dup.duplicate = 1.0;
  n.net().set_link(n.a, n.b, dup);
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  for (const char* p : {"x", "y", "z"}) ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, p).is_ok());
  n.sim.run_until_idle();
  std::multiset<std::string> seen;
  for (const Received& r : got) {
    EXPECT_EQ(r.at, milliseconds(2));
    seen.insert(r.payload);
  }
  EXPECT_EQ(seen, (std::multiset<std::string>{"x", "x", "y", "y", "z", "z"}));
  const LinkCounters& c = n.net().counters(n.a, n.b);
  EXPECT_EQ(c.sent, 3u);
  EXPECT_EQ(c.duplicated, 3u);
  EXPECT_EQ(c.delivered, 6u);
  EXPECT_EQ(c.dropped, 0u);
}

TEST(NetworkDatagram, UnboundOrClosedDestinationDropsTheDatagram) {
  Net n(milliseconds(5));
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 999}, "nobody").is_ok());
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "closed-before-arrival").is_ok());
  n.sim.schedule_at(milliseconds(1), kNoProcess, [&] { n.net().close_socket(sb); });
  // Bound only after the datagram arrived: it is not kept for a later binder.
  n.sim.schedule_at(milliseconds(6), kNoProcess, [&] { bind_ok(n, n.pb, 999); });
  n.sim.run_until_idle();
  const LinkCounters& c = n.net().counters(n.a, n.b);
  EXPECT_EQ(c.sent, 2u);
  EXPECT_EQ(c.dropped, 2u);
  EXPECT_EQ(c.delivered, 0u);
}

TEST(NetworkDatagram, SocketBindCloseAndTimeouts) {
  Net n;
  const SocketId s = bind_ok(n, n.pa, 7);
  Result<SocketId> dup = n.net().bind(n.pa, 7);
  ASSERT_FALSE(dup.is_ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  bind_ok(n, n.pb, 7);  // the same port on another host is another address
  std::vector<std::pair<TimeNs, StatusCode>> log;
  n.sim.spawn(n.pa, "reader", [&] {
    for (DurationNs timeout : {milliseconds(5), kForever, kForever}) {  // timeout, closed, closed
      const StatusCode code = n.net().recv_from(s, timeout).status().code();
      log.emplace_back(n.sim.now(), code);
    }
  });
  n.sim.schedule_at(milliseconds(9), kNoProcess, [&] { n.net().close_socket(s); });
  n.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<std::pair<TimeNs, StatusCode>>{{milliseconds(5), StatusCode::kTimeout},
                                                             {milliseconds(9), StatusCode::kClosed},
                                                             {milliseconds(9), StatusCode::kClosed}}));
  EXPECT_EQ(n.net().send_to(s, Address{n.b, 7}, "x").code(), StatusCode::kInvalidArgument);
  bind_ok(n, n.pa, 7);  // the port is free again
}

TEST(NetworkDatagram, PartitionDropsAcrossGroupsButNotWithin) {
  Net n;
  n.net().partition({{n.a}, {n.b, n.c}});
  EXPECT_FALSE(n.net().reachable(n.a, n.b));
  EXPECT_FALSE(n.net().reachable(n.b, n.a));
  EXPECT_FALSE(n.net().reachable(n.a, n.c));
  EXPECT_FALSE(n.net().reachable(n.c, n.a));
  EXPECT_TRUE(n.net().reachable(n.b, n.c));
  EXPECT_TRUE(n.net().reachable(n.c, n.b));
  EXPECT_TRUE(n.net().reachable(n.a, n.a));  // a host always reaches itself
  const std::vector<HostId> hosts = {n.a, n.b, n.c};
  const std::vector<ProcessId> procs = {n.pa, n.pb, n.pc};
  std::vector<SocketId> socks;
  std::vector<std::vector<Received>> got(3);
  for (size_t i = 0; i < 3; ++i) {
    socks.push_back(bind_ok(n, procs[i], 5));
    spawn_datagram_sink(n, procs[i], socks[i], got[i]);
  }
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 3; ++j) {
      ASSERT_TRUE(n.net().send_to(socks[i], Address{hosts[j], 5}, "from" + std::to_string(i)).is_ok());
    }
  }
  n.sim.run_until_idle();
  auto senders = [&](size_t i) {
    std::set<std::string> s;
    for (const Received& r : got[i]) s.insert(r.payload);
    return s;
  };
  EXPECT_EQ(senders(0), (std::set<std::string>{"from0"}));
  EXPECT_EQ(senders(1), (std::set<std::string>{"from1", "from2"}));
  EXPECT_EQ(senders(2), (std::set<std::string>{"from1", "from2"}));
  EXPECT_EQ(n.net().counters(n.a, n.b).dropped, 1u);
  EXPECT_EQ(n.net().counters(n.c, n.a).dropped, 1u);
  EXPECT_EQ(n.net().counters(n.b, n.c).delivered, 1u);
  EXPECT_EQ(n.net().counters(n.b, n.c).dropped, 0u);
}

TEST(NetworkDatagram, AsymmetricCutDropsOneDirectionOnly) {
  Net n;
  n.net().set_reachable(n.a, n.b, false);
  EXPECT_FALSE(n.net().reachable(n.a, n.b));
  EXPECT_TRUE(n.net().reachable(n.b, n.a));
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> at_a, at_b;
  spawn_datagram_sink(n, n.pa, sa, at_a);
  spawn_datagram_sink(n, n.pb, sb, at_b);
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "a->b").is_ok());
  ASSERT_TRUE(n.net().send_to(sb, Address{n.a, 1}, "b->a").is_ok());
  n.sim.run_until_idle();
  EXPECT_TRUE(at_b.empty());
  EXPECT_EQ(at_a, (std::vector<Received>{{milliseconds(1), Address{n.b, 1}, "b->a"}}));
  EXPECT_EQ(n.net().counters(n.a, n.b).dropped, 1u);
  EXPECT_EQ(n.net().counters(n.b, n.a).delivered, 1u);
}

TEST(NetworkDatagram, ALinkNeverUsedIsReachableAtTheDefaultsAndCountsNothing) {
  Net n;
  EXPECT_TRUE(n.net().reachable(n.a, n.b));
  EXPECT_EQ(n.net().counters(n.a, n.b).sent, 0u);
  LinkConfig slow;
  slow.latency = DurationDist::constant(milliseconds(7));
  n.net().set_default_link(slow);
  EXPECT_EQ(n.net().link(n.b, n.a).latency.sample(n.sim.rng("t")), milliseconds(7));
  n.net().set_reachable(n.a, n.b, true);  // already so: nothing changes
  n.net().heal();
  EXPECT_TRUE(n.net().reachable(n.b, n.a));
}

TEST(NetworkDatagram, HealRestoresDelivery) {
  Net n;
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  n.net().partition({{n.a}, {n.b}});
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "cut").is_ok());
  n.sim.run_until(milliseconds(10));
  n.net().heal();
  EXPECT_TRUE(n.net().reachable(n.a, n.b));
  EXPECT_TRUE(n.net().reachable(n.b, n.a));
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "healed").is_ok());
  n.sim.run_until_idle();
  EXPECT_EQ(got, (std::vector<Received>{{milliseconds(11), Address{n.a, 1}, "healed"}}));
}

TEST(NetworkDatagram, ReachabilityIsCheckedWhenTheDatagramArrives) {
  Net n(milliseconds(10));
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  // Sent while reachable, cut before it arrives: dropped.
  n.sim.schedule_at(0, kNoProcess, [&] { ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "lost").is_ok()); });
  n.sim.schedule_at(milliseconds(5), kNoProcess, [&] { n.net().set_reachable(n.a, n.b, false); });
  // Sent while cut, healed before it arrives: delivered.
  n.sim.schedule_at(milliseconds(20), kNoProcess, [&] { ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "made it").is_ok()); });
  n.sim.schedule_at(milliseconds(25), kNoProcess, [&] { n.net().set_reachable(n.a, n.b, true); });
  n.sim.run_until_idle();
  EXPECT_EQ(got, (std::vector<Received>{{milliseconds(30), Address{n.a, 1}, "made it"}}));
}

TEST(NetworkDatagram, CountersTrackMessagesAndBytes) {
  Net n;
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, std::string(10, 'x')).is_ok());
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, std::string(20, 'y')).is_ok());
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 2}, std::string(40, 'z')).is_ok());  // unbound
  n.sim.run_until_idle();
  const LinkCounters& c = n.net().counters(n.a, n.b);
  EXPECT_EQ(c.sent, 3u);
  EXPECT_EQ(c.delivered, 2u);
  EXPECT_EQ(c.dropped, 1u);
  EXPECT_EQ(c.duplicated, 0u);
  EXPECT_EQ(c.bytes_sent, 70u);
  EXPECT_EQ(c.bytes_delivered, 30u);
  const LinkCounters& back = n.net().counters(n.b, n.a);
  EXPECT_EQ(back.sent, 0u);
  EXPECT_EQ(got.size(), 2u);
}

TEST(NetworkDatagram, BandwidthLimitQueuesMessagesBehindEachOther) {
  Net n;
  LinkConfig slow = fixed_latency(milliseconds(1));
  slow.bandwidth_bytes_per_sec = 1000;
  n.net().set_link(n.a, n.b, slow);
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, std::string(500, '1')).is_ok());
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, std::string(500, '2')).is_ok());
  // Once the link is idle again, a message waits only for its own transmission.
  n.sim.schedule_at(seconds(2), kNoProcess,
                    [&] { ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, std::string(100, '3')).is_ok()); });
  n.sim.run_until_idle();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].at, milliseconds(501));
  EXPECT_EQ(got[0].payload[0], '1');
  EXPECT_EQ(got[1].at, milliseconds(1001));
  EXPECT_EQ(got[1].payload[0], '2');
  EXPECT_EQ(got[2].at, seconds(2) + milliseconds(101));
}

// =============================================================================================
// Streams

TEST(NetworkStream, ConnectAcceptSendRecvRoundTrip) {
  Net n(milliseconds(2));
  ASSERT_TRUE(n.net().listen(n.pb, 80).is_ok());
  Conn conn = connect_pair(n, 81);
  EXPECT_EQ(conn.accepted_at, milliseconds(2));   // the SYN arrived
  EXPECT_EQ(conn.connected_at, milliseconds(4));  // the SYN-ACK came back
  EXPECT_EQ(n.net().peer_address(conn.client), (Address{n.b, 81}));
  EXPECT_EQ(n.net().local_address(conn.server), (Address{n.b, 81}));
  EXPECT_EQ(n.net().local_address(conn.client).host, n.a);
  EXPECT_EQ(n.net().peer_address(conn.server), n.net().local_address(conn.client));
  EXPECT_EQ(n.net().open_streams(), 1u);

  std::vector<Got> log;
  n.sim.spawn(n.pb, "server", [&] {
    Result<std::string> req = n.net().recv(conn.server);
    log.push_back(got_from(n.sim, req));
    ASSERT_TRUE(n.net().send(conn.server, "pong:" + req.value()).is_ok());
  });
  n.sim.spawn(n.pa, "client", [&] {
    ASSERT_TRUE(n.net().send(conn.client, "ping").is_ok());
    log.push_back(got_from(n.sim, n.net().recv(conn.client)));
  });
  n.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Got>{{milliseconds(6), StatusCode::kOk, "ping"},
                                   {milliseconds(8), StatusCode::kOk, "pong:ping"}}));
}

TEST(NetworkStream, ManyMessagesStayInOrderDespiteRandomLatency) {
  Net n;
  LinkConfig jittery;
  jittery.latency = DurationDist::uniform(microseconds(100), milliseconds(20));
  jittery.loss = 0.5;  // ignored by streams
  n.net().set_default_link(jittery);
  Conn conn = connect_pair(n);
  constexpr int kCount = 400;
  std::vector<TimeNs> sent_at(kCount, -1);
  std::vector<Got> at_server, at_client;
  n.sim.spawn(n.pa, "sender", [&] {
    Rng& rng = n.sim.rng("test");
    for (int i = 0; i < kCount; ++i) {
      sent_at[i] = n.sim.now();
      ASSERT_TRUE(n.net().send(conn.client, std::to_string(i)).is_ok());
      if (rng.bernoulli(0.5)) n.sim.sleep(rng.uniform_int(0, milliseconds(3)));
    }
  });
  n.sim.spawn(n.pb, "echo", [&] {
    for (int i = 0; i < kCount; ++i) {
      Result<std::string> r = n.net().recv(conn.server);
      at_server.push_back(got_from(n.sim, r));
      ASSERT_TRUE(r.is_ok());
      ASSERT_TRUE(n.net().send(conn.server, r.value()).is_ok());
    }
  });
  n.sim.spawn(n.pa, "client-reader", [&] {
    for (int i = 0; i < kCount; ++i) at_client.push_back(got_from(n.sim, n.net().recv(conn.client)));
  });
  n.sim.run_until_idle();
  std::vector<std::string> expected;
  for (int i = 0; i < kCount; ++i) expected.push_back(std::to_string(i));
  EXPECT_EQ(payloads(at_server), expected);
  EXPECT_EQ(payloads(at_client), expected);
  ASSERT_EQ(at_server.size(), size_t(kCount));
  std::set<DurationNs> latencies;
  for (int i = 0; i < kCount; ++i) {
    const DurationNs lat = at_server[i].at - sent_at[i];
    // Each message waits its own sample, or for the one before it: never beyond the maximum.
    EXPECT_GE(lat, microseconds(100));
    EXPECT_LE(lat, milliseconds(20));
    latencies.insert(lat);
  }
  EXPECT_GT(latencies.size(), size_t(kCount / 4));  // latency really varied per message
  EXPECT_EQ(n.net().counters(n.a, n.b).dropped, 0u);
  EXPECT_EQ(n.net().counters(n.a, n.b).delivered, size_t(kCount));
}

TEST(NetworkStream, CountersCountStreamMessagesAndBytes) {
  Net n;
  Conn conn = connect_pair(n);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(n.net().send(conn.client, std::string(10, 'm')).is_ok());
  n.sim.run_until_idle();
  const LinkCounters& c = n.net().counters(n.a, n.b);
  EXPECT_EQ(c.sent, 3u);
  EXPECT_EQ(c.delivered, 3u);
  EXPECT_EQ(c.bytes_sent, 30u);
  EXPECT_EQ(c.bytes_delivered, 30u);
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_EQ(c.held, 0u);
}

TEST(NetworkStream, BandwidthLimitSpacesStreamMessages) {
  Net n;
  Conn conn = connect_pair(n);
  LinkConfig slow = fixed_latency(milliseconds(1));
  slow.bandwidth_bytes_per_sec = 1000;
  n.net().set_link(n.a, n.b, slow);
  const TimeNs t0 = n.sim.now();
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  ASSERT_TRUE(n.net().send(conn.client, std::string(500, 'a')).is_ok());
  ASSERT_TRUE(n.net().send(conn.client, std::string(500, 'b')).is_ok());
  n.sim.run_until(t0 + seconds(5));
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0].at, t0 + milliseconds(501));
  EXPECT_EQ(got[1].at, t0 + milliseconds(1001));
  EXPECT_EQ(got[0].message, std::string(500, 'a'));
  EXPECT_EQ(got[1].message, std::string(500, 'b'));
}

TEST(NetworkStream, ConnectionRefusedWithoutListenerAfterOneRoundTrip) {
  Net n(milliseconds(3));
  std::vector<Got> log;
  n.sim.spawn(n.pa, "connector", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    log.push_back({n.sim.now(), s.status().code(), ""});
    // A listener that was closed refuses too.
    Result<ListenerId> l = n.net().listen(n.pc, 80);
    ASSERT_TRUE(l.is_ok());
    n.net().close_listener(l.value());
    Result<StreamId> s2 = n.net().connect(n.pa, Address{n.c, 80});
    log.push_back({n.sim.now(), s2.status().code(), ""});
  });
  n.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Got>{{milliseconds(6), StatusCode::kUnavailable, ""},
                                   {milliseconds(12), StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(n.net().open_streams(), 0u);
}

TEST(NetworkStream, ConnectToUnreachableHostFailsAfterTheConnectTimeout) {
  Net n;
  ASSERT_TRUE(n.net().listen(n.pb, 80).is_ok());
  n.net().set_connect_timeout(seconds(2));
  n.net().partition({{n.a}, {n.b}});
  std::optional<Got> got;
  n.sim.spawn(n.pa, "connector", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    got = Got{n.sim.now(), s.status().code(), ""};
  });
  n.sim.run_until_idle();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, (Got{seconds(2), StatusCode::kUnavailable, ""}));
  EXPECT_EQ(n.net().open_streams(), 0u);
}

TEST(NetworkStream, ConnectSucceedsWhenTheLinkHealsBeforeTheTimeout) {
  Net n;
  n.net().set_connect_timeout(seconds(10));
  n.net().partition({{n.a}, {n.b}});
  n.sim.schedule_at(milliseconds(1500), kNoProcess, [&] { n.net().heal(); });
  Result<ListenerId> l = n.net().listen(n.pb, 80);
  ASSERT_TRUE(l.is_ok());
  StreamId server = 0;
  TimeNs accepted_at = -1, connected_at = -1;
  std::vector<Got> log;
  n.sim.spawn(n.pb, "acceptor", [&] {
    Result<StreamId> s = n.net().accept(l.value());
    ASSERT_TRUE(s.is_ok());
    server = s.value();
    accepted_at = n.sim.now();
    log.push_back(got_from(n.sim, n.net().recv(server)));
  });
  n.sim.spawn(n.pa, "connector", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});  // the SYN is retransmitted
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    connected_at = n.sim.now();
    ASSERT_TRUE(n.net().send(s.value(), "hi").is_ok());
  });
  n.sim.run_until_idle();
  EXPECT_GT(accepted_at, milliseconds(1500));
  EXPECT_EQ(connected_at, accepted_at + milliseconds(1));
  EXPECT_LT(connected_at, seconds(10));
  EXPECT_EQ(log, (std::vector<Got>{{connected_at + milliseconds(1), StatusCode::kOk, "hi"}}));
}

TEST(NetworkStream, ConnectTimeoutShorterThanTheLatencyStillFailsCleanly) {
  Net n(milliseconds(10));
  ASSERT_TRUE(n.net().listen(n.pb, 80).is_ok());
  n.net().set_connect_timeout(milliseconds(5));
  n.net().partition({{n.a}, {n.b}});
  std::optional<Got> got;
  n.sim.spawn(n.pa, "connector", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    got = Got{n.sim.now(), s.status().code(), ""};
  });
  n.sim.run_until_idle();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->code, StatusCode::kUnavailable);
  EXPECT_GE(got->at, milliseconds(5));
  EXPECT_LE(got->at, milliseconds(10));  // no later than when the lost SYN would have arrived
}

TEST(NetworkStream, OrderlyClosePeerReadsRemainingMessagesThenClosed) {
  Net n(milliseconds(2));
  Conn conn = connect_pair(n);
  const TimeNs t0 = n.sim.now();
  for (const char* m : {"one", "two", "three"}) ASSERT_TRUE(n.net().send(conn.client, m).is_ok());
  n.net().close_stream(conn.client);
  // The closer's handle is dead at once.
  EXPECT_EQ(n.net().send(conn.client, "late").code(), StatusCode::kClosed);
  std::vector<Got> log;
  n.sim.spawn(n.pb, "server", [&] {
    n.sim.sleep(milliseconds(50));  // everything, including the FIN, arrived long ago
    for (int i = 0; i < 5; ++i) log.push_back(got_from(n.sim, n.net().recv(conn.server)));
  });
  std::optional<StatusCode> closer_recv;
  n.sim.spawn(n.pa, "closer", [&] { closer_recv = n.net().recv(conn.client).status().code(); });
  n.sim.run_until_idle();
  const TimeNs t = t0 + milliseconds(50);
  EXPECT_EQ(log, (std::vector<Got>{{t, StatusCode::kOk, "one"},
                                   {t, StatusCode::kOk, "two"},
                                   {t, StatusCode::kOk, "three"},
                                   {t, StatusCode::kClosed, ""},
                                   {t, StatusCode::kClosed, ""}}));
  EXPECT_EQ(closer_recv, StatusCode::kClosed);
  // Writing to a peer that closed goes nowhere; closing the other end frees the stream.
  EXPECT_TRUE(n.net().send(conn.server, "into the void").is_ok());
  n.sim.run_until_idle();
  EXPECT_EQ(n.net().counters(n.b, n.a).dropped, 1u);
  EXPECT_EQ(n.net().open_streams(), 1u);
  n.net().close_stream(conn.server);
  EXPECT_EQ(n.net().open_streams(), 0u);
}

TEST(NetworkStream, CloseWakesABlockedPeerAfterOneLatency) {
  Net n(milliseconds(3));
  Conn conn = connect_pair(n);
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  n.sim.run_until(milliseconds(20));
  ASSERT_TRUE(n.net().send(conn.client, "last").is_ok());
  n.net().close_stream(conn.client);
  n.sim.run_until_idle();
  EXPECT_EQ(got, (std::vector<Got>{{milliseconds(23), StatusCode::kOk, "last"},
                                   {milliseconds(23), StatusCode::kClosed, ""}}));
}

TEST(NetworkStream, RecvTimesOutAndCancelledRecvReturnsCancelled) {
  Net n;
  Conn conn = connect_pair(n);
  const TimeNs t0 = n.sim.now();
  std::vector<Got> log;
  const FiberId reader = n.sim.spawn(n.pb, "reader", [&] {
    log.push_back(got_from(n.sim, n.net().recv(conn.server, milliseconds(30))));
    log.push_back(got_from(n.sim, n.net().recv(conn.server)));
  });
  n.sim.schedule_at(t0 + milliseconds(100), kNoProcess, [&] { n.sim.cancel(reader); });
  n.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Got>{{t0 + milliseconds(30), StatusCode::kTimeout, ""},
                                   {t0 + milliseconds(100), StatusCode::kCancelled, ""}}));
  // The stream is unharmed.
  std::vector<Got> after;
  spawn_stream_reader(n, n.pb, conn.server, after);
  ASSERT_TRUE(n.net().send(conn.client, "still here").is_ok());
  n.sim.run_until(n.sim.now() + milliseconds(10));
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after[0].message, "still here");
}

TEST(NetworkStream, ShortPartitionHoldsMessagesAndDeliversThemInOrderAfterHeal) {
  Net n(milliseconds(5));
  Conn conn = connect_pair(n);  // at 10ms
  std::vector<Got> at_server, at_client;
  spawn_stream_reader(n, n.pb, conn.server, at_server);
  spawn_stream_reader(n, n.pa, conn.client, at_client);
  n.sim.schedule_at(milliseconds(100), kNoProcess, [&] { n.net().partition({{n.a}, {n.b}}); });
  for (int i = 0; i < 10; ++i) {
    n.sim.schedule_at(milliseconds(200 + 100 * i), kNoProcess,
                      [&, i] { ASSERT_TRUE(n.net().send(conn.client, "c" + std::to_string(i)).is_ok()); });
  }
  n.sim.schedule_at(milliseconds(500), kNoProcess, [&] {
    ASSERT_TRUE(n.net().send(conn.server, "s0").is_ok());
    ASSERT_TRUE(n.net().send(conn.server, "s1").is_ok());
  });
  n.sim.schedule_at(seconds(2), kNoProcess, [&] { n.net().heal(); });  // well within the 5s timeout
  n.sim.schedule_at(milliseconds(2500), kNoProcess, [&] { ASSERT_TRUE(n.net().send(conn.client, "after").is_ok()); });
  n.sim.run_until(seconds(20));  // past any break check
  std::vector<Got> expected_server;
  for (int i = 0; i < 10; ++i) expected_server.push_back({milliseconds(2005), StatusCode::kOk, "c" + std::to_string(i)});
  expected_server.push_back({milliseconds(2505), StatusCode::kOk, "after"});
  EXPECT_EQ(at_server, expected_server);
  EXPECT_EQ(at_client, (std::vector<Got>{{milliseconds(2005), StatusCode::kOk, "s0"},
                                         {milliseconds(2005), StatusCode::kOk, "s1"}}));
  EXPECT_EQ(n.net().counters(n.a, n.b).held, 10u);
  EXPECT_EQ(n.net().counters(n.b, n.a).held, 2u);
  EXPECT_EQ(n.net().counters(n.a, n.b).dropped, 0u);
  EXPECT_EQ(n.net().counters(n.a, n.b).sent, 11u);
  EXPECT_EQ(n.net().counters(n.a, n.b).delivered, 11u);
  EXPECT_EQ(n.net().counters(n.b, n.a).delivered, 2u);
}

TEST(NetworkStream, MessagesInFlightAtHealStayBehindTheHeldOnes) {
  Net n(milliseconds(10));
  Conn conn = connect_pair(n);  // at 20ms
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  n.sim.schedule_at(milliseconds(100), kNoProcess, [&] { n.net().set_reachable(n.a, n.b, false); });
  n.sim.schedule_at(milliseconds(101), kNoProcess, [&] {
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(n.net().send(conn.client, "m" + std::to_string(i)).is_ok());
  });
  // Sent during the cut but arriving after the heal: it must not overtake m0..m4, which arrived
  // while the link was cut and are retransmitted at the heal.
  n.sim.schedule_at(milliseconds(995), kNoProcess, [&] { ASSERT_TRUE(n.net().send(conn.client, "m5").is_ok()); });
  n.sim.schedule_at(milliseconds(1000), kNoProcess, [&] { n.net().set_reachable(n.a, n.b, true); });
  n.sim.run_until(seconds(10));
  std::vector<Got> expected;
  for (int i = 0; i < 6; ++i) expected.push_back({milliseconds(1010), StatusCode::kOk, "m" + std::to_string(i)});
  EXPECT_EQ(got, expected);
  EXPECT_EQ(n.net().counters(n.a, n.b).held, 5u);
  EXPECT_EQ(n.net().counters(n.a, n.b).sent, 6u);
  EXPECT_EQ(n.net().counters(n.a, n.b).delivered, 6u);
}

TEST(NetworkStream, LongPartitionBreaksBothEndsAtCutPlusTimeoutWithoutTraffic) {
  Net n(milliseconds(2));
  n.net().set_stream_break_timeout(seconds(2));
  EXPECT_EQ(n.net().stream_break_timeout(), seconds(2));
  Conn conn = connect_pair(n);
  std::vector<Got> at_client, at_server;
  spawn_stream_reader(n, n.pa, conn.client, at_client);
  spawn_stream_reader(n, n.pb, conn.server, at_server);
  n.sim.schedule_at(milliseconds(100), kNoProcess, [&] { n.net().partition({{n.a}, {n.b}}); });
  n.sim.run_until(seconds(10));
  const TimeNs broke = milliseconds(2100);
  EXPECT_EQ(at_client, (std::vector<Got>{{broke, StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(at_server, (std::vector<Got>{{broke, StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(n.net().send(conn.client, "x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(n.net().send(conn.server, "x").code(), StatusCode::kUnavailable);
  // Healing does not revive a broken stream.
  n.net().heal();
  EXPECT_EQ(n.net().send(conn.client, "x").code(), StatusCode::kUnavailable);
  n.net().close_stream(conn.client);
  n.net().close_stream(conn.server);
  EXPECT_EQ(n.net().open_streams(), 0u);
}

TEST(NetworkStream, LongPartitionDiscardsHeldMessages) {
  Net n(milliseconds(2));
  n.net().set_stream_break_timeout(seconds(1));
  Conn conn = connect_pair(n);
  n.net().partition({{n.a}, {n.b}});
  const TimeNs cut = n.sim.now();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(n.net().send(conn.client, "doomed").is_ok());
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  n.sim.run_until(cut + seconds(5));
  EXPECT_EQ(got, (std::vector<Got>{{cut + seconds(1), StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(n.net().counters(n.a, n.b).held, 3u);
  EXPECT_EQ(n.net().counters(n.a, n.b).dropped, 3u);
  EXPECT_EQ(n.net().counters(n.a, n.b).delivered, 0u);
}

TEST(NetworkStream, OneWayCutLongerThanTimeoutBreaksBothEnds) {
  Net n;
  n.net().set_stream_break_timeout(seconds(3));
  Conn conn = connect_pair(n);
  std::vector<Got> at_client, at_server;
  spawn_stream_reader(n, n.pa, conn.client, at_client);
  spawn_stream_reader(n, n.pb, conn.server, at_server);
  n.sim.schedule_at(milliseconds(50), kNoProcess, [&] { n.net().set_reachable(n.b, n.a, false); });
  n.sim.run_until(seconds(10));
  const TimeNs broke = milliseconds(3050);
  EXPECT_EQ(at_client, (std::vector<Got>{{broke, StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(at_server, (std::vector<Got>{{broke, StatusCode::kUnavailable, ""}}));
}

TEST(NetworkStream, RepeatedShortCutsDoNotAddUpToABreak) {
  Net n;
  n.net().set_stream_break_timeout(seconds(2));
  Conn conn = connect_pair(n);
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  // Cut for 1.5s, healed for 0.1s, cut again for 1.5s: each cut is shorter than the timeout.
  n.sim.schedule_at(milliseconds(100), kNoProcess, [&] { n.net().partition({{n.a}, {n.b}}); });
  n.sim.schedule_at(milliseconds(1600), kNoProcess, [&] { n.net().heal(); });
  n.sim.schedule_at(milliseconds(1700), kNoProcess, [&] { n.net().partition({{n.a}, {n.b}}); });
  n.sim.schedule_at(milliseconds(3200), kNoProcess, [&] { n.net().heal(); });
  n.sim.schedule_at(seconds(8), kNoProcess, [&] { ASSERT_TRUE(n.net().send(conn.client, "alive").is_ok()); });
  n.sim.run_until(seconds(9));
  EXPECT_EQ(got, (std::vector<Got>{{seconds(8) + milliseconds(1), StatusCode::kOk, "alive"}}));
}

TEST(NetworkStream, StreamOpenedDuringAOneWayCutBreaksIfTheCutLasts) {
  Net n;
  n.net().set_stream_break_timeout(seconds(2));
  // b->a is cut before the connection exists; the SYN (a->b) still gets through.
  n.net().set_reachable(n.b, n.a, false);
  n.sim.run_until(milliseconds(100));
  Result<ListenerId> l = n.net().listen(n.pb, 80);
  ASSERT_TRUE(l.is_ok());
  StreamId server = 0, client = 0;
  std::vector<Got> at_client;
  n.sim.spawn(n.pb, "acceptor", [&] {
    Result<StreamId> s = n.net().accept(l.value());
    ASSERT_TRUE(s.is_ok());
    server = s.value();
    ASSERT_TRUE(n.net().send(server, "held forever?").is_ok());
  });
  n.sim.spawn(n.pa, "connector", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    if (!s.is_ok()) {
      at_client.push_back({n.sim.now(), s.status().code(), "connect"});
      return;
    }
    client = s.value();
    while (true) {
      Result<std::string> r = n.net().recv(client);
      at_client.push_back(got_from(n.sim, r));
      if (!r.is_ok()) return;
    }
  });
  n.sim.run_until(seconds(30));
  // The stream opened when the SYN arrived (101ms). The client must not wait forever on a link
  // that stays cut: the stream breaks once it has been cut for the break timeout.
  EXPECT_NE(client, 0u);
  EXPECT_EQ(at_client, (std::vector<Got>{{milliseconds(101) + seconds(2), StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(n.net().counters(n.b, n.a).held, 1u);
  EXPECT_EQ(n.net().counters(n.b, n.a).dropped, 1u);
}

TEST(NetworkStream, KillingAProcessResetsItsStreams) {
  Net n(milliseconds(3));
  Conn conn = connect_pair(n);  // at 6ms
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  bool client_unwound = false;
  n.sim.spawn(n.pa, "client", [&] {
    struct Flag {
      bool* f;
      ~Flag() { *f = true; }
    } flag{&client_unwound};
    n.sim.sleep(milliseconds(43));  // until 49ms
    ASSERT_TRUE(n.net().send(conn.client, "last words").is_ok());
    (void)n.net().recv(conn.client);  // blocked here when killed
  });
  n.sim.schedule_at(milliseconds(50), kNoProcess, [&] { n.sim.kill(n.pa); });
  n.sim.run_until_idle();
  EXPECT_TRUE(client_unwound);
  // What was sent before the crash arrives; then the reset, one latency after the kill.
  EXPECT_EQ(got, (std::vector<Got>{{milliseconds(52), StatusCode::kOk, "last words"},
                                   {milliseconds(53), StatusCode::kUnavailable, ""}}));
  EXPECT_EQ(n.net().send(conn.server, "anyone?").code(), StatusCode::kUnavailable);
  n.net().close_stream(conn.server);
  EXPECT_EQ(n.net().open_streams(), 0u);
}

TEST(NetworkStream, KillingTheAcceptingSideResetsTheConnector) {
  Net n(milliseconds(4));
  Conn conn = connect_pair(n);  // at 8ms
  std::vector<Got> got;
  spawn_stream_reader(n, n.pa, conn.client, got);
  n.sim.schedule_at(milliseconds(30), kNoProcess, [&] { n.sim.kill(n.pb); });
  n.sim.run_until_idle();
  EXPECT_EQ(got, (std::vector<Got>{{milliseconds(34), StatusCode::kUnavailable, ""}}));
}

TEST(NetworkStream, KilledProcessReleasesItsPortsForTheRestartedProcess) {
  Net n(milliseconds(1));
  const SocketId old_sock = bind_ok(n, n.pb, 53);
  Conn conn = connect_pair(n, 80);
  n.sim.kill(n.pb);
  EXPECT_EQ(n.net().send(conn.server, "from the dead").code(), StatusCode::kClosed);
  EXPECT_EQ(n.net().send_to(old_sock, Address{n.a, 1}, "x").code(), StatusCode::kInvalidArgument);
  // Before the restart nothing listens: refused; datagrams go nowhere.
  const SocketId sa = bind_ok(n, n.pa, 1);
  std::vector<Got> log;
  n.sim.spawn(n.pa, "early", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    log.push_back({n.sim.now(), s.status().code(), "early connect"});
  });
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 53}, "into the void").is_ok());
  n.sim.run_until_idle();
  EXPECT_EQ(n.net().counters(n.a, n.b).dropped, 1u);

  const ProcessId pb2 = n.sim.start_process(n.b, "pb2");
  const SocketId new_sock = bind_ok(n, pb2, 53);
  Result<ListenerId> l = n.net().listen(pb2, 80);
  ASSERT_TRUE(l.is_ok()) << l.status().to_string();
  std::vector<Received> datagrams;
  spawn_datagram_sink(n, pb2, new_sock, datagrams);
  n.sim.spawn(pb2, "acceptor", [&] {
    Result<StreamId> s = n.net().accept(l.value());
    ASSERT_TRUE(s.is_ok());
    log.push_back(got_from(n.sim, n.net().recv(s.value())));
  });
  n.sim.spawn(n.pa, "late", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    ASSERT_TRUE(n.net().send(s.value(), "hello again").is_ok());
    ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 53}, "dgram again").is_ok());
  });
  const TimeNs t0 = n.sim.now();
  n.sim.run_until(t0 + seconds(1));
  // t0 is when the early connect was refused: one round trip after the kill at 2ms.
  EXPECT_EQ(t0, milliseconds(4));
  EXPECT_EQ(log, (std::vector<Got>{{t0, StatusCode::kUnavailable, "early connect"},
                                   {t0 + milliseconds(3), StatusCode::kOk, "hello again"}}));
  EXPECT_EQ(datagrams, (std::vector<Received>{{t0 + milliseconds(3), Address{n.a, 1}, "dgram again"}}));
}

TEST(NetworkStream, PausedReceiverGetsMessagesOnlyAfterResume) {
  Net n(milliseconds(2));
  Conn conn = connect_pair(n);
  std::vector<Got> got;
  spawn_stream_reader(n, n.pb, conn.server, got);
  n.sim.run_until(milliseconds(10));
  n.sim.pause(n.pb);
  for (const char* m : {"a", "b", "c"}) ASSERT_TRUE(n.net().send(conn.client, m).is_ok());
  n.sim.run_until(milliseconds(100));
  EXPECT_TRUE(got.empty());
  n.sim.resume(n.pb);
  ASSERT_TRUE(n.net().send(conn.client, "d").is_ok());
  n.sim.run_until(milliseconds(200));
  EXPECT_EQ(got, (std::vector<Got>{{milliseconds(100), StatusCode::kOk, "a"},
                                   {milliseconds(100), StatusCode::kOk, "b"},
                                   {milliseconds(100), StatusCode::kOk, "c"},
                                   {milliseconds(102), StatusCode::kOk, "d"}}));
}

TEST(NetworkStream, PausedSocketReaderGetsDatagramsAfterResume) {
  Net n(milliseconds(2));
  const SocketId sa = bind_ok(n, n.pa, 1);
  const SocketId sb = bind_ok(n, n.pb, 1);
  std::vector<Received> got;
  spawn_datagram_sink(n, n.pb, sb, got);
  n.sim.run_until(milliseconds(1));
  n.sim.pause(n.pb);
  ASSERT_TRUE(n.net().send_to(sa, Address{n.b, 1}, "while paused").is_ok());
  n.sim.run_until(milliseconds(50));
  EXPECT_TRUE(got.empty());
  n.sim.resume(n.pb);
  n.sim.run_until(milliseconds(60));
  EXPECT_EQ(got, (std::vector<Received>{{milliseconds(50), Address{n.a, 1}, "while paused"}}));
}

TEST(NetworkStream, ClosingAListenerResetsUnacceptedConnectionsAndWakesAcceptors) {
  Net n(milliseconds(1));
  Result<ListenerId> l = n.net().listen(n.pb, 80);
  ASSERT_TRUE(l.is_ok());
  EXPECT_EQ(n.net().listen(n.pb, 80).status().code(), StatusCode::kAlreadyExists);
  StreamId client = 0;
  std::vector<Got> log;
  n.sim.spawn(n.pa, "connector", [&] {
    Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
    ASSERT_TRUE(s.is_ok());
    client = s.value();
    log.push_back(got_from(n.sim, n.net().recv(client)));
  });
  n.sim.run_until(milliseconds(10));  // connected, never accepted
  n.net().close_listener(l.value());
  n.sim.run_until(milliseconds(20));
  EXPECT_EQ(log, (std::vector<Got>{{milliseconds(11), StatusCode::kUnavailable, ""}}));

  Result<ListenerId> l2 = n.net().listen(n.pb, 80);
  ASSERT_TRUE(l2.is_ok());
  std::vector<Got> accepts;
  n.sim.spawn(n.pb, "acceptor", [&] {
    const StatusCode first = n.net().accept(l2.value(), milliseconds(5)).status().code();
    accepts.push_back({n.sim.now(), first, ""});
    const StatusCode second = n.net().accept(l2.value()).status().code();
    accepts.push_back({n.sim.now(), second, ""});
  });
  n.sim.schedule_at(milliseconds(40), kNoProcess, [&] { n.net().close_listener(l2.value()); });
  n.sim.run_until_idle();
  EXPECT_EQ(accepts, (std::vector<Got>{{milliseconds(25), StatusCode::kTimeout, ""},
                                       {milliseconds(40), StatusCode::kClosed, ""}}));
}

TEST(NetworkStream, CancelledConnectLeavesNoHalfOpenConnection) {
  Net n(milliseconds(5));
  Result<ListenerId> l = n.net().listen(n.pb, 80);
  ASSERT_TRUE(l.is_ok());
  std::vector<Got> log;
  // One connect is cancelled while its SYN travels, one while its SYN-ACK travels back.
  for (DurationNs cancel_at : {milliseconds(2), milliseconds(7)}) {
    const FiberId f = n.sim.spawn(n.pa, "connector", [&] {
      Result<StreamId> s = n.net().connect(n.pa, Address{n.b, 80});
      log.push_back({n.sim.now(), s.status().code(), "connect"});
    });
    n.sim.schedule_at(n.sim.now() + cancel_at, kNoProcess, [&n, f] { n.sim.cancel(f); });
    n.sim.run_until(n.sim.now() + milliseconds(100));
  }
  EXPECT_EQ(log, (std::vector<Got>{{milliseconds(2), StatusCode::kCancelled, "connect"},
                                   {milliseconds(107), StatusCode::kCancelled, "connect"}}));
  // Whatever reached the listener must not look like a live connection to the acceptor.
  n.sim.spawn(n.pb, "acceptor", [&] {
    while (true) {
      Result<StreamId> s = n.net().accept(l.value(), milliseconds(1));
      if (!s.is_ok()) {
        log.push_back({n.sim.now(), s.status().code(), "accept"});
        return;
      }
      log.push_back(got_from(n.sim, n.net().recv(s.value(), seconds(1))));
      n.net().close_stream(s.value());
    }
  });
  n.sim.run_until_idle();
  // The first SYN arrived after its connector gave up: nothing was queued. The second was queued
  // before the cancel: its stream is reset, so the acceptor sees it fail rather than hang.
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[2], (Got{milliseconds(200), StatusCode::kUnavailable, ""}));
  EXPECT_EQ(log[3], (Got{milliseconds(201), StatusCode::kTimeout, "accept"}));
  EXPECT_EQ(n.net().open_streams(), 0u);
}

TEST(NetworkStream, LoopbackConnectionOnOneHost) {
  Net n(milliseconds(1));
  Result<ListenerId> l = n.net().listen(n.pa, 80);
  ASSERT_TRUE(l.is_ok());
  std::vector<Got> log;
  n.sim.spawn(n.pa, "server", [&] {
    Result<StreamId> s = n.net().accept(l.value());
    ASSERT_TRUE(s.is_ok());
    log.push_back(got_from(n.sim, n.net().recv(s.value())));
  });
  n.sim.spawn(n.pa, "client", [&] {
    n.net().partition({{n.a}, {n.b, n.c}});  // does not affect a host talking to itself
    Result<StreamId> s = n.net().connect(n.pa, Address{n.a, 80});
    ASSERT_TRUE(s.is_ok());
    ASSERT_TRUE(n.net().send(s.value(), "self").is_ok());
  });
  n.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Got>{{milliseconds(3), StatusCode::kOk, "self"}}));
}

// =============================================================================================
// Determinism

// A small world: three hosts on lossy, jittery default links exchanging datagrams and stream
// messages through a partition and a heal.
std::vector<TraceRecord> run_world(uint64_t seed, uint64_t* hash) {
  Simulator sim(seed, SimConfig{.record_trace = true});
  Network& net = sim.net();
  std::vector<HostId> hosts;
  std::vector<ProcessId> procs;
  for (int i = 0; i < 3; ++i) {
    hosts.push_back(sim.add_host("h" + std::to_string(i)));
    procs.push_back(sim.start_process(hosts.back(), "p" + std::to_string(i)));
  }
  LinkConfig cfg;  // default lognormal latency
  cfg.loss = 0.1;
  cfg.duplicate = 0.05;
  cfg.reorder = 0.1;
  net.set_default_link(cfg);
  std::vector<SocketId> socks;
  for (int i = 0; i < 3; ++i) socks.push_back(net.bind(procs[i], 9).value());
  for (int i = 0; i < 3; ++i) {
    sim.spawn(procs[i], "dgram-sink", [&net, s = socks[i]] {
      while (net.recv_from(s).is_ok()) {
      }
    });
    sim.spawn(procs[i], "dgram-source", [&sim, &net, s = socks[i], i] {
      Rng& rng = sim.rng("world/" + std::to_string(i));
      for (int k = 0; k < 30; ++k) {
        const auto to = static_cast<HostId>(rng.uniform_int(0, 2));
        (void)net.send_to(s, Address{to, 9}, "d" + std::to_string(k));
        sim.sleep(rng.uniform_int(microseconds(10), milliseconds(5)));
      }
    });
  }
  const ListenerId l = net.listen(procs[1], 80).value();
  sim.spawn(procs[1], "echo", [&net, l] {
    Result<StreamId> s = net.accept(l);
    if (!s.is_ok()) return;
    while (true) {
      Result<std::string> m = net.recv(s.value());
      if (!m.is_ok() || !net.send(s.value(), m.value()).is_ok()) return;
    }
  });
  sim.spawn(procs[0], "client", [&sim, &net, &procs, &hosts] {
    Result<StreamId> s = net.connect(procs[0], Address{hosts[1], 80});
    if (!s.is_ok()) return;
    Rng& rng = sim.rng("client");
    for (int k = 0; k < 50; ++k) {
      if (!net.send(s.value(), std::string(static_cast<size_t>(rng.uniform_int(1, 100)), 'x')).is_ok()) return;
      sim.sleep(rng.uniform_int(microseconds(100), milliseconds(2)));
    }
  });
  sim.schedule_at(milliseconds(30), kNoProcess, [&] { net.partition({{hosts[0]}, {hosts[1], hosts[2]}}); });
  sim.schedule_at(milliseconds(60), kNoProcess, [&] { net.heal(); });
  sim.run_until(seconds(1));
  *hash = sim.trace().hash();
  return sim.trace().records();
}

TEST(NetworkDeterminism, SameSeedSameTraceDifferentSeedDifferentTrace) {
  uint64_t h1 = 0, h2 = 0, h3 = 0;
  const std::vector<TraceRecord> r1 = run_world(7, &h1);
  const std::vector<TraceRecord> r2 = run_world(7, &h2);
  const std::vector<TraceRecord> r3 = run_world(8, &h3);
  EXPECT_GT(r1.size(), 200u);
  EXPECT_EQ(h1, h2);
  EXPECT_TRUE(r1 == r2);
  EXPECT_NE(h1, h3);
}

}  // namespace
}  // namespace dst::sim
