// How long a change took to reach the Kubernetes-style informers of a run (issue #8), for the run
// report: for every ADDED / MODIFIED / DELETED event an informer received on a WATCH stream
// (history/kube_history.h; bookmarks carry no change and are left out), three delays of the
// event's revision (its object's resourceVersion):
//
//   etcd -> cache       cached_ns - etcd_ns   (the serving apiserver's watch cache took it in)
//   cache -> informer   at_ns - cached_ns     (the informer received it)
//   etcd -> informer    at_ns - etcd_ns       (end to end)
//
// etcd_ns of a revision is the earliest moment the history shows etcd had it: the return of an
// ok write that created it (put, delete_range, txn whose response header carries it), or the
// arrival of an etcd watch response carrying an event of it (any recorded watch, the apiservers'
// own included), whichever came first. Events whose revision has no etcd time, or whose
// cached_ns is unknown (0), are skipped and counted.
//
// The delays are bucketed by the informer's arrival time into windows (1 s, coarser for a long
// run: at most kKubeDelayWindowsMax), each with p50 / p99 / max per series, plus whole-run
// percentiles. Percentiles are nearest rank (plot_data.h). Pure and deterministic; the plot
// (plots/kube_delay.gp, .dat) and the page sections are text, written by run_report_writer.cc.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/history.h"
#include "reports/plot_data.h"
#include "reports/plot_gp.h"
#include "reports/plot_scripts.h"

namespace dst::reports {

// Windows on the delay plot: one point per window and series; ~200 stay readable across the
// 1090 px plot (5 px apart) and keep the data file small whatever the run's length.
inline constexpr size_t kKubeDelayWindowsMax = 200;
// The smallest window: finer than 1 s, a window holds a handful of events and its p99 is their max.
inline constexpr int64_t kKubeDelayWindowMinNs = 1'000'000'000;

// The three series, in this order everywhere (arrays, columns, table rows).
enum class DelaySeries : uint8_t { kEtcdToCache = 0, kCacheToInformer = 1, kEtcdToInformer = 2 };
inline constexpr size_t kDelaySeriesCount = 3;
const char* delay_series_name(size_t series);  // "etcd -> cache", "cache -> informer", "etcd -> informer"

// One series over the whole run (nearest rank; all 0 when count is 0).
struct DelayStats {
  uint64_t count = 0;
  int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, max_ns = 0;
};

// The measured events whose informer arrival falls in [start_ns, start_ns + window_ns).
struct DelayWindow {
  int64_t start_ns = 0;
  uint64_t events = 0;  // >= 1: windows without a measured event are not listed
  std::array<int64_t, kDelaySeriesCount> p50_ns{}, p99_ns{}, max_ns{};
};

struct KubeDelays {
  // Every ADDED / MODIFIED / DELETED event of every informer watch = measured + the two skips.
  uint64_t events = 0;
  uint64_t measured = 0;
  uint64_t skipped_no_etcd_time = 0;   // no ok write and no etcd watch response has its revision
  uint64_t skipped_no_cache_time = 0;  // cached_ns == 0 (but the etcd time was known)
  // Measured delays that came out negative and were counted as 0, per series (see kube_delay.cc).
  std::array<uint64_t, kDelaySeriesCount> clamped{};
  int64_t window_ns = kKubeDelayWindowMinNs;
  int64_t last_at_ns = 0;             // the latest informer arrival of a measured event
  std::vector<DelayWindow> windows;   // by start; only windows with measured events
  std::array<DelayStats, kDelaySeriesCount> whole{};
};

// Revision -> the earliest time the history shows etcd had it (see the top of this file).
std::map<int64_t, int64_t> etcd_revision_times(const history::History& history);

// The window for a run whose last measured arrival is at `last_at_ns`: the smallest round length
// (1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 30 min, 1 h, then whole hours) that needs at most
// kKubeDelayWindowsMax windows from 0.
int64_t kube_delay_window_ns(int64_t last_at_ns);

// Everything above. Memory: one 32-byte sample per measured event (the history holding those
// events is larger).
KubeDelays compute_kube_delays(const history::History& history);

// plots/kube_delay.dat: one row per window (start_s mid_s events, then p50_ms p99_ms max_ms per
// series), a blank line where windows without events were left out (gnuplot breaks the lines there).
std::string kube_delay_dat(const KubeDelays& k);

// The plot "kube_delay" (kube_delay.dat and kube_delay.gp, its name appended to out.plots): the
// three series' p99 (solid) and p50 (dashed) per window over time, log scale in ms, with the fault
// strip and fault shading of every other time plot. The time axis is d's, stretched to a whole
// second past the last arrival when informer events came after everything else the run recorded.
void add_kube_delay_plot(const KubeDelays& k, const RunPlotData& d, const std::string& caption, gp::PngTerminal png,
                         PlotSet& out);

// index.html: the plot's <h3> (id "kube_delay"), explanation, image and links, and the whole-run
// table; meant to sit at the end of the page's Plots section.
std::string kube_delay_html(const KubeDelays& k);
// summary.md: a "### Kube event propagation delay (ms)" table and the counts.
std::string kube_delay_md(const KubeDelays& k);

}  // namespace dst::reports
