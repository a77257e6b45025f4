#include "checker/linearizability/arena_resource.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace dst::checker {
namespace {

bool inside(const ArenaResource& a, const void* block_start, const void* p) {
  const auto x = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(block_start);
  return x >= b && x < b + a.block_bytes();
}

TEST(ArenaResource, CarvesInOrderWithAlignment) {
  ArenaResource a(1024);
  void* first = a.allocate(3, 1);
  void* second = a.allocate(8, 8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(second) % 8, 0u);
  EXPECT_GT(reinterpret_cast<uintptr_t>(second), reinterpret_cast<uintptr_t>(first));
  EXPECT_LE(a.carved_bytes(), 16u);  // 3 bytes, padding to 8, 8 bytes
  EXPECT_EQ(a.heap_allocations(), 0u);
  a.deallocate(second, 8, 8);
  a.deallocate(first, 3, 1);
}

TEST(ArenaResource, WhatDoesNotFitComesFromTheHeapAndIsFreed) {
  ArenaResource a(64);
  void* start = a.allocate(16, 8);
  void* big = a.allocate(128, 8);  // more than is left
  EXPECT_TRUE(inside(a, start, start));
  EXPECT_FALSE(inside(a, start, big));
  EXPECT_EQ(a.heap_allocations(), 1u);
  static_cast<char*>(big)[127] = 1;  // usable (ASan checks the bounds)
  a.deallocate(big, 128, 8);         // freed now (the leak checker would see it otherwise)
  // The block's rest still serves small requests.
  void* small = a.allocate(40, 8);
  EXPECT_TRUE(inside(a, start, small));
  EXPECT_EQ(a.heap_allocations(), 1u);
}

TEST(ArenaResource, OverAlignedAndEmptyArenasUseTheHeap) {
  ArenaResource none(0);
  void* p = none.allocate(32, 8);
  EXPECT_EQ(none.heap_allocations(), 1u);
  none.deallocate(p, 32, 8);
  ArenaResource a(4096);
  void* wide = a.allocate(64, 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(wide) % 64, 0u);
  a.deallocate(wide, 64, 64);
}

TEST(ArenaResource, ServesPmrContainersThatGrowPastIt) {
  ArenaResource a(256);
  std::pmr::vector<uint64_t> v(&a);
  for (uint64_t i = 0; i < 1000; ++i) v.push_back(i);  // outgrows the block, moves to the heap
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i);
  EXPECT_GE(a.heap_allocations(), 1u);
  // A copy does not share the arena: it may outlive it.
  std::pmr::vector<uint64_t> copy(v);
  EXPECT_NE(copy.get_allocator().resource(), &a);
}

TEST(ArenaResource, TheNextArenaOfTheThreadReusesTheBlock) {
  void* first = nullptr;
  {
    ArenaResource a(1 << 20);  // larger than any earlier test's: kept when it ends
    first = a.allocate(8, 8);
  }
  {
    ArenaResource small(1024);  // a quarter or less of the kept block: not handed over
    EXPECT_EQ(small.block_bytes(), 1024u);
  }
  ArenaResource b(1 << 19);
  EXPECT_EQ(b.block_bytes(), size_t{1} << 20);
  EXPECT_EQ(b.allocate(8, 8), first);
  ArenaResource c(1 << 19);  // the block is b's now: c has its own
  EXPECT_EQ(c.block_bytes(), size_t{1} << 19);
}

}  // namespace
}  // namespace dst::checker
