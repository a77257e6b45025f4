// Fiber stacks: mmap'ed with a guard page below, reused through a bounded free list.
//
// The guard page turns a stack overflow into an immediate SIGSEGV instead of silent corruption of a
// neighbouring stack; pooling saves an mmap/munmap pair per spawned fiber (requests spawn fibers).
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

namespace dst::sim {

class StackPool {
 public:
  explicit StackPool(size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sctx);

  size_t stack_bytes() const { return stack_bytes_; }
  size_t pooled() const { return free_.size(); }

 private:
  size_t stack_bytes_;  // usable bytes, excluding the guard page
  size_t page_bytes_;
  std::vector<void*> free_;  // bases (lowest address, the guard page) of released mappings
};

// The StackAllocator concept Boost.Context wants, as a small copyable handle onto a pool that
// outlives every fiber using it.
class PooledStackAllocator {
 public:
  explicit PooledStackAllocator(StackPool* pool) : pool_(pool) {}
  boost::context::stack_context allocate() { return pool_->allocate(); }
  void deallocate(boost::context::stack_context& sctx) noexcept { pool_->deallocate(sctx); }

 private:
  StackPool* pool_;
};

}  // namespace dst::sim
