// A step's Lua text: only the fields its kind uses, numbers exact, strings escaped so that no
// byte can end the string or the line.
#include "faults/schedule_text.h"

#include <gtest/gtest.h>

namespace dst::faults {
namespace {

TEST(ScheduleText, AStepWritesTheFieldsOfItsKind) {
  FaultStep kill{.at = 1'234'567'891, .kind = FaultKind::kKill, .origin = Origin::kScript, .call = 4, .node = 2};
  kill.lose_unsynced = true;
  EXPECT_EQ(step_to_lua(kill), "{at=1234567891, kind=\"kill\", origin=\"script\", call=4, node=2, lose_unsynced=true, torn=false}");
  FaultStep part{.at = 5, .kind = FaultKind::kPartition, .origin = Origin::kRandom};
  part.groups = {{1, 3}, {2}};
  EXPECT_EQ(step_to_lua(part), "{at=5, kind=\"partition\", origin=\"random\", groups={{1, 3}, {2}}}");
  FaultStep heal{.at = 7, .kind = FaultKind::kHeal, .origin = Origin::kTimed};
  EXPECT_EQ(step_to_lua(heal), "{at=7, kind=\"heal\"}");
  FaultStep drop{.kind = FaultKind::kDrop, .origin = Origin::kRandom};
  drop.loss = 0.1;
  EXPECT_EQ(step_to_lua(drop), "{at=0, kind=\"drop\", origin=\"random\", loss=0.10000000000000001, duplicate=0, reorder=0}");
  FaultStep slow{.kind = FaultKind::kSlowFsync, .origin = Origin::kTimed, .node = 1};
  slow.dist = sim::DurationDist::constant(sim::milliseconds(200));
  EXPECT_EQ(step_to_lua(slow), "{at=0, kind=\"slow_fsync\", node=1, latency=200000000}");
  FaultStep stall{.kind = FaultKind::kWatchStall, .origin = Origin::kRandom, .node = 2, .ns = sim::milliseconds(1500)};
  EXPECT_EQ(step_to_lua(stall), "{at=0, kind=\"watch_stall\", origin=\"random\", node=2, ns=1500000000}");
  EXPECT_EQ(describe(stall), "watch_stall watcher2 1.5s");
  FaultStep rewind{.kind = FaultKind::kWatchRewind, .origin = Origin::kTimed, .node = 3, .count = 40};
  EXPECT_EQ(step_to_lua(rewind), "{at=0, kind=\"watch_rewind\", node=3, count=40}");
  EXPECT_EQ(describe(rewind), "watch_rewind watcher3 by 40 revisions");
  EXPECT_EQ(describe(kill), "kill n2 lose_unsynced");
  EXPECT_EQ(describe(part), "partition n1,n3|n2");
}

TEST(ScheduleText, StringsAndCommentsCannotBreakOut) {
  EXPECT_EQ(lua_quote("a\"b\\c\nd\x01\xff"), "\"a\\\"b\\\\c\\010d\\001\\255\"");
  const std::string line = schedule_line("{at=1, kind=\"heal\"}", 1, "evil\nstep{at=2, kind=\"crash\", node=1}");
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;  // one line: the note stays inside the comment
  const std::string header = schedule_header(Schedule{.scenario = "x\ny.lua", .seed = 3}, "run\n.db", 0);
  EXPECT_NE(header.find("replay{scenario=\"x\\010y.lua\", seed=\"3\"}"), std::string::npos) << header;
  EXPECT_EQ(header.find("run\n.db"), std::string::npos);
}

TEST(ScheduleText, KindNamesRoundTrip) {
  for (size_t k = 0; k < static_cast<size_t>(FaultKind::kCount); ++k) {
    const auto kind = static_cast<FaultKind>(k);
    EXPECT_EQ(parse_fault_kind(fault_kind_name(kind)), kind);
  }
  EXPECT_FALSE(parse_fault_kind("explode"));
  EXPECT_EQ(parse_origin("config"), Origin::kConfig);
  EXPECT_FALSE(parse_origin("elsewhere"));
}

}  // namespace
}  // namespace dst::faults
