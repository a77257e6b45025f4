// The demo world; see demo_world.h for what it does and checks.
#include "demo/demo_world.h"
#include "base/parse_number.h"

#include <cstring>
#include <memory>

#include "base/hash.h"
#include "sim/file_system.h"
#include "sim/network.h"
#include "sim/sync.h"

namespace dst::demo {

using namespace dst::sim;

namespace {

constexpr uint16_t kGossipPort = 7000;
constexpr uint16_t kRpcPort = 7001;
constexpr const char* kLogName = "records.log";
// Record framing: u32 payload length, u64 checksum of the payload, payload.
constexpr size_t kRecordHeaderBytes = 12;
// A sane upper bound on a record, so a corrupt length cannot make recovery read the whole disk.
constexpr uint32_t kRecordBytesMax = 4096;

std::string encode_record(const std::string& payload) {
  std::string out(kRecordHeaderBytes, '\0');
  const auto len = static_cast<uint32_t>(payload.size());
  const uint64_t sum = hash_bytes(payload);
  std::memcpy(out.data(), &len, 4);
  std::memcpy(out.data() + 4, &sum, 8);
  return out + payload;
}

// What a peer's host remembers across crashes, seen from outside the process (by the clients that
// were told "durable").
struct PeerSlot {
  HostId host = 0;
  ProcessId process = kNoProcess;
  bool down = false;
  uint64_t acknowledged_seq = 0;  // highest record the peer said was durable
};

struct DemoWorld {
  Simulator& sim;
  DemoOptions options;
  DemoStats stats;
  std::vector<PeerSlot> peers;

  void fault(const std::string& what) {
    stats.faults_injected++;
    // Millisecond precision is what a person scanning the schedule needs.
    stats.fault_log.push_back("t=" + format_duration(sim.now() / milliseconds(1) * milliseconds(1)) + " " + what);
  }
  void start_peer(size_t index);
};

// One incarnation of a peer: shared by its fibers, freed after the last one is unwound.
class Peer : public std::enable_shared_from_this<Peer> {
 public:
  Peer(DemoWorld& world, size_t index)
      : world_(world), sim_(world.sim), index_(index), self_(world.peers[index].process),
        fs_(world.sim, world.peers[index].host), rng_(world.sim.rng("demo/peer" + std::to_string(index))) {}

  void start() {
    Result<SocketId> socket = sim_.net().bind(self_, kGossipPort);
    DST_ASSERT_MSG(socket.is_ok(), socket.status().to_string());
    gossip_socket_ = *socket;
    auto me = shared_from_this();
    sim_.spawn(self_, "log", [me] { me->log_loop(); });
    sim_.spawn(self_, "gossip-send", [me] { me->gossip_send_loop(); });
    sim_.spawn(self_, "gossip-recv", [me] { me->gossip_recv_loop(); });
    sim_.spawn(self_, "rpc-accept", [me] { me->accept_loop(); });
    sim_.spawn(self_, "rpc-client", [me] { me->client_loop(); });
  }

 private:
  Rng& rng() { return rng_; }
  size_t random_other_peer() {
    const auto n = static_cast<int64_t>(world_.peers.size());
    auto other = static_cast<size_t>(rng().uniform_int(0, n - 2));
    return other >= index_ ? other + 1 : other;
  }
  std::string name() const { return "n" + std::to_string(index_ + 1); }

  // Reads the log, keeps its valid prefix (a torn tail is cut off), and checks that every record
  // acknowledged before the crash is still there.
  bool recover(FileId file) {
    Result<uint64_t> size = fs_.size(file);
    DST_ASSERT(size.is_ok());
    Result<std::string> bytes = fs_.read(file, 0, *size);
    if (!bytes.is_ok()) return false;
    uint64_t offset = 0, last_seq = 0, count = 0;
    while (offset + kRecordHeaderBytes <= bytes->size()) {
      uint32_t len;
      uint64_t sum;
      std::memcpy(&len, bytes->data() + offset, 4);
      std::memcpy(&sum, bytes->data() + offset + 4, 8);
      if (len == 0 || len > kRecordBytesMax || offset + kRecordHeaderBytes + len > bytes->size()) break;
      const std::string payload = bytes->substr(offset + kRecordHeaderBytes, len);
      if (hash_bytes(payload) != sum) break;
      const size_t space = payload.find(' ');
      const std::optional<uint64_t> parsed = space == std::string::npos ? std::nullopt : parse_u64(std::string_view(payload).substr(space + 1));
      if (!parsed) break;  // a record we did not write: the log ends before it
      const uint64_t seq = *parsed;
      if (seq != last_seq + 1) break;
      last_seq = seq;
      ++count;
      offset += kRecordHeaderBytes + len;
    }
    world_.stats.records_recovered += count;
    const uint64_t acked = world_.peers[index_].acknowledged_seq;
    if (last_seq < acked) {
      world_.stats.violations.push_back(
          "t=" + format_duration(sim_.now()) + " " + name() + ": acknowledged record " +
          std::to_string(acked) + " lost; the log recovered only records 1.." + std::to_string(last_seq));
      world_.peers[index_].acknowledged_seq = last_seq;  // report each loss once
    }
    next_seq_ = last_seq + 1;
    log_end_ = offset;
    if (offset != *size) {
      if (!fs_.truncate(file, offset).is_ok() || !fs_.fsync(file).is_ok()) return false;
    }
    return true;
  }

  void log_loop() {
    const bool existed = fs_.exists(kLogName);
    Result<FileId> file = fs_.open(kLogName, OpenMode::kCreate);
    if (!file.is_ok()) return;
    if (!existed && !fs_.sync_dir().is_ok()) return crash_on_disk_error();
    if (!recover(*file)) return crash_on_disk_error();
    while (sim_.sleep(rng().uniform_int(milliseconds(5), milliseconds(30))) == WaitResult::kOk) {
      const int batch = static_cast<int>(rng().uniform_int(1, 4));
      uint64_t last = 0;
      for (int i = 0; i < batch; ++i) {
        last = next_seq_++;
        const std::string record = encode_record(name() + " " + std::to_string(last));
        if (!fs_.write(*file, log_end_, record).is_ok()) return crash_on_disk_error();
        log_end_ += record.size();
      }
      if (world_.options.bugs.on(Bug::kAckBeforePersist)) acknowledge(last);
      if (!fs_.fsync(*file).is_ok()) {
        world_.stats.fsync_errors++;
        return crash_on_disk_error();
      }
      acknowledge(last);
    }
  }

  void acknowledge(uint64_t seq) {
    PeerSlot& slot = world_.peers[index_];
    if (seq > slot.acknowledged_seq) {
      world_.stats.records_acknowledged += seq - slot.acknowledged_seq;
      slot.acknowledged_seq = seq;
    }
  }

  // After a failed fsync the kernel may have dropped the dirty pages, so the cached log can no
  // longer be trusted: the peer power-cycles its host rather than keep serving from it.
  void crash_on_disk_error() {
    world_.peers[index_].down = true;
    world_.stats.crashes++;
    sim_.kill(self_, KillOptions{.lose_unsynced = true, .torn = false});
  }

  void gossip_send_loop() {
    uint64_t n = 0;
    while (sim_.sleep(rng().uniform_int(milliseconds(20), milliseconds(60))) == WaitResult::kOk) {
      const size_t to = random_other_peer();
      const Status st = sim_.net().send_to(gossip_socket_, Address{world_.peers[to].host, kGossipPort},
                                           "gossip " + name() + " " + std::to_string(++n));
      if (st.is_ok()) world_.stats.datagrams_sent++;
    }
  }

  void gossip_recv_loop() {
    while (true) {
      Result<Datagram> d = sim_.net().recv_from(gossip_socket_);
      if (!d.is_ok()) return;
      world_.stats.datagrams_received++;
    }
  }

  void accept_loop() {
    Result<ListenerId> listener = sim_.net().listen(self_, kRpcPort);
    DST_ASSERT(listener.is_ok());
    while (true) {
      Result<StreamId> stream = sim_.net().accept(*listener);
      if (!stream.is_ok()) return;
      auto me = shared_from_this();
      const StreamId s = *stream;
      sim_.spawn(self_, "rpc-handler", [me, s] { me->serve(s); });
    }
  }

  void serve(StreamId stream) {
    while (true) {
      Result<std::string> request = sim_.net().recv(stream, seconds(30));
      if (!request.is_ok() || !sim_.net().send(stream, "ack " + *request).is_ok()) break;
    }
    sim_.net().close_stream(stream);
  }

  void client_loop() {
    while (true) {
      const size_t to = random_other_peer();
      world_.stats.connects++;
      Result<StreamId> stream = sim_.net().connect(self_, Address{world_.peers[to].host, kRpcPort});
      if (!stream.is_ok()) {
        if (stream.status().code() == StatusCode::kCancelled) return;
        world_.stats.stream_errors++;
        if (sim_.sleep(milliseconds(100)) != WaitResult::kOk) return;
        continue;
      }
      if (!exchange(*stream)) return;
    }
  }

  // Up to 20 request/ack round trips on one stream; false once this fiber should stop.
  bool exchange(StreamId stream) {
    for (int i = 0; i < 20; ++i) {
      world_.stats.requests_sent++;
      const std::string request = "req " + std::to_string(i);
      Status sent = sim_.net().send(stream, request);
      Result<std::string> reply = sent.is_ok() ? sim_.net().recv(stream, milliseconds(500))
                                               : Result<std::string>(sent);
      if (!reply.is_ok()) {
        world_.stats.stream_errors++;
        break;
      }
      DST_ASSERT_MSG(*reply == "ack " + request, "stream delivered out of order: " + *reply);
      world_.stats.acks_received++;
      if (sim_.sleep(rng().uniform_int(milliseconds(10), milliseconds(50))) != WaitResult::kOk) {
        return false;
      }
    }
    sim_.net().close_stream(stream);
    return true;
  }

  DemoWorld& world_;
  Simulator& sim_;
  size_t index_;
  ProcessId self_;
  FileSystem fs_;
  Rng& rng_;
  uint64_t next_seq_ = 1;
  uint64_t log_end_ = 0;
  SocketId gossip_socket_ = 0;
};

void DemoWorld::start_peer(size_t index) {
  PeerSlot& slot = peers[index];
  slot.process = sim.start_process(slot.host, "n" + std::to_string(index + 1));
  slot.down = false;
  std::make_shared<Peer>(*this, index)->start();
}

// The nemesis: a fiber on its own host that injects one fault every 100-600ms, drawn from the seed.
class Nemesis {
 public:
  explicit Nemesis(DemoWorld& world) : world_(world), sim_(world.sim), rng_(world.sim.rng("demo/nemesis")) {}

  void run(TimeNs until) {
    while (sim_.now() < until) {
      if (sim_.sleep(rng_.uniform_int(milliseconds(100), milliseconds(600))) != WaitResult::kOk) return;
      inject_one();
    }
  }

 private:
  size_t random_peer() { return static_cast<size_t>(rng_.uniform_int(0, int64_t(world_.peers.size()) - 1)); }
  std::string peer_name(size_t i) const { return "n" + std::to_string(i + 1); }
  std::string group_names(const std::vector<HostId>& hosts) const {
    std::string out = "{";
    for (HostId h : hosts) out += (out.size() > 1 ? "," : "") + sim_.host(h).name();
    return out + "}";
  }

  void inject_one() {
    static constexpr uint64_t kWeights[] = {3, 2, 4, 2, 2, 3, 2, 2, 1, 1};
    switch (rng_.weighted_index(kWeights)) {
      case 0: return partition_halves();
      case 1: return one_way_cut();
      case 2: return heal();
      case 3: return crash(false);
      case 4: return crash(true);
      case 5: return restart_one();
      case 6: return pause_one();
      case 7: return resume_all();
      case 8: return skew_clock();
      case 9: return fail_fsync();
    }
  }

  void partition_halves() {
    std::vector<HostId> a, b;
    for (const PeerSlot& p : world_.peers) (rng_.bernoulli(0.5) ? a : b).push_back(p.host);
    sim_.net().partition({a, b});
    world_.fault("partition " + group_names(a) + " | " + group_names(b));
  }
  void one_way_cut() {
    const size_t from = random_peer();
    size_t to = random_peer();
    if (to == from) to = (to + 1) % world_.peers.size();
    sim_.net().set_reachable(world_.peers[from].host, world_.peers[to].host, false);
    world_.fault("cut one way " + peer_name(from) + " -> " + peer_name(to));
  }
  void heal() {
    bool any_cut = false;
    for (const PeerSlot& a : world_.peers) {
      for (const PeerSlot& b : world_.peers) any_cut |= !sim_.net().reachable(a.host, b.host);
    }
    if (!any_cut) return;
    sim_.net().heal();
    world_.fault("heal");
  }
  void crash(bool power_loss) {
    const size_t i = random_peer();
    PeerSlot& p = world_.peers[i];
    if (p.down) return;
    const bool torn = power_loss && rng_.bernoulli(0.5);
    sim_.kill(p.process, KillOptions{.lose_unsynced = power_loss, .torn = torn});
    p.down = true;
    world_.stats.crashes++;
    world_.fault((power_loss ? std::string("power loss") + (torn ? " (torn)" : "") : "crash") + " " +
                 peer_name(i));
  }
  void restart_one() {
    for (size_t i = 0; i < world_.peers.size(); ++i) {
      if (world_.peers[i].down) {
        world_.start_peer(i);
        world_.stats.restarts++;
        world_.fault("restart " + peer_name(i));
        return;
      }
    }
  }
  void pause_one() {
    const size_t i = random_peer();
    if (world_.peers[i].down || sim_.paused(world_.peers[i].process)) return;
    sim_.pause(world_.peers[i].process);
    world_.fault("pause " + peer_name(i));
  }
  void resume_all() {
    for (size_t i = 0; i < world_.peers.size(); ++i) {
      const PeerSlot& p = world_.peers[i];
      if (!p.down && sim_.paused(p.process)) {
        sim_.resume(p.process);
        world_.fault("resume " + peer_name(i));
      }
    }
  }
  void skew_clock() {
    const size_t i = random_peer();
    const int64_t ppm = rng_.uniform_int(-200'000, 200'000);
    sim_.host(world_.peers[i].host).clock().set_drift_ppm(ppm, sim_.now());
    sim_.trace().record(sim_.now(), EventKind::kClockFault, kNoProcess, static_cast<uint64_t>(ppm));
    world_.fault("clock drift " + peer_name(i) + " " + std::to_string(ppm) + "ppm");
  }
  void fail_fsync() {
    const size_t i = random_peer();
    sim_.host(world_.peers[i].host).disk().fail_fsyncs(1);
    sim_.trace().record(sim_.now(), EventKind::kDiskFault, kNoProcess, i);
    world_.fault("fail next fsync " + peer_name(i));
  }

  DemoWorld& world_;
  Simulator& sim_;
  Rng& rng_;
};

// The end of the run: heal everything, then power-cycle every peer (torn writes allowed) and let
// each recover, so the durability check covers every peer's final log.
void final_power_cycle(DemoWorld& world) {
  Simulator& sim = world.sim;
  sim.net().heal();
  for (size_t i = 0; i < world.peers.size(); ++i) {
    PeerSlot& p = world.peers[i];
    if (!p.down) sim.kill(p.process, KillOptions{.lose_unsynced = true, .torn = true});
    p.down = true;
    world.start_peer(i);
  }
  world.fault("final power cycle of every peer");
  sim.run_for(milliseconds(200));  // long enough for recovery (a read and an fsync)
}

}  // namespace

DemoStats run_demo_world(Simulator& sim, const DemoOptions& options) {
  DST_ASSERT_MSG(options.peers >= 2, "the demo world needs at least two peers");
  DemoWorld world{sim, options, {}, {}};
  for (int i = 0; i < options.peers; ++i) {
    world.peers.push_back(PeerSlot{sim.add_host("n" + std::to_string(i + 1)), kNoProcess, false, 0});
  }
  for (size_t i = 0; i < world.peers.size(); ++i) world.start_peer(i);
  ProcessId nemesis = kNoProcess;
  if (options.faults) {
    nemesis = sim.start_process(sim.add_host("nemesis"), "nemesis");
    const TimeNs until = sim.now() + options.duration;
    sim.spawn(nemesis, "nemesis", [&world, until] { Nemesis(world).run(until); });
  }
  sim.run_for(options.duration);
  final_power_cycle(world);
  // Stop everything; messages still in flight and timers of the dead are simply never run.
  for (const PeerSlot& p : world.peers) sim.kill(p.process);
  if (nemesis != kNoProcess) sim.kill(nemesis);
  return world.stats;
}

std::string format_demo_summary(const DemoStats& s, const Simulator& sim) {
  std::string out;
  out += "virtual time      " + format_duration(sim.now()) + ", " + std::to_string(sim.events_executed()) +
         " events\n";
  out += "datagrams         " + std::to_string(s.datagrams_sent) + " sent, " +
         std::to_string(s.datagrams_received) + " received\n";
  out += "stream requests   " + std::to_string(s.requests_sent) + " sent, " + std::to_string(s.acks_received) +
         " acknowledged, " + std::to_string(s.stream_errors) + " errors, " + std::to_string(s.connects) +
         " connects\n";
  out += "log records       " + std::to_string(s.records_acknowledged) + " acknowledged durable, " +
         std::to_string(s.records_recovered) + " recovered over all restarts\n";
  out += "faults            " + std::to_string(s.faults_injected) + " injected (" + std::to_string(s.crashes) +
         " crashes, " + std::to_string(s.restarts) + " restarts, " + std::to_string(s.fsync_errors) +
         " failed fsyncs)\n";
  if (s.violations.empty()) {
    out += "durability        ok: every acknowledged record survived every crash\n";
  } else {
    out += "durability        VIOLATED (" + std::to_string(s.violations.size()) + "):\n";
    for (const std::string& v : s.violations) out += "  " + v + "\n";
  }
  return out;
}

}  // namespace dst::demo
