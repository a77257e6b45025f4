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

// What the timeline marks: with a minimal core, the core (red) and the operations it is stated
// against (outlined); without one, the operations that cannot come next (red) and the end of the
// longest linearizable prefix (outlined). The prefix's operations are numbered by their place in
// that partial linearization either way, as Porcupine's visualizer numbers its linearizations.
struct Involved {
  std::set<uint64_t> unplaced, prefix;
  std::vector<uint64_t> order;             // the red ones first, then the outlined ones
  std::map<uint64_t, size_t> linearized;   // prefix operation -> its place (1-based)
};

Involved involved_of(const ImportedHistory& h, const checker::CheckResult& r) {
  Involved inv;
  auto add = [&](const std::vector<checker::CounterexampleOp>& ops, std::set<uint64_t>& into) {
    for (const auto& op : ops)
      if (op.id < h.ops.size() && !inv.unplaced.count(op.id) && into.insert(op.id).second) inv.order.push_back(op.id);
  };
  if (!r.counterexample) return inv;
  const checker::Counterexample& c = *r.counterexample;
  if (r.minimal) {
    add(r.minimal->core, inv.unplaced);
    add(r.minimal->may_have_happened, inv.prefix);
  } else {
    add(c.unplaced, inv.unplaced);
    add(c.prefix_tail, inv.prefix);
  }
  const size_t first = c.prefix_length - c.prefix_tail.size() + 1;
  for (size_t k = 0; k < c.prefix_tail.size(); ++k) inv.linearized[c.prefix_tail[k].id] = first + k;
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

TimelineBar bar_of(const ImportedOp& op, size_t lane, const Involved& inv, int64_t window_end) {
  TimelineBar b;
  b.id = op.id;
  b.lane = lane;
  b.start = op.invoke_at;
  b.outcome = op.outcome == ImportedOutcome::kOk       ? BarOutcome::kOk
              : op.outcome == ImportedOutcome::kFailed ? BarOutcome::kFailed
                                                       : BarOutcome::kUnknown;
  b.open_right = op.outcome == ImportedOutcome::kUnknown;
  b.end_known = op.return_at != history::kImportedNeverReturned;
  b.end = b.end_known ? op.return_at : window_end;
  b.mark = inv.unplaced.count(op.id) ? Mark::kInvolved : inv.prefix.count(op.id) ? Mark::kContext : Mark::kNone;
  const auto place = inv.linearized.find(op.id);
  b.label = truncate_text((place != inv.linearized.end() ? "#" + std::to_string(place->second) + " " : std::string()) +
                              history::describe_imported_op(op),
                          kLabelCharsMax);
  b.tooltip = truncate_text(tooltip_of(op), kTooltipCharsMax);
  return b;
}

Timeline imported_timeline(const ImportedHistory& h, const Involved& inv, std::string& meta) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  std::string key, shown_key;
  bool one_key = true;
  for (uint64_t id : inv.order) {
    const ImportedOp& op = h.ops[id];
    lo = std::min(lo, op.invoke_at);
    hi = std::max(hi, op.return_at == history::kImportedNeverReturned ? op.invoke_at : op.return_at);
    if (id == inv.order.front()) key = op.key, shown_key = history::display_key(op);
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
    t.bars.push_back(bar_of(op, l, inv, t.window_end));
    if (t.bars.back().mark == Mark::kInvolved) t.lanes[l].highlighted = true;
    ++drawn;
  }
  meta = "events #" + std::to_string(t.window_start) + " .. #" + std::to_string(t.window_end) +
         " (positions in the file) &middot; " + std::to_string(drawn) + " of " + std::to_string(in_window) +
         " operations drawn" + (one_key ? " (key " + html_escape(shown_key) + " only)" : "") +
         " &middot; history: " + std::to_string(h.ops.size()) + " operations";
  return t;
}

// The minimal core first: what a reader needs (highlighted on the timeline), then what it is
// stated against (outlined).
void add_core_sections(const ImportedHistory& h, const checker::MinimalCounterexample& m, PageParts& p) {
  p.explanation = "These " + std::to_string(m.core.size()) + " operation(s) in " + m.partition +
                  " cannot be ordered (highlighted; " +
                  (m.one_minimal ? "1-minimal: weakening any one of them makes the rest linearizable"
                                 : "not shown 1-minimal: " + m.cut_short) +
                  "), even when each outlined operation may take effect at any time after its call, or never. " +
                  p.explanation;
  p.sections.push_back({"The operations that cannot be ordered", counterexample_table(h, m.core, false)});
  if (!m.may_have_happened.empty())
    p.sections.push_back({"Allowed to take effect at any time after their call, or never",
                          counterexample_table(h, m.may_have_happened, true)});
  p.evidence.push_back("minimal core: " + std::to_string(m.core.size()) + " operation(s), " +
                       std::to_string(m.checks) + " re-checks, " + std::to_string(m.steps) + " steps");
}

}  // namespace

std::string render_imported_html(const ImportedHistory& h, const checker::CheckResult& r) {
  PageParts p;
  p.imported = true;
  p.title = "History " + h.source + ": " + checker::verdict_name(r.verdict);
  p.rule = "linearizability";
  const Involved inv = involved_of(h, r);
  std::string meta;
  Timeline t = imported_timeline(h, inv, meta);
  if (r.minimal) {  // where the core ends: everything called after it is left out
    t.marker_at = r.minimal->cut_time;
    t.marker_label = "the core's last return";
  }
  p.timeline_svg = render_timeline_svg(t);
  p.meta = meta;
  if (!r.counterexample) {
    p.explanation = r.verdict == checker::Verdict::kUnknown ? "The search gave up without a verdict: " + r.unknown_reason
                                                            : "No counterexample: the history is linearizable.";
    return render_page(p);
  }
  const checker::Counterexample& c = *r.counterexample;
  p.explanation = "In " + c.partition + ", the longest linearizable prefix found has " +
                  std::to_string(c.prefix_length) + " operation(s) (its last ones numbered by their place in it) " +
                  "and leaves the state " + c.state_after_prefix + ". None of the operations that could come next " +
                  "can: each is either not legal from that state or leads only to dead ends.";
  if (r.minimal) add_core_sections(h, *r.minimal, p);
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
