#include "faults/nemesis_fork.h"

#include <gtest/gtest.h>

namespace dst::faults {
namespace {

using sim::milliseconds;
using sim::seconds;

TEST(NemesisFork, ParsesAndFormatsTheSameForks) {
  Result<std::vector<NemesisFork>> f = parse_forks("4250ms:7,5s:8:50,9.5s:0:1000", seconds(10));
  ASSERT_TRUE(f.is_ok()) << f.status().message();
  ASSERT_EQ(f->size(), 3u);
  EXPECT_EQ((*f)[0], (NemesisFork{.after = milliseconds(4250), .salt = 7, .interval_percent = 100}));
  EXPECT_EQ((*f)[1], (NemesisFork{.after = seconds(5), .salt = 8, .interval_percent = 50}));
  EXPECT_EQ(format_forks(*f), "4250ms:7,5000ms:8:50,9500ms:0:1000");
  EXPECT_EQ(parse_forks(format_forks(*f), seconds(10)).value(), *f);
  EXPECT_EQ(format_forks({NemesisFork{.after = 1'500, .salt = 2}}), "1500ns:2");
  EXPECT_EQ(fork_stream_name((*f)[0]), "raft-nemesis/fork-7");
}

TEST(NemesisFork, RefusesWhatIsNotAForkListNamingTheEntry) {
  auto error = [](std::string_view spec) { return parse_forks(spec, seconds(10)).status().message(); };
  EXPECT_EQ(error(""), "--fork: empty (expected AT:SALT[:PERCENT],...)");
  EXPECT_EQ(error("1s"), "--fork: entry 1 '1s': two or three fields separated by ':' (expected AT:SALT[:PERCENT], e.g. 4250ms:7:50)");
  EXPECT_NE(error("1s:2,x:3").find("entry 2 'x:3': AT is not a duration"), std::string::npos);
  EXPECT_NE(error("10s:1").find("AT is not inside the fault phase of "), std::string::npos);
  EXPECT_NE(error("1s:-1").find("SALT is not a whole number"), std::string::npos);
  EXPECT_NE(error("1s:1:5").find("PERCENT is not a whole number in 10..1000"), std::string::npos);
  EXPECT_NE(error("1s:1::").find("two or three fields"), std::string::npos);
  EXPECT_NE(error("2s:1,2s:2").find("entry 2 '2s:2': AT must be later"), std::string::npos);
  std::string many;
  for (int i = 0; i < 17; ++i) many += (i ? "," : "") + std::to_string(i + 1) + "ms:1";
  EXPECT_EQ(error(many), "--fork: 17 forks; at most 16");
}

}  // namespace
}  // namespace dst::faults
