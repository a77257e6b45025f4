// See violation_html.h: the recorded-run page. Picking what to draw (window, operations, lanes,
// ticks, bands) is bounded by report_limits.h; the layout is timeline.cc's; the adapters from
// the checkers' violations are in violation_adapters.cc.
#include "reports/violation_html.h"

#include <algorithm>
#include <map>
#include <set>

#include "reports/etcd_text.h"
#include "reports/html_text.h"
#include "reports/report_limits.h"
#include "reports/timeline.h"
#include "reports/violation_page.h"

namespace dst::reports {

namespace {

using history::History;
using history::Operation;
using history::Outcome;

int64_t recorded_end(const Operation& op) { return op.return_ns; }  // kNeverReturned if it never did

// [lo, hi] of what the view names: involved operations, the detection time, and (when no
// operation is named) the watch responses carrying an involved revision.
std::pair<int64_t, int64_t> involved_span(const History& h, const ViolationView& v) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  auto add = [&](int64_t t) { lo = std::min(lo, t), hi = std::max(hi, t); };
  for (uint64_t id : v.ops) {
    if (id >= h.operations.size()) continue;
    const Operation& op = h.operations[id];
    add(op.invoke_ns);
    if (op.return_ns != history::kNeverReturned) add(op.return_ns);
  }
  if (v.detected_at_ns >= 0) add(v.detected_at_ns);
  if (lo == INT64_MAX && !v.revisions.empty()) {
    const std::set<int64_t> revs(v.revisions.begin(), v.revisions.end());
    for (const history::Watch& w : h.watches)
      for (const history::WatchSegment& s : w.segments)
        for (const history::WatchResponse& r : s.responses)
          for (const mvccpb::Event& e : r.response.events())
            if (revs.count(e.kv().mod_revision())) add(r.at_ns);
  }
  if (lo == INT64_MAX) {  // nothing named: the whole history
    for (const Operation& op : h.operations) {
      add(op.invoke_ns);
      if (op.return_ns != history::kNeverReturned) add(op.return_ns);
    }
  }
  if (lo == INT64_MAX) lo = hi = 0;
  return {lo, hi};
}

std::pair<int64_t, int64_t> window_of(const History& h, const ViolationView& v) {
  const auto [lo, hi] = involved_span(h, v);
  const int64_t margin = std::max((hi - lo) / kWindowMarginDivisor, kWindowMarginMinNs);
  int64_t ws = v.window_start_ns.value_or(std::max<int64_t>(0, lo - margin));
  int64_t we = v.window_end_ns.value_or(hi + margin);
  if (we <= ws) we = ws + 1;
  return {ws, we};
}

// Distance in time between an operation and the nearest involved one (0: they overlap).
struct Nearness {
  std::vector<std::pair<int64_t, int64_t>> involved;  // intervals, at most a few dozen used
  int64_t center = 0;
  int64_t operator()(int64_t a, int64_t b) const {
    if (involved.empty()) return a > center ? a - center : b < center ? center - b : 0;
    int64_t best = INT64_MAX;
    for (const auto& [x, y] : involved) best = std::min(best, a > y ? a - y : b < x ? x - b : 0);
    return best;
  }
};

struct Selection {
  int64_t ws = 0, we = 0;
  std::vector<uint64_t> ops;  // drawn, by id
  size_t ops_in_window = 0;
  std::vector<uint32_t> clients;   // lanes, in order
  std::vector<uint64_t> watches;   // lanes after the clients, in order
  size_t watches_in_window = 0;
  size_t ticks_left_out = 0;
  size_t faults_in_window = 0;
};

void select_ops(const History& h, const ViolationView& v, const std::set<uint64_t>& involved, Selection& s) {
  Nearness near;
  near.center = s.ws + (s.we - s.ws) / 2;
  for (uint64_t id : involved) {
    if (near.involved.size() >= 64) break;
    const Operation& op = h.operations[id];
    near.involved.push_back({op.invoke_ns, std::max(op.invoke_ns, std::min(op.return_ns, s.we))});
  }
  // (rank, id): involved first, then nearest in time, then by id.
  std::vector<std::pair<int64_t, uint64_t>> ranked;
  for (const Operation& op : h.operations) {
    if (op.invoke_ns > s.we || recorded_end(op) < s.ws) continue;
    ++s.ops_in_window;
    const int64_t end = std::min(recorded_end(op), s.we);
    ranked.push_back({involved.count(op.id) ? -1 : near(op.invoke_ns, end), op.id});
  }
  for (uint64_t id : involved)  // involved operations outside an explicit window are still listed
    if (h.operations[id].invoke_ns > s.we || recorded_end(h.operations[id]) < s.ws) ranked.push_back({-1, id});
  const size_t keep = std::min(ranked.size(), kOpsDrawnMax);
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
  ranked.resize(keep);
  // Client lanes: those with involved operations first, then the busiest; shown by client id.
  std::map<uint32_t, std::pair<int, size_t>> per_client;  // client -> (has involved, count)
  for (const auto& [rank, id] : ranked) {
    auto& c = per_client[h.operations[id].client];
    c.first |= rank < 0;
    ++c.second;
  }
  std::vector<std::pair<std::pair<int, size_t>, uint32_t>> clients;
  for (const auto& [c, k] : per_client) clients.push_back({{-k.first, SIZE_MAX - k.second}, c});
  std::sort(clients.begin(), clients.end());
  if (clients.size() > kClientLanesMax) clients.resize(kClientLanesMax);
  for (const auto& c : clients) s.clients.push_back(c.second);
  std::sort(s.clients.begin(), s.clients.end());
  for (const auto& [rank, id] : ranked)
    if (std::binary_search(s.clients.begin(), s.clients.end(), h.operations[id].client)) s.ops.push_back(id);
  std::sort(s.ops.begin(), s.ops.end());
}

bool response_in_window(const history::Watch& w, int64_t ws, int64_t we) {
  for (const history::WatchSegment& seg : w.segments) {
    if (seg.created_ns >= ws && seg.created_ns <= we) return true;
    for (const history::WatchResponse& r : seg.responses)
      if (r.at_ns >= ws && r.at_ns <= we) return true;
  }
  return false;
}

void select_watches(const History& h, const ViolationView& v, Selection& s) {
  std::vector<uint64_t> picked;
  for (uint64_t id : v.watches)
    if (id < h.watches.size() && std::find(picked.begin(), picked.end(), id) == picked.end()) picked.push_back(id);
  for (const history::Watch& w : h.watches) {
    if (!response_in_window(w, s.ws, s.we)) continue;
    ++s.watches_in_window;
    if (picked.size() < kWatchLanesMax && std::find(picked.begin(), picked.end(), w.id) == picked.end())
      picked.push_back(w.id);
  }
  s.watches = picked;
}

bool carries_revision(const etcdserverpb::WatchResponse& r, const std::set<int64_t>& revs) {
  for (const mvccpb::Event& e : r.events())
    if (revs.count(e.kv().mod_revision())) return true;
  return false;
}

// The offending responses: a watch named by the view, at the detection time; or any response
// carrying an involved revision.
bool response_involved(const history::Watch& w, const history::WatchResponse& r, const ViolationView& v,
                       const std::set<int64_t>& revs) {
  const bool watch_named = std::find(v.watches.begin(), v.watches.end(), w.id) != v.watches.end();
  if (watch_named && r.at_ns == v.detected_at_ns) return true;
  return carries_revision(r.response, revs);
}

void add_ticks(const History& h, const ViolationView& v, const std::set<int64_t>& revs, size_t lane, uint64_t watch_id,
               Selection& s, Timeline& t) {
  const history::Watch& w = h.watches[watch_id];
  std::vector<std::pair<int64_t, TimelineTick>> ticks;  // (rank, tick)
  const int64_t focus = v.detected_at_ns >= 0 ? v.detected_at_ns : s.ws + (s.we - s.ws) / 2;
  auto rank = [&](int64_t at, bool hl) { return hl ? -1 : at > focus ? at - focus : focus - at; };
  for (size_t si = 0; si < w.segments.size(); ++si) {
    const history::WatchSegment& seg = w.segments[si];
    const std::string where = "watch " + std::to_string(w.id) + " seg " + std::to_string(si) + " (member " +
                              std::to_string(seg.member) + ")";
    if (seg.created_ns >= s.ws && seg.created_ns <= s.we) {
      TimelineTick tk{lane, seg.created_ns, TickKind::kSegmentStart, false, si ? "resume" : "",
                      where + " created at " + seconds_text(seg.created_ns) + ": " + watch_request_text(seg.request)};
      ticks.push_back({rank(seg.created_ns, false), std::move(tk)});
    }
    for (size_t ri = 0; ri < seg.responses.size(); ++ri) {
      const history::WatchResponse& r = seg.responses[ri];
      if (r.at_ns < s.ws || r.at_ns > s.we) continue;
      const bool hl = response_involved(w, r, v, revs);
      const etcdserverpb::WatchResponse& wr = r.response;
      TickKind kind = wr.canceled() ? TickKind::kCanceled
                      : wr.events_size() ? TickKind::kEvents
                      : wr.created()     ? TickKind::kCreated
                                         : TickKind::kProgress;
      TimelineTick tk{lane, r.at_ns, kind, hl, watch_response_label(wr),
                      truncate_text(where + " resp " + std::to_string(ri) + " at " + seconds_text(r.at_ns) + ": " +
                                        watch_response_events(wr),
                                    kTooltipCharsMax)};
      ticks.push_back({rank(r.at_ns, hl), std::move(tk)});
    }
    if (seg.broken) {
      const int64_t at = si + 1 < w.segments.size() ? w.segments[si + 1].created_ns
                         : seg.responses.empty()    ? seg.created_ns
                                                    : seg.responses.back().at_ns;
      if (at >= s.ws && at <= s.we)
        ticks.push_back({rank(at, false), TimelineTick{lane, at, TickKind::kSegmentBroken, false, "",
                                                       where + ": the stream broke (resumed here if resumed)"}});
    }
  }
  std::stable_sort(ticks.begin(), ticks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (ticks.size() > kTicksPerWatchMax) {
    s.ticks_left_out += ticks.size() - kTicksPerWatchMax;
    ticks.resize(kTicksPerWatchMax);
  }
  for (auto& [r, tk] : ticks) t.ticks.push_back(std::move(tk));
}

BarOutcome bar_outcome(Outcome o) {
  return o == Outcome::kOk ? BarOutcome::kOk : o == Outcome::kFailed ? BarOutcome::kFailed : BarOutcome::kUnknown;
}

Timeline build_timeline(const History& h, const ViolationView& v, const std::set<uint64_t>& involved, Selection& s) {
  Timeline t;
  t.window_start = s.ws;
  t.window_end = s.we;
  t.marker_at = v.detected_at_ns;
  t.marker_label = "detected at " + seconds_text(v.detected_at_ns);
  std::set<uint32_t> involved_clients;
  for (uint64_t id : involved) involved_clients.insert(h.operations[id].client);
  for (uint32_t c : s.clients)
    t.lanes.push_back({"c" + std::to_string(c), "client " + std::to_string(c), false, involved_clients.count(c) > 0});
  std::map<uint32_t, size_t> lane_of_client;
  for (size_t i = 0; i < s.clients.size(); ++i) lane_of_client[s.clients[i]] = i;
  for (uint64_t id : s.ops) {
    const Operation& op = h.operations[id];
    TimelineBar b;
    b.id = id;
    b.lane = lane_of_client.at(op.client);
    b.start = op.invoke_ns;
    b.outcome = bar_outcome(op.outcome);
    b.open_right = op.outcome == Outcome::kUnknown;
    b.end_known = op.return_ns != history::kNeverReturned;
    b.end = b.end_known ? op.return_ns : s.we;
    b.mark = involved.count(id) ? Mark::kInvolved : Mark::kNone;
    b.label = truncate_text(short_operation(op), kLabelCharsMax);
    b.tooltip = truncate_text(checker::etcd::describe_operation(op), kTooltipCharsMax);
    t.bars.push_back(std::move(b));
  }
  const std::set<int64_t> revs(v.revisions.begin(), v.revisions.end());
  for (uint64_t wid : s.watches) {
    const history::Watch& w = h.watches[wid];
    const bool named = std::find(v.watches.begin(), v.watches.end(), wid) != v.watches.end();
    const std::string range = w.segments.empty() ? "" : watch_request_text(w.segments.front().request);
    t.lanes.push_back({"w" + std::to_string(wid) + " c" + std::to_string(w.client),
                       "watch " + std::to_string(wid) + " of client " + std::to_string(w.client) + ": " + range, true,
                       named});
    add_ticks(h, v, revs, t.lanes.size() - 1, wid, s, t);
  }
  std::vector<const history::Fault*> faults;
  for (const history::Fault& f : h.faults)
    if (f.start_ns <= s.we && f.end_ns >= s.ws) faults.push_back(&f);
  s.faults_in_window = faults.size();
  std::stable_sort(faults.begin(), faults.end(), [](const auto* a, const auto* b) { return a->start_ns < b->start_ns; });
  for (size_t i = 0; i < faults.size() && i < kFaultsDrawnMax; ++i) {
    const history::Fault& f = *faults[i];
    t.bands.push_back({f.start_ns, std::min(f.end_ns, s.we), f.kind,
                       f.kind + (f.target.empty() ? "" : " " + f.target) + " [" + seconds_text(f.start_ns) + ", " +
                           seconds_text(f.end_ns) + "]"});
  }
  return t;
}

const char* outcome_class(Outcome o) { return o == Outcome::kOk ? "ok" : o == Outcome::kFailed ? "failed" : "unknown"; }

std::string ops_table(const History& h, const std::vector<uint64_t>& ids) {
  std::string out = "<table><tr><th>op</th><th>client</th><th>member</th><th>invoke</th><th>return</th>"
                    "<th>outcome</th><th>request</th><th>response</th></tr>";
  for (size_t i = 0; i < ids.size() && i < kTableRowsMax; ++i) {
    const Operation& op = h.operations[ids[i]];
    const std::string id = std::to_string(op.id);
    const bool answered = op.response.response_case() != etcdserverpb::ApiResponse::RESPONSE_NOT_SET;
    out += "<tr data-op=\"" + id + "\"><td>" + id + "</td><td>c" + std::to_string(op.client) + "</td><td>n" +
           std::to_string(op.member) + "</td><td>" + seconds_text(op.invoke_ns) + "</td><td>" +
           seconds_text(op.return_ns) + "</td><td class=\"" + outcome_class(op.outcome) + "\">" +
           history::outcome_name(op.outcome) + "</td><td>" +
           html_escape(truncate_text(short_request(op.request), kCellCharsMax)) + "</td><td>" +
           html_escape(truncate_text(answered ? checker::etcd::describe_response(op.response) : "(no answer)",
                                     kCellCharsMax)) +
           "</td></tr>";
  }
  out += "</table>";
  if (ids.size() > kTableRowsMax) out += "<p class=\"meta\">" + std::to_string(ids.size() - kTableRowsMax) + " more not listed</p>";
  return out;
}

std::string watch_table(const History& h, const ViolationView& v) {
  const std::set<int64_t> revs(v.revisions.begin(), v.revisions.end());
  std::string rows;
  size_t n = 0, total = 0;
  for (const history::Watch& w : h.watches)
    for (size_t si = 0; si < w.segments.size(); ++si)
      for (size_t ri = 0; ri < w.segments[si].responses.size(); ++ri) {
        const history::WatchResponse& r = w.segments[si].responses[ri];
        if (!response_involved(w, r, v, revs)) continue;
        ++total;
        if (n++ >= kTableRowsMax) continue;
        rows += "<tr><td>w" + std::to_string(w.id) + "</td><td>c" + std::to_string(w.client) + "</td><td>n" +
                std::to_string(w.segments[si].member) + "</td><td>" + std::to_string(si) + "/" + std::to_string(ri) +
                "</td><td>" + seconds_text(r.at_ns) + "</td><td>" +
                html_escape(truncate_text(watch_response_events(r.response), kCellCharsMax)) + "</td></tr>";
      }
  if (total == 0) return "<p class=\"meta\">none</p>";
  std::string out = "<table><tr><th>watch</th><th>client</th><th>member</th><th>seg/resp</th><th>at</th>"
                    "<th>events</th></tr>" + rows + "</table>";
  if (total > kTableRowsMax) out += "<p class=\"meta\">" + std::to_string(total - kTableRowsMax) + " more not listed</p>";
  return out;
}

}  // namespace

std::string render_violation_html(const History& h, const ViolationView& v) {
  std::set<uint64_t> involved;
  std::vector<uint64_t> involved_order;
  for (uint64_t id : v.ops)
    if (id < h.operations.size() && involved.insert(id).second) involved_order.push_back(id);
  Selection s;
  std::tie(s.ws, s.we) = window_of(h, v);
  select_ops(h, v, involved, s);
  select_watches(h, v, s);
  Timeline t = build_timeline(h, v, involved, s);

  PageParts p;
  p.title = v.title;
  p.rule = v.rule;
  p.explanation = v.explanation;
  p.meta = "window " + seconds_text(s.ws) + " .. " + seconds_text(s.we) + " (virtual time) &middot; " +
           std::to_string(s.ops.size()) + " of " + std::to_string(s.ops_in_window) +
           " operations in the window drawn" +
           (s.ops.size() < s.ops_in_window ? " (the nearest to the violation; limit " + std::to_string(kOpsDrawnMax) + ")"
                                           : "") +
           " &middot; " + std::to_string(s.watches.size()) + " of " + std::to_string(s.watches_in_window) +
           " watches &middot; " + std::to_string(std::min(s.faults_in_window, kFaultsDrawnMax)) + " of " +
           std::to_string(s.faults_in_window) + " faults" +
           (s.ticks_left_out ? " &middot; " + std::to_string(s.ticks_left_out) + " watch responses not drawn" : "") +
           " &middot; history: " + std::to_string(h.operations.size()) + " operations, " +
           std::to_string(h.watches.size()) + " watches, " + std::to_string(h.faults.size()) + " faults";
  p.timeline_svg = render_timeline_svg(t);
  p.sections.push_back({"Involved operations", involved_order.empty() ? "<p class=\"meta\">none named</p>"
                                                                      : ops_table(h, involved_order)});
  p.sections.push_back({"Involved watch responses", watch_table(h, v)});
  p.evidence = v.lines;
  return render_page(p);
}

}  // namespace dst::reports
