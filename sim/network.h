// The simulated network: datagrams and ordered connection-oriented streams between processes.
//
// Addresses are (host, port). A process binds datagram sockets and listens for streams on its own
// host; when the process dies, everything it owned closes (its streams' peers see a reset).
//
// Links are directed host pairs. Each has a configuration (latency distribution, loss, duplication,
// reordering, bandwidth), a reachability bit (partitions are a directed reachability matrix, so
// asymmetric partitions are expressible), and counters. A host always reaches itself.
//
// Datagrams: fire and forget; lost with probability `loss`, duplicated, reordered by independent
// latencies plus an occasional extra delay; dropped if the link is cut when they arrive, if nothing
// is bound at the destination, or if its queue is full.
//
// Streams: what gRPC over HTTP/2 over TCP gives etcd. Messages arrive complete, exactly once, in
// order, or the stream breaks. Latency and bandwidth apply; loss does not (TCP retransmits). A message
// that arrives while its link is cut is held and delivered after the link heals (retransmission),
// unless either direction of the link stays cut longer than `stream_break_timeout`: then the stream
// breaks with kUnavailable on both ends (keepalive timeout). close() is orderly: the peer reads the
// remaining messages, then kClosed. A killed process's streams reset: the peer sees kUnavailable
// once the reset arrives.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "sim/rng.h"
#include "sim/simulator.h"
#include "sim/sync.h"

namespace dst::sim {

struct Address {
  HostId host = 0;
  uint16_t port = 0;
  auto operator<=>(const Address&) const = default;
  std::string to_string() const;
};

struct LinkConfig {
  // One-way delay per message, before any bandwidth queueing.
  DurationDist latency = DurationDist::lognormal(microseconds(500), 0.3).clamped(microseconds(50),
                                                                                 milliseconds(50));
  double loss = 0;       // datagrams only: probability of being dropped
  double duplicate = 0;  // datagrams only: probability of being delivered twice
  double reorder = 0;    // datagrams only: probability of an extra `reorder_delay`
  DurationDist reorder_delay = DurationDist::uniform(milliseconds(1), milliseconds(10));
  uint64_t bandwidth_bytes_per_sec = 0;  // 0: unlimited
};

struct LinkCounters {
  uint64_t sent = 0;       // messages handed to the link (datagrams and stream messages)
  uint64_t delivered = 0;  // messages that reached their destination
  uint64_t dropped = 0;    // lost, cut, unbound, queue full, or discarded with a broken stream
  uint64_t duplicated = 0;
  uint64_t held = 0;       // stream messages held back by a cut and retransmitted later
  uint64_t bytes_sent = 0;
  uint64_t bytes_delivered = 0;
};

struct Datagram {
  Address from;
  std::string payload;
};

using SocketId = uint64_t;
using ListenerId = uint64_t;
// A handle on one end of a stream; the two ends of a stream have different handles.
using StreamId = uint64_t;

class Network {
 public:
  explicit Network(Simulator& sim);
  ~Network();

  // --- topology and configuration ---
  void set_default_link(const LinkConfig& config);  // for every link without its own config
  void set_link(HostId from, HostId to, const LinkConfig& config);
  void set_link_both_ways(HostId a, HostId b, const LinkConfig& config);
  const LinkConfig& link(HostId from, HostId to) const;
  void set_stream_break_timeout(DurationNs timeout) { stream_break_timeout_ = timeout; }
  DurationNs stream_break_timeout() const { return stream_break_timeout_; }
  // Connecting to an unreachable host fails after this long.
  void set_connect_timeout(DurationNs timeout) { connect_timeout_ = timeout; }

  void set_reachable(HostId from, HostId to, bool reachable);
  bool reachable(HostId from, HostId to) const;
  // Cuts every link between hosts of different groups (both directions); links of hosts not named
  // in any group are left as they are.
  void partition(const std::vector<std::vector<HostId>>& groups);
  // Makes every link reachable again.
  void heal();
  const LinkCounters& counters(HostId from, HostId to) const;

  // --- datagrams ---
  Result<SocketId> bind(ProcessId owner, uint16_t port);
  // Never blocks. kInvalidArgument if the socket is closed or the payload too large.
  Status send_to(SocketId socket, Address to, std::string payload);
  // Blocks (in a fiber) for the next datagram.
  Result<Datagram> recv_from(SocketId socket, DurationNs timeout = kForever);
  void close_socket(SocketId socket);

  // --- streams ---
  Result<ListenerId> listen(ProcessId owner, uint16_t port);
  // Blocks for the next incoming connection.
  Result<StreamId> accept(ListenerId listener, DurationNs timeout = kForever);
  void close_listener(ListenerId listener);
  // Blocks for the handshake: one round trip; kUnavailable "connection refused" if nothing listens
  // there, kUnavailable after the connect timeout if the host is unreachable.
  Result<StreamId> connect(ProcessId owner, Address to);
  // Never blocks (the send buffer is bounded by limits::kStreamBytesQueuedMax).
  Status send(StreamId stream, std::string message);
  // Blocks for the next message; kClosed after the peer's close, kUnavailable once broken.
  Result<std::string> recv(StreamId stream, DurationNs timeout = kForever);
  void close_stream(StreamId stream);
  // Bytes this end sent that the peer's application has not read yet (in the send buffer, in
  // flight, or waiting in the peer's receive buffer): what an HTTP/2 flow-control window counts,
  // so a sender can stop when a slow reader falls behind instead of buffering without bound.
  size_t unread_bytes(StreamId stream) const;
  Address local_address(StreamId stream) const;
  Address peer_address(StreamId stream) const;
  size_t open_streams() const { return streams_.size(); }

  // Called by the Simulator.
  void on_host_added(HostId host);

 private:
  struct Link {
    LinkConfig config;
    bool has_own_config = false;
    bool reachable = true;
    uint64_t cut_generation = 0;  // bumped whenever the link becomes cut
    TimeNs busy_until = 0;        // bandwidth queueing
    LinkCounters counters;
  };
  struct Socket;
  struct Listener;
  struct Stream;
  struct StreamEnd;
  struct Frame;

  Link& link_ref(HostId from, HostId to);  // made on first use
  const Link* find_link(HostId from, HostId to) const;  // null: never made (default, reachable, unused)
  TimeNs transmit_time(Link& link, size_t bytes, Rng& rng);
  void deliver_datagram(Address from, Address to, std::string payload);
  void transmit_frame(Stream& stream, int direction, Frame frame);
  void arrive_frame(StreamId id, int direction, uint64_t frame_seq);
  void deliver_frame(Stream& stream, int direction, Frame& frame);
  void flush_held(HostId from, HostId to);
  void arm_break_checks(HostId a, HostId b);
  void arm_break_check(StreamId id, HostId a, HostId b);
  // One connect attempt's SYN, shared with its arrival event (which may run after connect()
  // returned): the stream it created, and whether the connector gave up (no stream may be queued).
  struct ConnectAttempt {
    StreamId created = 0;
    bool abandoned = false;
  };
  Status arrive_syn(ProcessId owner, HostId from, Address to, ConnectAttempt& attempt);
  void check_break(StreamId id, HostId from, HostId to, uint64_t generation);
  void break_stream(Stream& stream, const std::string& why);
  void release_end(Stream& stream, int end, bool orderly);
  void on_process_killed(ProcessId process);
  Stream* find_stream(StreamId id);
  const Stream* find_stream(StreamId id) const;
  Stream* stream_of_handle(StreamId handle, int& end);

  Simulator& sim_;
  Rng& rng_;
  LinkConfig default_link_;
  DurationNs stream_break_timeout_ = seconds(5);
  DurationNs connect_timeout_ = seconds(3);
  std::vector<std::map<HostId, Link>> links_;  // [from][to], each made on first use
  std::map<Address, std::unique_ptr<Socket>> sockets_by_address_;
  std::map<SocketId, Address> sockets_;
  std::map<Address, std::unique_ptr<Listener>> listeners_by_address_;
  std::map<ListenerId, Address> listeners_;
  std::map<StreamId, std::unique_ptr<Stream>> streams_;  // owns them; visited in id order
  // The same streams for find_stream(), which every frame sent, arriving or read goes through:
  // with thousands open (kube_scale: ~7,000) the map's depth was 6 % of a run. Never iterated, so
  // its order cannot reach behaviour.
  std::unordered_map<StreamId, Stream*> stream_index_;
  uint64_t next_id_ = 1;
};

}  // namespace dst::sim
