// See plot_gp.h.
#include "reports/plot_gp.h"

#include <algorithm>

#include "base/assert.h"
#include "reports/html_text.h"
#include "reports/plot_limits.h"

namespace dst::reports::gp {

std::string quote(std::string_view text) {
  std::string out = "'";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\'') {
      out += "''";
    } else if (c < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out + "'";
}

std::string seconds(int64_t ns, int decimals) { return fixed(static_cast<double>(ns) / 1e9, decimals); }
std::string millis(int64_t ns) { return fixed(static_cast<double>(ns) / 1e6, 3); }

const char* palette(size_t index) {
  // Distinguishable on white, in print and for the common colour-vision deficiencies (Tableau 10
  // plus two darker shades).
  static constexpr const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                                             "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1b4f72", "#7d6608"};
  return kColours[index % (sizeof kColours / sizeof kColours[0])];
}

std::string script(const std::string& name, const std::string& comment, int width_px, int height_px,
                   const std::string& body, PngTerminal png) {
  DST_ASSERT(width_px > 0 && height_px > 0);
  const std::string size = std::to_string(width_px) + "," + std::to_string(height_px);
  std::string s = "# " + comment + "\n# Written by `dst report`; run `gnuplot " + name + ".gp` in this directory to write " +
                  name + ".svg and " + name + ".png again.\n";
  s += "set terminal svg size " + size + " dynamic font 'sans,10' noenhanced background rgb 'white'\n";
  s += "set output '" + name + ".svg'\n" + body + "set output\n";
  if (png == PngTerminal::kPngCairo) {
    s += "set terminal pngcairo size " + size + " font 'sans,10' noenhanced background rgb 'white'\n";
  } else {
    // libgd's png: no cairo; truecolor for the translucent fault bands.
    s += "set terminal png size " + size + " truecolor noenhanced background rgb 'white'\n";
  }
  s += "set output '" + name + ".png'\n" + body + "set output\n";
  return s;
}

std::string panel(int frame_height_px, int top_px, int height_px) {
  DST_ASSERT(top_px >= 0 && height_px > 0 && top_px + height_px <= frame_height_px);
  const double h = frame_height_px;
  const std::string left = fixed(static_cast<double>(kPlotLeftMarginPx) / kPlotWidthPx, 4);
  const std::string right = fixed(1.0 - static_cast<double>(kPlotRightMarginPx) / kPlotWidthPx, 4);
  std::string s = "unset object\nunset label\nunset arrow\nunset logscale\nunset key\nunset title\n"
                  "unset xlabel\nunset ylabel\nunset y2tics\nunset y2label\nunset grid\n"
                  "set ytics nomirror autofreq scale default font ''\nset xtics nomirror\nset format x '%g'\nset format y '%g'\nset border 15\n";
  s += "set lmargin at screen " + left + "\nset rmargin at screen " + right + "\n";
  s += "set tmargin at screen " + fixed(1.0 - top_px / h, 4) + "\nset bmargin at screen " +
       fixed(1.0 - (top_px + height_px) / h, 4) + "\n";
  return s;
}

std::string time_axis(const RunPlotData& d, bool with_labels) {
  std::string s = "set xrange [0:" + seconds(d.end_ns) + "]\n";
  // About 20 major tics whatever the length of the run, on a round step.
  const int64_t span_s = std::max<int64_t>(1, d.end_ns / 1'000'000'000);
  int64_t step = 1;
  for (const int64_t candidate : {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600})
    if (span_s / candidate <= 20) {
      step = candidate;
      break;
    }
  s += "set xtics " + std::to_string(step) + " out\nset mxtics 2\n";
  if (with_labels) {
    s += "set xlabel 'virtual time (s)'\n";
  } else {
    s += "set format x ''\n";
  }
  return s;
}

std::string keyentry_points(int point_type, double point_size, const char* colour, const std::string& title) {
  return "keyentry with points pt " + std::to_string(point_type) + " ps " + fixed(point_size, 2) + " lc rgb '" +
         colour + "' title " + quote(title);
}

std::string keyentry_box(const char* colour, double alpha, const std::string& title) {
  return "keyentry with boxes fs transparent solid " + fixed(alpha, 2) + " noborder fc rgb '" + colour + "' title " +
         quote(title);
}

std::string keyentry_fault_window() { return keyentry_box(kFaultShadeColour, 0.5, "fault window"); }

std::vector<std::string> fault_lanes(const RunPlotData& d) {
  std::vector<std::string> lanes;
  for (const history::Fault& f : d.faults) {
    if (std::find(lanes.begin(), lanes.end(), f.kind) != lanes.end()) continue;
    if (lanes.size() == kFaultLanesMax) {
      lanes.back() = "other";
      break;
    }
    lanes.push_back(f.kind);
  }
  return lanes;
}

size_t fault_lane_of(const std::vector<std::string>& lanes, const std::string& kind) {
  DST_ASSERT(!lanes.empty());
  const auto it = std::find(lanes.begin(), lanes.end(), kind);
  if (it != lanes.end()) return static_cast<size_t>(it - lanes.begin());
  return lanes.size() - 1;  // "other"
}

namespace {

constexpr int kStripHeaderPx = 16;  // the strip's title line above its lanes

int64_t fault_end(const RunPlotData& d, const history::Fault& f) {
  return std::min(f.end_ns == history::kNeverReturned ? d.end_ns : f.end_ns, d.end_ns);
}

}  // namespace

int fault_strip_height(const RunPlotData& d) {
  if (d.faults.empty()) return 0;
  return kStripHeaderPx + static_cast<int>(fault_lanes(d).size()) * kFaultLanePx;
}

std::string fault_strip(const RunPlotData& d, int frame_height_px, int top_px, int* height_px) {
  *height_px = fault_strip_height(d);
  if (d.faults.empty()) return "";
  const std::vector<std::string> lanes = fault_lanes(d);
  const auto n = static_cast<double>(lanes.size());
  std::string s = panel(frame_height_px, top_px + kStripHeaderPx, *height_px - kStripHeaderPx);
  s += time_axis(d, false);
  s += "set yrange [0:" + fixed(n, 0) + "]\nset ytics scale 0 font ',8' (";
  for (size_t i = 0; i < lanes.size(); ++i)
    s += (i ? ", " : "") + quote(lanes[i]) + " " + fixed(n - static_cast<double>(i) - 0.5, 1);
  s += ")\nset grid noxtics noytics\n";
  // Labels are placed left to right in each lane where they do not run into the previous one.
  const double plot_px = kPlotWidthPx - kPlotLeftMarginPx - kPlotRightMarginPx;
  const double px_per_ns = plot_px / static_cast<double>(d.end_ns);
  std::vector<double> lane_free_px(lanes.size(), -1e9);
  size_t omitted = 0;
  for (const history::Fault& f : d.faults) {
    const size_t lane = fault_lane_of(lanes, f.kind);
    const double yc = n - static_cast<double>(lane) - 0.5;
    const std::string colour = palette(lane);
    const int64_t end = fault_end(d, f);
    if (end > f.start_ns)
      s += "set object rect from " + seconds(f.start_ns) + "," + fixed(yc - 0.36, 2) + " to " + seconds(end) + "," +
           fixed(yc + 0.36, 2) + " fc rgb '" + colour + "' fs transparent solid 0.30 noborder\n";
    s += "set arrow from " + seconds(f.start_ns) + "," + fixed(yc - 0.45, 2) + " to " + seconds(f.start_ns) + "," +
         fixed(yc + 0.45, 2) + " nohead lc rgb '" + colour + "' lw 2 front\n";
    const std::string text = truncate_text(
        lanes[lane] == f.kind ? (f.target.empty() ? f.kind : f.target) : f.kind + " " + f.target, kFaultLabelCharsMax);
    const double at_px = static_cast<double>(f.start_ns) * px_per_ns + 3;
    const double width_px = static_cast<double>(text.size() * kLabelCharPx);
    if (at_px < lane_free_px[lane] || at_px + width_px > plot_px + kPlotRightMarginPx) {
      ++omitted;
      continue;
    }
    lane_free_px[lane] = at_px + width_px + 4;
    s += "set label " + quote(text) + " at " + seconds(f.start_ns) + "," + fixed(yc, 2) +
         " left offset 0.4,0 font ',8' tc rgb '#222222' front\n";
  }
  std::string title = "faults: " + std::to_string(d.faults_total) + " (each lane one kind: a tick at the start, a bar over its window";
  if (omitted > 0) title += "; " + std::to_string(omitted) + " labels left out for room, see the fault table";
  if (d.faults.size() < d.faults_total) title += "; only the first " + std::to_string(d.faults.size()) + " drawn";
  title += ")";
  s += "set label " + quote(title) + " at graph 0, graph 1 left offset 0,0.7 font ',9' front\n";
  s += "plot -1 notitle\n";
  return s;
}

std::string fault_shading(const RunPlotData& d) {
  // The union of the windows, so that overlapping faults do not stack into an opaque band.
  std::vector<TimeWindow> windows;
  for (const history::Fault& f : d.faults) {
    const int64_t end = fault_end(d, f);
    if (end > f.start_ns) windows.push_back({f.start_ns, end});
  }
  std::sort(windows.begin(), windows.end(),
            [](const TimeWindow& a, const TimeWindow& b) { return a.start_ns < b.start_ns; });
  std::vector<TimeWindow> merged;
  for (const TimeWindow& w : windows) {
    if (!merged.empty() && w.start_ns <= merged.back().end_ns) {
      merged.back().end_ns = std::max(merged.back().end_ns, w.end_ns);
    } else {
      merged.push_back(w);
    }
  }
  std::string s;
  for (const TimeWindow& w : merged)
    s += "set object rect from " + seconds(w.start_ns) + ", graph 0 to " + seconds(w.end_ns) +
         ", graph 1 fc rgb '" + kFaultShadeColour + "' fs transparent solid 0.18 noborder behind\n";
  if (d.faults.empty()) return s;
  const std::vector<std::string> lanes = fault_lanes(d);
  for (const history::Fault& f : d.faults)
    s += "set arrow from " + seconds(f.start_ns) + ", graph 0 to " + seconds(f.start_ns) + ", graph 1 nohead lc rgb '" +
         palette(fault_lane_of(lanes, f.kind)) + "' dt 3 lw 1 back\n";
  return s;
}

}  // namespace dst::reports::gp
