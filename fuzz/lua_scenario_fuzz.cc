// Fuzz target: a Lua scenario. The script is loaded as dst run loads one (the top level runs, with
// smaller limits so an input is quick), then every function it scheduled runs once without a
// world, so the sandbox's library and the API's checks see hostile code in callbacks too.
// Promises: no crash or hang; an error names the file; the limits hold.
#include <string>

#include "fuzz/fuzz_target.h"
#include "scenarios/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dst;
  if (size > 64 * 1024) return 0;  // scenarios are a few KiB; larger inputs only slow the search
  const std::string code(reinterpret_cast<const char*>(data), size);
  // Small limits: an input that loops or fills memory reaches them quickly (each is then a
  // millisecond, not a second), and running them out is itself a path worth exploring.
  const scenarios::LuaLimits limits{.memory_bytes = 4u << 20, .instructions = 200'000, .print_bytes = 4096};
  Result<std::unique_ptr<scenarios::Scenario>> s =
      scenarios::Scenario::load_source("fuzz.lua", code, 1, limits, [](std::string_view) {});
  if (!s.is_ok()) {
    fuzz::require(fuzz::starts_with(s.status().message(), "fuzz.lua"), "a load error names the file",
                  s.status().message());
    return 0;
  }
  scenarios::Scenario& scenario = **s;
  const dst::scenarios::ScenarioConfig& c = scenario.config();
  fuzz::require(c.run.duration >= limits::kScenarioRunForNsMin && c.run.duration <= limits::kScenarioRunForNsMax,
                "run_for within its bounds");
  fuzz::require(c.timed.size() <= limits::kScenarioTimersAtLoadMax, "scheduled functions bounded");
  for (size_t i = 0; i < c.timed.size() && i < 16; ++i) {
    Status st = scenario.call_scheduled_without_world(i);
    fuzz::require(st.is_ok() || fuzz::starts_with(st.message(), "fuzz.lua"), "a callback error names the file",
                  st.message());
  }
  return 0;
}
