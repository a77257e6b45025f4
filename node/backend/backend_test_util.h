// Shared fixtures for the node/backend tests: one host with a node process and its FileSystem,
// running test code in a fiber of that process, crashes, and whole-store dumps to compare with a
// model.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "node/backend/backend.h"
#include "sim/file_system.h"
#include "sim/simulator.h"

namespace dst::backend::testing {

inline constexpr const char* kPath = "n1/backend.db";

// bucket -> key -> value
using Contents = std::map<std::string, std::map<std::string, std::string>>;

struct World {
  explicit World(uint64_t seed = 7) : sim(seed) {
    fs.disk().set_fsync_latency(sim::DurationDist::constant(sim::milliseconds(2)));
  }

  // Runs `body` in a fiber of the node process until the world is idle; true if it finished.
  template <typename F>
  bool run(F body) {
    bool finished = false;
    sim.spawn(p, "test", [&finished, body = std::move(body)]() mutable {
      body();
      finished = true;
    });
    sim.run_until_idle();
    return finished;
  }

  // Power loss: only synced data survives (with `torn`, plus a torn prefix of the rest).
  void power_loss(bool torn = false) {
    sim.kill(p, sim::KillOptions{.lose_unsynced = true, .torn = torn});
    p = sim.start_process(h, "node");
  }
  // Process crash: the page cache survives.
  void process_crash() {
    sim.kill(p);
    p = sim.start_process(h, "node");
  }

  sim::Simulator sim;
  sim::HostId h = sim.add_host("h1");
  sim::ProcessId p = sim.start_process(h, "node");
  sim::FileSystem fs{sim, h};
};

inline Result<std::unique_ptr<Backend>> try_open(World& w, BackendOptions options = {}) {
  std::optional<Result<std::unique_ptr<Backend>>> opened;
  w.run([&] { opened.emplace(Backend::open(w.sim, w.fs, kPath, options)); });
  EXPECT_TRUE(opened.has_value());
  return std::move(*opened);
}

// Opens (in a fiber); fails the test if that fails.
inline std::unique_ptr<Backend> open_backend(World& w, BackendOptions options = {}) {
  Result<std::unique_ptr<Backend>> opened = try_open(w, std::move(options));
  EXPECT_TRUE(opened.is_ok()) << opened.status().to_string();
  return opened.is_ok() ? std::move(*opened) : nullptr;
}

// Runs one Status-returning call in a fiber.
template <typename F>
Status in_fiber(World& w, F call) {
  Status st(StatusCode::kUnavailable, "did not run");
  w.run([&] { st = call(); });
  return st;
}

// Every bucket's contents, read through the Backend (inside a fiber).
inline Result<Contents> dump_in_fiber(Backend& b, const std::vector<std::string>& buckets) {
  Contents out;
  for (const std::string& name : buckets) {
    auto& rows = out[name];
    Status st = b.range(name, "", "", 0, [&rows](std::string_view k, std::string_view v) {
      rows.emplace(std::string(k), std::string(v));
      return true;
    });
    if (!st.is_ok()) return st;
  }
  return out;
}

inline Contents dump(World& w, Backend& b, const std::vector<std::string>& buckets = {"key"}) {
  Contents out;
  w.run([&] {
    Result<Contents> got = dump_in_fiber(b, buckets);
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    out = std::move(*got);
  });
  return out;
}

}  // namespace dst::backend::testing
