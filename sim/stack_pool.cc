// Guarded, pooled fiber stacks; see stack_pool.h.
#include "sim/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/assert.h"
#include "base/limits.h"

#if defined(BOOST_USE_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace dst::sim {

StackPool::StackPool(size_t stack_bytes) {
  page_bytes_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  DST_ASSERT_GT(page_bytes_, 0u);
  stack_bytes_ = (stack_bytes + page_bytes_ - 1) / page_bytes_ * page_bytes_;
  DST_ASSERT_GE(stack_bytes_, 4 * page_bytes_);
}

StackPool::~StackPool() {
  for (void* base : free_) ::munmap(base, stack_bytes_ + page_bytes_);
}

boost::context::stack_context StackPool::allocate() {
  void* base;
  if (!free_.empty()) {
    base = free_.back();
    free_.pop_back();
  } else {
    const size_t total = stack_bytes_ + page_bytes_;
    base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                  -1, 0);
    DST_ASSERT_MSG(base != MAP_FAILED, std::string("mmap of a fiber stack failed: ") + std::strerror(errno));
    // The lowest page is the guard: stacks grow down into it on overflow.
    DST_ASSERT_EQ(::mprotect(base, page_bytes_, PROT_NONE), 0);
  }
  boost::context::stack_context sctx;
  sctx.size = stack_bytes_;
  sctx.sp = static_cast<char*>(base) + page_bytes_ + stack_bytes_;  // top: stacks grow down
  return sctx;
}

void StackPool::deallocate(boost::context::stack_context& sctx) {
  DST_ASSERT_EQ(sctx.size, stack_bytes_);
  void* base = static_cast<char*>(sctx.sp) - stack_bytes_ - page_bytes_;
#if defined(BOOST_USE_ASAN)
  // A reused stack must not carry the poisoned redzones of the fiber that used it before.
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(base) + page_bytes_, stack_bytes_);
#endif
  if (free_.size() < limits::kFiberStacksPooledMax) {
    free_.push_back(base);
  } else {
    ::munmap(base, stack_bytes_ + page_bytes_);
  }
}

}  // namespace dst::sim
