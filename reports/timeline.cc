// See timeline.h. Layout: fault labels in a few header rows, the time axis, then one lane per
// client/watch; bands are shaded over all lanes. Coordinates are printed with one decimal, so the
// output depends only on the model.
#include "reports/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/assert.h"
#include "reports/html_text.h"

namespace dst::reports {

namespace {

constexpr double kLeft = 110;        // lane names
// The time axis: at least this wide, wider when a lane is crowded (about kPixelsPerBar per bar
// of the busiest lane, so labels stay legible; the page scrolls sideways), never past the max.
constexpr double kPlotWidthMin = 1100;
constexpr double kPlotWidthMax = 4400;
constexpr double kPixelsPerBar = 110;
constexpr double kRight = 16;
constexpr double kBandRowHeight = 14;
constexpr size_t kBandRowsMax = 6;
constexpr double kAxisHeight = 22;
constexpr double kLaneHeight = 32;
constexpr double kBarTop = 13;  // within a lane: label above, bar, then the open-ended strip
constexpr double kBarHeight = 12;
constexpr double kCharWidth = 6.2;  // estimate for 10px monospace, to pack labels

struct Layout {
  int64_t ws, we;
  double plot_width = kPlotWidthMin;
  double right() const { return kLeft + plot_width; }
  double band_rows_height;
  double lanes_top;
  double height;
  double x(int64_t t) const {
    const double f = (static_cast<double>(t) - static_cast<double>(ws)) / static_cast<double>(we - ws);
    return kLeft + std::clamp(f, 0.0, 1.0) * plot_width;
  }
  double lane_top(size_t lane) const { return lanes_top + static_cast<double>(lane) * kLaneHeight; }
};

const char* band_color(const std::string& kind) {
  // A fixed palette by kind; anything else is gray.
  static const std::pair<const char*, const char*> kColors[] = {
      {"partition", "#e69138"}, {"crash", "#cc0000"},  {"power-loss", "#990000"}, {"pause", "#8e7cc3"},
      {"slow-fsync", "#3d85c6"}, {"fsync-error", "#0b5394"}, {"disk-full", "#134f5c"}, {"clock", "#6aa84f"},
  };
  for (const auto& [k, c] : kColors)
    if (kind.rfind(k, 0) == 0) return c;
  return "#777777";
}

std::string axis_label(int64_t t, int64_t step, bool seconds) {
  if (!seconds) return "#" + std::to_string(t);
  int decimals = step >= 1'000'000'000 ? 0 : step >= 100'000'000 ? 1 : step >= 10'000'000 ? 2 : step >= 1'000'000 ? 3 : 6;
  return fixed(static_cast<double>(t) / 1e9, decimals) + "s";
}

int64_t nice_step(int64_t span) {
  const double raw = static_cast<double>(span) / 8.0;
  int64_t p = 1;
  while (static_cast<double>(p) * 10 <= raw && p < (int64_t{1} << 58)) p *= 10;
  for (int64_t m : {1, 2, 5, 10})
    if (static_cast<double>(p * m) >= raw) return std::max<int64_t>(p * m, 1);
  return p * 10;
}

// A label clipped to [x, x + width) by a nested <svg> (which clips its content).
void clipped_text(std::string& out, double x, double y, double width, const std::string& cls, const std::string& text) {
  if (width < 8 || text.empty()) return;
  out += "<svg x=\"" + fixed(x) + "\" y=\"" + fixed(y) + "\" width=\"" + fixed(width) + "\" height=\"12\"><text x=\"1\" y=\"10\" stroke=\"none\" class=\"" +
         cls + "\"" + (cls == "lbl inv" ? " font-weight=\"bold\" fill=\"#900\"" : " fill=\"#222\"") + ">" + html_escape(text) + "</text></svg>";
}

void render_axis(std::string& out, const Timeline& t, const Layout& l) {
  const int64_t step = nice_step(t.window_end - t.window_start);
  int64_t first = t.window_start / step * step;
  if (first < t.window_start) first += step;
  const double y0 = l.lanes_top - kAxisHeight;
  for (int64_t v = first; v <= t.window_end; v += step) {
    const double x = l.x(v);
    out += "<line stroke=\"#e3e3e3\" x1=\"" + fixed(x) + "\" y1=\"" + fixed(y0 + 14) + "\" x2=\"" + fixed(x) + "\" y2=\"" +
           fixed(l.height) + "\"/>";
    out += "<text fill=\"#555\" x=\"" + fixed(x) + "\" y=\"" + fixed(y0 + 11) + "\" text-anchor=\"middle\">" +
           html_escape(axis_label(v, step, t.axis_in_seconds)) + "</text>";
  }
}

void render_bands(std::string& out, const Timeline& t, const Layout& l) {
  // Labels packed into header rows: a label goes to the first row where it does not overlap.
  std::vector<double> row_end(kBandRowsMax, -1e9);
  for (const TimelineBand& b : t.bands) {
    const double x0 = l.x(b.start), x1 = std::max(l.x(b.end), x0 + 2);
    const char* color = band_color(b.kind);
    out += "<rect class=\"band\" fill-opacity=\"0.13\" x=\"" + fixed(x0) + "\" y=\"" + fixed(l.lanes_top) + "\" width=\"" + fixed(x1 - x0) +
           "\" height=\"" + fixed(l.height - l.lanes_top) + "\" fill=\"" + color + "\"><title>" +
           html_escape(b.label) + "</title></rect>";
    const double text_width = static_cast<double>(b.label.size()) * kCharWidth + 6;
    size_t row = 0;
    while (row + 1 < kBandRowsMax && row_end[row] > x0) ++row;
    row_end[row] = std::max(x1, x0 + text_width);
    const double y = static_cast<double>(row) * kBandRowHeight + 1;
    out += "<rect x=\"" + fixed(x0) + "\" y=\"" + fixed(y) + "\" width=\"" + fixed(x1 - x0) + "\" height=\"" +
           fixed(kBandRowHeight - 2) + "\" fill=\"" + color + "\" opacity=\"0.35\"/>";
    out += "<text x=\"" + fixed(x0 + 2) + "\" y=\"" + fixed(y + 10) + "\">" + html_escape(b.label) +
           "</text>";
  }
}

void render_lanes(std::string& out, const Timeline& t, const Layout& l) {
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    const TimelineLane& lane = t.lanes[i];
    const double y = l.lane_top(i);
    out += "<rect fill=\"" + std::string(i % 2 ? "#f6f8fa" : "#ffffff") + "\" x=\"0\" y=\"" + fixed(y) + "\" width=\"" +
           fixed(l.right() + kRight) + "\" height=\"" + fixed(kLaneHeight) + "\"/>";
    out += "<text class=\"lname" + std::string(lane.highlighted ? " inv" : "") + (lane.watch ? " wl" : "") + "\" " +
           (lane.highlighted ? "font-weight=\"bold\" fill=\"#b00000\"" : lane.watch ? "fill=\"#5b3f99\"" : "fill=\"#222\"") +
           " font-size=\"11\" x=\"4\" y=\"" + fixed(y + 22) + "\"><title>" + html_escape(lane.title) + "</title>" +
           html_escape(lane.name) + "</text>";
  }
}

std::string bar_class(const TimelineBar& b) {
  std::string c = "bar";
  c += b.outcome == BarOutcome::kOk ? " ok" : b.outcome == BarOutcome::kFailed ? " failed" : " unknown";
  if (b.mark == Mark::kInvolved) c += " inv";
  if (b.mark == Mark::kContext) c += " ctx";
  return c;
}

// Colors as presentation attributes (not only CSS), so any SVG renderer draws them; the page's
// CSS only adds the hover highlight.
std::string bar_paint(const TimelineBar& b) {
  std::string fill = b.outcome == BarOutcome::kOk ? (b.mark == Mark::kInvolved ? "#f4a7a7" : "#9fc5e8")
                     : b.outcome == BarOutcome::kFailed ? "#d9d9d9"
                                                        : "url(#hatch)";
  if (b.mark == Mark::kInvolved) return "fill=\"" + fill + "\" stroke=\"#c00000\" stroke-width=\"2.2\"";
  if (b.mark == Mark::kContext)
    return "fill=\"" + fill + "\" stroke=\"#1c4587\" stroke-width=\"1.6\" stroke-dasharray=\"3 2\"";
  return "fill=\"" + fill + "\" stroke=\"#555\" stroke-width=\"0.6\"";
}

std::string tick_paint(const TimelineTick& t) {
  if (t.highlighted) return "stroke=\"#c00000\" fill=\"#c00000\" stroke-width=\"3\"";
  switch (t.kind) {
    case TickKind::kProgress: return "stroke=\"#999\" fill=\"#999\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"";
    case TickKind::kCanceled: return "stroke=\"#c00\" fill=\"#c00\" stroke-width=\"2.5\"";
    case TickKind::kCreated: return "stroke=\"#38761d\" fill=\"#38761d\" stroke-width=\"1.5\"";
    case TickKind::kSegmentBroken: return "stroke=\"#c00\" fill=\"none\" stroke-width=\"2\"";
    default: return "stroke=\"#674ea7\" fill=\"#674ea7\" stroke-width=\"1.5\"";
  }
}

void render_bars(std::string& out, const Timeline& t, const Layout& l) {
  // Per lane, in start order, so a label can run up to the next bar of its lane.
  std::vector<size_t> order(t.bars.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TimelineBar &x = t.bars[a], &y = t.bars[b];
    return x.lane != y.lane ? x.lane < y.lane : x.start != y.start ? x.start < y.start : x.id < y.id;
  });
  const double right = l.right();
  for (size_t k = 0; k < order.size(); ++k) {
    const TimelineBar& b = t.bars[order[k]];
    DST_ASSERT(b.lane < t.lanes.size());
    const double top = l.lane_top(b.lane);
    const double x0 = l.x(b.start);
    const double x_end = b.end_known ? l.x(b.end) : right;
    const double x1 = std::max(b.open_right ? x_end : l.x(b.end), x0 + 2);
    const std::string id = std::to_string(b.id);
    out += "<g class=\"" + bar_class(b) + "\" data-op=\"" + id + "\"><title>" + html_escape(b.tooltip) + "</title>";
    out += "<rect " + bar_paint(b) + " x=\"" + fixed(x0) + "\" y=\"" + fixed(top + kBarTop) + "\" width=\"" +
           fixed(x1 - x0) + "\" height=\"" + fixed(kBarHeight) + "\"/>";
    if (b.open_right) {
      // It may take effect any time later: a hatched strip on to the right edge, below the bars.
      const double s0 = std::max(x1, x0 + 2);
      if (right - s0 > 0.5)
        out += "<rect class=\"open\" fill=\"url(#hatch)\" x=\"" + fixed(s0) + "\" y=\"" + fixed(top + kBarTop + kBarHeight + 1) +
               "\" width=\"" + fixed(right - s0) + "\" height=\"4\"/>";
    }
    double label_end = right;
    if (k + 1 < order.size() && t.bars[order[k + 1]].lane == b.lane) label_end = l.x(t.bars[order[k + 1]].start);
    if (b.mark != Mark::kInvolved) clipped_text(out, x0, top + 1, std::max(label_end - x0 - 2, x1 - x0), "lbl", b.label);
    out += "</g>";
  }
  // The involved operations' labels in full, over their neighbours' (a white backing keeps them legible).
  for (const TimelineBar& b : t.bars) {
    if (b.mark != Mark::kInvolved || b.label.empty()) continue;
    const double top = l.lane_top(b.lane), x0 = std::min(l.x(b.start), right - 40);
    const double w = static_cast<double>(b.label.size()) * kCharWidth + 4;
    out += "<g><rect x=\"" + fixed(x0) + "\" y=\"" + fixed(top + 1) +
           "\" width=\"" + fixed(w) + "\" height=\"11\" fill=\"#ffffff\" fill-opacity=\"0.85\"/><text x=\"" +
           fixed(x0 + 1) + "\" y=\"" + fixed(top + 10) + "\" font-weight=\"bold\" fill=\"#900\">" +
           html_escape(b.label) + "</text></g>";
  }
}

void render_ticks(std::string& out, const Timeline& t, const Layout& l) {
  std::vector<size_t> order(t.ticks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TimelineTick &x = t.ticks[a], &y = t.ticks[b];
    return x.lane != y.lane ? x.lane < y.lane : x.at < y.at;
  });
  static const char* kClass[] = {"ev", "prog", "created", "cancel", "segstart", "broken"};
  const double right = l.right();
  for (size_t k = 0; k < order.size(); ++k) {
    const TimelineTick& tk = t.ticks[order[k]];
    DST_ASSERT(tk.lane < t.lanes.size());
    const double top = l.lane_top(tk.lane), x = l.x(tk.at);
    std::string cls = std::string("tick ") + kClass[static_cast<int>(tk.kind)] + (tk.highlighted ? " inv" : "");
    out += "<g class=\"" + cls + "\" " + tick_paint(tk) + "><title>" + html_escape(tk.tooltip) + "</title>";
    if (tk.kind == TickKind::kSegmentStart) {
      out += "<circle cx=\"" + fixed(x) + "\" cy=\"" + fixed(top + kBarTop + 6) + "\" r=\"3.5\"/>";
    } else if (tk.kind == TickKind::kSegmentBroken) {
      out += "<path d=\"M" + fixed(x - 4) + " " + fixed(top + kBarTop + 2) + "l8 8m0 -8l-8 8\"/>";
    } else {
      out += "<line x1=\"" + fixed(x) + "\" y1=\"" + fixed(top + kBarTop - 1) + "\" x2=\"" + fixed(x) + "\" y2=\"" +
             fixed(top + kBarTop + kBarHeight + 3) + "\"/>";
    }
    double label_end = right;
    if (k + 1 < order.size() && t.ticks[order[k + 1]].lane == tk.lane) label_end = l.x(t.ticks[order[k + 1]].at);
    clipped_text(out, x, top + 1, label_end - x - 1, tk.highlighted ? "lbl inv" : "lbl", tk.label);
    out += "</g>";
  }
}

}  // namespace

std::string render_timeline_svg(const Timeline& t) {
  DST_ASSERT(t.window_end > t.window_start);
  Layout l;
  l.ws = t.window_start;
  l.we = t.window_end;
  size_t band_rows = std::min(t.bands.size(), kBandRowsMax);
  l.band_rows_height = static_cast<double>(band_rows) * kBandRowHeight;
  l.lanes_top = l.band_rows_height + kAxisHeight;
  l.height = l.lanes_top + static_cast<double>(t.lanes.size()) * kLaneHeight + 4;
  std::vector<size_t> bars_per_lane(t.lanes.size());
  for (const TimelineBar& b : t.bars) ++bars_per_lane.at(b.lane);
  const size_t busiest = bars_per_lane.empty() ? 0 : *std::max_element(bars_per_lane.begin(), bars_per_lane.end());
  l.plot_width = std::clamp(static_cast<double>(busiest) * kPixelsPerBar, kPlotWidthMin, kPlotWidthMax);
  const double width = l.right() + kRight;
  std::string out;
  out.reserve(64 * 1024);
  out += "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"monospace\" font-size=\"10\" viewBox=\"0 0 " + fixed(width) + " " +
         fixed(l.height) + "\" width=\"" + fixed(width) + "\" height=\"" + fixed(l.height) + "\">";
  out += "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fce5cd\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#e69138\" stroke-width=\"3\"/></pattern></defs>";
  render_lanes(out, t, l);
  render_axis(out, t, l);
  render_bands(out, t, l);
  render_bars(out, t, l);
  render_ticks(out, t, l);
  if (t.marker_at >= t.window_start && t.marker_at <= t.window_end) {
    const double x = l.x(t.marker_at);
    out += "<g class=\"marker\" stroke=\"#c00000\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"><title>" + html_escape(t.marker_label) + "</title><line x1=\"" + fixed(x) + "\" y1=\"" +
           fixed(l.lanes_top - 8) + "\" x2=\"" + fixed(x) + "\" y2=\"" + fixed(l.height) + "\"/></g>";
  }
  out += "</svg>";
  return out;
}

const char* report_css() {
  return R"CSS(
body{font:14px/1.4 system-ui,sans-serif;margin:16px 20px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 6px} h2{font-size:16px;margin:22px 0 6px}
.rule{font-family:monospace;background:#fde8e8;color:#900;padding:1px 6px;border-radius:3px}
.expl{max-width:1100px} .meta{color:#555;font-size:13px}
.legend{font-size:12px;color:#444;margin:6px 0} .legend span{display:inline-block;margin-right:14px}
.sw{display:inline-block;width:22px;height:10px;vertical-align:middle;margin-right:4px;border:1px solid #888}
.scroll{overflow-x:auto;border:1px solid #ddd}
.hl rect{stroke:#000 !important;stroke-width:3 !important} tr.hl td{background:#fff2cc}
table{border-collapse:collapse;font:12px monospace;margin:4px 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;max-width:520px;overflow-wrap:anywhere}
th{background:#f3f3f3} td.ok{color:#1a5c1a} td.failed{color:#666} td.unknown{color:#b45f06}
pre{background:#f7f7f7;border:1px solid #ddd;padding:8px;font-size:12px;overflow-x:auto;white-space:pre-wrap}
body.only-inv .bar:not(.inv):not(.ctx){opacity:.15}
)CSS";
}

const char* report_script() {
  // Hovering a bar or a table row highlights both (same data-op); a checkbox dims the others.
  return R"JS(
(function(){
  function mark(id,on){document.querySelectorAll('[data-op="'+id+'"]').forEach(function(e){e.classList.toggle('hl',on);});}
  document.querySelectorAll('[data-op]').forEach(function(e){
    e.addEventListener('mouseenter',function(){mark(e.getAttribute('data-op'),true);});
    e.addEventListener('mouseleave',function(){mark(e.getAttribute('data-op'),false);});
  });
  var cb=document.getElementById('only-inv');
  if(cb)cb.addEventListener('change',function(){document.body.classList.toggle('only-inv',cb.checked);});
})();
)JS";
}

}  // namespace dst::reports
