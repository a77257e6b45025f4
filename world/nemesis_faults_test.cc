#include "world/nemesis_faults.h"

#include <gtest/gtest.h>

namespace dst::world {
namespace {

constexpr int64_t kS = 1'000'000'000;

TEST(NemesisFaults, EachActionPairsWithWhatUndoesIt) {
  const std::vector<std::string> log = {
      "t=1.000s partition {n1,n3} | {n2}", "t=1.500s cut n1->n2",       "t=2.000s heal network",
      "t=2.500s crash leader n2 power-loss", "t=3.000s pause n1",        "t=3.250s fail next fsync n3",
      "t=4.000s restart n2",                "t=4.500s link loss 12%",   "t=5.000s isolate leader n3",
      "t=5.500s link loss 0%",              "t=6.000s slow fsync n1",   "t=7.000s arm n2 before-apply crash after 3 passes",
      "t=8.000s heal all",                  "t=9.000s crash n1 power-loss torn",
  };
  std::vector<history::Fault> f = pair_nemesis_log(log, 10 * kS);
  ASSERT_EQ(f.size(), 10u);
  auto is = [&](size_t i, const char* kind, const char* target, double start, double end) {
    EXPECT_EQ(f[i].kind, kind) << i;
    EXPECT_EQ(f[i].target, target) << i;
    EXPECT_EQ(f[i].start_ns, static_cast<int64_t>(start * kS)) << i;
    EXPECT_EQ(f[i].end_ns, static_cast<int64_t>(end * kS)) << i;
  };
  is(0, "partition", "{n1,n3} | {n2}", 1, 2);
  is(1, "cut", "n1->n2", 1.5, 2);
  is(2, "power-loss", "n2 (leader)", 2.5, 4);
  is(3, "pause", "n1", 3, 8);
  is(4, "fsync-error", "n3", 3.25, 3.25);
  is(5, "drop", "12%", 4.5, 5.5);
  is(6, "partition isolate", "n3", 5, 8);
  is(7, "slow-fsync", "n1", 6, 8);
  is(8, "failpoint", "n2 before-apply crash after 3 passes", 7, 7);
  is(9, "power-loss-torn", "n1", 9, 10);  // still down at the final heal
}

}  // namespace
}  // namespace dst::world
