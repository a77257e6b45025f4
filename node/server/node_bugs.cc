// See node_bugs.h.
#include "node/server/node_bugs.h"

#include "base/named_enum.h"

namespace dst::node {

namespace {
constexpr NamedValue<NodeBug> kNodeBugs[] = {
    {NodeBug::kStaleRead, "stale-read"},
    {NodeBug::kProgressNotifyAhead, "progress-notify-ahead"},
    {NodeBug::kWatchDuplicateEvent, "watch-duplicate-event"},
    {NodeBug::kWatchLostUnderStarvation, "watch-lost-under-starvation"},
    {NodeBug::kAppliedIndexNotAtomic, "applied-index-not-atomic"},
    {NodeBug::kWatchDropAtCompaction, "watch-drop-at-compaction"},
    {NodeBug::kCompactionRevisionDecrease, "compaction-revision-decrease"},
    {NodeBug::kWatchTimeTravel, "watch-time-travel"},
    {NodeBug::kLeaseExpiryOnFollowerClock, "lease-expiry-on-follower-clock"},
};
}  // namespace

std::string_view node_bug_name(NodeBug bug) { return name_of(kNodeBugs, bug); }
Result<NodeBug> parse_node_bug(std::string_view name) { return parse_named(kNodeBugs, name, "node bug"); }
std::vector<NodeBug> all_node_bugs() { return values_of(kNodeBugs); }

}  // namespace dst::node
