// A history across restores from snapshots (history.h Restore) as histories that each follow one
// timeline of revisions, so that the checkers, which assume revisions only grow, judge each on its
// own.
//
// Timeline 0 is the history before the first disaster. Timeline k (k >= 1) is the state of
// timeline k-1 at the k-th snapshot's revision R, followed by what the restored cluster did. The
// k-th snapshot must have been taken from the cluster restore k-1 made (the scenario enforces it):
//   - what timeline k-1 acknowledged at or below R is kept as it was (the snapshot holds it: a
//     restored cluster that lost it is caught); a request that changes state without a revision
//     of its own (compaction, lease grant or revoke, alarm) answered at exactly R may have been
//     applied after the snapshot was read, so its outcome becomes unknown;
//   - what it acknowledged above R is lost by design (etcd's documented loss): such writes become
//     failed operations (so their effects must never be seen again), such reads become failed;
//     its writes of unknown outcome stay unknown (a gap: one that took effect after R and came
//     back after the restore could be placed after it and go unseen);
//   - watch segments of earlier timelines keep their requests but no responses (they were judged
//     in their own timeline; what they saw past the snapshot is gone, so a watch resumed on the
//     restored cluster is judged as a fresh start from the revision it asked for);
//   - operations and watches of later timelines become failed and empty here;
//   - the restored cluster's revisions are mapped back by the bump: R + B + n reads as R + n, so
//     the timeline continues at R + 1 as if nothing had been skipped. A revision in (R, R + B]
//     reads as what it selects on the restored cluster (where no revision exists but R + B's empty
//     start): as a state (a header, a read's revision, an upper filter bound, "greater" in a
//     compare) it is R; as a lower bound ("r or later": min filters, "less") it is R + 1; as a
//     start (a watch's start, a compaction's or a cancel's compact revision) R + B is R + 1 ("from
//     here on") and anything below it R (a correct cluster answers a watch from there
//     "compacted"); an equality with it is never true (-1). A restore's marked compaction is at
//     R + 1 in the timeline.
// Operation and watch ids are unchanged in every timeline (failed placeholders keep them dense).
//
// Besides the timelines, the split itself checks what only it can see: a restored cluster must
// answer at revision R + B or later (its store starts there); an answer below it means revisions
// went back, and the restored cluster reuses revisions its clients already saw. A violation
// found in a timeline names the timeline's revisions, not the run database's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace dst::history {

struct RestoreTimeline {
  // "before the first disaster" / "after restore 1 at t=12.000000s (snapshot s1 at revision 345,
  // bump 1000)".
  std::string label;
  History history;
  // This timeline's starting revision (the snapshot's, R) and the restore's bump (0, 0 for
  // timeline 0); history.restores holds the restores so far with R in the timeline's revisions.
  int64_t restored_revision = 0;
  int64_t bump = 0;
};

struct RevisionWentBack {
  uint64_t op = 0;  // operation id (or the watch id when `watch`)
  bool watch = false;
  int64_t revision = 0;  // what it was answered
  int64_t floor = 0;     // R + B: the lowest revision the restored cluster may answer
  size_t restore = 0;    // 1-based
  std::string message;
};

inline constexpr size_t kRevisionsWentBackKept = 16;

// Timeline k of the history (0 <= k <= history.restores.size()), built on demand so that a checker
// holds one copy of the history at a time.
RestoreTimeline restore_timeline(const History& history, size_t k);

// The restored clusters' answers below the revision each starts at (the first
// kRevisionsWentBackKept): only answers that reflect the cluster's state (linearizable reads,
// writes, compactions, lease grants and revokes), and watch events in the revisions a restore
// skipped (between R and R + B).
std::vector<RevisionWentBack> revisions_went_back(const History& history);

}  // namespace dst::history
