// The scheduler, processes and fibers; see simulator.h for the model.
#include "sim/simulator.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <set>

#include "base/hash.h"
#include "base/limits.h"
#include "sim/network.h"
#include "sim/process_env.h"

namespace dst::sim {

namespace ctx = boost::context;

const char* wait_result_name(WaitResult r) {
  switch (r) {
    case WaitResult::kOk: return "ok";
    case WaitResult::kTimeout: return "timeout";
    case WaitResult::kCancelled: return "cancelled";
    case WaitResult::kClosed: return "closed";
  }
  return "unknown";
}

struct Simulator::EventSlot {
  enum class State : uint8_t { kFree, kQueued, kFrozen };
  TimeNs time = 0;
  uint64_t seq = 0;          // the seq of its live queue entry; older entries are stale
  uint32_t generation = 1;   // bumped on free, so old EventIds stop matching
  State state = State::kFree;
  EventKind kind = EventKind::kCallback;
  // Timers move with a pause and sit in their owner's event list; wake-ups are released at resume
  // and are not in the list (a wake-up of a dead process is dropped when it comes due).
  bool shift_on_pause = false;
  WaitResult result = WaitResult::kOk;
  ProcessId owner = kNoProcess;
  uint32_t prev = kNil, next = kNil;  // in the owner's event list
  Fiber* fiber_record = nullptr;  // for fiber events: the wait they end is (record, epoch)
  uint64_t epoch = 0;
  uint64_t digest = 0;
  UniqueFunction fn;
};

// The one-off waits: out of line, on the inline hot path of sim/simulator_inline.h.
WaitResult Simulator::block(TimeNs deadline) {
  Fiber& f = running_fiber("a blocking call");
  if (f.cancel_requested || !f.owner->alive) return WaitResult::kCancelled;
  return block_current(f, deadline);
}

WaitResult Simulator::yield() {
  Fiber& f = running_fiber("yield");
  if (f.cancel_requested || !f.owner->alive) return WaitResult::kCancelled;
  wake_fiber(&f, WaitResult::kOk);  // queued behind what is due now; runs when its turn comes
  f.blocked = true;
  suspend_current();
  return f.wake_result;
}

Host::Host(HostId id, std::string name, HostConfig config, Rng disk_rng)
    : id_(id), name_(std::move(name)), disk_(std::move(config.disk), disk_rng) {}

Simulator::Simulator(uint64_t seed, SimConfig config)
    : seed_(seed), config_(config), trace_(config.record_trace) {
  size_t stack = config.fiber_stack_bytes;
  if (stack == 0) {
#if defined(BOOST_USE_ASAN)
    stack = limits::kFiberStackBytesSanitized;
#else
    stack = limits::kFiberStackBytesDefault;
#endif
  }
  stacks_ = std::make_unique<StackPool>(stack);
  net_ = std::make_unique<Network>(*this);
}

Simulator::~Simulator() {
  // Unwind every fiber while the network, hosts and stacks they may touch still exist.
  for (auto& p : processes_) {
    if (p->alive) kill(p->id);
  }
  DST_ASSERT(fibers_.empty());
  net_.reset();
}

Rng& Simulator::rng(std::string_view stream) {
  auto it = rngs_.find(stream);
  if (it == rngs_.end()) {
    it = rngs_.emplace(std::string(stream), Rng::substream(seed_, stream)).first;
  }
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Hosts and processes

HostId Simulator::add_host(std::string name, HostConfig config) {
  DST_ASSERT_MSG(hosts_.size() < limits::kHostsMax, "too many hosts");
  const auto id = static_cast<HostId>(hosts_.size());
  Rng disk_rng = Rng::substream(seed_, "disk/" + std::to_string(id));
  hosts_.push_back(std::make_unique<Host>(id, std::move(name), std::move(config), disk_rng));
  net_->on_host_added(id);
  return id;
}

Host& Simulator::host(HostId id) {
  DST_ASSERT_LT(id, hosts_.size());
  return *hosts_[id];
}

Simulator::Process& Simulator::process_ref(ProcessId id) {
  DST_ASSERT_LT(id, processes_.size());
  return *processes_[id];
}
const Simulator::Process& Simulator::process_ref(ProcessId id) const {
  DST_ASSERT_LT(id, processes_.size());
  return *processes_[id];
}

ProcessId Simulator::start_process(HostId host_id, std::string name) {
  Host& h = host(host_id);
  DST_ASSERT_MSG(h.live_process_ == kNoProcess,
                 "host " + h.name() + " already runs process " + std::to_string(h.live_process_));
  DST_ASSERT_MSG(processes_.size() < limits::kProcessesMax, "too many processes started");
  const auto id = static_cast<ProcessId>(processes_.size());
  auto p = std::make_unique<Process>();
  p->id = id;
  p->host = host_id;
  p->name = std::move(name);
  processes_.push_back(std::move(p));
  h.live_process_ = id;
  trace_.record(now_, EventKind::kProcessStart, id, host_id);
  return id;
}

Env& Simulator::env(ProcessId id) {
  Process& p = process_ref(id);
  if (!p.env) p.env = std::make_unique<ProcessEnv>(*this, id);
  return *p.env;
}

Env& Simulator::current_env() {
  DST_ASSERT_MSG(current_process_ != kNoProcess, "current_env() outside any process's fiber");
  return env(current_process_);
}

bool Simulator::alive(ProcessId id) const { return id < processes_.size() && processes_[id]->alive; }
bool Simulator::paused(ProcessId id) const { return process_ref(id).paused; }
HostId Simulator::host_of(ProcessId id) const { return process_ref(id).host; }
const std::string& Simulator::process_name(ProcessId id) const { return process_ref(id).name; }
ProcessId Simulator::process_on(HostId host_id) const {
  DST_ASSERT_LT(host_id, hosts_.size());
  return hosts_[host_id]->live_process_;
}

void Simulator::kill(ProcessId id, KillOptions options) {
  Process& p = process_ref(id);
  if (!p.alive) return;
  p.alive = false;
  p.paused = false;
  hosts_[p.host]->live_process_ = kNoProcess;
  trace_.record(now_, EventKind::kProcessKill, id,
                (options.lose_unsynced ? 1u : 0u) | (options.torn ? 2u : 0u));
  // Its events never fire: timers are freed here, wake-ups when they come due.
  while (p.events_head != kNil) free_slot(p.events_head);
  for (uint32_t s : p.frozen_wakes) free_slot(s);
  p.frozen_wakes.clear();
  if (net_kill_hook_) net_kill_hook_(id);
  if (options.lose_unsynced) hosts_[p.host]->disk().crash(options.torn);
  // Unwind its fibers, except the one running this call: that one cannot unwind its own stack, so
  // it is parked below and destroyed by the scheduler. Newest first: a process's first fiber
  // usually owns the objects its later fibers use (a node's main fiber holds the Server its
  // request fibers call into), so those unwind while what they refer to still exists.
  std::vector<FiberId> ids(p.fibers.rbegin(), p.fibers.rend());
  for (FiberId fid : ids) {
    Fiber* f = find_fiber(fid);  // may be gone: an earlier one's unwinding can end others
    if (f != nullptr && f != current_) destroy_fiber(f);
  }
  if (current_ != nullptr && current_->owner->id == id) {
    switch_to(nullptr);  // never a hand-off: only the scheduler may destroy this fiber
    DST_UNREACHABLE("a fiber of a killed process was resumed");
  }
}

void Simulator::pause(ProcessId id) {
  Process& p = process_ref(id);
  DST_ASSERT_MSG(!(current_ != nullptr && current_->owner->id == id),
                 "a process cannot pause itself from one of its own fibers");
  if (!p.alive || p.paused) return;
  p.paused = true;
  p.paused_at = now_;
  trace_.record(now_, EventKind::kProcessPause, id, 0);
}

void Simulator::resume(ProcessId id) {
  Process& p = process_ref(id);
  if (!p.alive || !p.paused) return;
  p.paused = false;
  const DurationNs paused_for = now_ - p.paused_at;
  trace_.record(now_, EventKind::kProcessResume, id, static_cast<uint64_t>(paused_for));
  shift_events_after_pause(p, paused_for);
}

// Timers move later by the pause length; wake-ups that came due during the pause are released now.
// Affected events are re-queued in their original (time, seq) order so their relative order holds.
void Simulator::shift_events_after_pause(Process& p, DurationNs paused_for) {
  struct Move {
    TimeNs old_time;
    uint64_t old_seq;
    uint32_t slot;
    TimeNs new_time;
  };
  std::vector<Move> moves;
  for (uint32_t s = p.events_head; s != kNil; s = slots_[s].next) {
    const EventSlot& e = slots_[s];
    DST_ASSERT(e.shift_on_pause);
    if (paused_for != 0 || e.state == EventSlot::State::kFrozen) {
      moves.push_back({e.time, e.seq, s, e.time + paused_for});
    }
  }
  for (uint32_t s : p.frozen_wakes) moves.push_back({slots_[s].time, slots_[s].seq, s, now_});
  p.frozen_wakes.clear();
  std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
    return a.old_time != b.old_time ? a.old_time < b.old_time : a.old_seq < b.old_seq;
  });
  for (const Move& m : moves) enqueue(m.slot, m.new_time);
}

// ---------------------------------------------------------------------------------------------
// Event slots and the queue

uint32_t Simulator::alloc_slot() {
  DST_ASSERT_MSG(events_pending_ < limits::kEventsPendingMax, "too many pending events");
  uint32_t s;
  if (!free_slots_.empty()) {
    s = free_slots_.back();
    free_slots_.pop_back();
  } else {
    s = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  ++events_pending_;
  return s;
}

void Simulator::free_slot(uint32_t s) {
  EventSlot& e = slots_[s];
  DST_ASSERT(e.state != EventSlot::State::kFree);
  // The fiber's note of its timeout must not outlive the slot. (A slot serves one event at a time,
  // so a record whose note names this slot is the one this timeout belongs to.)
  if (e.kind == EventKind::kFiberTimeout && e.fiber_record->timeout_slot == s) {
    e.fiber_record->timeout_slot = kNil;
  }
  if (e.owner != kNoProcess && e.shift_on_pause) unlink_from_owner(s);
  e.state = EventSlot::State::kFree;
  ++e.generation;
  e.fn.reset();
  e.owner = kNoProcess;
  --events_pending_;
  free_slots_.push_back(s);
}

void Simulator::link_to_owner(uint32_t s) {
  EventSlot& e = slots_[s];
  Process& p = process_ref(e.owner);
  e.prev = kNil;
  e.next = p.events_head;
  if (p.events_head != kNil) slots_[p.events_head].prev = s;
  p.events_head = s;
}

void Simulator::unlink_from_owner(uint32_t s) {
  EventSlot& e = slots_[s];
  Process& p = process_ref(e.owner);
  if (e.prev != kNil) {
    slots_[e.prev].next = e.next;
  } else {
    DST_ASSERT_EQ(p.events_head, s);
    p.events_head = e.next;
  }
  if (e.next != kNil) slots_[e.next].prev = e.prev;
  e.prev = e.next = kNil;
}

// (Re)queues a slot at `at` under a fresh sequence number; any older queue entry becomes stale.
void Simulator::enqueue(uint32_t s, TimeNs at) {
  DST_ASSERT_GE(at, now_);
  EventSlot& e = slots_[s];
  e.time = at;
  e.seq = next_seq_++;
  e.state = EventSlot::State::kQueued;
  const QueueEntry entry{at, e.seq, s};
  // An entry for the current instant sorts after every queued entry of this instant (its seq is
  // the largest) and before every later one, so a FIFO keeps (time, seq) order without the heap.
  if (at == now_) {
    now_fifo_.push_back(entry);
  } else {
    if (heap_.size() >= heap_compact_at_) compact_heap();
    heap_.push_back(entry);
    std::push_heap(heap_.begin(), heap_.end(), QueueEntryLater{});
  }
}

// A cancelled event (a fiber's timeout when it woke first, a killed process's timers) stays in the
// heap as a stale entry until it reaches the top. With many long timeouts most of the heap was
// stale (kube_scale: 2.3 M stale entries popped for 0.43 M events, the heap ~96,000 entries on
// average), and every push and pop paid for its depth. Dropping them whenever the heap has doubled
// costs O(1) per push, amortized. The order events run in cannot change: it is (time, seq), a
// total order, whatever the heap's layout.
void Simulator::compact_heap() {
  std::erase_if(heap_, [this](const QueueEntry& q) { return !entry_valid(q); });
  std::make_heap(heap_.begin(), heap_.end(), QueueEntryLater{});
  heap_compact_at_ = std::max(kHeapCompactMin, 2 * heap_.size());
}

bool Simulator::entry_valid(const QueueEntry& q) const {
  const EventSlot& e = slots_[q.slot];
  return e.state == EventSlot::State::kQueued && e.seq == q.seq;
}

// Drops stale entries at the front of both queues; sets `entry` to the earliest valid one.
bool Simulator::peek_valid(QueueEntry& entry) {
  while (!now_fifo_.empty() && !entry_valid(now_fifo_.front())) now_fifo_.pop_front();
  while (!heap_.empty() && !entry_valid(heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), QueueEntryLater{});
    heap_.pop_back();
  }
  const bool have_fifo = !now_fifo_.empty();
  if (!have_fifo && heap_.empty()) return false;
  if (have_fifo && (heap_.empty() || QueueEntryLater{}(heap_.front(), now_fifo_.front()))) {
    entry = now_fifo_.front();
  } else {
    entry = heap_.front();
  }
  return true;
}

bool Simulator::pop_next(uint32_t& slot) {
  QueueEntry entry;
  if (!peek_valid(entry)) return false;
  if (!now_fifo_.empty() && now_fifo_.front().seq == entry.seq) {
    now_fifo_.pop_front();
  } else {
    std::pop_heap(heap_.begin(), heap_.end(), QueueEntryLater{});
    heap_.pop_back();
  }
  slot = entry.slot;
  return true;
}

TimeNs Simulator::next_event_time() {
  if (!ready_.empty()) return now_;
  QueueEntry entry;
  return peek_valid(entry) ? entry.time : kTimeNever;
}

// A wake-up of a paused process waits in a slot, with the others frozen, until resume.
void Simulator::freeze_ready(const ReadyEntry& r) {
  const uint32_t s = alloc_slot();
  EventSlot& e = slots_[s];
  e.kind = r.kind;
  e.owner = r.fiber->owner->id;
  e.shift_on_pause = false;
  e.result = r.result;
  e.fiber_record = r.fiber;
  e.epoch = r.epoch;
  e.digest = r.fiber->id;
  e.time = now_;
  e.seq = r.seq;
  e.state = EventSlot::State::kFrozen;
  processes_[e.owner]->frozen_wakes.push_back(s);
}

EventId Simulator::schedule_at(TimeNs at, ProcessId owner, UniqueFunction fn, uint64_t digest,
                               EventKind kind) {
  DST_ASSERT_MSG(at >= now_, "cannot schedule an event in the past");
  if (owner != kNoProcess && !alive(owner)) return kNoEvent;
  const uint32_t s = alloc_slot();
  EventSlot& e = slots_[s];
  e.kind = kind;
  e.owner = owner;
  e.shift_on_pause = true;  // a callback owned by a process is one of its timers
  e.digest = digest;
  e.fn = std::move(fn);
  if (owner != kNoProcess) link_to_owner(s);
  enqueue(s, at);
  return (static_cast<uint64_t>(e.generation) << 32) | s;
}

EventId Simulator::schedule_after(DurationNs delay, ProcessId owner, UniqueFunction fn,
                                  uint64_t digest, EventKind kind) {
  DST_ASSERT_GE(delay, 0);
  return schedule_at(now_ + delay, owner, std::move(fn), digest, kind);
}

bool Simulator::cancel_event(EventId id) {
  const auto s = static_cast<uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<uint32_t>(id >> 32);
  if (id == kNoEvent || s >= slots_.size()) return false;
  EventSlot& e = slots_[s];
  if (e.state == EventSlot::State::kFree || e.generation != generation) return false;
  free_slot(s);
  return true;
}

// A fiber's deadline: a timer of its process (it shifts with a pause).
uint32_t Simulator::schedule_timeout(Fiber* f, TimeNs at) {
  const uint32_t s = alloc_slot();
  EventSlot& e = slots_[s];
  e.kind = EventKind::kFiberTimeout;
  e.owner = f->owner->id;
  e.shift_on_pause = true;
  e.result = WaitResult::kTimeout;
  e.fiber_record = f;
  e.epoch = f->wait_epoch;
  e.digest = f->id;
  link_to_owner(s);
  enqueue(s, at);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Running

// The rest of ready_is_next(): a slot event is due now too, so compare sequence numbers.
bool Simulator::ready_is_next_slow() {
  QueueEntry next;
  return !peek_valid(next) || next.time > now_ || next.seq > ready_.front().seq;
}

void Simulator::count_event_at(TimeNs t) {
  if (t != now_) {
    DST_ASSERT_GT(t, now_);
    now_ = t;
    events_at_instant_ = 0;
  }
  count_event_now();
}

std::string Simulator::livelock_message() const {
  return "livelock: too many events at virtual time " + format_time(now_) + " without time advancing";
}

bool Simulator::step() {
  if (ready_is_next()) {
    if (Fiber* f = pop_ready()) run_fiber(f);
    return true;
  }
  uint32_t s;
  if (!pop_next(s)) return false;
  EventSlot& e = slots_[s];
  count_event_at(e.time);
  DST_ASSERT_MSG(++events_executed_ <= limits::kEventsExecutedMax, "event budget exhausted");
  if (e.owner != kNoProcess && hold_for_owner(s)) {
    --events_executed_;
    return true;
  }
  trace_.record(now_, e.kind, e.owner, e.digest);
  dispatch(s);
  return true;
}

// An event whose owner is dead is dropped; one whose owner is paused is frozen until resume.
// Returns whether the event must not run now.
bool Simulator::hold_for_owner(uint32_t s) {
  EventSlot& e = slots_[s];
  Process& p = *processes_[e.owner];
  if (!p.alive) {
    free_slot(s);
    return true;
  }
  if (!p.paused) return false;
  e.state = EventSlot::State::kFrozen;
  if (!e.shift_on_pause) p.frozen_wakes.push_back(s);  // timers stay in the owner's list
  return true;
}

void Simulator::dispatch(uint32_t s) {
  EventSlot& e = slots_[s];
  if (e.kind == EventKind::kFiberStart || e.kind == EventKind::kFiberWake ||
      e.kind == EventKind::kFiberTimeout) {
    Fiber* f = e.fiber_record;
    const uint64_t epoch = e.epoch;
    const WaitResult result = e.result;
    const bool is_timeout = e.kind == EventKind::kFiberTimeout;
    free_slot(s);
    if (!f->blocked || f->wait_epoch != epoch) return;  // stale
    if (is_timeout && f->wake_pending) return;  // a wake for this wait is already queued
    prepare_resume(f, result);
    run_fiber(f);
    return;
  }
  UniqueFunction fn = std::move(e.fn);
  const ProcessId owner = e.owner;
  free_slot(s);
  const ProcessId saved = current_process_;
  current_process_ = owner;
  fn();
  current_process_ = saved;
}

// In the run loops, fibers may hand the CPU straight to the fiber the next event wakes (both loops
// would run that event next anyway); a single step() runs exactly one event.
void Simulator::run_until(TimeNs t) {
  DST_ASSERT_MSG(current_ == nullptr, "run_until called from a fiber");
  DST_ASSERT_GE(t, now_);
  stop_requested_ = false;
  handoff_allowed_ = true;
  while (!stop_requested_ && next_event_time() <= t) step();
  handoff_allowed_ = false;
  if (!stop_requested_) now_ = t;
  stop_requested_ = false;
}

void Simulator::run_until_idle() {
  DST_ASSERT_MSG(current_ == nullptr, "run_until_idle called from a fiber");
  stop_requested_ = false;
  handoff_allowed_ = true;
  while (!stop_requested_ && step()) {
  }
  handoff_allowed_ = false;
  stop_requested_ = false;
}

// ---------------------------------------------------------------------------------------------
// Fibers

Simulator::Fiber* Simulator::find_fiber(FiberId id) const {
  auto it = fibers_.find(id);
  return it == fibers_.end() ? nullptr : it->second;
}

Simulator::Fiber* Simulator::fiber_of(const WaitTicket& ticket) const {
  auto* f = static_cast<Fiber*>(ticket.record);
  return f != nullptr && f->id == ticket.fiber ? f : nullptr;
}

Simulator::Fiber* Simulator::new_fiber_record() {
  if (!free_fibers_.empty()) {
    Fiber* f = free_fibers_.back();
    free_fibers_.pop_back();
    return f;
  }
  return &fiber_pool_.emplace_back();
}

std::string Simulator::outside_fiber_message(const char* what) {
  return std::string(what) + " called outside a fiber";
}

FiberId Simulator::current_fiber() const { return current_ == nullptr ? 0 : current_->id; }
bool Simulator::fiber_alive(FiberId id) const { return find_fiber(id) != nullptr; }
const std::string& Simulator::fiber_name(FiberId id) const {
  Fiber* f = find_fiber(id);
  DST_ASSERT_MSG(f != nullptr, "unknown fiber " + std::to_string(id));
  return f->name;
}

FiberId Simulator::spawn(ProcessId process, std::string name, UniqueFunction body) {
  Process& p = process_ref(process);
  DST_ASSERT_MSG(p.alive, "spawn of fiber '" + name + "' into dead process " + p.name);
  DST_ASSERT_MSG(fibers_.size() < limits::kFibersAliveMax, "too many fibers alive");
  Fiber* f = new_fiber_record();
  *f = Fiber{};
  f->id = next_fiber_id_++;
  f->wait_epoch = next_epoch_++;
  f->owner = &p;
  if (trace_.recording()) trace_.label_digest(EventKind::kFiberStart, f->id, "fiber '" + name + "'");
  f->name = std::move(name);
  f->body = std::move(body);
  f->context = ctx::fiber(std::allocator_arg, PooledStackAllocator(stacks_.get()),
                          [this, f](ctx::fiber&& caller) {
                            // Destroyed before it ever ran: the ucontext backend (sanitizer
                            // builds) starts the body to unwind it; it must not run.
                            if (f->finished) return std::move(caller);
                            keep_caller(std::move(caller));
                            try {
                              f->body();
                            } catch (const ctx::detail::forced_unwind&) {
                              throw;  // the fiber is being destroyed: let Boost unwind it
                            } catch (const std::exception& ex) {
                              DST_UNREACHABLE("fiber '" + f->name + "' threw: " + ex.what());
                            }
                            // Finished: back to the scheduler, which frees the record.
                            f->finished = true;
                            switched_from_ = f;
                            current_ = nullptr;
                            current_process_ = kNoProcess;
                            return std::move(scheduler_ctx_);
                          });
  p.fibers.insert(f->id);
  fibers_.emplace(f->id, f);
  push_ready(f, EventKind::kFiberStart, WaitResult::kOk);
  return f->id;
}

// The scheduler runs a prepared fiber. Control comes back when some fiber (this one or one it
// handed off to) blocks without a hand-off, finishes, or parks itself after killing its process.
void Simulator::run_fiber(Fiber* f) {
  DST_ASSERT(current_ == nullptr);  // the scheduler's side
  switch_to(f);
  Fiber* back = switched_from_;
  if (back->finished) {
    finish_fiber(back);
  } else if (!back->owner->alive) {
    destroy_fiber(back);  // it killed its own process and parked itself in kill()
  }
}

void Simulator::finish_fiber(Fiber* f) {
  DST_ASSERT(f->wait_list == nullptr);  // a fiber leaves its wait list before it can finish
  for (const WaitTicket& t : f->joiners) wake(t, WaitResult::kOk);
  f->owner->fibers.erase(f->id);
  fibers_.erase(f->id);
  DST_ASSERT(!f->context);  // finished or unwound: its stack is already released
  *f = Fiber{};             // id 0: tickets and events naming the old id are now stale
  free_fibers_.push_back(f);
}

// Unwinds a suspended fiber's stack (Boost throws forced_unwind at its suspension point) and frees
// it. While it unwinds it counts as running, so its destructors see their own (dead) process and
// any blocking call they make returns kCancelled at once.
void Simulator::destroy_fiber(Fiber* f) {
  Fiber* saved = current_;
  const ProcessId saved_process = current_process_;
  if (f->timeout_slot != kNil) {
    free_slot(f->timeout_slot);
    f->timeout_slot = kNil;
  }
  // Its wait on a list ends here (unwinding skips the unlink at the end of wait_on). The list is
  // still alive: a dying WaitList takes all its fibers off first.
  if (f->wait_list != nullptr) unlink_waiter(f);
  current_ = f;
  current_process_ = f->owner->id;
  f->finished = true;  // before the unwinding: a fiber that never started sees it and returns
  { ctx::fiber doomed = std::move(f->context); }  // runs the unwinding
  current_ = saved;
  current_process_ = saved_process;
  finish_fiber(f);
}

void Simulator::cancel(FiberId id) {
  Fiber* f = find_fiber(id);
  if (f == nullptr || f->cancel_requested) return;
  f->cancel_requested = true;
  wake(WaitTicket{f->id, f->wait_epoch, f}, WaitResult::kCancelled);  // no-op unless it waits
}

WaitTicket Simulator::current_ticket() const {
  Fiber& f = running_fiber("current_ticket");
  return WaitTicket{f.id, f.wait_epoch, &f};
}

bool Simulator::waiting(const WaitTicket& ticket) const {
  const Fiber* f = fiber_of(ticket);
  return f != nullptr && f->wait_epoch == ticket.epoch && wakeable(f);
}

bool Simulator::wake(const WaitTicket& ticket, WaitResult result) {
  Fiber* f = fiber_of(ticket);
  if (f == nullptr || f->wait_epoch != ticket.epoch || !wakeable(f)) {
    return false;  // that wait is over (or was never)
  }
  wake_fiber(f, result);
  return true;
}

TimeNs Simulator::deadline_after_slow(DurationNs local) const {
  DST_ASSERT_GE(local, 0);
  DurationNs true_span = local;
  if (current_process_ != kNoProcess) {
    true_span = hosts_[process_ref(current_process_).host]->clock().true_duration(local);
  }
  if (true_span >= kTimeNever - now_) return kTimeNever;
  return now_ + true_span;
}

WaitResult Simulator::sleep(DurationNs local) {
  running_fiber("sleep");
  const WaitResult r = block(deadline_after(local));
  return r == WaitResult::kTimeout ? WaitResult::kOk : r;
}

WaitResult Simulator::join(FiberId id, DurationNs timeout) {
  Fiber& self = running_fiber("join");
  DST_ASSERT_MSG(self.id != id, "a fiber cannot join itself");
  Fiber* target = find_fiber(id);
  if (target == nullptr) return WaitResult::kOk;
  target->joiners.push_back(current_ticket());
  return block(deadline_after(timeout));
}

Status Simulator::complete_at(TimeNs at, EventKind kind, uint64_t digest,
                              std::function<Status()> action) {
  running_fiber("complete_at");
  struct Outcome {
    Status status;
    bool done = false;
  };
  // Shared with the world event, which may outlive this fiber.
  auto outcome = std::make_shared<Outcome>();
  const WaitTicket ticket = current_ticket();
  schedule_at(at, kNoProcess,
              [this, outcome, ticket, action = std::move(action)]() mutable {
                outcome->status = action();
                outcome->done = true;
                wake(ticket, WaitResult::kOk);
              },
              digest, kind);
  const WaitResult r = block(kTimeNever);
  if (r != WaitResult::kOk || !outcome->done) {
    return Status(StatusCode::kCancelled, "fiber cancelled while waiting for completion");
  }
  return outcome->status;
}

TimeNs Simulator::wall_now() const {
  if (current_process_ == kNoProcess) return now_;
  return hosts_[process_ref(current_process_).host]->clock().wall_now(now_);
}

TimeNs Simulator::monotonic_now() const {
  if (current_process_ == kNoProcess) return now_;
  return hosts_[process_ref(current_process_).host]->clock().monotonic_now(now_);
}

}  // namespace dst::sim
