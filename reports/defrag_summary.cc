#include "reports/defrag_summary.h"

#include <algorithm>

#include "reports/html_text.h"
#include "reports/plot_limits.h"

namespace dst::reports {

namespace {


}  // namespace

std::vector<DefragWindow> summarize_defrags(const history::History& history) {
  std::vector<DefragWindow> out;
  for (const history::Operation& op : history.operations) {
    if (!op.request.has_defragment() || op.return_ns == history::kNeverReturned) continue;
    if (out.size() >= kReportTableRowsMax) break;
    DefragWindow w{op.id, op.member, op.invoke_ns, op.return_ns, op.outcome == history::Outcome::kOk, 0, 0};
    out.push_back(w);
  }
  // One pass over the operations per window: bounded by kReportTableRowsMax windows.
  for (DefragWindow& w : out) {
    for (const history::Operation& op : history.operations) {
      if (op.id == w.op || op.member != w.member || op.return_ns == history::kNeverReturned) continue;
      if (op.return_ns < w.start_ns || op.invoke_ns > w.end_ns) continue;
      ++w.overlapped;
      w.overlapped_max_ns = std::max(w.overlapped_max_ns, op.return_ns - op.invoke_ns);
    }
  }
  return out;
}

std::string defrags_html(const std::vector<DefragWindow>& defrags) {
  if (defrags.empty()) return "";
  std::string s =
      "<h2>Defragmentation</h2>\n<p class=\"expl\">A defragmentation holds its member's backend while it copies the "
      "database: that member's reads and writes wait (etcd's advice: defragment followers first, the leader "
      "last).</p>\n<table><tr><th>op</th><th>member</th><th>from (s)</th><th>to (s)</th><th>blocked (ms)</th>"
      "<th>result</th><th>ops to it meanwhile</th><th>their longest (ms)</th></tr>\n";
  auto n = [](const std::string& t) { return "<td class=\"n\">" + html_escape(t) + "</td>"; };
  for (const DefragWindow& w : defrags)
    s += "<tr>" + n(std::to_string(w.op)) + n("n" + std::to_string(w.member)) + n(secs3_text(w.start_ns)) + n(secs3_text(w.end_ns)) +
         n(ms3_text(w.end_ns - w.start_ns)) + "<td>" + (w.ok ? "ok" : "failed") + "</td>" + n(std::to_string(w.overlapped)) +
         n(ms3_text(w.overlapped_max_ns)) + "</tr>\n";
  return s + "</table>\n";
}

std::string defrags_markdown(const std::vector<DefragWindow>& defrags) {
  if (defrags.empty()) return "";
  std::string s = "\n### Defragmentation\n\n| op | member | from (s) | to (s) | blocked (ms) | result | ops to it meanwhile | "
                  "their longest (ms) |\n|---:|---|---:|---:|---:|---|---:|---:|\n";
  for (const DefragWindow& w : defrags)
    s += "| " + std::to_string(w.op) + " | n" + std::to_string(w.member) + " | " + secs3_text(w.start_ns) + " | " +
         secs3_text(w.end_ns) + " | " + ms3_text(w.end_ns - w.start_ns) + " | " + (w.ok ? "ok" : "failed") + " | " +
         std::to_string(w.overlapped) + " | " + ms3_text(w.overlapped_max_ns) + " |\n";
  return s;
}

}  // namespace dst::reports
