#include "bench/bench_json.h"

#include <gtest/gtest.h>

#include <limits>

namespace dst::bench {
namespace {

TEST(BenchJson, EveryRunWithItsCountersAndTheOkFlag) {
  BenchRecord run;
  run.name = "cluster/1000qps/memory";
  run.run_type = "iteration";
  run.iterations = 2;
  run.real_time_ns = 1.5e9;
  run.cpu_time_ns = 1.25e9;
  run.counters["x_realtime"] = 42.5;
  const std::string json = bench_json("cluster", {run});
  EXPECT_NE(json.find("\"suite\": \"cluster\", \"ok\": true, \"failed\": []"), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\": \"cluster/1000qps/memory\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"iterations\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"real_time_ns\": 1500000000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"counters\": {\"x_realtime\": 42.5}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"error\": null"), std::string::npos) << json;
  EXPECT_EQ(json.find("aggregate\":"), std::string::npos) << "an iteration run has no aggregate name";
}

TEST(BenchJson, AFailedRunIsNamedAndItsErrorEscaped) {
  BenchRecord good;
  good.name = "a";
  good.run_type = "iteration";
  BenchRecord broken;
  broken.name = "b\"quoted\"";
  broken.run_type = "aggregate";
  broken.aggregate = "median";
  broken.error = "checks failed:\n\tline\\2";
  broken.counters["nan"] = std::numeric_limits<double>::quiet_NaN();
  broken.counters["inf"] = std::numeric_limits<double>::infinity();
  const std::string json = bench_json("x", {good, broken});
  EXPECT_NE(json.find("\"ok\": false, \"failed\": [\"b\\\"quoted\\\"\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"error\": \"checks failed:\\u000a\\u0009line\\\\2\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"aggregate\": \"median\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"inf\": null, \"nan\": null"), std::string::npos) << json;
}

}  // namespace
}  // namespace dst::bench
