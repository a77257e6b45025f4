// See plot_scripts.h: the latency, throughput and percentile plots, and make_plot_files.
#include "reports/plot_scripts.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/assert.h"
#include "reports/html_text.h"
#include "reports/plot_limits.h"
#include "reports/plot_layout.h"

namespace dst::reports {

namespace {

// One latency panel: a kind, or the rarest kinds together as "other".
struct LatencyPanel {
  std::string name;      // kind, or "other"
  std::string file;      // latency_<name>.dat
  KindStats stats;       // counts and percentiles (for "other": counts only)
  std::vector<LatencyPoint> points;  // by operation id
};

std::string file_safe(const std::string& kind) {
  std::string s;
  for (const char c : kind) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return s;
}

std::vector<LatencyPanel> latency_panels(const RunPlotData& d) {
  std::vector<size_t> order(d.kinds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // The busiest kinds get their own panel; ties by name (kinds are sorted by name already).
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return d.kinds[a].total() > d.kinds[b].total(); });
  std::vector<LatencyPanel> panels;
  for (size_t r = 0; r < order.size(); ++r) {
    const size_t k = order[r];
    if (r + 1 < kLatencyPanelsMax || order.size() <= kLatencyPanelsMax) {
      panels.push_back({d.kinds[k].kind, "latency_" + file_safe(d.kinds[k].kind) + ".dat", d.kinds[k], d.latency[k]});
      continue;
    }
    if (panels.size() < kLatencyPanelsMax) panels.push_back({"other", "latency_other.dat", KindStats{"other"}, {}});
    LatencyPanel& other = panels.back();
    other.stats.ok += d.kinds[k].ok;
    other.stats.failed += d.kinds[k].failed;
    other.stats.unknown += d.kinds[k].unknown;
    other.stats.never_returned += d.kinds[k].never_returned;
    other.points.insert(other.points.end(), d.latency[k].begin(), d.latency[k].end());
  }
  for (LatencyPanel& p : panels)
    std::sort(p.points.begin(), p.points.end(),
              [](const LatencyPoint& a, const LatencyPoint& b) { return a.op_id < b.op_id; });
  return panels;
}

int outcome_code(const LatencyPoint& p) {
  switch (p.outcome) {
    case history::Outcome::kOk: return 0;
    case history::Outcome::kFailed: return 1;
    case history::Outcome::kUnknown: return 2;
  }
  return 2;
}

// The panel's data; past kLatencyPointsPerPanelMax every unknown point (the rare, interesting
// ones) and every k-th ok and k-th failed point. Returns k (1: all points).
uint64_t latency_dat(const LatencyPanel& p, std::string& out) {
  const uint64_t unknown = p.stats.unknown;
  const uint64_t thinned = p.points.size() - std::min<uint64_t>(unknown, p.points.size());
  uint64_t stride = 1;
  if (p.points.size() > kLatencyPointsPerPanelMax) {
    const uint64_t room = kLatencyPointsPerPanelMax > unknown ? kLatencyPointsPerPanelMax - unknown : 1;
    stride = (thinned + room - 1) / room;
  }
  out = "# latency of " + p.name + " operations: op_id invoke_s latency_ms outcome never_returned\n"
        "# outcome: 0 ok, 1 failed, 2 unknown; never_returned 1: latency is up to the end of the run\n";
  if (stride > 1) out += "# every " + std::to_string(stride) + "th ok and failed operation only (all unknown ones)\n";
  uint64_t ok_seen = 0, failed_seen = 0;
  for (const LatencyPoint& q : p.points) {
    if (q.outcome == history::Outcome::kOk && ok_seen++ % stride != 0) continue;
    if (q.outcome == history::Outcome::kFailed && failed_seen++ % stride != 0) continue;
    out += std::to_string(q.op_id) + " " + gp::seconds(q.invoke_ns, 6) + " " + gp::millis(q.latency_ns) + " " +
           std::to_string(outcome_code(q)) + " " + (q.never_returned ? "1" : "0") + "\n";
  }
  return stride;
}

// The top of a log axis in ms: the decade above the largest value (at least 10 ms).
double log_top_ms(int64_t max_ns) {
  double top = 10;
  while (top < static_cast<double>(max_ns) / 1e6 * 1.3 && top < 1e12) top *= 10;
  return top;
}

std::string ms_text(int64_t ns) {
  const double ms = static_cast<double>(ns) / 1e6;
  return fixed(ms, ms >= 100 ? 0 : ms >= 10 ? 1 : 2) + " ms";
}

std::string panel_title(const LatencyPanel& p, uint64_t stride) {
  std::string t = p.name + ": " + std::to_string(p.stats.ok) + " ok, " + std::to_string(p.stats.failed) + " failed, " +
                  std::to_string(p.stats.unknown) + " unknown";
  if (p.stats.never_returned > 0) t += " (" + std::to_string(p.stats.never_returned) + " never returned)";
  if (p.name != "other" && p.stats.ok > 0) t += ";  ok p50 " + ms_text(p.stats.p50_ns) + ", p99 " + ms_text(p.stats.p99_ns);
  if (stride > 1) t += ";  1 in " + std::to_string(stride) + " ok and failed points drawn";
  return t;
}

std::string latency_series(const LatencyPanel& p) {
  const std::string f = gp::quote(p.file);
  const std::string y = "($3 < 0.01 ? 0.01 : $3)";  // kLatencyFloorNs
  std::vector<std::string> parts;
  bool any[4] = {false, false, false, false};
  for (const LatencyPoint& q : p.points) any[q.never_returned ? 3 : outcome_code(q)] = true;
  if (any[0]) parts.push_back(f + " using 2:($4==0 ? " + y + " : 1/0) with points pt 7 ps 0.35 lc rgb '" + gp::kOkColour + "' notitle");
  if (any[1]) parts.push_back(f + " using 2:($4==1 ? " + y + " : 1/0) with points pt 2 ps 0.5 lc rgb '" + gp::kFailedColour + "' notitle");
  if (any[2]) parts.push_back(f + " using 2:($4==2 && $5==0 ? " + y + " : 1/0) with points pt 6 ps 0.8 lw 1.5 lc rgb '" + gp::kUnknownColour + "' notitle");
  if (any[3]) parts.push_back(f + " using 2:($5==1 ? " + y + " : 1/0) with points pt 9 ps 0.9 lc rgb '" + gp::kUnknownColour + "' notitle");
  if (parts.empty()) parts.push_back("-1 notitle");
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", \\\n     " : "") + parts[i];
  return s;
}

}  // namespace

void add_latency_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out) {
  const std::vector<LatencyPanel> panels = latency_panels(d);
  const int panel_px = panels.size() <= 3 ? 200 : 150;
  PlotLayout layout(d, static_cast<int>(std::max<size_t>(1, panels.size())), panel_px);
  std::string body = layout.begin("Latency per operation kind over time, " + caption);
  body += layout.strip();
  std::string keys = gp::keyentry_points(7, 0.6, gp::kOkColour, "ok") + ", " +
                     gp::keyentry_points(2, 0.8, gp::kFailedColour, "failed") + ", " +
                     gp::keyentry_points(6, 1.0, gp::kUnknownColour, "unknown (at timeout)") + ", " +
                     gp::keyentry_points(9, 1.0, gp::kUnknownColour, "never returned") + ", " +
                     gp::keyentry_fault_window();
  int64_t max_ns = 0;
  for (const LatencyPanel& p : panels)
    for (const LatencyPoint& q : p.points) max_ns = std::max(max_ns, q.latency_ns);
  for (size_t i = 0; i < panels.size(); ++i) {
    std::string dat;
    const uint64_t stride = latency_dat(panels[i], dat);
    out.files.push_back({panels[i].file, dat});
    body += layout.panel(static_cast<int>(i), panel_title(panels[i], stride), i + 1 == panels.size());
    // The bottom sits below the 0.01 ms floor so that refusals drawn there stay visible.
    body += "set logscale y\nset yrange [0.005:" + fixed(log_top_ms(max_ns), 0) + "]\nset ylabel 'latency (ms)'\n";
    body += "set grid ytics lc rgb '#e0e0e0'\n";
    body += gp::fault_shading(d);
    body += i == 0 ? layout.key() : "";
    body += "plot " + latency_series(panels[i]) + (i == 0 ? ", \\\n     " + keys : "") + "\n";
  }
  if (panels.empty()) body += layout.panel(0, "no operations in this run", true) + "plot -1 notitle\n";
  body += "unset multiplot\n";
  out.files.push_back({"latency.gp", gp::script("latency", "Latency of each operation over time, by kind.",
                                                kPlotWidthPx, layout.height(), body, png)});
  out.plots.push_back("latency");
}

std::string throughput_dat(const RunPlotData& d) {
  std::string s = "# ok operations per second (by return time, 1 s buckets): bucket_start_s";
  for (const KindStats& k : d.kinds) s += " " + k.kind;
  s += " all_ok not_ok\n# not_ok: failed and unknown operations that returned in the bucket\n";
  for (size_t b = 0; b < d.ok_per_bucket.size(); ++b) {
    uint64_t all = 0;
    s += std::to_string(b);
    for (const uint64_t n : d.ok_per_bucket[b]) {
      s += " " + std::to_string(n);
      all += n;
    }
    s += " " + std::to_string(all) + " " + std::to_string(d.not_ok_per_bucket[b]) + "\n";
  }
  return s;
}

void add_throughput_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out) {
  out.files.push_back({"throughput.dat", throughput_dat(d)});
  PlotLayout layout(d, 1, 360);
  std::string body = layout.begin("Throughput (ok operations per second, 1 s buckets), " + caption);
  body += layout.strip();
  body += layout.panel(0, "ok operations per second by kind, all kinds together, and failed/unknown returns", true);
  body += "set ylabel 'operations/s'\nset yrange [0:*]\nset grid ytics lc rgb '#e0e0e0'\n";
  body += gp::fault_shading(d) + layout.key();
  const size_t all_col = d.kinds.size() + 2;
  std::string plot = "plot 'throughput.dat' using ($1+0.5):" + std::to_string(all_col) +
                     " with histeps lw 2 lc rgb 'black' title 'all ok'";
  for (size_t k = 0; k < d.kinds.size(); ++k)
    plot += ", \\\n     '' using ($1+0.5):" + std::to_string(k + 2) + " with histeps lw 1.5 lc rgb '" + gp::palette(k) +
            "' title " + gp::quote(d.kinds[k].kind);
  plot += ", \\\n     '' using ($1+0.5):" + std::to_string(all_col + 1) + " with histeps lw 1.5 dt 2 lc rgb '" +
          gp::kUnknownColour + "' title 'failed + unknown'";
  plot += ", \\\n     " + gp::keyentry_fault_window();
  body += (d.ok_per_bucket.empty() ? std::string("plot -1 notitle") : plot) + "\nunset multiplot\n";
  out.files.push_back({"throughput.gp", gp::script("throughput", "Ok operations per second over time, by kind.",
                                                   kPlotWidthPx, layout.height(), body, png)});
  out.plots.push_back("throughput");
}

std::string percentiles_dat(const RunPlotData& d) {
  std::string s = "# latency percentiles of ok operations (nearest rank), ms: kind ok p50_ms p90_ms p99_ms max_ms\n";
  std::vector<const KindStats*> rows;
  for (const KindStats& k : d.kinds) rows.push_back(&k);
  rows.push_back(&d.all);
  for (const KindStats* k : rows)
    s += k->kind + " " + std::to_string(k->ok) + " " + gp::millis(k->p50_ns) + " " + gp::millis(k->p90_ns) + " " +
         gp::millis(k->p99_ns) + " " + gp::millis(k->max_ns) + "\n";
  return s;
}

void add_percentile_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out) {
  out.files.push_back({"percentiles.dat", percentiles_dat(d)});
  const int height = 480;
  std::string body = "reset\nset multiplot title " +
                     gp::quote("Latency percentiles of ok operations per kind, " + caption) + " font ',12'\n";
  body += gp::panel(height, 60, height - 60 - 70);
  int64_t min_ns = 0, max_ns = 0;
  for (const KindStats& k : d.kinds) {
    if (k.ok == 0) continue;
    min_ns = min_ns == 0 ? k.p50_ns : std::min(min_ns, k.p50_ns);
    max_ns = std::max(max_ns, k.max_ns);
  }
  double bottom = 1;
  while (bottom > 0.001 && bottom * 1e6 > static_cast<double>(std::max<int64_t>(min_ns, kLatencyFloorNs))) bottom /= 10;
  const auto n = static_cast<double>(d.kinds.size() + 1);
  body += "set logscale y\nset yrange [" + fixed(bottom, 3) + ":" + fixed(log_top_ms(max_ns), 0) + "]\n";
  body += "set xrange [-0.6:" + fixed(n - 0.4, 1) + "]\nset ylabel 'latency (ms)'\nset grid ytics lc rgb '#e0e0e0'\n";
  body += "set boxwidth 0.19 absolute\nset style fill solid 0.85 border rgb '#404040'\nset xtics scale 0\n";
  body += "set key at screen " + fixed(1.0 - static_cast<double>(kPlotRightMarginPx) / kPlotWidthPx, 4) +
          ", screen " + fixed(1.0 - 30.0 / height, 4) + " right top horizontal reverse Left font ',9'\n";
  const char* names[] = {"p50", "p90", "p99", "max"};
  const char* colours[] = {"#9ecae1", "#4292c6", "#08519c", "#d62728"};
  std::string plot = "plot ";
  for (int j = 0; j < 4; ++j) {
    const std::string x = "($0 + " + fixed(-0.3 + 0.2 * j, 1) + ")";
    const std::string col = std::to_string(j + 3);
    const std::string y = "(column(" + col + ") > 0 ? column(" + col + ") : 1/0)";
    plot += std::string(j ? ", \\\n     " : "") + "'percentiles.dat' using " + x + ":" + y +
            (j == 0 ? ":xtic(sprintf(\"%s\\n%d ok\", strcol(1), column(2)))" : "") + " with boxes lc rgb '" +
            colours[j] + "' title '" + names[j] + "'";
    plot += ", \\\n     '' using " + x + ":" + y + ":(column(" + col + ") >= 100 ? sprintf('%.0f', column(" + col +
            ")) : sprintf('%.3g', column(" + col + "))) with labels offset 0,0.6 font ',7' notitle";
  }
  body += (d.kinds.empty() ? std::string("plot -1 notitle") : plot) + "\nunset multiplot\n";
  out.files.push_back({"percentiles.gp", gp::script("percentiles", "Latency percentiles (p50/p90/p99/max) of ok operations per kind.",
                                                    kPlotWidthPx, height, body, png)});
  out.plots.push_back("percentiles");
}

PlotSet make_plot_files(const RunPlotData& d, const std::string& caption, gp::PngTerminal png) {
  PlotSet out;
  add_latency_plot(d, caption, png, out);
  add_throughput_plot(d, caption, png, out);
  add_percentile_plot(d, caption, png, out);
  add_leader_plot(d, caption, png, out);
  add_unavailability_plot(d, caption, png, out);
  return out;
}

}  // namespace dst::reports
