// Disaster recovery in a run's report: for each restore from a snapshot (history.h Restore), when
// the snapshot was saved, what the loss cost (writes acknowledged after the snapshot's revision,
// lost by design; the time without a cluster) and when the restored cluster served again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace dst::reports {

struct RestoreSummary {
  history::Restore restore;
  // The snapshot operation that produced it: the last ok one at that revision returned before the
  // disaster (-1: none found, e.g. a history whose snapshots were taken elsewhere).
  int64_t snapshot_saved_ns = -1;
  uint32_t snapshot_member = 0;
  uint64_t writes_kept = 0;  // acknowledged before the disaster at or below the snapshot's revision
  uint64_t writes_lost = 0;  // acknowledged before the disaster above it (lost by design)
  // The first write or linearizable read after the restore answered ok then (-1: none).
  int64_t served_again_ns = -1;
};

std::vector<RestoreSummary> summarize_restores(const history::History& history);

// The report's section: an HTML table (empty string when the run had no restore) and the same as
// Markdown lines for summary.md.
std::string restores_html(const std::vector<RestoreSummary>& restores);
std::string restores_markdown(const std::vector<RestoreSummary>& restores);

}  // namespace dst::reports
