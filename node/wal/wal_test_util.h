// Shared fixtures for the node/wal tests: one host with one node process and its FileSystem, a
// way to run test code in a fiber of that process, crashes, and small entry builders.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "node/wal/record.h"
#include "node/wal/wal.h"
#include "sim/file_system.h"
#include "sim/node_test_world.h"
#include "sim/simulator.h"

namespace dst::wal::testing {

inline constexpr const char* kDir = "n1";

// One host with a node process; see sim/node_test_world.h.
using World = sim::testing::NodeWorld;

inline walpb::WalMetadata metadata(uint64_t node_id = 1, uint64_t cluster_id = 0xc1) {
  walpb::WalMetadata m;
  m.set_node_id(node_id);
  m.set_cluster_id(cluster_id);
  return m;
}

inline raftpb::Entry entry(uint64_t index, uint64_t term, std::string data = "") {
  raftpb::Entry e;
  e.set_index(index);
  e.set_term(term);
  e.set_data(data.empty() ? "v" + std::to_string(index) + "@" + std::to_string(term) : data);
  return e;
}

inline std::vector<raftpb::Entry> entries(uint64_t first, uint64_t last, uint64_t term) {
  std::vector<raftpb::Entry> out;
  for (uint64_t i = first; i <= last; ++i) out.push_back(entry(i, term));
  return out;
}

inline raftpb::HardState hard_state(uint64_t term, uint64_t vote, uint64_t commit) {
  raftpb::HardState hs;
  hs.set_term(term);
  hs.set_vote(vote);
  hs.set_commit(commit);
  return hs;
}

// "index@term" of each entry, for readable comparisons.
inline std::vector<std::string> describe(const std::vector<raftpb::Entry>& es) {
  std::vector<std::string> out;
  for (const raftpb::Entry& e : es) {
    out.push_back(std::to_string(e.index()) + "@" + std::to_string(e.term()));
  }
  return out;
}

inline std::vector<std::string> describe_range(uint64_t first, uint64_t last, uint64_t term) {
  return describe(entries(first, last, term));
}

// The records of a file's current content, with their offsets.
inline SegmentScan scan_file(World& w, const std::string& name) {
  Result<sim::FileId> id = w.fs.open(name, sim::OpenMode::kExisting);
  EXPECT_TRUE(id.is_ok()) << id.status().to_string();
  Result<std::string> bytes = w.disk().read(*id, 0, uint64_t{1} << 30);
  EXPECT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  return scan_records(*bytes);
}

inline bool same_hard_state(const raftpb::HardState& a, const raftpb::HardState& b) {
  return a.term() == b.term() && a.vote() == b.vote() && a.commit() == b.commit();
}

}  // namespace dst::wal::testing
