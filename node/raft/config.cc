#include "node/raft/config.h"

#include "base/limits.h"

namespace dst::raft {

Status Config::validate() const {
  auto bad = [](std::string what) { return Status(StatusCode::kInvalidArgument, std::move(what)); };
  if (id == 0) return bad("raft node id must not be 0 (0 means 'none')");
  if (heartbeat_tick <= 0) return bad("heartbeat_tick must be > 0");
  if (election_tick <= heartbeat_tick) return bad("election_tick must be greater than heartbeat_tick");
  if (max_inflight_msgs == 0 || max_inflight_msgs > limits::kRaftInflightMsgsMax)
    return bad("max_inflight_msgs must be in [1, " + std::to_string(limits::kRaftInflightMsgsMax) + "]");
  if (max_size_per_msg == 0) return bad("max_size_per_msg must be > 0");
  if (max_committed_size_per_ready == 0) return bad("max_committed_size_per_ready must be > 0");
  if (max_uncommitted_entries_size == 0) return bad("max_uncommitted_entries_size must be > 0");
  return Status::ok();
}

}  // namespace dst::raft
