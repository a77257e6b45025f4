#include "scenarios/swarm_salts.h"

#include <gtest/gtest.h>

namespace dst::scenarios {
namespace {

TEST(SwarmSalts, ParseFormatAndStreams) {
  Result<SwarmSalts> s = parse_swarm_salts("workload=3,timing=7");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  EXPECT_EQ(format_swarm_salts(*s), "timing=7,workload=3");
  EXPECT_EQ(parse_swarm_salts(format_swarm_salts(*s)).value(), *s);
  EXPECT_EQ(swarm_stream(*s, 2), "swarm/timing/7");
  EXPECT_EQ(swarm_stream(*s, 0), "swarm/faults");
  EXPECT_TRUE(SwarmSalts{}.empty());
  EXPECT_FALSE(s->empty());
}

TEST(SwarmSalts, RefusesWhatIsNotASaltList) {
  auto error = [](std::string_view spec) { return parse_swarm_salts(spec).status().message(); };
  EXPECT_NE(error("").find("empty"), std::string::npos);
  EXPECT_NE(error("timing").find("'timing': no '='"), std::string::npos);
  EXPECT_NE(error("clock=1").find("'clock=1': unknown part"), std::string::npos);
  EXPECT_NE(error("timing=1,timing=2").find("named twice"), std::string::npos);
  EXPECT_NE(error("timing=0").find("1..2^63"), std::string::npos);
  EXPECT_NE(error("timing=x").find("1..2^63"), std::string::npos);
  EXPECT_NE(error("timing=1,").find("no '='"), std::string::npos);
  EXPECT_NE(error("faults=1,nodes=1,timing=1,workload=1,kube=1,faults=2").find("more entries than parts"), std::string::npos);
}

}  // namespace
}  // namespace dst::scenarios
