// A FIFO on a power-of-two ring buffer that grows by doubling.
//
// The scheduler's ready and current-instant queues and every wait queue push and pop on each
// wake-up; std::deque costs several times the instructions of a masked index here, and a vector
// with a moving head must be compacted. Callers bound the size (limits::kEventsPendingMax, the
// number of fibers); the ring only grows to what they allow.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "base/assert.h"

namespace dst::sim {

template <typename T>
class RingQueue {
 public:
  RingQueue() : slots_(16) {}
  // A moved-from ring is empty and usable (it regrows on the next push).
  RingQueue(RingQueue&& other) noexcept
      : slots_(std::move(other.slots_)), head_(std::exchange(other.head_, 0)), tail_(std::exchange(other.tail_, 0)) {
    other.slots_.clear();
  }
  RingQueue& operator=(RingQueue&& other) noexcept {
    slots_ = std::move(other.slots_);
    head_ = std::exchange(other.head_, 0);
    tail_ = std::exchange(other.tail_, 0);
    other.slots_.clear();
    return *this;
  }
  RingQueue(const RingQueue&) = delete;
  RingQueue& operator=(const RingQueue&) = delete;

  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }

  T& front() {
    DST_ASSERT(!empty());
    return slots_[head_ & mask()];
  }
  const T& front() const {
    DST_ASSERT(!empty());
    return slots_[head_ & mask()];
  }
  // The i-th item from the front.
  const T& operator[](size_t i) const {
    DST_ASSERT(i < size());
    return slots_[(head_ + i) & mask()];
  }

  void push_back(T item) {
    if (size() == slots_.size()) grow();
    slots_[tail_++ & mask()] = std::move(item);
  }
  void pop_front() {
    DST_ASSERT(!empty());
    slots_[head_++ & mask()] = T{};  // release what the item held
  }
  void clear() {
    while (!empty()) pop_front();
  }

 private:
  size_t mask() const { return slots_.size() - 1; }  // only used while slots_ is not empty
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : slots_.size() * 2);  // empty once moved from
    for (size_t i = 0; i < size(); ++i) bigger[i] = std::move(slots_[(head_ + i) & mask()]);
    tail_ = size();
    head_ = 0;
    slots_.swap(bigger);
  }

  std::vector<T> slots_;  // size is a power of two
  size_t head_ = 0;       // both only grow; positions are taken modulo the size
  size_t tail_ = 0;
};

}  // namespace dst::sim
