// The simulated network; see network.h for the model.
#include "sim/network.h"

#include <algorithm>
#include <utility>

#include "base/assert.h"
#include "base/hash.h"
#include "base/limits.h"
#include "base/probes.h"

namespace dst::sim {

namespace {
constexpr uint16_t kEphemeralPortFirst = 32768;
constexpr DurationNs kSynRetransmitFirst = seconds(1);
}  // namespace

namespace {
// How a wait inside a blocking network call ended, as the call's failure; nullopt while it may go on
// (notified, or woken by the queue closing: the caller's loop re-checks what it waits for).
std::optional<Status> wait_failure(WaitResult r, const char* call) {
  if (r == WaitResult::kTimeout) return Status(StatusCode::kTimeout, std::string(call) + " timed out");
  if (r == WaitResult::kCancelled) return Status(StatusCode::kCancelled, std::string(call) + " cancelled");
  return std::nullopt;
}
}  // namespace

std::string Address::to_string() const {
  return "host" + std::to_string(host) + ":" + std::to_string(port);
}

struct Network::Socket {
  Socket(Simulator& sim, ProcessId o, SocketId i) : owner(o), id(i), readers(sim) {}
  ProcessId owner;
  SocketId id;
  std::deque<Datagram> queue;
  WaitQueue readers;
};

struct Network::Listener {
  Listener(Simulator& sim, ProcessId o, ListenerId i) : owner(o), id(i), acceptors(sim) {}
  ProcessId owner;
  ListenerId id;
  std::deque<StreamId> backlog;
  WaitQueue acceptors;
};

struct Network::Frame {
  enum class Kind : uint8_t { kData, kFin, kReset };
  Kind kind = Kind::kData;
  std::string payload;
};

struct Network::StreamEnd {
  explicit StreamEnd(Simulator& sim) : readers(std::make_unique<WaitQueue>(sim)) {}
  ProcessId owner = kNoProcess;
  Address address;
  std::deque<std::string> inbox;
  bool fin_received = false;
  bool released = false;  // closed by its owner, or its owner died
  std::unique_ptr<WaitQueue> readers;
  size_t inbox_bytes = 0;  // payload bytes in `inbox`
};

// Direction d carries frames from end[d] to end[1-d]; end[0] connected, end[1] accepted.
struct Network::Stream {
  explicit Stream(Simulator& sim) : end{StreamEnd(sim), StreamEnd(sim)} {}
  StreamId id = 0;
  StreamEnd end[2];
  bool broken = false;
  std::string break_reason;
  std::map<uint64_t, Frame> in_flight[2];  // by frame sequence number, awaiting their arrival event
  std::deque<Frame> held[2];               // arrived while the link was cut, in order
  TimeNs last_arrival[2] = {0, 0};
  uint64_t next_frame_seq[2] = {1, 1};
  size_t queued_bytes[2] = {0, 0};
};

Network::Network(Simulator& sim) : sim_(sim), rng_(sim.rng("net")) {
  sim_.set_process_kill_hook([this](ProcessId p) { on_process_killed(p); });
}

Network::~Network() = default;

// ---------------------------------------------------------------------------------------------
// Topology

void Network::on_host_added(HostId host) {
  DST_ASSERT_EQ(host, links_.size());
  links_.emplace_back();
}

// Links are made on first use, with the default configuration: a world of a thousand client hosts
// talks over a few thousand of its million host pairs.
Network::Link& Network::link_ref(HostId from, HostId to) {
  DST_ASSERT_LT(from, links_.size());
  DST_ASSERT_LT(to, links_.size());
  auto [it, fresh] = links_[from].try_emplace(to);
  if (fresh) it->second.config = default_link_;
  return it->second;
}

const Network::Link* Network::find_link(HostId from, HostId to) const {
  DST_ASSERT_LT(from, links_.size());
  DST_ASSERT_LT(to, links_.size());
  auto it = links_[from].find(to);
  return it == links_[from].end() ? nullptr : &it->second;
}

void Network::set_default_link(const LinkConfig& config) {
  default_link_ = config;
  for (auto& row : links_) {
    for (auto& [to, l] : row) {
      if (!l.has_own_config) l.config = config;
    }
  }
  sim_.trace().record(sim_.now(), EventKind::kNetworkChange, kNoProcess, 0x11);
}

void Network::set_link(HostId from, HostId to, const LinkConfig& config) {
  Link& l = link_ref(from, to);
  l.config = config;
  l.has_own_config = true;
  sim_.trace().record(sim_.now(), EventKind::kNetworkChange, kNoProcess,
                      hash_combine(0x12, (uint64_t{from} << 32) | to));
}

void Network::set_link_both_ways(HostId a, HostId b, const LinkConfig& config) {
  set_link(a, b, config);
  set_link(b, a, config);
}

const LinkConfig& Network::link(HostId from, HostId to) const {
  const Link* l = find_link(from, to);
  return l != nullptr ? l->config : default_link_;
}

const LinkCounters& Network::counters(HostId from, HostId to) const {
  static const LinkCounters kNone;  // a link never used has counted nothing
  const Link* l = find_link(from, to);
  return l != nullptr ? l->counters : kNone;
}

bool Network::reachable(HostId from, HostId to) const {
  if (from == to) return true;
  const Link* l = find_link(from, to);
  return l == nullptr || l->reachable;
}

void Network::set_reachable(HostId from, HostId to, bool reachable) {
  DST_ASSERT_MSG(from != to, "a host always reaches itself");
  if (reachable && this->reachable(from, to)) return;  // nothing to change: no link made for it
  Link& l = link_ref(from, to);
  if (l.reachable == reachable) return;
  l.reachable = reachable;
  sim_.trace().record(sim_.now(), EventKind::kNetworkChange, kNoProcess,
                      hash_combine(reachable ? 0x13 : 0x14, (uint64_t{from} << 32) | to));
  if (reachable) {
    flush_held(from, to);
  } else {
    ++l.cut_generation;
    arm_break_checks(from, to);
  }
}

void Network::partition(const std::vector<std::vector<HostId>>& groups) {
  std::map<HostId, size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (HostId h : groups[g]) {
      DST_ASSERT_LT(h, links_.size());
      DST_ASSERT_MSG(group_of.emplace(h, g).second, "host in two partition groups");
    }
  }
  for (const auto& [a, ga] : group_of) {
    for (const auto& [b, gb] : group_of) {
      if (a != b) set_reachable(a, b, ga == gb);
    }
  }
}

void Network::heal() {
  // A link not made yet was never cut. In (from, to) order, as the trace records the changes.
  for (HostId a = 0; a < links_.size(); ++a) {
    for (auto& [b, l] : links_[a]) {
      if (a != b && !l.reachable) set_reachable(a, b, true);
    }
  }
}

// When a message handed to the link now arrives: queued behind earlier bytes if bandwidth is
// limited, then one latency sample.
TimeNs Network::transmit_time(Link& link, size_t bytes, Rng& rng) {
  TimeNs depart = sim_.now();
  if (link.config.bandwidth_bytes_per_sec > 0) {
    const __int128 tx = static_cast<__int128>(bytes) * seconds(1) / link.config.bandwidth_bytes_per_sec;
    depart = std::max(depart, link.busy_until) + static_cast<DurationNs>(tx);
    link.busy_until = depart;
  }
  return depart + link.config.latency.sample(rng);
}

// ---------------------------------------------------------------------------------------------
// Datagrams

Result<SocketId> Network::bind(ProcessId owner, uint16_t port) {
  DST_ASSERT_MSG(sim_.alive(owner), "bind by a dead process");
  const Address address{sim_.host_of(owner), port};
  if (sockets_by_address_.count(address) != 0) {
    return Status(StatusCode::kAlreadyExists, "address in use: " + address.to_string());
  }
  const SocketId id = next_id_++;
  sockets_by_address_.emplace(address, std::make_unique<Socket>(sim_, owner, id));
  sockets_.emplace(id, address);
  return id;
}

Status Network::send_to(SocketId socket, Address to, std::string payload) {
  auto it = sockets_.find(socket);
  if (it == sockets_.end()) return Status(StatusCode::kInvalidArgument, "send_to on a closed socket");
  if (payload.size() > limits::kMessageBytesMax) {
    return Status(StatusCode::kInvalidArgument, "datagram larger than the message limit");
  }
  DST_ASSERT_LT(to.host, links_.size());
  const Address from = it->second;
  Link& l = link_ref(from.host, to.host);
  l.counters.sent++;
  l.counters.bytes_sent += payload.size();
  if (rng_.bernoulli(l.config.loss)) {
    l.counters.dropped++;
    return Status::ok();
  }
  const int copies = rng_.bernoulli(l.config.duplicate) ? 2 : 1;
  if (copies == 2) l.counters.duplicated++;
  const uint64_t digest = hash_bytes(payload, (uint64_t{from.host} << 48) | (uint64_t{from.port} << 32) |
                                                  (uint64_t{to.host} << 16) | to.port);
  for (int c = 0; c < copies; ++c) {
    TimeNs at = transmit_time(l, payload.size(), rng_);
    if (rng_.bernoulli(l.config.reorder)) at += l.config.reorder_delay.sample(rng_);
    sim_.schedule_at(at, kNoProcess,
                     [this, from, to, p = (c + 1 == copies ? std::move(payload) : payload)]() mutable {
                       deliver_datagram(from, to, std::move(p));
                     },
                     digest, EventKind::kDatagram);
  }
  return Status::ok();
}

void Network::deliver_datagram(Address from, Address to, std::string payload) {
  Link& l = link_ref(from.host, to.host);
  auto it = sockets_by_address_.find(to);
  if (!reachable(from.host, to.host) || it == sockets_by_address_.end() ||
      it->second->queue.size() >= limits::kSocketQueueMax) {
    l.counters.dropped++;
    return;
  }
  l.counters.delivered++;
  l.counters.bytes_delivered += payload.size();
  it->second->queue.push_back(Datagram{from, std::move(payload)});
  it->second->readers.notify_one();
}

Result<Datagram> Network::recv_from(SocketId socket, DurationNs timeout) {
  const TimeNs deadline = sim_.deadline_after(timeout);
  while (true) {
    auto it = sockets_.find(socket);
    if (it == sockets_.end()) return Status(StatusCode::kClosed, "socket closed");
    Socket& s = *sockets_by_address_.at(it->second);
    if (!s.queue.empty()) {
      Datagram d = std::move(s.queue.front());
      s.queue.pop_front();
      return d;
    }
    const WaitResult r = s.readers.wait_until(deadline);
    if (auto failed = wait_failure(r, "recv_from")) return *failed;
  }
}

void Network::close_socket(SocketId socket) {
  auto it = sockets_.find(socket);
  if (it == sockets_.end()) return;
  sockets_by_address_.erase(it->second);  // its WaitQueue wakes readers with kClosed
  sockets_.erase(it);
}

// ---------------------------------------------------------------------------------------------
// Streams: setup

Result<ListenerId> Network::listen(ProcessId owner, uint16_t port) {
  DST_ASSERT_MSG(sim_.alive(owner), "listen by a dead process");
  const Address address{sim_.host_of(owner), port};
  if (listeners_by_address_.count(address) != 0) {
    return Status(StatusCode::kAlreadyExists, "address in use: " + address.to_string());
  }
  const ListenerId id = next_id_++;
  listeners_by_address_.emplace(address, std::make_unique<Listener>(sim_, owner, id));
  listeners_.emplace(id, address);
  return id;
}

Result<StreamId> Network::accept(ListenerId listener, DurationNs timeout) {
  const TimeNs deadline = sim_.deadline_after(timeout);
  while (true) {
    auto it = listeners_.find(listener);
    if (it == listeners_.end()) return Status(StatusCode::kClosed, "listener closed");
    Listener& l = *listeners_by_address_.at(it->second);
    while (!l.backlog.empty()) {
      const StreamId id = l.backlog.front();
      l.backlog.pop_front();
      Stream* s = find_stream(id);
      if (s != nullptr && !s->end[1].released) return (id << 1) | 1;  // skip ones reset while queued
    }
    const WaitResult r = l.acceptors.wait_until(deadline);
    if (auto failed = wait_failure(r, "accept")) return *failed;
  }
}

void Network::close_listener(ListenerId listener) {
  auto it = listeners_.find(listener);
  if (it == listeners_.end()) return;
  auto lit = listeners_by_address_.find(it->second);
  // Connections never accepted are reset, as the kernel does when a listening socket closes.
  for (StreamId id : lit->second->backlog) {
    if (Stream* s = find_stream(id); s != nullptr && !s->end[1].released) {
      release_end(*s, 1, /*orderly=*/false);
    }
  }
  listeners_by_address_.erase(lit);
  listeners_.erase(it);
}

// A SYN arrives: the listener at `to`, if any and reachable, queues a new stream for it.
Status Network::arrive_syn(ProcessId owner, HostId from, Address to, ConnectAttempt& attempt) {
  if (!reachable(from, to.host)) return Status(StatusCode::kTimeout, "syn lost");
  auto lit = listeners_by_address_.find(to);
  if (lit == listeners_by_address_.end() || lit->second->backlog.size() >= limits::kListenBacklogMax) {
    return Status(StatusCode::kUnavailable, "connection refused by " + to.to_string());
  }
  if (!sim_.alive(owner) || attempt.abandoned) {
    return Status(StatusCode::kCancelled, "connector gone");
  }
  DST_ASSERT_MSG(streams_.size() < limits::kStreamsOpenMax, "too many open streams");
  auto s = std::make_unique<Stream>(sim_);
  s->id = next_id_++;
  s->end[0].owner = owner;
  s->end[0].address = Address{from, static_cast<uint16_t>(kEphemeralPortFirst + s->id % 28000)};
  s->end[1].owner = lit->second->owner;
  s->end[1].address = to;
  attempt.created = s->id;
  lit->second->backlog.push_back(s->id);
  lit->second->acceptors.notify_one();
  const StreamId id = s->id;
  stream_index_.emplace(id, s.get());
  streams_.emplace(id, std::move(s));
  // A link cut before the stream existed armed no break check for it; without one, a
  // stream opened while one direction is cut (the SYN got through) would hold that
  // direction's messages forever instead of breaking after stream_break_timeout.
  for (const auto& [x, y] : {std::pair{from, to.host}, std::pair{to.host, from}}) {
    if (!reachable(x, y)) arm_break_check(id, x, y);
  }
  return Status::ok();
}

Result<StreamId> Network::connect(ProcessId owner, Address to) {
  DST_ASSERT_MSG(sim_.current_process() == owner, "connect must run in a fiber of its owner");
  DST_ASSERT_LT(to.host, links_.size());
  const HostId from = sim_.host_of(owner);
  const TimeNs give_up_at = sim_.now() + connect_timeout_;
  DurationNs backoff = kSynRetransmitFirst;
  while (true) {
    // The SYN travels; at its arrival the listener (if any) queues the new stream. Shared with
    // that arrival event, which may run after this call returned (the fiber was cancelled).
    auto attempt = std::make_shared<ConnectAttempt>();
    const TimeNs syn_arrival = transmit_time(link_ref(from, to.host), 64, rng_);
    const Status st = sim_.complete_at(
        syn_arrival, EventKind::kConnect, hash_combine(from, (uint64_t{to.host} << 16) | to.port),
        [this, owner, from, to, attempt]() -> Status { return arrive_syn(owner, from, to, *attempt); });
    if (st.code() == StatusCode::kCancelled) {
      attempt->abandoned = true;  // the SYN may still be travelling: it must not queue a stream
      return st;
    }
    // The SYN-ACK (or RST) travels back.
    const TimeNs reply_at = transmit_time(link_ref(to.host, from), 64, rng_);
    if (st.code() != StatusCode::kTimeout) {
      const bool cancelled = sim_.block(reply_at) == WaitResult::kCancelled;
      Stream* s = find_stream(attempt->created);
      const bool usable = s != nullptr && !s->broken;
      // When connect() will not return the connecting end, nobody will ever hold it: reset it, or
      // the acceptor would keep a half-open stream whose peer never sends, closes or breaks.
      if (s != nullptr && (cancelled || !usable)) release_end(*s, 0, /*orderly=*/false);
      if (cancelled) return Status(StatusCode::kCancelled, "connect cancelled");
      if (!st.is_ok()) return st;
      if (!usable) return Status(StatusCode::kUnavailable, "connection reset");
      return (attempt->created << 1) | 0;
    }
    // SYN lost to a cut link: retransmit with exponential backoff until the connect timeout. With
    // a latency longer than the timeout the loss is noticed after the deadline: give up at once
    // rather than block until a time already past (which asserts).
    if (sim_.now() < give_up_at &&
        sim_.block(std::min(sim_.now() + backoff, give_up_at)) == WaitResult::kCancelled) {
      return Status(StatusCode::kCancelled, "connect cancelled");
    }
    if (sim_.now() >= give_up_at) {
      return Status(StatusCode::kUnavailable, "connect to " + to.to_string() + " timed out");
    }
    backoff *= 2;
  }
}

Network::Stream* Network::find_stream(StreamId id) {
  auto it = stream_index_.find(id);
  return it == stream_index_.end() ? nullptr : it->second;
}
const Network::Stream* Network::find_stream(StreamId id) const {
  auto it = stream_index_.find(id);
  return it == stream_index_.end() ? nullptr : it->second;
}

// A stream handle names the stream and the end its holder owns: (stream id << 1) | end.
Network::Stream* Network::stream_of_handle(StreamId handle, int& end) {
  end = static_cast<int>(handle & 1);
  Stream* s = find_stream(handle >> 1);
  if (s != nullptr && s->end[end].released) return nullptr;  // this end was closed by its holder
  return s;
}

Address Network::local_address(StreamId handle) const {
  const Stream* s = find_stream(handle >> 1);
  DST_ASSERT_MSG(s != nullptr, "local_address of a closed stream");
  return s->end[handle & 1].address;
}

Address Network::peer_address(StreamId handle) const {
  const Stream* s = find_stream(handle >> 1);
  DST_ASSERT_MSG(s != nullptr, "peer_address of a closed stream");
  return s->end[1 - (handle & 1)].address;
}

// ---------------------------------------------------------------------------------------------
// Streams: data

Status Network::send(StreamId handle, std::string message) {
  int d;
  Stream* s = stream_of_handle(handle, d);
  if (s == nullptr) return Status(StatusCode::kClosed, "stream is closed");
  if (s->broken) return Status(StatusCode::kUnavailable, s->break_reason);
  if (message.size() > limits::kMessageBytesMax) {
    return Status(StatusCode::kInvalidArgument, "stream message larger than the message limit");
  }
  if (s->queued_bytes[d] + message.size() > limits::kStreamBytesQueuedMax) {
    return Status(StatusCode::kResourceExhausted, "stream send buffer full");
  }
  transmit_frame(*s, d, Frame{Frame::Kind::kData, std::move(message)});
  return Status::ok();
}

void Network::transmit_frame(Stream& s, int d, Frame frame) {
  Link& l = link_ref(s.end[d].address.host, s.end[1 - d].address.host);
  l.counters.sent++;
  l.counters.bytes_sent += frame.payload.size();
  s.queued_bytes[d] += frame.payload.size();
  // Order is kept by never arriving before the previous frame of this direction.
  const TimeNs at = std::max(transmit_time(l, frame.payload.size(), rng_), s.last_arrival[d]);
  s.last_arrival[d] = at;
  const uint64_t seq = s.next_frame_seq[d]++;
  const uint64_t digest = hash_bytes(frame.payload, hash_combine(s.id, (seq << 8) | (uint64_t(d) << 4) |
                                                                      static_cast<uint64_t>(frame.kind)));
  s.in_flight[d].emplace(seq, std::move(frame));
  const StreamId id = s.id;
  sim_.schedule_at(at, kNoProcess, [this, id, d, seq]() { arrive_frame(id, d, seq); }, digest,
                   EventKind::kStreamData);
}

void Network::arrive_frame(StreamId id, int d, uint64_t seq) {
  Stream* s = find_stream(id);
  if (s == nullptr) return;
  auto it = s->in_flight[d].find(seq);
  if (it == s->in_flight[d].end()) return;  // discarded when the stream broke
  Frame frame = std::move(it->second);
  s->in_flight[d].erase(it);
  const HostId from = s->end[d].address.host;
  const HostId to = s->end[1 - d].address.host;
  if (!reachable(from, to) || !s->held[d].empty()) {
    link_ref(from, to).counters.held++;
    s->held[d].push_back(std::move(frame));
    return;
  }
  deliver_frame(*s, d, frame);
}

void Network::deliver_frame(Stream& s, int d, Frame& frame) {
  Link& l = link_ref(s.end[d].address.host, s.end[1 - d].address.host);
  s.queued_bytes[d] -= frame.payload.size();
  StreamEnd& receiver = s.end[1 - d];
  if (receiver.released) {
    l.counters.dropped++;
    return;
  }
  l.counters.delivered++;
  l.counters.bytes_delivered += frame.payload.size();
  switch (frame.kind) {
    case Frame::Kind::kData:
      receiver.inbox_bytes += frame.payload.size();
      receiver.inbox.push_back(std::move(frame.payload));
      receiver.readers->notify_one();
      break;
    case Frame::Kind::kFin:
      receiver.fin_received = true;
      receiver.readers->notify_all();
      break;
    case Frame::Kind::kReset:
      break_stream(s, "connection reset by " + s.end[d].address.to_string());
      break;
  }
}

// Retransmission after a heal: held frames go out again, in order, behind a fresh latency.
// Frames still in flight in that direction were sent after the held ones, so they go out again
// behind them (go-back-N): left alone, one arriving after the heal but before the retransmitted
// frames would be delivered first, out of order. Their old arrival events then find nothing.
void Network::flush_held(HostId from, HostId to) {
  for (auto& [id, s] : streams_) {
    for (int d = 0; d < 2; ++d) {
      if (s->held[d].empty() || s->end[d].address.host != from || s->end[1 - d].address.host != to) {
        continue;
      }
      std::deque<Frame> frames;
      frames.swap(s->held[d]);
      for (auto& [seq, f] : s->in_flight[d]) frames.push_back(std::move(f));  // in sequence order
      s->in_flight[d].clear();
      s->last_arrival[d] = sim_.now();  // nothing of this direction is outstanding any more
      for (Frame& f : frames) {
        s->queued_bytes[d] -= f.payload.size();
        link_ref(from, to).counters.sent--;  // transmit_frame counts it again
        link_ref(from, to).counters.bytes_sent -= f.payload.size();
        transmit_frame(*s, d, std::move(f));
      }
    }
  }
}

void Network::arm_break_checks(HostId a, HostId b) {
  for (auto& [id, s] : streams_) {
    const HostId h0 = s->end[0].address.host;
    const HostId h1 = s->end[1].address.host;
    if (s->broken || !((h0 == a && h1 == b) || (h0 == b && h1 == a))) continue;
    arm_break_check(id, a, b);
  }
}

// Breaks the stream if the link a->b is still in its current cut after stream_break_timeout.
void Network::arm_break_check(StreamId id, HostId a, HostId b) {
  const uint64_t generation = link_ref(a, b).cut_generation;
  sim_.schedule_after(stream_break_timeout_, kNoProcess,
                      [this, id, a, b, generation]() { check_break(id, a, b, generation); },
                      hash_combine(id, generation), EventKind::kStreamBreak);
}

void Network::check_break(StreamId id, HostId from, HostId to, uint64_t generation) {
  Stream* s = find_stream(id);
  if (s == nullptr || s->broken) return;
  const Link& l = link_ref(from, to);
  if (l.reachable || l.cut_generation != generation) return;  // healed (and maybe cut again)
  DST_PROBE(kSimStreamBroken);
  break_stream(*s, "stream broken: link host" + std::to_string(from) + "->host" + std::to_string(to) +
                       " cut for " + format_duration(stream_break_timeout_));
}

void Network::break_stream(Stream& s, const std::string& why) {
  if (s.broken) return;
  s.broken = true;
  s.break_reason = why;
  for (int d = 0; d < 2; ++d) {
    Link& l = link_ref(s.end[d].address.host, s.end[1 - d].address.host);
    l.counters.dropped += s.in_flight[d].size() + s.held[d].size();
    s.in_flight[d].clear();
    s.held[d].clear();
    s.queued_bytes[d] = 0;
    s.end[d].readers->notify_all();
  }
}

Result<std::string> Network::recv(StreamId handle, DurationNs timeout) {
  const TimeNs deadline = sim_.deadline_after(timeout);
  while (true) {
    int d;
    Stream* s = stream_of_handle(handle, d);
    if (s == nullptr) return Status(StatusCode::kClosed, "stream is closed");
    StreamEnd& me = s->end[d];
    if (!me.inbox.empty()) {
      std::string m = std::move(me.inbox.front());
      me.inbox.pop_front();
      me.inbox_bytes -= m.size();
      return m;
    }
    if (s->broken) return Status(StatusCode::kUnavailable, s->break_reason);
    if (me.fin_received) return Status(StatusCode::kClosed, "closed by peer");
    const WaitResult r = me.readers->wait_until(deadline);
    if (auto failed = wait_failure(r, "recv")) return *failed;
  }
}

size_t Network::unread_bytes(StreamId handle) const {
  const Stream* s = find_stream(handle >> 1);
  if (s == nullptr) return 0;
  const int d = static_cast<int>(handle & 1);
  return s->queued_bytes[d] + s->end[1 - d].inbox_bytes;
}

void Network::close_stream(StreamId handle) {
  int d;
  if (Stream* s = stream_of_handle(handle, d)) release_end(*s, d, /*orderly=*/true);
}

// Lets go of end d: orderly with a FIN (an orderly close: the peer reads what was sent, then kClosed) or a
// reset (nobody holds the end any more: the peer sees kUnavailable). The stream is freed once both
// ends are released; `s` may be dangling afterwards.
void Network::release_end(Stream& s, int d, bool orderly) {
  DST_ASSERT(!s.end[d].released);
  s.end[d].released = true;
  s.end[d].readers->notify_all();
  if (!s.broken) transmit_frame(s, d, Frame{orderly ? Frame::Kind::kFin : Frame::Kind::kReset, {}});
  if (s.end[1 - d].released) {
    stream_index_.erase(s.id);
    streams_.erase(s.id);
  }
}

void Network::on_process_killed(ProcessId process) {
  for (auto it = sockets_.begin(); it != sockets_.end();) {
    auto sit = sockets_by_address_.find(it->second);
    if (sit->second->owner == process) {
      sockets_by_address_.erase(sit);
      it = sockets_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<ListenerId> listeners;
  for (const auto& [id, address] : listeners_) {
    if (listeners_by_address_.at(address)->owner == process) listeners.push_back(id);
  }
  for (ListenerId id : listeners) close_listener(id);
  std::vector<StreamId> owned;  // release_end may free streams: collect first
  for (const auto& [id, s] : streams_) {
    for (int d = 0; d < 2; ++d) {
      if (s->end[d].owner == process && !s->end[d].released) owned.push_back((id << 1) | d);
    }
  }
  for (StreamId handle : owned) {
    if (Stream* s = find_stream(handle >> 1)) release_end(*s, static_cast<int>(handle & 1), /*orderly=*/false);
  }
}

}  // namespace dst::sim
