// A history across restores from snapshots (history.h Restore) as histories that each follow one
// timeline of revisions, so that the checkers, which assume revisions only grow, judge each on its
// own.
//
// Timeline 0 is the history before the first disaster. Timeline k (k >= 1) is the state of
// timeline k-1 at the k-th snapshot's revision R, followed by what the restored cluster did:
//   - what timeline k-1 acknowledged at or below R is kept as it was (the snapshot holds it: a
//     restored cluster that lost it is caught);
//   - what it acknowledged above R is lost by design (etcd's documented loss): such writes become
//     failed operations (so their effects must never be seen again), such reads become failed;
//   - watch segments of earlier timelines keep their requests but no responses (they were judged
//     in their own timeline; what they saw past the snapshot is gone, so a watch resumed on the
//     restored cluster is judged as a fresh start from the revision it asked for);
//   - operations and watches of later timelines become failed and empty here;
//   - the restored cluster's revisions are mapped back by the bump: R + B + n reads as R + n, so
//     the timeline continues at R + 1 as if nothing had been skipped. R + B itself (where the
//     restored store starts, compacted) reads as R where it names a state (a header) and as R + 1
//     where it names a bound (a watch's start, a compact revision: "from here on"); anything
//     between R and R + B reads as R (a correct cluster answers a watch from there "compacted").
// Operation and watch ids are unchanged in every timeline (failed placeholders keep them dense).
//
// Besides the timelines, the split itself checks what only it can see: a restored cluster must
// answer at revision R + B or later (its store starts there); an answer below it means revisions
// went back, and the restored cluster reuses revisions its clients already saw.
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
  // This timeline's starting revision and the restore's bump (0, 0 for timeline 0): a compact
  // revision R here is the one the restore marked (Restore::bump > 0).
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

struct RestoreSplit {
  std::vector<RestoreTimeline> timelines;  // one per restore, plus timeline 0
  std::vector<RevisionWentBack> went_back;  // at most kRevisionsWentBackKept
};

inline constexpr size_t kRevisionsWentBackKept = 16;

// The history without restores is one timeline, itself.
RestoreSplit split_at_restores(const History& history);

}  // namespace dst::history
