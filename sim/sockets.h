// One process's share of the simulated network (sim/network.h): the datagram sockets, listeners
// and streams it owns, and nothing of the network's fault controls (links, partitions). What a
// process's Env hands it; binding and connecting are always on the process's own behalf.
#pragma once

#include <cstdint>
#include <string>

#include "sim/network.h"

namespace dst::sim {

class Sockets {
 public:
  Sockets(Network& net, ProcessId owner) : net_(net), owner_(owner) {}

  // --- datagrams ---
  Result<SocketId> bind(uint16_t port) { return net_.bind(owner_, port); }
  Status send_to(SocketId socket, Address to, std::string payload) { return net_.send_to(socket, to, std::move(payload)); }
  Result<Datagram> recv_from(SocketId socket, DurationNs timeout = kForever) { return net_.recv_from(socket, timeout); }
  void close_socket(SocketId socket) { net_.close_socket(socket); }

  // --- streams ---
  Result<ListenerId> listen(uint16_t port) { return net_.listen(owner_, port); }
  Result<StreamId> accept(ListenerId listener, DurationNs timeout = kForever) { return net_.accept(listener, timeout); }
  void close_listener(ListenerId listener) { net_.close_listener(listener); }
  Result<StreamId> connect(Address to) { return net_.connect(owner_, to); }
  Status send(StreamId stream, std::string message) { return net_.send(stream, std::move(message)); }
  Result<std::string> recv(StreamId stream, DurationNs timeout = kForever) { return net_.recv(stream, timeout); }
  void close_stream(StreamId stream) { net_.close_stream(stream); }
  // See Network::unread_bytes: what an HTTP/2 flow-control window counts.
  size_t unread_bytes(StreamId stream) const { return net_.unread_bytes(stream); }
  Address local_address(StreamId stream) const { return net_.local_address(stream); }
  Address peer_address(StreamId stream) const { return net_.peer_address(stream); }

 private:
  Network& net_;
  ProcessId owner_;
};

}  // namespace dst::sim
