// See plot_scripts.h: the leader/term timeline and the unavailability plot.
#include <algorithm>

#include "base/assert.h"
#include "reports/html_text.h"
#include "reports/plot_layout.h"
#include "reports/plot_limits.h"
#include "reports/plot_scripts.h"

namespace dst::reports {

namespace {

constexpr const char* kLeaderColour = "#59a14f";
constexpr const char* kDownColour = "#9e9e9e";
constexpr const char* kNoLeaderColour = "#e15759";
constexpr const char* kTermColour = "#1b4f72";
constexpr int kMemberLanePx = 22;

std::string leader_dat(const LeaderTimeline& t) {
  std::string s = "# leader timeline from the metric samples: member state start_s end_s\n"
                  "# state: leader (the cluster's leader), down (process not running), no-leader (member 0: none)\n";
  for (const MemberSpan& m : t.spans)
    s += std::to_string(m.member) + " " + (m.state == MemberSpan::State::kLeader ? "leader" : "down") + " " +
         gp::seconds(m.start_ns, 6) + " " + gp::seconds(m.end_ns, 6) + "\n";
  for (const TimeWindow& w : t.no_leader)
    s += "0 no-leader " + gp::seconds(w.start_ns, 6) + " " + gp::seconds(w.end_ns, 6) + "\n";
  return s;
}

std::string term_dat(const LeaderTimeline& t) {
  std::string s = "# highest raft term reported by any member that was up: at_s term\n";
  for (const TermPoint& p : t.terms) s += gp::seconds(p.at_ns, 6) + " " + std::to_string(p.term) + "\n";
  return s;
}

std::string rect(int64_t start_ns, int64_t end_ns, double y0, double y1, const char* colour, double alpha) {
  return "set object rect from " + gp::seconds(start_ns) + "," + fixed(y0, 2) + " to " + gp::seconds(end_ns) + "," +
         fixed(y1, 2) + " fc rgb '" + colour + "' fs transparent solid " + fixed(alpha, 2) + " noborder front\n";
}

}  // namespace

void add_leader_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out) {
  const LeaderTimeline& t = d.leader;
  out.files.push_back({"leader.dat", leader_dat(t)});
  out.files.push_back({"term.dat", term_dat(t)});
  const auto lanes = static_cast<int>(t.members.size()) + 1;  // the members, then "no leader"
  PlotLayout layout(d, {lanes * kMemberLanePx, 200});
  std::string body = layout.begin("Leader and term over time (metric samples every 500 ms), " + caption);
  body += layout.strip();
  body += layout.panel(0, "cluster leader per member (" + std::to_string(t.leader_changes) +
                              (t.leader_changes == 1 ? " leader change" : " leader changes") +
                              "), members down, time without a leader", false);
  const auto n = static_cast<double>(lanes);
  body += "set yrange [0:" + fixed(n, 0) + "]\nset ytics scale 0 (";
  for (size_t i = 0; i < t.members.size(); ++i)
    body += (i ? ", '" : "'") + std::string("n") + std::to_string(t.members[i]) + "' " + fixed(n - static_cast<double>(i) - 0.5, 1);
  body += std::string(t.members.empty() ? "" : ", ") + "'no leader' 0.5)\n";
  body += gp::fault_shading(d);
  for (const MemberSpan& m : t.spans) {
    const auto lane = static_cast<size_t>(std::find(t.members.begin(), t.members.end(), m.member) - t.members.begin());
    DST_ASSERT(lane < t.members.size());
    const double yc = n - static_cast<double>(lane) - 0.5;
    body += m.state == MemberSpan::State::kLeader ? rect(m.start_ns, m.end_ns, yc - 0.35, yc + 0.35, kLeaderColour, 0.9)
                                                  : rect(m.start_ns, m.end_ns, yc - 0.2, yc + 0.2, kDownColour, 0.8);
  }
  for (const TimeWindow& w : t.no_leader) body += rect(w.start_ns, w.end_ns, 0.15, 0.85, kNoLeaderColour, 0.8);
  body += layout.key();
  body += "plot -1 notitle, " + gp::keyentry_box(kLeaderColour, 0.9, "leader") + ", " +
          gp::keyentry_box(kDownColour, 0.8, "down") + ", " + gp::keyentry_box(kNoLeaderColour, 0.8, "no leader") +
          ", keyentry with steps lw 2 lc rgb '" + kTermColour + "' title 'term (lower panel)', " +
          gp::keyentry_fault_window() + "\n";
  body += layout.panel(1, t.has_samples() ? "highest raft term among the members that are up (max " +
                                                std::to_string(t.term_max) + ")"
                                          : "no metric samples in this run",
                       true);
  body += "set ylabel 'raft term'\nset yrange [0:" + std::to_string(t.term_max + 1 + t.term_max / 10) +
          "]\nset grid ytics lc rgb '#e0e0e0'\n" + gp::fault_shading(d);
  if (t.term_max < 10) body += "set ytics 1\n";  // terms are integers: no 0.5 steps
  body += t.terms.empty() ? "plot -1 notitle\n"
                          : "plot 'term.dat' using 1:2 with steps lw 2 lc rgb '" + std::string(kTermColour) + "' notitle\n";
  body += "unset multiplot\n";
  out.files.push_back({"leader.gp", gp::script("leader", "Which member is the leader, members down, and the raft term over time.",
                                               kPlotWidthPx, layout.height(), body, png)});
  out.plots.push_back("leader");
}

std::string unavailable_dat(const RunPlotData& d) {
  std::string s = "# windows of >= " + gp::seconds(kUnavailableMinNs, 1) +
                  " s without any ok operation (inside the workload's span): start_s end_s length_s\n";
  for (const TimeWindow& w : d.unavailable)
    s += gp::seconds(w.start_ns, 6) + " " + gp::seconds(w.end_ns, 6) + " " + gp::seconds(w.length_ns(), 6) + "\n";
  return s;
}

void add_unavailability_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out) {
  out.files.push_back({"unavailable.dat", unavailable_dat(d)});
  PlotLayout layout(d, 1, 300);
  int64_t total_ns = 0;
  for (const TimeWindow& w : d.unavailable) total_ns += w.length_ns();
  std::string body = layout.begin("Unavailability (>= 1 s without a successful operation), " + caption);
  body += layout.strip();
  body += layout.panel(0, std::to_string(d.unavailable.size()) + " windows, " + gp::seconds(total_ns, 1) +
                              " s in total, within the workload from " + gp::seconds(d.workload_start_ns, 1) + " s to " +
                              gp::seconds(d.workload_end_ns, 1) + " s; lines: operations per second",
                       true);
  body += "set ylabel 'operations/s'\nset yrange [0:*]\nset grid ytics lc rgb '#e0e0e0'\n" + gp::fault_shading(d);
  const double plot_px = kPlotWidthPx - kPlotLeftMarginPx - kPlotRightMarginPx;
  double free_px = -1e9;  // window labels left to right, never overlapping
  for (const TimeWindow& w : d.unavailable) {
    body += "set object rect from " + gp::seconds(w.start_ns) + ", graph 0 to " + gp::seconds(w.end_ns) +
            ", graph 1 fc rgb '" + gp::kUnavailableColour + "' fs transparent solid 0.28 noborder behind\n";
    const std::string text = gp::seconds(w.length_ns(), 1) + " s";
    const double at_px = static_cast<double>(w.start_ns) / static_cast<double>(d.end_ns) * plot_px;
    if (at_px < free_px) continue;
    free_px = at_px + static_cast<double>(text.size() * kLabelCharPx) + 4;
    body += "set label " + gp::quote(text) + " at " + gp::seconds(w.start_ns) +
            ", graph 0.95 left offset 0.3,0 font ',8' tc rgb '#8b0000' front\n";
  }
  body += layout.key();
  const std::string all_col = std::to_string(d.kinds.size() + 2), not_ok_col = std::to_string(d.kinds.size() + 3);
  std::string plot = "plot 'throughput.dat' using ($1+0.5):" + all_col + " with histeps lw 1.5 lc rgb 'black' title 'ok/s', \\\n"
                     "     '' using ($1+0.5):" + not_ok_col + " with histeps lw 1 dt 2 lc rgb '" + gp::kUnknownColour +
                     "' title 'failed + unknown/s', \\\n     " +
                     gp::keyentry_box(gp::kUnavailableColour, 0.4, "unavailable (>= 1 s, no ok op)") + ", " +
                     gp::keyentry_fault_window();
  body += (d.ok_per_bucket.empty() ? std::string("plot -1 notitle") : plot) + "\nunset multiplot\n";
  out.files.push_back({"unavailability.gp", gp::script("unavailability", "Windows of at least 1 s without a successful operation.",
                                                       kPlotWidthPx, layout.height(), body, png)});
  out.plots.push_back("unavailability");
}

}  // namespace dst::reports
