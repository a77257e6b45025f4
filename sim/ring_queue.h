// A FIFO on a power-of-two ring buffer that grows by doubling.
//
// The scheduler's ready and current-instant queues push and pop on each wake-up; std::deque costs
// several times the instructions of a masked index here, and a vector with a moving head must be
// compacted. Callers bound the size (limits::kEventsPendingMax); the ring only grows to what they
// allow.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "base/assert.h"

namespace dst::sim {

template <typename T>
class RingQueue {
 public:
  RingQueue() { grow(); }
  // A moved-from ring is empty and usable (it regrows on the next push).
  RingQueue(RingQueue&& other) noexcept { take(other); }
  RingQueue& operator=(RingQueue&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }
  RingQueue(const RingQueue&) = delete;
  RingQueue& operator=(const RingQueue&) = delete;

  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }

  T& front() {
    DST_ASSERT(!empty());
    return slots_[head_ & mask_];
  }
  const T& front() const {
    DST_ASSERT(!empty());
    return slots_[head_ & mask_];
  }
  // The i-th item from the front.
  const T& operator[](size_t i) const {
    DST_ASSERT(i < size());
    return slots_[(head_ + i) & mask_];
  }

  void push_back(T item) {
    if (size() == capacity_) [[unlikely]] grow();
    slots_[tail_++ & mask_] = std::move(item);
  }
  void pop_front() {
    DST_ASSERT(!empty());
    // Release what the item held; a trivially destructible item holds nothing, so skip the store.
    if constexpr (!std::is_trivially_destructible_v<T>) slots_[head_ & mask_] = T{};
    ++head_;
  }
  void clear() {
    while (!empty()) pop_front();
  }

 private:
  void take(RingQueue& other) {
    slots_ = std::move(other.slots_);
    capacity_ = std::exchange(other.capacity_, 0);  // 0: the next push regrows
    mask_ = std::exchange(other.mask_, 0);
    head_ = std::exchange(other.head_, 0);
    tail_ = std::exchange(other.tail_, 0);
  }
  [[gnu::noinline]] void grow() {  // out of line: keeps push_back small where it is inlined
    const size_t bigger_capacity = capacity_ == 0 ? 16 : capacity_ * 2;
    std::unique_ptr<T[]> bigger(new T[bigger_capacity]());
    for (size_t i = 0; i < size(); ++i) bigger[i] = std::move(slots_[(head_ + i) & mask_]);
    tail_ = size();
    head_ = 0;
    slots_ = std::move(bigger);
    capacity_ = bigger_capacity;
    mask_ = bigger_capacity - 1;
  }

  // A bare array with its size and mask in members: on the hot path push and pop are a compare,
  // a mask and a store, where std::vector would recompute its size from two pointers.
  std::unique_ptr<T[]> slots_;
  size_t capacity_ = 0;  // a power of two, or 0 once moved from
  size_t mask_ = 0;      // capacity_ - 1
  size_t head_ = 0;      // both only grow; positions are taken modulo the capacity
  size_t tail_ = 0;
};

}  // namespace dst::sim
