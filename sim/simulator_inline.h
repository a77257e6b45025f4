// The Simulator's fiber and process records and its hot path: waking, blocking and switching.
//
// Included at the end of sim/simulator.h and not meant to be included alone. Every wake-up and
// every wait of every fiber runs through here, so it is inline, and the blocking side (wait_on,
// used by every WaitQueue) is forced inline into its callers, down to the switch itself. That
// matters more than the instructions saved: Boost.Context resumes a fiber with an indirect jump,
// so the return-address predictor still holds the other fiber's calls, and the first `ret` a
// resumed fiber executes is mispredicted. With the switch inside an out-of-line wait_on, that
// `ret` came right after every switch; inlined, a fiber that waits in a loop (a server's receive
// loop, the benchmark's ping-pong) goes on without returning at all. Measured with
// `dst bench sim --benchmark_repetitions=3` against the build before, both beside an 11 ns raw
// Boost.Context round trip: the fiber round trip went from ~83 to ~30 ns (together with reading
// ready entries field by field, see pop_ready). A fiber deep in calls still pays mispredicted
// returns on its way back up, so whole clusters gain little (`dst bench cluster` did not move
// measurably); the gain is for waits in loops.
#pragma once

#include "sim/env.h"
#include "sim/simulator.h"

namespace dst::sim {

// ---------------------------------------------------------------------------------------------
// The records.

struct Simulator::Fiber {
  // Read or written on every wait and wake-up: kept together at the front.
  Process* owner = nullptr;  // processes_ entries never move
  // A fresh value from the Simulator's counter whenever a wait ends, so (record, epoch) names one
  // wait of one fiber for good: tickets and wake-ups of older waits, or of an earlier fiber that
  // used this record, are stale.
  uint64_t wait_epoch = 0;
  FiberId id = 0;  // 0 while the record sits in the pool
  // The list this fiber waits on in wait_on() (nullptr: none) and its neighbours there.
  WaitList* wait_list = nullptr;
  Fiber* wait_prev = nullptr;
  Fiber* wait_next = nullptr;
  bool blocked = true;       // waiting (a new fiber waits for its start event)
  bool wake_pending = true;  // a wake event for the current wait is queued (the start, at first)
  bool cancel_requested = false;
  bool finished = false;
  WaitResult wake_result = WaitResult::kOk;
  uint32_t timeout_slot = kNil;
  boost::context::fiber context;  // this fiber's continuation while it is not running
  // Cold.
  std::string name;
  UniqueFunction body;
  std::vector<WaitTicket> joiners;
};

struct Simulator::Process {
  ProcessId id = kNoProcess;
  bool alive = true;
  bool paused = false;
  HostId host = 0;
  std::string name;
  TimeNs paused_at = 0;
  // Intrusive list of this process's timers (events that shift with a pause), queued or frozen.
  uint32_t events_head = kNil;
  // Wake-ups (not in the list above) that came due while paused, in the order they came due.
  std::vector<uint32_t> frozen_wakes;
  std::set<FiberId> fibers;  // ordered: destruction order must not depend on addresses
  std::unique_ptr<Env> env;  // Simulator::env, made on first use
};

// ---------------------------------------------------------------------------------------------
// The waking side.

// Whether a wake-up may end the fiber's current wait: it is blocked, nothing has woken it yet, and
// its process lives.
inline bool Simulator::wakeable(const Fiber* f) { return f->blocked && !f->wake_pending && f->owner->alive; }

inline void Simulator::push_ready(Fiber* f, EventKind kind, WaitResult result) {
  DST_ASSERT_MSG(events_pending_ < limits::kEventsPendingMax, "too many pending events");
  ++events_pending_;
  ready_.push_back(ReadyEntry{next_seq_++, f, f->wait_epoch, result, kind});
}

inline void Simulator::wake_fiber(Fiber* f, WaitResult result) {
  f->wake_pending = true;
  push_ready(f, EventKind::kFiberWake, result);
}

// Takes the first fiber off a non-empty list (unlink_waiter, knowing it has no predecessor).
inline Simulator::Fiber* Simulator::pop_waiter(WaitList& list) {
  Fiber* f = list.head_;
  list.head_ = f->wait_next;
  (list.head_ != nullptr ? list.head_->wait_prev : list.tail_) = nullptr;
  f->wait_list = nullptr;
  f->wait_next = nullptr;
  return f;
}

// A fiber taken off the list but not wakeable was woken by a cancellation already, or its process
// died; either way this notification is not for it.
inline bool Simulator::notify_one(WaitList& list, WaitResult result) {
  while (!list.empty()) {
    Fiber* f = pop_waiter(list);
    if (wakeable(f)) {
      wake_fiber(f, result);
      return true;
    }
  }
  return false;
}

inline void Simulator::notify_all(WaitList& list, WaitResult result) {
  while (!list.empty()) {
    Fiber* f = pop_waiter(list);
    if (wakeable(f)) wake_fiber(f, result);
  }
}

// ---------------------------------------------------------------------------------------------
// The blocking side and the switch. Forced inline so that a wait is no call at all down to the
// switch, with no spills and reloads in between (block and yield, rarer, are one call in
// simulator.cc).

inline TimeNs Simulator::deadline_after(DurationNs local) const {
  if (local == kForever) return kTimeNever;  // the common case: no timeout
  return deadline_after_slow(local);
}

[[gnu::always_inline]] inline Simulator::Fiber& Simulator::running_fiber(const char* what) const {
  DST_ASSERT_MSG(current_ != nullptr, outside_fiber_message(what));
  return *current_;
}

// Whether the first ready entry is the next event: ready entries are due now, so one runs first
// unless a slot event due now has a smaller seq. The inline test is the hot path (every notify and
// yield) and needs no look at the slots.
[[gnu::always_inline]] inline bool Simulator::ready_is_next() {
  if (ready_.empty()) return false;
  if (now_fifo_.empty() && (heap_.empty() || heap_.front().time > now_)) return true;
  return ready_is_next_slow();
}

// One more event at the current instant; a livelock guard.
[[gnu::always_inline]] inline void Simulator::count_event_now() {
  DST_ASSERT_MSG(++events_at_instant_ <= limits::kEventsAtOneInstantMax, livelock_message());
}

// Ends the fiber's wait: from here it counts as running, whoever switches to it.
[[gnu::always_inline]] inline void Simulator::prepare_resume(Fiber* f, WaitResult result) {
  f->blocked = false;
  f->wake_pending = false;
  f->wake_result = result;
  f->wait_epoch = next_epoch_++;
  if (f->timeout_slot != kNil) {
    free_slot(f->timeout_slot);
    f->timeout_slot = kNil;
  }
}

// Executes the first ready entry (the caller checked it is the next event) up to the switch: the
// fiber it wakes, ready to be switched to, or nullptr if the entry was stale, of a dead process, or
// frozen for a paused one.
[[gnu::always_inline]] inline Simulator::Fiber* Simulator::pop_ready() {
  count_event_now();  // ready entries are due now
  // Read field by field, not copied whole: the notifier stored the entry a moment ago as narrow
  // stores, and a wide load over them cannot be forwarded from the store buffer and stalls.
  const ReadyEntry& r = ready_.front();
  Fiber* f = r.fiber;
  --events_pending_;
  // Stale (that wait already ended, or the record now serves another fiber) or the process died.
  if (f->wait_epoch != r.epoch || !f->blocked || !f->owner->alive) {
    ready_.pop_front();
    return nullptr;
  }
  if (f->owner->paused) [[unlikely]] {
    freeze_ready(r);
    ready_.pop_front();
    return nullptr;
  }
  const EventKind kind = r.kind;
  const WaitResult result = r.result;
  ready_.pop_front();
  DST_ASSERT_MSG(++events_executed_ <= limits::kEventsExecutedMax, "event budget exhausted");
  trace_.record(now_, kind, f->owner->id, f->id);
  prepare_resume(f, result);
  return f;
}

[[gnu::always_inline]] inline void Simulator::keep_caller(boost::context::fiber&& caller) {
  (switched_from_ == nullptr ? scheduler_ctx_ : switched_from_->context) = std::move(caller);
}

// Every switch goes through here, fiber to fiber or to and from the scheduler (nullptr). The side
// that switches notes itself in switched_from_; the side that resumes stores the continuation it
// receives there, so each suspended side's continuation is always in its own slot: the fiber's
// context, or scheduler_ctx_ for the scheduler. While any fiber runs, scheduler_ctx_ is the
// scheduler's.
[[gnu::always_inline]] inline void Simulator::switch_to(Fiber* to) {
  DST_ASSERT(to != current_);
  switched_from_ = current_;
  current_ = to;
  current_process_ = to == nullptr ? kNoProcess : to->owner->id;
  boost::context::fiber target = std::move(to == nullptr ? scheduler_ctx_ : to->context);
  keep_caller(std::move(target).resume());
}

// A fiber that just blocked gives up the CPU: straight to the fiber the next event wakes when that
// is allowed (in a run loop, not stopped), or itself if the event wakes it, else to the scheduler.
[[gnu::always_inline]] inline void Simulator::suspend_current() {
  Fiber* self = current_;
  Fiber* next = nullptr;
  while (handoff_allowed_ && next == nullptr && ready_is_next()) {
    next = pop_ready();
  }
  if (next == self) return;
  switch_to(next);
}

// Blocks the running fiber `f` (which may block: not cancelled, its process alive).
[[gnu::always_inline]] inline WaitResult Simulator::block_current(Fiber& f, TimeNs deadline) {
  DST_ASSERT(!f.blocked);
  f.blocked = true;
  if (deadline != kTimeNever) {
    DST_ASSERT_GE(deadline, now_);
    f.timeout_slot = schedule_timeout(&f, deadline);
  }
  suspend_current();
  return f.wake_result;
}

[[gnu::always_inline]] inline void Simulator::unlink_waiter(Fiber* f) {
  WaitList& list = *f->wait_list;
  (f->wait_prev != nullptr ? f->wait_prev->wait_next : list.head_) = f->wait_next;
  (f->wait_next != nullptr ? f->wait_next->wait_prev : list.tail_) = f->wait_prev;
  f->wait_list = nullptr;
  f->wait_prev = f->wait_next = nullptr;
}

[[gnu::always_inline]] inline WaitResult Simulator::wait_on(WaitList& list, TimeNs deadline) {
  Fiber& f = running_fiber("a blocking call");
  if (f.cancel_requested || !f.owner->alive) return WaitResult::kCancelled;
  DST_ASSERT(f.wait_list == nullptr);
  f.wait_list = &list;
  f.wait_prev = list.tail_;
  f.wait_next = nullptr;
  (list.tail_ != nullptr ? list.tail_->wait_next : list.head_) = &f;
  list.tail_ = &f;
  const WaitResult r = block_current(f, deadline);
  // Still linked: the wait ended some other way (timeout, cancellation), so leave the list.
  if (f.wait_list != nullptr) unlink_waiter(&f);
  return r;
}

}  // namespace dst::sim
