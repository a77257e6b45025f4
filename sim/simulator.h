// The Simulator: one seeded world with virtual time, an event queue, fibers, hosts and processes.
//
// Everything simulated lives inside one Simulator object and nowhere else (no globals): the clock,
// the events, the random sub-streams, the network, each host's disk and clock, and every fiber.
// It runs on one OS thread. Events execute in (time, sequence) order and nothing else breaks ties, so
// a seed determines the whole run; every executed event feeds the trace hash (sim/trace.h).
// Inside run_until / run_until_idle, a fiber that blocks hands the CPU straight to the fiber the
// next event wakes (the event is still taken in order and traced) instead of bouncing through the
// scheduler's stack; step() always runs exactly one event and returns.
//
// Vocabulary:
// - Host: a simulated machine with a name, a disk and a clock. It outlives crashes.
// - Process: one incarnation of a program on a host (at most one live per host). Killing it destroys
//   its fibers (stacks unwound, destructors run) and its pending events; restarting means starting a
//   new process on the same host, which finds the disk as the crash left it.
// - Fiber: a cooperative thread of a process. It runs until it blocks on a simulated operation
//   (sleep, wait, receive, fsync); then the next event runs. Blocking is only legal inside a fiber.
// - World: code outside any process (tests, the nemesis callbacks, network internals); its events
//   belong to kNoProcess and are never paused or killed.
//
// Timeouts and sleeps given to fibers are durations on the host's monotonic clock (sim/clock.h), so
// clock drift changes when they fire in true time. Pausing a process freezes it: its fibers do not
// run, and on resume its timers are shifted by the pause length while wake-ups that arrived during the
// pause (messages, notifications, completions) are delivered at once, in their original order.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/assert.h"
#include "base/limits.h"
#include "base/status.h"
#include "sim/clock.h"
#include "sim/disk.h"
#include "sim/ring_queue.h"
#include "sim/rng.h"
#include "sim/stack_pool.h"
#include "sim/time.h"
#include "sim/trace.h"
#include "sim/unique_function.h"

namespace dst::sim {

class Env;
class Network;
struct NetworkConfig;

using HostId = uint32_t;
using FiberId = uint64_t;
// Identifies a scheduled event for cancel_event(): slot index and generation.
using EventId = uint64_t;
inline constexpr EventId kNoEvent = 0;

// How a blocking wait ended.
enum class WaitResult : uint8_t {
  kOk,         // notified (or, for sleep, the full time passed)
  kTimeout,    // the deadline passed first
  kCancelled,  // the fiber was cancelled, or its process is being killed
  kClosed,     // the thing waited on was closed or destroyed
};
const char* wait_result_name(WaitResult r);

struct HostConfig {
  DiskConfig disk;
};

struct KillOptions {
  // Power loss rather than a process crash: the host's page cache is lost with the process, so only
  // fsynced data survives on its disk.
  bool lose_unsynced = false;
  // With lose_unsynced: a random prefix of the unsynced writes survives, torn at a sector boundary.
  bool torn = false;
};

struct SimConfig {
  // Keep every trace record for determinism checks (costs 24 bytes per event).
  bool record_trace = false;
  size_t fiber_stack_bytes = 0;  // 0: limits::kFiberStackBytesDefault (or the sanitizer size)
};

class Host {
 public:
  Host(HostId id, std::string name, HostConfig config, Rng disk_rng);
  HostId id() const { return id_; }
  const std::string& name() const { return name_; }
  Disk& disk() { return disk_; }
  const Disk& disk() const { return disk_; }
  NodeClock& clock() { return clock_; }
  const NodeClock& clock() const { return clock_; }

 private:
  friend class Simulator;
  HostId id_;
  std::string name_;
  Disk disk_;
  NodeClock clock_;
  uint32_t live_process_ = kNoProcess;
};

// What a waiter leaves with a wait queue so a waker can find it: the fiber and the epoch of the
// wait it is in. A ticket from an earlier wait is stale and waking it does nothing.
struct WaitTicket {
  FiberId fiber = 0;
  uint64_t epoch = 0;
  void* record = nullptr;  // the Simulator's record of the fiber (opaque; checked against `fiber`)
};

class Simulator {
  struct Fiber;
  struct Process;

 public:
  explicit Simulator(uint64_t seed, SimConfig config = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  uint64_t seed() const { return seed_; }
  TimeNs now() const { return now_; }
  // The clock itself, for observers that read it without calling in (ProbeCounts::clock_ns).
  const TimeNs* clock() const { return &now_; }
  Trace& trace() { return trace_; }
  const Trace& trace() const { return trace_; }
  // The named random sub-stream (created on first use, seeded from (seed, name)).
  Rng& rng(std::string_view stream);
  Network& net() { return *net_; }

  // --- hosts and processes ---
  HostId add_host(std::string name, HostConfig config = {});
  Host& host(HostId id);
  size_t host_count() const { return hosts_.size(); }
  // Starts a process on a host that has no live process.
  ProcessId start_process(HostId host, std::string name);
  void kill(ProcessId process, KillOptions options = {});
  void pause(ProcessId process);
  void resume(ProcessId process);
  bool alive(ProcessId process) const;
  bool paused(ProcessId process) const;
  HostId host_of(ProcessId process) const;
  const std::string& process_name(ProcessId process) const;
  // The live process on a host, or kNoProcess.
  ProcessId process_on(HostId host) const;
  // The process of the running fiber or callback; kNoProcess for world code.
  ProcessId current_process() const { return current_process_; }
  // The process's Env (sim/env.h, sim/process_env.h): its narrow view of this Simulator, made on
  // first use and kept as long as the Simulator. What the system under test is handed.
  Env& env(ProcessId process);
  // The running fiber's process's Env (harness code that opens connections from the fiber it
  // runs in).
  Env& current_env();

  // --- fibers ---
  FiberId spawn(ProcessId process, std::string name, UniqueFunction body);
  // Asks a fiber to stop: its current and every later blocking call returns kCancelled.
  void cancel(FiberId fiber);
  bool fiber_alive(FiberId fiber) const;
  FiberId current_fiber() const;
  bool in_fiber() const { return current_ != nullptr; }
  const std::string& fiber_name(FiberId fiber) const;

  // --- blocking calls: only inside a fiber ---
  // Sleeps `local` ns of the host's monotonic clock. kOk, or kCancelled.
  WaitResult sleep(DurationNs local);
  // Lets every other event due now run first, then continues.
  WaitResult yield();
  // Waits until the fiber has finished (or was destroyed).
  WaitResult join(FiberId fiber, DurationNs timeout = kForever);
  // Blocks until true time `at`, when `action` runs as a world event (even if this fiber or its
  // process is gone by then); returns the action's status to the fiber. Used to model device and
  // network round trips whose effect happens at a point in time regardless of the caller.
  Status complete_at(TimeNs at, EventKind kind, uint64_t digest, std::function<Status()> action);

  // The running process's host clock readings.
  TimeNs wall_now() const;
  TimeNs monotonic_now() const;
  // True-time deadline for a timeout of `local` ns on the current process's clock (kTimeNever for
  // kForever; true time for world code).
  TimeNs deadline_after(DurationNs local) const;

  // --- events ---
  // Runs `fn` at true time `at` (>= now). Owned by `owner` (paused and killed with it) or by the
  // world (kNoProcess). `digest` goes into the trace hash.
  EventId schedule_at(TimeNs at, ProcessId owner, UniqueFunction fn, uint64_t digest = 0,
                      EventKind kind = EventKind::kCallback);
  EventId schedule_after(DurationNs delay, ProcessId owner, UniqueFunction fn, uint64_t digest = 0,
                         EventKind kind = EventKind::kCallback);
  // False if it already ran, was cancelled, or its owner died.
  bool cancel_event(EventId id);

  // --- running ---
  // Executes the next event; false if there is none.
  bool step();
  // Runs events up to and including true time `t`, then sets the clock to `t`.
  void run_until(TimeNs t);
  void run_for(DurationNs d) { run_until(now_ + d); }
  // Runs until no events remain (or stop()).
  void run_until_idle();
  // Makes the innermost run_* return after the current event.
  void stop() {
    stop_requested_ = true;
    handoff_allowed_ = false;  // the loop ends after this event: no more hand-offs
  }
  uint64_t events_executed() const { return events_executed_; }
  size_t events_pending() const { return events_pending_; }
  // Entries in the event queues, cancelled ones not yet dropped included (tests of their bound).
  size_t queue_entries() const { return heap_.size() + now_fifo_.size(); }
  // The earliest pending event's time, or kTimeNever.
  TimeNs next_event_time();

  // --- the low-level wait protocol, for one-off waits (join, completions, device round trips);
  // --- a fiber that waits its turn among others uses a WaitQueue (below, and sim/sync.h) ---
  // The ticket of the wait the current fiber is about to enter.
  WaitTicket current_ticket() const;
  // Blocks the current fiber until woken with its ticket or until true time `deadline`.
  WaitResult block(TimeNs deadline);
  // Wakes the fiber if it is still in the wait the ticket names; otherwise does nothing. The
  // fiber resumes through the event queue, after the events already due now.
  // Returns whether it woke anything.
  bool wake(const WaitTicket& ticket, WaitResult result);
  // Whether the ticket's fiber is still in that wait and not yet woken.
  bool waiting(const WaitTicket& ticket) const;

  // --- the intrusive wait protocol, for WaitQueue (sim/sync.h) ---
  // A FIFO of fibers blocked in wait_on(). The links live in the fibers' records, so waiting and
  // notifying allocate nothing and never meet a stale entry: a fiber is in the list exactly while
  // its wait on it lasts (it unlinks itself when the wait ends another way: timeout, cancellation,
  // its destruction). Not copyable or movable: the records point at it.
  class WaitList {
   public:
    WaitList() = default;
    WaitList(const WaitList&) = delete;
    WaitList& operator=(const WaitList&) = delete;
    bool empty() const { return head_ == nullptr; }

   private:
    friend class Simulator;
    Fiber* head_ = nullptr;
    Fiber* tail_ = nullptr;
  };
  // Blocks the current fiber on `list` until notified or until true time `deadline`.
  WaitResult wait_on(WaitList& list, TimeNs deadline);
  // Wakes the longest-waiting fiber of `list` that can still be woken (one woken by a cancellation
  // or of a dead process is dropped and skipped); false if there was none.
  bool notify_one(WaitList& list, WaitResult result);
  // Wakes every fiber of `list`, in waiting order. Does not touch the Simulator if `list` is empty.
  void notify_all(WaitList& list, WaitResult result);

  // Called by Network when a process dies; set once by the Network constructor.
  void set_process_kill_hook(std::function<void(ProcessId)> hook) { net_kill_hook_ = std::move(hook); }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;  // no slot, the end of a slot list
  struct EventSlot;
  struct QueueEntry {
    TimeNs time;
    uint64_t seq;
    uint32_t slot;
  };
  struct QueueEntryLater {
    bool operator()(const QueueEntry& a, const QueueEntry& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };

  // event slots and queue
  uint32_t alloc_slot();
  void free_slot(uint32_t slot);
  void enqueue(uint32_t slot, TimeNs at);
  void compact_heap();
  bool pop_next(uint32_t& slot);
  bool peek_valid(QueueEntry& entry);
  bool entry_valid(const QueueEntry& e) const;
  void link_to_owner(uint32_t slot);
  void unlink_from_owner(uint32_t slot);
  bool hold_for_owner(uint32_t slot);
  uint32_t schedule_timeout(Fiber* f, TimeNs at);
  bool ready_is_next();
  bool ready_is_next_slow();
  void count_event_at(TimeNs t);
  void count_event_now();
  std::string livelock_message() const;
  void dispatch(uint32_t slot);
  // Fiber wake-ups due now skip the slot table and the heap (the hot path of every notify and
  // yield) but take a sequence number like any event, so the (time, seq) order is unchanged.
  struct ReadyEntry {  // 32 bytes
    uint64_t seq;
    Fiber* fiber;
    uint64_t epoch;  // unique per wait across all fibers, so it also identifies the fiber
    WaitResult result;
    EventKind kind;
  };
  void push_ready(Fiber* f, EventKind kind, WaitResult result);
  Fiber* pop_ready();
  void freeze_ready(const ReadyEntry& r);

  // fibers
  Fiber* find_fiber(FiberId id) const;
  Fiber* fiber_of(const WaitTicket& ticket) const;
  Fiber* new_fiber_record();
  Fiber& running_fiber(const char* what) const;
  static std::string outside_fiber_message(const char* what);
  static bool wakeable(const Fiber* f);
  void wake_fiber(Fiber* f, WaitResult result);
  WaitResult block_current(Fiber& f, TimeNs deadline);
  static void unlink_waiter(Fiber* f);
  static Fiber* pop_waiter(WaitList& list);
  TimeNs deadline_after_slow(DurationNs local) const;
  void prepare_resume(Fiber* f, WaitResult result);
  void run_fiber(Fiber* f);
  void switch_to(Fiber* to);
  void keep_caller(boost::context::fiber&& caller);
  void suspend_current();
  void destroy_fiber(Fiber* f);
  void finish_fiber(Fiber* f);
  Process& process_ref(ProcessId id);
  const Process& process_ref(ProcessId id) const;
  void shift_events_after_pause(Process& p, DurationNs paused_for);

  uint64_t seed_;
  SimConfig config_;
  TimeNs now_ = 0;
  Trace trace_;
  std::map<std::string, Rng, std::less<>> rngs_;
  std::unique_ptr<StackPool> stacks_;

  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<std::unique_ptr<Process>> processes_;
  // Fiber records are pooled and never freed before the Simulator: events and wait tickets hold
  // pointers to them and recognise a recycled record by its changed id. (Wait lists hold them
  // only while their fiber waits: a fiber leaves its list before its record is recycled.)
  std::deque<Fiber> fiber_pool_;
  std::vector<Fiber*> free_fibers_;
  std::map<FiberId, Fiber*> fibers_;  // the live ones, for lookups by id
  FiberId next_fiber_id_ = 1;
  uint64_t next_epoch_ = 1;  // 0 is never a live epoch: pooled records carry it

  std::vector<EventSlot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<QueueEntry> heap_;       // min-heap on (time, seq) via QueueEntryLater
  // The heap's size at which compact_heap() next drops its stale entries.
  size_t heap_compact_at_ = kHeapCompactMin;
  static constexpr size_t kHeapCompactMin = 1024;
  RingQueue<QueueEntry> now_fifo_;  // entries scheduled for the current instant, in seq order
  RingQueue<ReadyEntry> ready_;     // fiber wake-ups due now, in seq order
  uint64_t next_seq_ = 1;
  size_t events_pending_ = 0;
  uint64_t events_executed_ = 0;
  uint64_t events_at_instant_ = 0;
  bool stop_requested_ = false;

  Fiber* current_ = nullptr;
  ProcessId current_process_ = kNoProcess;
  boost::context::fiber scheduler_ctx_;  // the scheduler's continuation while a fiber runs
  Fiber* switched_from_ = nullptr;       // who made the latest switch (nullptr: the scheduler)
  // Inside run_until / run_until_idle and not stopped (stop() clears it, so the hand-off loop
  // tests one flag).
  bool handoff_allowed_ = false;
  std::unique_ptr<Network> net_;
  std::function<void(ProcessId)> net_kill_hook_;
};

}  // namespace dst::sim

// The records and the inline hot path (waking, blocking, switching).
#include "sim/simulator_inline.h"  // IWYU pragma: export
