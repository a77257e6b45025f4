// The probe registry: unique names that find their probe again, a meaning for every probe, counts
// that go to the run in progress only, and scopes that nest.
#include "base/probes.h"

#include <gtest/gtest.h>

#include <set>

namespace dst {
namespace {

TEST(Probes, EveryProbeHasAUniqueWellFormedNameAndAMeaning) {
  std::set<std::string_view> names;
  for (Probe p : all_probes()) {
    const ProbeInfo& info = probe_info(p);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(find_probe(info.name), p) << info.name;
    // "area.what-happened": lower case, one dot, no blanks (it is a key in files and tables).
    EXPECT_NE(info.name.find('.'), std::string_view::npos) << info.name;
    for (char c : info.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-') << info.name;
    EXPECT_GE(info.meaning.size(), 20u) << info.name;
    EXPECT_EQ(info.meaning.find('\n'), std::string_view::npos) << info.name;
    EXPECT_EQ(info.meaning.find('\t'), std::string_view::npos) << info.name;
  }
  EXPECT_EQ(all_probes().size(), static_cast<size_t>(Probe::kCount));
  EXPECT_FALSE(find_probe("watch.no-such-probe").has_value());
}

TEST(Probes, PassesCountIntoTheRunInProgressOnly) {
  DST_PROBE(kWatchCaughtUp);  // no run collects: nothing to count into, nothing happens
  ProbeCounts outer;
  {
    ProbeScope run(outer);
    DST_PROBE(kWatchCaughtUp);
    DST_PROBE(kWatchCaughtUp);
    ProbeCounts inner;
    {
      ProbeScope nested(inner);
      DST_PROBE(kRaftLeaderElected);
    }
    EXPECT_EQ(inner[Probe::kRaftLeaderElected], 1u);
    DST_PROBE(kRaftLeaderElected);  // back to the outer run
  }
  DST_PROBE(kWatchCaughtUp);  // after the run: not counted
  EXPECT_EQ(outer[Probe::kWatchCaughtUp], 2u);
  EXPECT_EQ(outer[Probe::kRaftLeaderElected], 1u);
  EXPECT_EQ(outer[Probe::kSimTornWrite], 0u);
}

}  // namespace
}  // namespace dst
