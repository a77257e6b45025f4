// The vertical layout of a time plot (a gnuplot multiplot): the title and legend rows, the fault
// strip, then the main panels stacked, each with a one-line title above it, sharing one x axis
// whose labels are on the bottom panel only. Pixel heights, turned into screen margins by gp::panel.
#pragma once

#include <string>
#include <vector>

#include "reports/plot_data.h"

namespace dst::reports {

class PlotLayout {
 public:
  // Main panels of the given heights (px, plot area only), top to bottom.
  PlotLayout(const RunPlotData& d, std::vector<int> panel_px);
  // `panels` panels of `panel_px` each.
  PlotLayout(const RunPlotData& d, int panels, int panel_px) : PlotLayout(d, std::vector<int>(panels, panel_px)) {}

  int height() const { return height_; }
  // Starts the multiplot with its title.
  std::string begin(const std::string& title) const;
  // The fault strip (empty text when the run had no faults).
  std::string strip() const;
  // Panel i: margins, the time axis (tic labels only on the last panel), its title line.
  std::string panel(int i, const std::string& title, bool last) const;
  // The legend, in the row under the title, right-aligned with the plots.
  std::string key() const;

 private:
  static constexpr int kTitlePx = 68;        // plot title and two legend rows
  static constexpr int kPanelTitlePx = 20;   // a panel's title line
  static constexpr int kStripGapPx = 6;
  static constexpr int kBottomPx = 56;       // x tic labels and the axis label

  const RunPlotData& d_;
  std::vector<int> panel_px_;
  std::vector<int> panel_top_px_;
  int strip_top_px_ = kTitlePx;
  int height_ = 0;
};

}  // namespace dst::reports
