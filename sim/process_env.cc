#include "sim/process_env.h"

#include "base/assert.h"

namespace dst::sim {

ProcessEnv::ProcessEnv(Simulator& sim, ProcessId process)
    : sim_(sim),
      process_(process),
      host_(sim.host_of(process)),
      files_(sim, host_),
      sockets_(sim.net(), process) {}

void ProcessEnv::assert_own_fiber(const char* what) const {
  DST_ASSERT_MSG(in_own_fiber(),
                 std::string("Env::") + what + " of process " + sim_.process_name(process_) +
                     " called from outside its fibers");
}

TimeNs ProcessEnv::deadline_after(DurationNs local) const {
  assert_own_fiber("deadline_after");  // the current process's host clock converts `local`
  return sim_.deadline_after(local);
}

const std::string& ProcessEnv::host_name() const { return sim_.host(host_).name(); }

TimeNs ProcessEnv::monotonic_now() const { return sim_.host(host_).clock().monotonic_now(sim_.now()); }

TimeNs ProcessEnv::wall_now() const { return sim_.host(host_).clock().wall_now(sim_.now()); }

WaitResult ProcessEnv::sleep(DurationNs local) {
  assert_own_fiber("sleep");
  return sim_.sleep(local);
}

FiberId ProcessEnv::spawn(std::string name, UniqueFunction body) {
  return sim_.spawn(process_, std::move(name), std::move(body));
}

void ProcessEnv::exit() {
  assert_own_fiber("exit");
  sim_.kill(process_, KillOptions{.lose_unsynced = false, .torn = false});
  DST_UNREACHABLE("a process that exited kept running");
}

}  // namespace dst::sim
