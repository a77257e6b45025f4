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
#include <dlfcn.h>
#include <sanitizer/asan_interface.h>
#include <ucontext.h>
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

#if defined(BOOST_USE_ASAN)
// Sanitizer builds only: Boost.Context's ucontext backend switches fibers with swapcontext(), and
// ASan's interceptor for it clears the shadow of the target's whole stack before and after every
// switch (it cannot know where a context's live frames are). With 2 MiB sanitizer stacks that is
// 512 KiB of shadow released and faulted back in per round trip: half the sanitizer suite's time
// went to mmap, madvise and page faults. Boost already tells ASan about every switch
// (__sanitizer_start/finish_switch_fiber, BOOST_USE_ASAN), and a stack's shadow is cleared once
// when the pool takes it back (deallocate above), so the per-switch clearing only loses the
// redzones of frames that are still live. This definition takes precedence over the interceptor
// for the calls in this executable and goes straight to the C library's swapcontext.
extern "C" __attribute__((no_sanitize("address"))) int swapcontext(ucontext_t* from, const ucontext_t* to) {
  using SwapContext = int (*)(ucontext_t*, const ucontext_t*);
  static const SwapContext libc_swapcontext = [] {
    void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    DST_ASSERT_MSG(libc != nullptr, "libc.so.6 is not loaded");
    auto* fn = reinterpret_cast<SwapContext>(::dlsym(libc, "swapcontext"));
    DST_ASSERT_MSG(fn != nullptr, "the C library has no swapcontext");
    return fn;
  }();
  return libc_swapcontext(from, to);
}
#endif
