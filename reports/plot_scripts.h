// The run report's plots as files: the data (.dat, whitespace-separated columns with a commented
// header, readable by gnuplot, awk or a spreadsheet) and one gnuplot script per plot (NAME.gp,
// writing NAME.svg and NAME.png), all meant for one directory (report/plots/). Pure text, the same
// bytes for the same run; plot_render.h runs gnuplot on them.
//
// The plots (docs/report.md): latency over time per operation kind, throughput over time,
// latency percentiles per kind, the leader/term timeline, unavailability windows. Every time plot
// has the fault strip on top (one lane per fault kind, labelled) and the fault windows shaded.
#pragma once

#include <string>
#include <vector>

#include "reports/plot_data.h"
#include "reports/plot_gp.h"

namespace dst::reports {

struct PlotFile {
  std::string name;  // a file name, no directory: "latency.gp", "throughput.dat"
  std::string content;
};

struct PlotSet {
  std::vector<PlotFile> files;     // data files and scripts
  std::vector<std::string> plots;  // plot names: each has NAME.gp, renders NAME.svg and NAME.png
};

// Every plot. `caption` names the run in each title ("dst run etcd, seed 3").
PlotSet make_plot_files(const RunPlotData& d, const std::string& caption, gp::PngTerminal png);

// The pieces, one plot each (plot_scripts.cc; the leader and unavailability plots in plot_timeline.cc).
void add_latency_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out);
void add_throughput_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out);
void add_percentile_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out);
void add_leader_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out);
void add_unavailability_plot(const RunPlotData& d, const std::string& caption, gp::PngTerminal png, PlotSet& out);

// The data files alone (also used by the tests to check the numbers).
std::string throughput_dat(const RunPlotData& d);
std::string percentiles_dat(const RunPlotData& d);
std::string unavailable_dat(const RunPlotData& d);

}  // namespace dst::reports
