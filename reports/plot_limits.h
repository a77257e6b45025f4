// Bounds and fixed choices of the run report's plots (reports/plot_data.h, plot_scripts.h). A
// report must render in seconds and stay readable however long the run, so everything drawn is
// capped; what is left out is said on the plot (and everything is in the tables and .dat files).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dst::reports {

// Throughput and unavailability are counted in 1 s buckets: finer shows client pacing noise,
// coarser hides a one-second outage.
inline constexpr int64_t kThroughputBucketNs = 1'000'000'000;
// A period this long without any successful operation is an unavailability window: shorter gaps
// happen in every healthy run between two requests of a slow client.
inline constexpr int64_t kUnavailableMinNs = 1'000'000'000;
// Latency is drawn on a log axis: a latency of 0 (a request refused without leaving the client,
// all at the same virtual instant) is drawn at this floor instead.
inline constexpr int64_t kLatencyFloorNs = 10'000;  // 0.01 ms
// Operation kinds with their own latency panel; the rarest kinds past this share one "other" panel.
inline constexpr size_t kLatencyPanelsMax = 8;
// Scatter points per latency panel: gnuplot and a browser handle this many; a longer run keeps
// every unknown point and every k-th ok and failed point (k said in the panel's title).
inline constexpr size_t kLatencyPointsPerPanelMax = 20'000;
// Fault kinds with their own lane in the fault strip; the rest share the last lane.
inline constexpr size_t kFaultLanesMax = 12;
// Faults drawn (bars, labels, shading); later ones are counted in the strip's title. A nemesis
// acting every ~700 ms makes ~90 faults a minute.
inline constexpr size_t kFaultsDrawnMax = 1000;
// Characters of a fault label in the strip (the full target is in the fault table).
inline constexpr size_t kFaultLabelCharsMax = 24;
// Throughput buckets: a day of virtual time at 1 s; a longer run is plotted up to here.
inline constexpr size_t kThroughputBucketsMax = 86'400;
// Rows of the fault table and the unavailability table in index.html / summary.md.
inline constexpr size_t kReportTableRowsMax = 500;

// Plot geometry in pixels (PNG; the SVG has the same size in its own units).
inline constexpr int kPlotWidthPx = 1200;
inline constexpr int kPlotLeftMarginPx = 110;   // room for the fault kind names and y labels
inline constexpr int kPlotRightMarginPx = 80;   // room for the y2 axis (term)
inline constexpr int kFaultLanePx = 18;          // one fault kind lane
inline constexpr int kLabelCharPx = 6;           // width of one character of a lane label (font 8)

}  // namespace dst::reports
