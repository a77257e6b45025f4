// One-line, human-readable renderings of Raft types, used in the golden interaction tests, the
// node's log and violation reports. The format is part of the golden files: change it only with
// the rewrite flag and a look at every diff.
#pragma once

#include <string>

#include "node/raft/ready.h"
#include "proto/raft.pb.h"

namespace dst::raft {

std::string describe_entry(const raftpb::Entry& e);            // 2/11 EntryNormal "x"
std::string describe_message(const raftpb::Message& m);        // 1->2 MsgApp Term:2 Log:1/10 ...
std::string describe_hard_state(const raftpb::HardState& hs);  // Term:2 Vote:1 Commit:10
std::string describe_conf_state(const raftpb::ConfState& cs);  // Voters:[1 2 3] Learners:[4]
std::string describe_snapshot(const raftpb::SnapshotMetadata& meta);
std::string describe_ready(const Ready& rd);                   // several lines, no trailing newline
const char* message_type_name(raftpb::MessageType t);

}  // namespace dst::raft
