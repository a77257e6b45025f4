// Defragmentation in a run's report: etcd's defrag holds its member's backend while it copies the
// database, so that member's reads and writes wait. For each defragment request: the member, the
// window it took, and what the other operations served by that member in the window waited.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace dst::reports {

struct DefragWindow {
  uint64_t op = 0;
  uint32_t member = 0;
  int64_t start_ns = 0, end_ns = 0;  // the request's send and answer
  bool ok = false;
  uint64_t overlapped = 0;       // other operations to that member that overlapped the window
  int64_t overlapped_max_ns = 0;  // the longest of them (send to answer)
};

std::vector<DefragWindow> summarize_defrags(const history::History& history);

// The report's section (empty when the run defragmented nothing), HTML and Markdown.
std::string defrags_html(const std::vector<DefragWindow>& defrags);
std::string defrags_markdown(const std::vector<DefragWindow>& defrags);

}  // namespace dst::reports
