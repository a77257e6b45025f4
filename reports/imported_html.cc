// See violation_html.h: the page for a history imported from Porcupine/Jepsen. Its axis is the
// position of events in the file (the files are in real-time order; Porcupine logs have no
// times), lanes are processes, and the counterexample names the operations.
#include <algorithm>
#include <map>
#include <set>

#include "reports/html_text.h"
#include "reports/report_limits.h"
#include "reports/timeline.h"
#include "reports/violation_html.h"
#include "reports/violation_page.h"

namespace dst::reports {

namespace {

using history::ImportedHistory;
using history::ImportedOp;
using history::ImportedOutcome;

// Event positions of margin around the counterexample on each side, at least.
constexpr int64_t kImportedMarginMin = 10;

std::string lines_text(const ImportedOp& op) {
  if (op.invoke_line == 0) return "";
  return "line " + std::to_string(op.invoke_line) + (op.return_line ? ".." + std::to_string(op.return_line) : "");
}

std::string tooltip_of(const ImportedOp& op) {
  std::string s = "op " + std::to_string(op.id) + " process " + std::to_string(op.process) + ": " +
                  history::describe_imported_op(op) + " [" + lines_text(op) + "]";
  if (op.invoke_time_ns >= 0) s += " invoked " + seconds_text(op.invoke_time_ns);
  if (op.return_time_ns >= 0) s += " returned " + seconds_text(op.return_time_ns);
  return s;
}

struct Involved {
  std::set<uint64_t> unplaced, prefix;
  std::vector<uint64_t> order;  // unplaced first, then the prefix tail
};

Involved involved_of(const ImportedHistory& h, const checker::Counterexample& c) {
  Involved inv;
  for (const auto& op : c.unplaced)
    if (op.id < h.ops.size() && inv.unplaced.insert(op.id).second) inv.order.push_back(op.id);
  for (const auto& op : c.prefix_tail)
    if (op.id < h.ops.size() && !inv.unplaced.count(op.id) && inv.prefix.insert(op.id).second) inv.order.push_back(op.id);
  return inv;
}

std::string counterexample_table(const ImportedHistory& h, const std::vector<checker::CounterexampleOp>& ops, bool notes) {
  std::string out = "<table><tr><th>op</th><th>process</th><th>invoke #</th><th>return #</th><th>outcome</th>"
                    "<th>operation</th><th>lines</th>" + std::string(notes ? "<th>why it cannot come next</th>" : "") +
                    "</tr>";
  for (size_t i = 0; i < ops.size() && i < kTableRowsMax; ++i) {
    const checker::CounterexampleOp& c = ops[i];
    if (c.id >= h.ops.size()) continue;
    const ImportedOp& op = h.ops[c.id];
    const char* cls = op.outcome == ImportedOutcome::kOk ? "ok" : op.outcome == ImportedOutcome::kFailed ? "failed" : "unknown";
    out += "<tr data-op=\"" + std::to_string(op.id) + "\"><td>" + std::to_string(op.id) + "</td><td>" +
           std::to_string(op.process) + "</td><td>" + std::to_string(op.invoke_at) + "</td><td>" +
           (op.return_at == history::kImportedNeverReturned ? "never" : std::to_string(op.return_at)) +
           "</td><td class=\"" + cls + "\">" + history::imported_outcome_name(op.outcome) + "</td><td>" +
           html_escape(truncate_text(c.what.empty() ? history::describe_imported_op(op) : c.what, kCellCharsMax)) +
           "</td><td>" + html_escape(lines_text(op)) + "</td>" +
           (notes ? "<td>" + html_escape(truncate_text(c.note, kCellCharsMax)) + "</td>" : "") + "</tr>";
  }
  return out + "</table>";
}

Timeline imported_timeline(const ImportedHistory& h, const Involved& inv, std::string& meta) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  std::string key;
  bool one_key = true;
  for (uint64_t id : inv.order) {
    const ImportedOp& op = h.ops[id];
    lo = std::min(lo, op.invoke_at);
    hi = std::max(hi, op.return_at == history::kImportedNeverReturned ? op.invoke_at : op.return_at);
    if (id == inv.order.front()) key = op.key;
    one_key &= op.key == key;
  }
  if (lo == INT64_MAX) lo = 0, hi = static_cast<int64_t>(h.ops.size()) * 2;
  one_key &= !key.empty();
  const int64_t margin = std::max((hi - lo) / kWindowMarginDivisor, kImportedMarginMin);
  Timeline t;
  t.axis_in_seconds = false;
  t.window_start = std::max<int64_t>(0, lo - margin);
  t.window_end = std::max(hi + margin, t.window_start + 1);
  const int64_t center = lo + (hi - lo) / 2;
  std::vector<std::pair<int64_t, uint64_t>> ranked;  // involved first, then nearest to the center
  size_t in_window = 0;
  for (const ImportedOp& op : h.ops) {
    if (one_key && op.key != key) continue;
    const bool involved = inv.unplaced.count(op.id) || inv.prefix.count(op.id);
    if (!involved && (op.invoke_at > t.window_end || op.return_at < t.window_start)) continue;
    ++in_window;
    const int64_t end = std::min(op.return_at, t.window_end);
    ranked.push_back({involved ? -1 : op.invoke_at > center ? op.invoke_at - center : end < center ? center - end : 0, op.id});
  }
  const size_t keep = std::min(ranked.size(), kOpsDrawnMax);
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
  ranked.resize(keep);
  std::map<uint32_t, size_t> lanes;
  for (const auto& [r, id] : ranked) lanes[h.ops[id].process] = SIZE_MAX;  // SIZE_MAX: no lane (past the limit)
  size_t lane = 0;
  for (auto& [p, i] : lanes) {
    if (lane >= kClientLanesMax) break;
    i = lane++;
    t.lanes.push_back({"p" + std::to_string(p), "process " + std::to_string(p), false, false});
  }
  size_t drawn = 0;
  for (const auto& [r, id] : ranked) {
    const ImportedOp& op = h.ops[id];
    const size_t l = lanes.at(op.process);
    if (l == SIZE_MAX) continue;
    TimelineBar b;
    b.id = id;
    b.lane = l;
    b.start = op.invoke_at;
    b.outcome = op.outcome == ImportedOutcome::kOk       ? BarOutcome::kOk
                : op.outcome == ImportedOutcome::kFailed ? BarOutcome::kFailed
                                                         : BarOutcome::kUnknown;
    b.open_right = op.outcome == ImportedOutcome::kUnknown;
    b.end_known = op.return_at != history::kImportedNeverReturned;
    b.end = b.end_known ? op.return_at : t.window_end;
    b.mark = inv.unplaced.count(id) ? Mark::kInvolved : inv.prefix.count(id) ? Mark::kContext : Mark::kNone;
    if (b.mark == Mark::kInvolved) t.lanes[l].highlighted = true;
    b.label = truncate_text(history::describe_imported_op(op), kLabelCharsMax);
    b.tooltip = truncate_text(tooltip_of(op), kTooltipCharsMax);
    t.bars.push_back(std::move(b));
    ++drawn;
  }
  meta = "events #" + std::to_string(t.window_start) + " .. #" + std::to_string(t.window_end) +
         " (positions in the file) &middot; " + std::to_string(drawn) + " of " + std::to_string(in_window) +
         " operations drawn" + (one_key ? " (key &quot;" + html_escape(key) + "&quot; only)" : "") +
         " &middot; history: " + std::to_string(h.ops.size()) + " operations";
  return t;
}

}  // namespace

std::string render_imported_html(const ImportedHistory& h, const checker::CheckResult& r) {
  PageParts p;
  p.imported = true;
  p.title = "History " + h.source + ": " + checker::verdict_name(r.verdict);
  p.rule = "linearizability";
  Involved inv;
  if (r.counterexample) inv = involved_of(h, *r.counterexample);
  std::string meta;
  p.timeline_svg = render_timeline_svg(imported_timeline(h, inv, meta));
  p.meta = meta;
  if (!r.counterexample) {
    p.explanation = r.verdict == checker::Verdict::kUnknown ? "The search gave up without a verdict: " + r.unknown_reason
                                                            : "No counterexample: the history is linearizable.";
    return render_page(p);
  }
  const checker::Counterexample& c = *r.counterexample;
  p.explanation = "In " + c.partition + ", the longest linearizable prefix found has " +
                  std::to_string(c.prefix_length) + " operation(s) (its last ones outlined) and leaves the state " +
                  c.state_after_prefix + ". None of the operations that could come next (highlighted) can: each " +
                  "is either not legal from that state or leads only to dead ends.";
  p.sections.push_back({"Operations that cannot come next", counterexample_table(h, c.unplaced, true)});
  p.sections.push_back({"End of the longest linearizable prefix (in linearization order)",
                        counterexample_table(h, c.prefix_tail, false)});
  p.evidence.push_back("partition: " + c.partition);
  p.evidence.push_back("prefix length: " + std::to_string(c.prefix_length));
  p.evidence.push_back("state after the prefix: " + c.state_after_prefix);
  for (const auto& op : c.unplaced) p.evidence.push_back("cannot come next: " + op.what + ": " + op.note);
  return render_page(p);
}

}  // namespace dst::reports
