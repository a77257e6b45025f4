// The simulated Env (sim/env.h) of one process: its host's clocks, disk and network share, its
// fibers, and the run's random streams, all on the Simulator. One per process, made on first use
// by Simulator::env and kept as long as the Simulator (a killed process's fibers unwind before it
// goes, so nothing outlives it). Calls that block or end the process (sleep, deadline_after,
// exit) must come from one of its own fibers: asserted. spawn may come from anywhere (the world
// starts a process's first fiber); the new fiber belongs to this process.
#pragma once

#include <string>
#include <string_view>

#include "sim/env.h"
#include "sim/file_system.h"
#include "sim/simulator.h"
#include "sim/sockets.h"

namespace dst::sim {

class ProcessEnv final : public Env {
 public:
  ProcessEnv(Simulator& sim, ProcessId process);

  ProcessId process() const { return process_; }

  TimeNs now() const override { return sim_.now(); }
  TimeNs deadline_after(DurationNs local) const override;
  TimeNs monotonic_now() const override;
  TimeNs wall_now() const override;
  WaitResult sleep(DurationNs local) override;
  FiberId spawn(std::string name, UniqueFunction body) override;
  Rng& rng(std::string_view stream) override { return sim_.rng(stream); }
  FileSystem& files() override { return files_; }
  Sockets& sockets() override { return sockets_; }
  const std::string& host_name() const override;
  bool alive() const override { return sim_.alive(process_); }
  bool in_own_fiber() const override { return sim_.in_fiber() && sim_.current_process() == process_; }
  [[noreturn]] void exit() override;

 private:
  Simulator& scheduler() override { return sim_; }
  // Asserts that the running fiber belongs to this process.
  void assert_own_fiber(const char* what) const;

  Simulator& sim_;
  ProcessId process_;
  HostId host_;
  FileSystem files_;
  Sockets sockets_;
};

}  // namespace dst::sim
