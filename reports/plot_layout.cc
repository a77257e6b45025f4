// See plot_layout.h.
#include "reports/plot_layout.h"

#include <utility>

#include "base/assert.h"
#include "reports/html_text.h"
#include "reports/plot_gp.h"
#include "reports/plot_limits.h"

namespace dst::reports {

PlotLayout::PlotLayout(const RunPlotData& d, std::vector<int> panel_px) : d_(d), panel_px_(std::move(panel_px)) {
  DST_ASSERT(!panel_px_.empty());
  int y = kTitlePx;
  const int strip = gp::fault_strip_height(d);
  if (strip > 0) y += strip + kStripGapPx;
  for (const int h : panel_px_) {
    DST_ASSERT(h > 0);
    y += kPanelTitlePx;
    panel_top_px_.push_back(y);
    y += h;
  }
  height_ = y + kBottomPx;
}

std::string PlotLayout::begin(const std::string& title) const {
  return "reset\nset multiplot title " + gp::quote(title) + " font ',12'\n";
}

std::string PlotLayout::strip() const {
  int used = 0;
  std::string s = gp::fault_strip(d_, height_, strip_top_px_, &used);
  DST_ASSERT_EQ(used, gp::fault_strip_height(d_));
  return s;
}

std::string PlotLayout::panel(int i, const std::string& title, bool last) const {
  DST_ASSERT(i >= 0 && static_cast<size_t>(i) < panel_px_.size());
  std::string s = gp::panel(height_, panel_top_px_[i], panel_px_[i]);
  s += gp::time_axis(d_, last);
  s += "set label " + gp::quote(title) + " at graph 0, graph 1 left offset 0,0.65 font ',9' front\n";
  return s;
}

std::string PlotLayout::key() const {
  const double right = 1.0 - static_cast<double>(kPlotRightMarginPx) / kPlotWidthPx;
  return "set key at screen " + fixed(right, 4) + ", screen " + fixed(1.0 - 26.0 / height_, 4) +
         " right top horizontal reverse Left font ',9' samplen 2 width 1\n";
}

}  // namespace dst::reports
