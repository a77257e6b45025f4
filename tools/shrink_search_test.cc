#include "tools/shrink_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dst::shrink {
namespace {

bool has(const std::vector<size_t>& c, size_t e) { return std::binary_search(c.begin(), c.end(), e); }

// An oracle from a rule on one candidate; counts what it was asked.
struct Oracle {
  std::function<Outcome(const std::vector<size_t>&)> rule;
  std::vector<std::vector<size_t>> asked;
  BatchOracle batch() {
    return [this](const std::vector<std::vector<size_t>>& cs) {
      std::vector<Outcome> out;
      for (const auto& c : cs) {
        EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
        asked.push_back(c);
        out.push_back(rule(c));
      }
      return out;
    };
  }
};

Outcome needs_all_of(const std::vector<size_t>& c, std::initializer_list<size_t> cause) {
  for (size_t e : cause)
    if (!has(c, e)) return Outcome::kPasses;
  return Outcome::kFails;
}

TEST(ShrinkSearch, FindsExactlyAPlantedPairAmongFortyOne) {
  Oracle o{[](const std::vector<size_t>& c) { return needs_all_of(c, {3, 17}); }, {}};
  SearchResult r = ddmin(41, o.batch());
  EXPECT_EQ(r.kept, (std::vector<size_t>{3, 17}));
  EXPECT_FALSE(r.budget_spent);
  EXPECT_EQ(r.runs, o.asked.size());  // one at a time: every run counted, none repeated
  EXPECT_EQ(std::set<std::vector<size_t>>(o.asked.begin(), o.asked.end()).size(), o.asked.size());
  EXPECT_LT(r.runs, 60u);
}

TEST(ShrinkSearch, AFailureThatNeedsNothingShrinksToNothingInOneRun) {
  Oracle o{[](const std::vector<size_t>&) { return Outcome::kFails; }, {}};
  SearchResult r = ddmin(20, o.batch());
  EXPECT_TRUE(r.kept.empty());
  EXPECT_EQ(r.runs, 1u);
}

TEST(ShrinkSearch, KeepsEverythingWhenEveryElementIsNeeded) {
  Oracle o{[](const std::vector<size_t>& c) { return c.size() == 5 ? Outcome::kFails : Outcome::kPasses; }, {}};
  SearchResult r = ddmin(5, o.batch());
  EXPECT_EQ(r.kept, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(r.budget_spent);
}

TEST(ShrinkSearch, AnotherFailureIsNeverKept) {
  // Dropping element 3 makes a different check fail; that smaller candidate must not be taken.
  Oracle o{[](const std::vector<size_t>& c) {
             if (has(c, 17) && !has(c, 3)) return Outcome::kOther;
             return needs_all_of(c, {3, 17});
           },
           {}};
  SearchResult r = ddmin(30, o.batch());
  EXPECT_EQ(r.kept, (std::vector<size_t>{3, 17}));
}

TEST(ShrinkSearch, TheResultAndTheRunsCountedDoNotDependOnTheBatch) {
  auto rule = [](const std::vector<size_t>& c) {
    return (has(c, 7) && has(c, 40)) || (has(c, 12) && has(c, 13) && has(c, 55)) ? Outcome::kFails : Outcome::kPasses;
  };
  Oracle one{rule, {}};
  const SearchResult base = ddmin(64, one.batch());
  for (size_t batch : {2u, 3u, 8u, 64u}) {
    Oracle o{rule, {}};
    SearchResult r = ddmin(64, o.batch(), SearchOptions{batch, 1000});
    EXPECT_EQ(r.kept, base.kept) << "batch " << batch;
    EXPECT_EQ(r.runs, base.runs) << "batch " << batch;
    EXPECT_GE(r.runs_made, r.runs) << "batch " << batch;
  }
}

TEST(ShrinkSearch, ABudgetStopsWithAFailingListWhateverTheBatch) {
  auto rule = [](const std::vector<size_t>& c) { return needs_all_of(c, {5, 50, 95}); };
  Oracle one{rule, {}};
  const SearchResult base = ddmin(100, one.batch(), SearchOptions{1, 9});
  EXPECT_TRUE(base.budget_spent);
  EXPECT_EQ(base.runs, 9u);
  EXPECT_EQ(one.asked.size(), 9u);
  EXPECT_EQ(rule(base.kept), Outcome::kFails);
  EXPECT_LT(base.kept.size(), 100u);
  Oracle four{rule, {}};
  const SearchResult r = ddmin(100, four.batch(), SearchOptions{4, 9});
  EXPECT_EQ(r.kept, base.kept);
  EXPECT_EQ(r.runs, 9u);
}

TEST(ShrinkSearch, AStopEndsTheSearchWithAFailingListAndForgetsTheInterruptedBatch) {
  auto rule = [](const std::vector<size_t>& c) { return needs_all_of(c, {2, 30}); };
  Oracle o{rule, {}};
  size_t asked_at_stop = 0;
  SearchOptions options{2, 1000, {}};
  options.stop = [&] {
    if (o.asked.size() < 6) return false;
    if (asked_at_stop == 0) asked_at_stop = o.asked.size();
    return true;
  };
  const SearchResult r = ddmin(40, o.batch(), options);
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.budget_spent);
  EXPECT_EQ(rule(r.kept), Outcome::kFails);
  EXPECT_EQ(o.asked.size(), asked_at_stop) << "no batch ran after the stop";
  // The interrupted batch's outcomes were not used: what was kept was shown to fail before it.
  EXPECT_LE(r.runs, asked_at_stop);
}

// Monotone failures with a few random causes: the result fails, and dropping any one of its
// elements makes it pass (1-minimal).
TEST(ShrinkSearch, RandomCausesGiveOneMinimalFailingLists) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state](uint64_t bound) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state % bound;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + next(80);
    std::vector<std::vector<size_t>> causes(1 + next(3));
    for (auto& cause : causes) {
      for (size_t k = 1 + next(4); k > 0; --k) cause.push_back(next(n));
      std::sort(cause.begin(), cause.end());
    }
    auto rule = [&causes](const std::vector<size_t>& c) {
      for (const auto& cause : causes)
        if (std::all_of(cause.begin(), cause.end(), [&](size_t e) { return has(c, e); })) return Outcome::kFails;
      return Outcome::kPasses;
    };
    Oracle o{rule, {}};
    SearchResult r = ddmin(n, o.batch(), SearchOptions{1 + next(4), 100'000});
    ASSERT_EQ(rule(r.kept), Outcome::kFails) << "trial " << trial;
    for (size_t i = 0; i < r.kept.size(); ++i) {
      std::vector<size_t> less = r.kept;
      less.erase(less.begin() + static_cast<std::ptrdiff_t>(i));
      EXPECT_EQ(rule(less), Outcome::kPasses) << "trial " << trial << ": element " << r.kept[i] << " is not needed";
    }
  }
}

TEST(ShrinkSearch, FirstOfTakesTheFirstFailingAlternativeWhateverTheBatch) {
  for (size_t batch : {1, 2, 3, 8}) {
    Oracle o{[](const std::vector<size_t>& c) { return c[0] == 4 || c[0] == 6 ? Outcome::kFails : Outcome::kOther; }, {}};
    SearchResult r = first_of(8, o.batch(), SearchOptions{batch, 1000, {}});
    EXPECT_EQ(r.kept, (std::vector<size_t>{4})) << "batch " << batch;
    EXPECT_EQ(r.runs, 5u) << "a one-at-a-time scan runs alternatives 0..4";
    EXPECT_GE(r.runs_made, 5u);
  }
}

TEST(ShrinkSearch, FirstOfFindsNoneOrStopsAtTheBudget) {
  Oracle none{[](const std::vector<size_t>&) { return Outcome::kPasses; }, {}};
  SearchResult r = first_of(5, none.batch(), SearchOptions{2, 1000, {}});
  EXPECT_TRUE(r.kept.empty());
  EXPECT_EQ(r.runs, 5u);
  EXPECT_FALSE(r.budget_spent);
  Oracle late{[](const std::vector<size_t>& c) { return c[0] == 4 ? Outcome::kFails : Outcome::kPasses; }, {}};
  r = first_of(5, late.batch(), SearchOptions{2, 3, {}});
  EXPECT_TRUE(r.kept.empty());
  EXPECT_EQ(r.runs, 3u);
  EXPECT_TRUE(r.budget_spent);
  EXPECT_LE(late.asked.size(), 3u) << "never more runs than the budget";
}

}  // namespace
}  // namespace dst::shrink
