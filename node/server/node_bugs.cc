// See node_bugs.h.
#include "node/server/node_bugs.h"

#include <string>

#include "base/assert.h"

namespace dst::node {

namespace {
struct NodeBugInfo {
  NodeBug bug;
  std::string_view name;
};
constexpr NodeBugInfo kNodeBugs[] = {
    {NodeBug::kStaleRead, "stale-read"},
    {NodeBug::kProgressNotifyAhead, "progress-notify-ahead"},
    {NodeBug::kWatchDuplicateEvent, "watch-duplicate-event"},
    {NodeBug::kWatchLostUnderStarvation, "watch-lost-under-starvation"},
    {NodeBug::kAppliedIndexNotAtomic, "applied-index-not-atomic"},
    {NodeBug::kWatchDropAtCompaction, "watch-drop-at-compaction"},
    {NodeBug::kCompactionRevisionDecrease, "compaction-revision-decrease"},
    {NodeBug::kWatchTimeTravel, "watch-time-travel"},
};
}  // namespace

std::string_view node_bug_name(NodeBug bug) {
  for (const NodeBugInfo& b : kNodeBugs)
    if (b.bug == bug) return b.name;
  DST_UNREACHABLE("unnamed node bug");
}

Result<NodeBug> parse_node_bug(std::string_view name) {
  std::string valid;
  for (const NodeBugInfo& b : kNodeBugs) {
    if (b.name == name) return b.bug;
    valid += valid.empty() ? "" : ", ";
    valid += b.name;
  }
  return Status(StatusCode::kInvalidArgument, "unknown node bug '" + std::string(name) + "'; expected one of: " + valid);
}

std::vector<NodeBug> all_node_bugs() {
  std::vector<NodeBug> out;
  for (const NodeBugInfo& b : kNodeBugs) out.push_back(b.bug);
  return out;
}

}  // namespace dst::node
