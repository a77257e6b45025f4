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
#include "sim/node_test_world.h"
#include "sim/simulator.h"

namespace dst::backend::testing {

inline constexpr const char* kPath = "n1/backend.db";

// bucket -> key -> value
using Contents = std::map<std::string, std::map<std::string, std::string>>;

// One host with a node process; see sim/node_test_world.h.
using World = sim::testing::NodeWorld;

inline Result<std::unique_ptr<Backend>> try_open(World& w, BackendOptions options = {}) {
  std::optional<Result<std::unique_ptr<Backend>>> opened;
  w.run([&] { opened.emplace(Backend::open(w.env(), kPath, options)); });
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
