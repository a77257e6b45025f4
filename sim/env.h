// What a simulated process sees of its machine, and nothing more: its clocks, sleeping, fibers of
// its own, its random streams, its host's files, its sockets, and ending itself. The system under
// test (node/) and the connections it opens (rpc/) hold an Env, never the Simulator, so they cannot
// kill, pause or partition anything, and an environment fault or an environment bug is a wrapper
// around this seam (EnvWrapper below), in the way of LevelDB's Env / EnvWrapper and TigerBeetle's
// ReplicaType(StateMachine, MessageBus, Storage, Time).
//
// The simulated implementation is ProcessEnv (sim/process_env.h), one per process, owned by the
// Simulator (Simulator::env). The fiber primitives of sim/sync.h are built on an Env too; only
// they reach the scheduler behind it (EnvAccess).
//
// Lifetime: an Env must outlive every fiber, connection and primitive made through it (a
// connection's reader fiber may outlive the connection itself). A ProcessEnv does, the Simulator
// keeps it; a wrapper is its owner's to keep alive that long, or to use only for calls that
// leave nothing behind (a clock read).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/assert.h"
#include "base/status.h"
#include "sim/rng.h"
#include "sim/time.h"
#include "sim/unique_function.h"

namespace dst::sim {

class FileSystem;
class Simulator;
class Sockets;
enum class WaitResult : uint8_t;
using FiberId = uint64_t;

class Env {
 public:
  virtual ~Env() = default;

  // --- time ------------------------------------------------------------------------------------
  // True virtual time: for deadlines (deadline_after) and for stamps that only need to be
  // comparable within the run (request ids, when a peer was last heard from). What a real
  // process would read its own clocks for (lease expiry, batching) reads them below.
  virtual TimeNs now() const = 0;
  // The true time at which `local` nanoseconds of this host's monotonic clock will have passed.
  virtual TimeNs deadline_after(DurationNs local) const = 0;
  // This host's clocks (sim/clock.h): monotonic (drift applies, steps do not) and wall (steps and
  // drift apply).
  virtual TimeNs monotonic_now() const = 0;
  virtual TimeNs wall_now() const = 0;
  // Blocks the calling fiber for `local` nanoseconds of this host's clock; kOk when they passed.
  virtual WaitResult sleep(DurationNs local) = 0;

  // --- fibers, randomness, files, sockets --------------------------------------------------------
  // A new fiber in this process: it dies with the process.
  virtual FiberId spawn(std::string name, UniqueFunction body) = 0;
  // A named random stream of the run (the same name is the same stream across restarts).
  virtual Rng& rng(std::string_view stream) = 0;
  // This host's disk as files.
  virtual FileSystem& files() = 0;
  // This process's datagram sockets, listeners and streams.
  virtual Sockets& sockets() = 0;

  // --- the process itself ------------------------------------------------------------------------
  // Its host's name (what gethostname() would say): names per-host random streams.
  virtual const std::string& host_name() const = 0;
  // False once the process was killed: code that still runs for it (a destructor) touches nothing.
  virtual bool alive() const = 0;
  // Whether the running fiber is one of this process's (for assertions at entry points that
  // block or spawn on its behalf).
  virtual bool in_own_fiber() const = 0;
  // The process ends itself, as a real one exits on a fatal error: its fibers end, its sockets
  // close, its host's page cache survives (only a power loss, which is a fault, loses it).
  [[noreturn]] virtual void exit() = 0;

 private:
  friend class EnvAccess;
  // The scheduler behind the fiber primitives (sim/sync.h), for them alone.
  virtual Simulator& scheduler() = 0;
};

// An Env that forwards every call to another; override what a fault or a bug changes.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env& target) : target_(target) {}
  Env& target() const { return target_; }

  TimeNs now() const override { return target_.now(); }
  TimeNs deadline_after(DurationNs local) const override { return target_.deadline_after(local); }
  TimeNs monotonic_now() const override { return target_.monotonic_now(); }
  TimeNs wall_now() const override { return target_.wall_now(); }
  WaitResult sleep(DurationNs local) override { return target_.sleep(local); }
  FiberId spawn(std::string name, UniqueFunction body) override { return target_.spawn(std::move(name), std::move(body)); }
  Rng& rng(std::string_view stream) override { return target_.rng(stream); }
  FileSystem& files() override { return target_.files(); }
  Sockets& sockets() override { return target_.sockets(); }
  const std::string& host_name() const override { return target_.host_name(); }
  bool alive() const override { return target_.alive(); }
  bool in_own_fiber() const override { return target_.in_own_fiber(); }
  [[noreturn]] void exit() override {
    target_.exit();
    DST_UNREACHABLE("a process that exited kept running");
  }

 private:
  Simulator& scheduler() override;
  Env& target_;
};

// The one door from an Env to its scheduler, for the fiber primitives of sim/sync.h.
class EnvAccess {
 private:
  static Simulator& scheduler(Env& env) { return env.scheduler(); }
  friend class WaitQueue;
  friend class Event;
  template <typename T>
  friend class Channel;
  template <typename T>
  friend class Promise;
  friend class EnvWrapper;
};

inline Simulator& EnvWrapper::scheduler() { return EnvAccess::scheduler(target_); }

}  // namespace dst::sim
