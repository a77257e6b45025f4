// Synchronisation between fibers: wait queues, events, channels, and one-shot promises.
//
// All of them sit on WaitQueue, a thin wrapper of the Simulator's intrusive wait lists (wait_on /
// notify_one / notify_all): a waiter links itself into the list and blocks; a notifier takes it off
// and wakes it, and the woken fiber runs through the event queue after everything already due now.
// Every wait takes an optional timeout in the host's monotonic-clock nanoseconds. Each is built on
// the Simulator (harness code) or on a process's Env (the system under test, sim/env.h).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include "base/assert.h"
#include "base/limits.h"
#include "sim/env.h"
#include "sim/simulator.h"

namespace dst::sim {

// A FIFO of waiting fibers. The fibers are linked through their records in the Simulator (see
// Simulator::WaitList), so waiting and notifying allocate nothing, and a fiber whose wait ended
// another way (timeout, cancellation, its process killed) has already left the queue.
//
// Known limit: notify_one picks one waiter; if that waiter's process is killed before the woken
// fiber runs, the notification goes with it. Processes only share memory in harness code (real
// nodes talk over the network, whose sockets belong to one process), so a harness queue shared by
// fibers of several processes that may be killed should use notify_all.
class WaitQueue {
 public:
  explicit WaitQueue(Simulator& sim) : sim_(&sim) {}
  explicit WaitQueue(Env& env) : sim_(&EnvAccess::scheduler(env)) {}
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;
  // Waiters still queued when the queue dies are woken with kClosed. An empty queue does not touch
  // the Simulator, so it may outlive it (the Simulator's destruction ends every wait).
  ~WaitQueue() {
    if (!waiters_.empty()) notify_all(WaitResult::kClosed);
  }

  // Blocks the current fiber until notified or the timeout passes. Forced inline, like wait_on,
  // so the switch sits in the caller (see sim/simulator_inline.h for why that matters).
  [[gnu::always_inline]] WaitResult wait(DurationNs timeout = kForever) {
    return wait_until(sim_->deadline_after(timeout));
  }
  // Same, with a true-time deadline (from Simulator::deadline_after), for loops that wait more
  // than once under one timeout.
  [[gnu::always_inline]] WaitResult wait_until(TimeNs deadline) { return sim_->wait_on(waiters_, deadline); }
  // Wakes the longest-waiting live waiter; false if there was none.
  bool notify_one(WaitResult result = WaitResult::kOk) { return sim_->notify_one(waiters_, result); }
  void notify_all(WaitResult result = WaitResult::kOk) { sim_->notify_all(waiters_, result); }
  // No fiber waits here. (A notified fiber has left; one woken by a cancellation leaves when it
  // runs.)
  bool empty() const { return waiters_.empty(); }

 private:
  Simulator* sim_;
  Simulator::WaitList waiters_;
};

// A manual-reset flag: wait() returns at once while it is set.
class Event {
 public:
  explicit Event(Simulator& sim) : sim_(&sim), waiters_(sim) {}
  explicit Event(Env& env) : Event(EnvAccess::scheduler(env)) {}
  void set() {
    set_ = true;
    waiters_.notify_all();
  }
  void reset() { set_ = false; }
  bool is_set() const { return set_; }
  WaitResult wait(DurationNs timeout = kForever) {
    const TimeNs deadline = sim_->deadline_after(timeout);
    while (!set_) {
      const WaitResult r = waiters_.wait_until(deadline);
      if (r != WaitResult::kOk) return r;
    }
    return WaitResult::kOk;
  }

 private:
  Simulator* sim_;
  WaitQueue waiters_;
  bool set_ = false;
};

// A bounded multi-producer multi-consumer queue of T between fibers (a mailbox). Senders block while
// it is full; receivers block while it is empty; close() wakes everyone, and receivers then drain
// what is left before seeing kClosed.
template <typename T>
class Channel {
 public:
  explicit Channel(Simulator& sim, size_t capacity = limits::kChannelCapacityDefault)
      : sim_(&sim), capacity_(capacity), readers_(sim), writers_(sim) {
    DST_ASSERT_GT(capacity, 0u);
  }
  explicit Channel(Env& env, size_t capacity = limits::kChannelCapacityDefault)
      : Channel(EnvAccess::scheduler(env), capacity) {}

  // kOk, kClosed, kTimeout or kCancelled.
  WaitResult send(T value, DurationNs timeout = kForever) {
    const TimeNs deadline = sim_->deadline_after(timeout);
    while (!closed_ && items_.size() >= capacity_) {
      const WaitResult r = writers_.wait_until(deadline);
      if (r != WaitResult::kOk) return r;
    }
    if (closed_) return WaitResult::kClosed;
    items_.push_back(std::move(value));
    readers_.notify_one();
    return WaitResult::kOk;
  }

  // Never blocks; false if full or closed. Usable from world callbacks too.
  bool try_send(T value) {
    if (closed_ || items_.size() >= capacity_) return false;
    items_.push_back(std::move(value));
    readers_.notify_one();
    return true;
  }

  // The next item, or the reason there is none (kClosed once closed and drained).
  std::pair<WaitResult, std::optional<T>> recv(DurationNs timeout = kForever) {
    const TimeNs deadline = sim_->deadline_after(timeout);
    while (items_.empty() && !closed_) {
      const WaitResult r = readers_.wait_until(deadline);
      if (r != WaitResult::kOk) return {r, std::nullopt};
    }
    if (items_.empty()) return {WaitResult::kClosed, std::nullopt};
    T value = std::move(items_.front());
    items_.pop_front();
    writers_.notify_one();
    return {WaitResult::kOk, std::move(value)};
  }

  std::optional<T> try_recv() {
    if (items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    writers_.notify_one();
    return value;
  }

  void close() {
    closed_ = true;
    readers_.notify_all();
    writers_.notify_all();
  }
  bool closed() const { return closed_; }
  size_t size() const { return items_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  Simulator* sim_;
  size_t capacity_;
  std::deque<T> items_;
  bool closed_ = false;
  WaitQueue readers_;
  WaitQueue writers_;
};

// A one-shot value passed from a producer to whoever waits on the future. The shared state may
// outlive either side (a producer in a killed process simply never fulfils it).
template <typename T>
class Promise;

template <typename T>
class Future {
 public:
  // Waits for the value; nullopt with the reason on timeout, cancellation, or a broken promise
  // (kClosed: the promise was destroyed unfulfilled).
  std::pair<WaitResult, std::optional<T>> get(DurationNs timeout = kForever) {
    DST_ASSERT_MSG(state_ != nullptr, "get() on an empty Future");
    const TimeNs deadline = state_->sim->deadline_after(timeout);
    while (!state_->value && !state_->broken) {
      const WaitResult r = state_->waiters.wait_until(deadline);
      if (r != WaitResult::kOk) return {r, std::nullopt};
    }
    if (!state_->value) return {WaitResult::kClosed, std::nullopt};
    return {WaitResult::kOk, state_->value};
  }
  bool ready() const { return state_ != nullptr && state_->value.has_value(); }

 private:
  friend class Promise<T>;
  struct State {
    explicit State(Simulator& s) : sim(&s), waiters(s) {}
    Simulator* sim;
    std::optional<T> value;
    bool broken = false;
    WaitQueue waiters;
  };
  explicit Future(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

template <typename T>
class Promise {
 public:
  explicit Promise(Simulator& sim) : state_(std::make_shared<typename Future<T>::State>(sim)) {}
  explicit Promise(Env& env) : Promise(EnvAccess::scheduler(env)) {}
  Promise(Promise&&) noexcept = default;
  // Not defaulted: the defaulted assignment would drop an unfulfilled state without marking it
  // broken, leaving its futures waiting forever instead of seeing kClosed.
  Promise& operator=(Promise&& other) noexcept {
    if (this != &other) {
      break_if_unfulfilled();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  ~Promise() { break_if_unfulfilled(); }

  Future<T> future() const { return Future<T>(state_); }
  // Fulfils the promise; asserts it was not fulfilled before.
  void set(T value) {
    DST_ASSERT_MSG(!state_->value.has_value(), "promise fulfilled twice");
    state_->value = std::move(value);
    state_->waiters.notify_all();
  }
  bool fulfilled() const { return state_->value.has_value(); }

 private:
  void break_if_unfulfilled() {
    if (state_ != nullptr && !state_->value) {
      state_->broken = true;
      state_->waiters.notify_all();
    }
  }

  std::shared_ptr<typename Future<T>::State> state_;
};

}  // namespace dst::sim
