// Pieces shared by the gnuplot scripts of the run report (plot_scripts.cc, plot_timeline.cc):
// quoting text for gnuplot, numbers, colours, the page frame (an SVG and a PNG from one body), the
// multiplot panel geometry, and the fault strip + fault shading every time plot carries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reports/plot_data.h"

namespace dst::reports::gp {

// A gnuplot single-quoted string: no escapes are processed inside, a quote is doubled; control
// characters become spaces (a label is one line).
std::string quote(std::string_view text);
// Virtual ns as seconds with `decimals` decimals (scripts: 3, data files: 6).
std::string seconds(int64_t ns, int decimals = 3);
// Virtual ns as milliseconds with 3 decimals.
std::string millis(int64_t ns);

// Colours: outcome marks, and one fixed colour per index (fault kinds, operation kinds), so the
// same kind has the same colour on every plot of a report.
inline constexpr const char* kOkColour = "#1f77b4";
inline constexpr const char* kFailedColour = "#7f7f7f";
inline constexpr const char* kUnknownColour = "#d62728";
inline constexpr const char* kFaultShadeColour = "#f4b183";
inline constexpr const char* kUnavailableColour = "#d62728";
const char* palette(size_t index);

enum class PngTerminal { kPngCairo, kPngGd };

// The whole script: the SVG terminal and `body`, then the PNG terminal and `body` again (a
// multiplot cannot be replotted), writing NAME.svg and NAME.png in the working directory.
std::string script(const std::string& name, const std::string& comment, int width_px, int height_px,
                   const std::string& body, PngTerminal png);

// A panel at [top_px, top_px + height_px) of a frame height_px tall: screen margins so that every
// panel of a plot shares the same x extent, plus the settings every panel starts from.
std::string panel(int frame_height_px, int top_px, int height_px);

// The fault strip: one lane per fault kind (kinds in order of first appearance), each fault a
// translucent bar over its window with a tick at its start and its target as a label when there
// is room (labels never overlap; the others are counted in the strip's title, and all are in
// the fault table). Returns its commands and, in `height_px`, the height it takes.
std::string fault_strip(const RunPlotData& d, int frame_height_px, int top_px, int* height_px);
// The height fault_strip() will take (so a frame can be sized before it is drawn).
int fault_strip_height(const RunPlotData& d);
// For a main panel: the union of the fault windows shaded, a dotted line at each fault's start in
// its kind's colour.
std::string fault_shading(const RunPlotData& d);
// The x axis every time plot shares: [0, end] seconds of virtual time.
std::string time_axis(const RunPlotData& d, bool with_labels);

// Legend entries without data (gnuplot's keyentry), for a key that lists every mark whether or
// not this panel has one.
std::string keyentry_points(int point_type, double point_size, const char* colour, const std::string& title);
std::string keyentry_box(const char* colour, double alpha, const std::string& title);
std::string keyentry_fault_window();

// The fault kinds in order of first appearance, capped at kFaultLanesMax (the last lane then
// holds every later kind: "other").
std::vector<std::string> fault_lanes(const RunPlotData& d);
size_t fault_lane_of(const std::vector<std::string>& lanes, const std::string& kind);

}  // namespace dst::reports::gp
