// Tests of the move-only callable (sim/unique_function.h): small (inline) and large (heap)
// captures, move-only captures, move construction and assignment, that every capture is destroyed
// exactly once in both storage cases, reset(), and that calling an empty one is an assertion.
#include "sim/unique_function.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dst::sim {
namespace {

// Counts live copies of itself, so tests can check a capture is destroyed exactly once.
struct Tracked {
  int* live;
  int* destroyed;
  explicit Tracked(int* live_count, int* destroyed_count)
      : live(live_count), destroyed(destroyed_count) {
    ++*live;
  }
  Tracked(const Tracked& other) : live(other.live), destroyed(other.destroyed) { ++*live; }
  Tracked(Tracked&& other) noexcept : live(other.live), destroyed(other.destroyed) { ++*live; }
  Tracked& operator=(const Tracked&) = delete;
  ~Tracked() {
    --*live;
    ++*destroyed;
  }
};

// A callable whose size decides where it is stored; calls bump a counter.
template <size_t kPadBytes>
struct Sized {
  Tracked tracked;
  int* calls;
  std::array<unsigned char, kPadBytes> pad{};
  void operator()() { ++*calls; }
};
using Small = Sized<8>;    // fits the 48-byte inline buffer
using Large = Sized<256>;  // goes to the heap
static_assert(sizeof(Small) <= 48);
static_assert(sizeof(Large) > 48);

// Fits by size but may throw on move, so it must go to the heap (moves are noexcept).
struct ThrowingMove {
  int* calls;
  ThrowingMove(int* c) : calls(c) {}  // NOLINT
  ThrowingMove(const ThrowingMove&) = default;
  ThrowingMove(ThrowingMove&& other) noexcept(false) : calls(other.calls) {}
  void operator()() { ++*calls; }
};

// Over-aligned beyond max_align_t: must also go to the heap.
struct alignas(64) OverAligned {
  int* calls;
  void operator()() { ++*calls; }
};

TEST(UniqueFunction, DefaultIsEmpty) {
  UniqueFunction f;
  EXPECT_FALSE(f);
}

TEST(UniqueFunction, SmallCaptureIsCalled) {
  int calls = 0;
  UniqueFunction f = [&calls] { ++calls; };
  ASSERT_TRUE(f);
  f();
  f();
  EXPECT_EQ(calls, 2);
}

TEST(UniqueFunction, LargeCaptureIsCalled) {
  std::array<int64_t, 32> big{};
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<int64_t>(i);
  int64_t sum = 0;
  UniqueFunction f = [big, &sum] {
    for (int64_t v : big) sum += v;
  };
  ASSERT_TRUE(f);
  f();
  EXPECT_EQ(sum, 31 * 32 / 2);
}

TEST(UniqueFunction, CaptureOfExactlyInlineSizeIsCalled) {
  int calls = 0;
  std::array<unsigned char, 40> pad{};
  pad[39] = 5;
  UniqueFunction f = [&calls, pad] { calls += pad[39]; };  // 8 + 40 bytes
  f();
  EXPECT_EQ(calls, 5);
}

TEST(UniqueFunction, MutableStateIsKeptBetweenCalls) {
  std::vector<int> seen;
  UniqueFunction f = [n = 0, &seen]() mutable { seen.push_back(++n); };
  f();
  f();
  f();
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
}

TEST(UniqueFunction, NonVoidResultIsDiscarded) {
  int calls = 0;
  UniqueFunction f = [&calls] { return ++calls; };
  f();
  EXPECT_EQ(calls, 1);
}

void free_function_target(int* out) { ++*out; }
int g_free_calls = 0;
void free_function() { ++g_free_calls; }

TEST(UniqueFunction, HoldsAFunctionPointer) {
  g_free_calls = 0;
  UniqueFunction f = &free_function;
  f();
  EXPECT_EQ(g_free_calls, 1);
  int n = 0;
  UniqueFunction g = [&n] { free_function_target(&n); };
  g();
  EXPECT_EQ(n, 1);
}

TEST(UniqueFunction, MoveOnlyCaptureWorks) {
  auto p = std::make_unique<int>(41);
  int seen = 0;
  UniqueFunction f = [p = std::move(p), &seen] { seen = ++*p; };
  f();
  EXPECT_EQ(seen, 42);
  UniqueFunction g = std::move(f);
  g();
  EXPECT_EQ(seen, 43);
}

TEST(UniqueFunction, LargeMoveOnlyCaptureWorks) {
  auto p = std::make_unique<std::string>("x");
  std::array<char, 100> pad{};
  std::string seen;
  UniqueFunction f = [p = std::move(p), pad, &seen] { seen = *p + std::to_string(pad.size()); };
  UniqueFunction g = std::move(f);
  g();
  EXPECT_EQ(seen, "x100");
}

TEST(UniqueFunction, MoveConstructionTransfersAndEmptiesTheSource) {
  int calls = 0;
  UniqueFunction a = [&calls] { ++calls; };
  UniqueFunction b(std::move(a));
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  ASSERT_TRUE(b);
  b();
  EXPECT_EQ(calls, 1);
}

TEST(UniqueFunction, MoveConstructionOfHeapCaptureTransfersAndEmptiesTheSource) {
  int calls = 0, live = 0, destroyed = 0;
  {
    UniqueFunction a = Large{Tracked(&live, &destroyed), &calls};
    const int live_before = live;
    UniqueFunction b(std::move(a));
    EXPECT_FALSE(a);               // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(live, live_before);  // the heap object moved by pointer: no copy, no destruction
    b();
    EXPECT_EQ(calls, 1);
  }
  EXPECT_EQ(live, 0);
}

TEST(UniqueFunction, MoveOfEmptyIsEmpty) {
  UniqueFunction a;
  UniqueFunction b(std::move(a));
  EXPECT_FALSE(b);
  UniqueFunction c = [] {};
  c = std::move(b);
  EXPECT_FALSE(c);
}

TEST(UniqueFunction, MoveAssignmentTransfersAndEmptiesTheSource) {
  int first = 0, second = 0;
  UniqueFunction a = [&first] { ++first; };
  UniqueFunction b = [&second] { ++second; };
  b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move)
  ASSERT_TRUE(b);
  b();
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 0);
}

TEST(UniqueFunction, MoveAssignmentDestroysThePreviousTarget) {
  int live_old = 0, destroyed_old = 0, live_new = 0, destroyed_new = 0, calls = 0;
  UniqueFunction target = Small{Tracked(&live_old, &destroyed_old), &calls};
  UniqueFunction source = Large{Tracked(&live_new, &destroyed_new), &calls};
  ASSERT_EQ(live_old, 1);
  target = std::move(source);
  EXPECT_EQ(live_old, 0);  // the old inline capture is gone
  EXPECT_EQ(live_new, 1);
  target();
  EXPECT_EQ(calls, 1);
  target.reset();
  EXPECT_EQ(live_new, 0);
}

TEST(UniqueFunction, SelfMoveAssignmentKeepsTheTarget) {
  int calls = 0;
  UniqueFunction f = [&calls] { ++calls; };
  UniqueFunction& alias = f;
  f = std::move(alias);
  ASSERT_TRUE(f);
  f();
  EXPECT_EQ(calls, 1);
}

TEST(UniqueFunction, InlineCaptureDestroyedExactlyOnce) {
  int live = 0, destroyed = 0, calls = 0;
  {
    UniqueFunction f = Small{Tracked(&live, &destroyed), &calls};
    EXPECT_EQ(live, 1);  // the temporary is gone, one copy inside
    f();
    EXPECT_EQ(live, 1);
    const int destroyed_before = destroyed;
    // Moving an inline target moves the object and destroys the source copy: still one alive.
    UniqueFunction g = std::move(f);
    EXPECT_EQ(live, 1);
    EXPECT_EQ(destroyed, destroyed_before + 1);
    UniqueFunction h;
    h = std::move(g);
    EXPECT_EQ(live, 1);
    h();
  }
  EXPECT_EQ(live, 0);
  EXPECT_EQ(calls, 2);
}

TEST(UniqueFunction, HeapCaptureDestroyedExactlyOnce) {
  int live = 0, destroyed = 0, calls = 0;
  {
    UniqueFunction f = Large{Tracked(&live, &destroyed), &calls};
    EXPECT_EQ(live, 1);
    const int destroyed_before = destroyed;
    UniqueFunction g = std::move(f);
    UniqueFunction h;
    h = std::move(g);
    EXPECT_EQ(live, 1);
    EXPECT_EQ(destroyed, destroyed_before);  // the heap object itself never moved
    h();
    f = UniqueFunction();  // moved-from objects are reusable and destroy nothing
    EXPECT_EQ(destroyed, destroyed_before);
  }
  EXPECT_EQ(live, 0);
  EXPECT_EQ(calls, 1);
}

TEST(UniqueFunction, ThrowingMoveAndOverAlignedTargetsStillWork) {
  int calls = 0;
  UniqueFunction a = ThrowingMove(&calls);
  UniqueFunction b = std::move(a);
  b();
  UniqueFunction c = OverAligned{&calls};
  UniqueFunction d = std::move(c);
  d();
  EXPECT_EQ(calls, 2);
}

TEST(UniqueFunction, DestroysEveryCaptureInAVector) {
  // The way the event queue holds them: many functions, moved around as the vector grows.
  int live = 0, destroyed = 0, calls = 0;
  {
    std::vector<UniqueFunction> fns;
    for (int i = 0; i < 100; ++i) {
      if (i % 2 == 0) {
        fns.emplace_back(Small{Tracked(&live, &destroyed), &calls});
      } else {
        fns.emplace_back(Large{Tracked(&live, &destroyed), &calls});
      }
    }
    EXPECT_EQ(live, 100);
    for (UniqueFunction& f : fns) f();
    EXPECT_EQ(calls, 100);
  }
  EXPECT_EQ(live, 0);
}

TEST(UniqueFunction, ResetDestroysAndEmpties) {
  int live = 0, destroyed = 0, calls = 0;
  UniqueFunction small = Small{Tracked(&live, &destroyed), &calls};
  UniqueFunction large = Large{Tracked(&live, &destroyed), &calls};
  EXPECT_EQ(live, 2);
  small.reset();
  EXPECT_FALSE(small);
  EXPECT_EQ(live, 1);
  large.reset();
  EXPECT_FALSE(large);
  EXPECT_EQ(live, 0);
  // A second reset, and the destructor after it, destroy nothing more.
  const int destroyed_after = destroyed;
  small.reset();
  large.reset();
  EXPECT_EQ(destroyed, destroyed_after);
}

TEST(UniqueFunction, ReusableAfterReset) {
  int calls = 0;
  UniqueFunction f = [&calls] { ++calls; };
  f.reset();
  f = [&calls] { calls += 10; };
  f();
  EXPECT_EQ(calls, 10);
}

TEST(UniqueFunctionDeathTest, CallingEmptyDies) {
  UniqueFunction f;
  EXPECT_DEATH(f(), "calling an empty UniqueFunction");
}

TEST(UniqueFunctionDeathTest, CallingMovedFromDies) {
  UniqueFunction f = [] {};
  UniqueFunction g = std::move(f);
  EXPECT_DEATH(f(), "calling an empty UniqueFunction");  // NOLINT(bugprone-use-after-move)
}

TEST(UniqueFunctionDeathTest, CallingResetDies) {
  UniqueFunction f = [] {};
  f.reset();
  EXPECT_DEATH(f(), "calling an empty UniqueFunction");
}

}  // namespace
}  // namespace dst::sim
