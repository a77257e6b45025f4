// See arena_resource.h.
#include "checker/linearizability/arena_resource.h"

#include <algorithm>
#include <cstdint>

#include "base/assert.h"
#include "base/limits.h"

namespace dst::checker {

namespace {

// The block of the last arena that ended on this thread, kept for the next one: checks of short
// histories one after another (minimisation's re-checks, a sweep, a benchmark) then allocate
// nothing for their arenas (a malloc and free of a few tens of KB was about 5% of checking
// Porcupine's c01 files). One block, the largest seen, at most kCheckerArenaBlockBytesMax,
// handed to an arena that asks for at least a quarter of it.
struct SpareBlock {
  std::unique_ptr<std::byte[]> block;
  size_t bytes = 0;
};
thread_local SpareBlock spare_block;

}  // namespace

ArenaResource::ArenaResource(size_t block_bytes) {
  block_bytes = std::min(block_bytes, limits::kCheckerArenaBlockBytesMax);
  if (block_bytes == 0) return;
  // Not a block many times too large: that one is kept for a check of its size.
  if (spare_block.block != nullptr && spare_block.bytes >= block_bytes && spare_block.bytes / 4 <= block_bytes) {
    block_ = std::move(spare_block.block);
    block_bytes = spare_block.bytes;
    spare_block.bytes = 0;
  } else {
    // Uninitialised: every user writes before it reads (vectors construct their elements).
    block_.reset(new std::byte[block_bytes]);
  }
  at_ = block_.get();
  end_ = at_ + block_bytes;
}

ArenaResource::~ArenaResource() {
  if (block_ != nullptr && block_bytes() > spare_block.bytes) {
    spare_block.block = std::move(block_);
    spare_block.bytes = static_cast<size_t>(end_ - spare_block.block.get());
  }
}

void* ArenaResource::do_allocate(size_t bytes, size_t alignment) {
  DST_ASSERT_MSG(alignment != 0 && (alignment & (alignment - 1)) == 0, "alignment must be a power of two");
  // At least one byte: a carved pointer is then always inside the block (do_deallocate tells
  // carved from heap pointers by that), even at the block's full end.
  bytes = std::max<size_t>(bytes, 1);
  if (at_ != nullptr && alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    const auto address = reinterpret_cast<uintptr_t>(at_);
    const size_t pad = (alignment - address % alignment) % alignment;
    if (bytes <= static_cast<size_t>(end_ - at_) && pad <= static_cast<size_t>(end_ - at_) - bytes) {
      std::byte* p = at_ + pad;
      at_ = p + bytes;
      return p;
    }
  }
  ++heap_allocations_;
  return std::pmr::new_delete_resource()->allocate(bytes, alignment);
}

void ArenaResource::do_deallocate(void* p, size_t bytes, size_t alignment) {
  // Compared as integers: p may come from another allocation, which `<` on pointers does not order.
  const auto address = reinterpret_cast<uintptr_t>(p);
  if (block_ != nullptr && address >= reinterpret_cast<uintptr_t>(block_.get()) &&
      address < reinterpret_cast<uintptr_t>(end_)) {
    return;  // carved: freed with the block
  }
  std::pmr::new_delete_resource()->deallocate(p, std::max<size_t>(bytes, 1), alignment);  // as allocated
}

}  // namespace dst::checker
