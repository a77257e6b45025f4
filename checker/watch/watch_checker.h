// The watch checker: every guarantee etcd documents for watches, judged per watch (all its segments
// in order) against the truth merged from the whole history (truth.h).
//
// How each guarantee is decided (details in watch_checker.cc):
//   ordered       an event's revision is below the previous event's, in the same response or later
//   unique        a (revision, key) the watch already received arrives again (a resume from too low)
//   atomic        a revision's events arrive in two responses (fragments of one response count as one)
//   reliable      a truth event that matches the watch, between its start and a revision it received
//                 later, never arrived; or a revision arrived without all its matching truth events
//   resumable     after a broken segment, the truth has a matching event after the last revision the
//                 watch had seen that the new segment skipped before its first event
//   bookmarkable  an event at or below an earlier progress notification's revision arrives; or a
//                 progress notification at R arrives while a matching truth event <= R has not
//   filter        an event for a key outside the range, a filtered type, or below the start revision
//   prev_kv       prev_kv differs from the key's truth state at revision - 1 (or is given unasked)
//   is_create     a PUT's create_revision/version disagree with whether and how the key existed before
//   compaction    a cancel names compact revision C although the watch needed no revision below C,
//                 or C is above every compaction the history requested
//   consistent    two sources of the truth disagree about a revision (see truth.h)
// A check that needs a truth fact the history does not pin down (a key's state after a range
// delete nobody saw) is skipped, never guessed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/watch/violation.h"
#include "history/history.h"

namespace dst::checker::watch {

// Violations kept in a report: enough to see a pattern, few enough to read; the rest are counted.
inline constexpr size_t kViolationsKeptDefault = 10;
// Violations kept per (watch, guarantee): one broken watch must not crowd out all the others.
inline constexpr size_t kViolationsPerWatchGuaranteeMax = 3;
// Truth events a single gap or progress check lists as evidence; the count says how many more.
inline constexpr size_t kEvidenceEventsMax = 4;

struct Options {
  size_t violations_kept = kViolationsKeptDefault;
  // Whether every compaction of the run is an operation of the history; when false (compactions
  // ran by other means), a cancel's compact revision is only checked against the watch's needs.
  bool compactions_recorded = true;
  // The history was imported from a format that does not record a key-value's lease, nor its
  // create_revision and version when they are 0 (etcd's robustness reports): those are not
  // compared. Never set for dst's own runs.
  bool partial_kvs = false;
};

struct Report {
  std::vector<Violation> violations;  // the first `violations_kept`, truth conflicts first, then by watch id
  size_t violations_total = 0;
  std::array<size_t, kGuaranteeCount> violations_by_guarantee{};
  size_t watches = 0;
  size_t responses = 0;
  size_t events = 0;
  size_t revisions_known = 0;     // revisions the truth has events for
  size_t revisions_complete = 0;  // ... of which every event is known

  bool ok() const { return violations_total == 0; }
  // The verdict, the counts, and every kept violation with its evidence.
  std::string to_string() const;
};

Report check(const history::History& history, const Options& options = {});

}  // namespace dst::checker::watch
