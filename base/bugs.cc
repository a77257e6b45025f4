#include "base/bugs.h"

#include <algorithm>

#include "base/named_enum.h"

namespace dst {

namespace {

struct BugEntry {
  Bug bug;
  std::string_view name;
  BugLayer layer;
};

// In enum order (checked by bug_entry): one row per bug, its name and its layer.
constexpr BugEntry kBugTable[] = {
    {Bug::kVoteBeforePersist, "vote-before-persist", BugLayer::kRaft},
    {Bug::kAckBeforePersist, "ack-before-persist", BugLayer::kRaft},
    {Bug::kCommitOldTermEntries, "commit-old-term", BugLayer::kRaft},
    {Bug::kVoteIgnoresLog, "vote-ignores-log", BugLayer::kRaft},
    {Bug::kHeartbeatCommitUnchecked, "heartbeat-commit-unchecked", BugLayer::kRaft},
    {Bug::kReadIndexWithoutQuorum, "read-index-without-quorum", BugLayer::kRaft},
    {Bug::kStaleRead, "stale-read", BugLayer::kMember},
    {Bug::kProgressNotifyAhead, "progress-notify-ahead", BugLayer::kMember},
    {Bug::kWatchDuplicateEvent, "watch-duplicate-event", BugLayer::kMember},
    {Bug::kWatchLostUnderStarvation, "watch-lost-under-starvation", BugLayer::kMember},
    {Bug::kAppliedIndexNotAtomic, "applied-index-not-atomic", BugLayer::kMember},
    {Bug::kWatchDropAtCompaction, "watch-drop-at-compaction", BugLayer::kMember},
    {Bug::kCompactionRevisionDecrease, "compaction-revision-decrease", BugLayer::kMember},
    {Bug::kWatchTimeTravel, "watch-time-travel", BugLayer::kMember},
    {Bug::kLeaseExpiryOnFollowerClock, "lease-expiry-on-follower-clock", BugLayer::kMember},
    {Bug::kLeaseRenewOnStaleLeader, "lease-renew-on-stale-leader", BugLayer::kMember},
    {Bug::kRestoreRestartsRevisions, "restore-restarts-revisions", BugLayer::kMember},
    {Bug::kListNotCaughtUp, "list-not-caught-up", BugLayer::kKube},
    {Bug::kInformerResumeSkip, "informer-resume-skip", BugLayer::kKube},
    {Bug::kDropOnRingWrap, "drop-on-ring-wrap", BugLayer::kKube},
};
static_assert(std::size(kBugTable) == static_cast<size_t>(Bug::kCount), "every Bug has a row in kBugTable");

// The bug zoo's names (issue #7) for bugs that already had one.
constexpr NamedValue<Bug> kAliases[] = {
    {Bug::kVoteBeforePersist, "vote-not-persisted"},
    {Bug::kAckBeforePersist, "ack-before-fsync"},
};

const BugEntry& bug_entry(Bug bug) {
  const auto i = static_cast<size_t>(bug);
  DST_ASSERT_MSG(i < std::size(kBugTable) && kBugTable[i].bug == bug, "kBugTable is out of enum order");
  return kBugTable[i];
}

}  // namespace

std::string_view bug_name(Bug bug) { return bug_entry(bug).name; }
BugLayer bug_layer(Bug bug) { return bug_entry(bug).layer; }

std::vector<Bug> all_bugs() {
  std::vector<Bug> out;
  for (const BugEntry& e : kBugTable) out.push_back(e.bug);
  return out;
}

Result<Bug> parse_bug(std::string_view name) {
  for (const BugEntry& e : kBugTable)
    if (e.name == name) return e.bug;
  for (const NamedValue<Bug>& a : kAliases)
    if (a.name == name) return a.value;
  std::string help = bug_names_help();
  return Status(StatusCode::kInvalidArgument,
                "unknown bug '" + std::string(name) + "'; expected one of: " + help.substr(help.find(':') + 2));
}

bool Bugs::any_in(BugLayer layer) const {
  for (Bug b : list())
    if (bug_layer(b) == layer) return true;
  return false;
}

std::vector<Bug> Bugs::list() const {
  std::vector<Bug> out;
  for (const BugEntry& e : kBugTable)
    if (on(e.bug)) out.push_back(e.bug);
  return out;
}

std::string Bugs::names() const {
  std::string out;
  for (Bug b : list()) out += (out.empty() ? "" : ",") + std::string(bug_name(b));
  return out;
}

Result<Bugs> parse_bugs(std::string_view names) {
  Bugs bugs;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t comma = std::min(names.find(',', start), names.size());
    Result<Bug> bug = parse_bug(names.substr(start, comma - start));
    if (!bug.is_ok()) return bug.status();
    bugs.with(*bug);
    start = comma + 1;
  }
  return bugs;
}

std::string bug_names_help() {
  std::string names;
  for (const BugEntry& e : kBugTable) names += (names.empty() ? "" : ", ") + std::string(e.name);
  for (const NamedValue<Bug>& a : kAliases) names += ", " + std::string(a.name);
  return "switch on safety bugs, comma-separated: " + names;
}

}  // namespace dst
