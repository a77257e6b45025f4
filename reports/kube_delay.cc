// See kube_delay.h: the propagation delays of the informers' watch events, their windows and
// whole-run percentiles, and the plot, page section and summary table that show them.
#include "reports/kube_delay.h"

#include <algorithm>

#include "base/assert.h"
#include "reports/html_text.h"
#include "reports/plot_layout.h"
#include "reports/plot_limits.h"

namespace dst::reports {

namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

// Series colours: not the fault shading's orange; the end-to-end series black, as the one that
// matters most (it is the sum of the other two).
constexpr const char* kSeriesColour[kDelaySeriesCount] = {"#4e79a7", "#59a14f", "#222222"};

// Whether an ok txn changed anything: a put ran, a delete removed a key, or a nested txn did. A
// write that changed nothing (a delete of absent keys, a read-only txn, a failed compare with a
// read-only else) creates no revision; its header carries the store's current one.
bool txn_wrote(const etcdserverpb::TxnResponse& resp) {
  for (const etcdserverpb::ResponseOp& r : resp.responses()) {
    if (r.has_response_put()) return true;
    if (r.has_response_delete_range() && r.response_delete_range().deleted() > 0) return true;
    if (r.has_response_txn() && txn_wrote(r.response_txn())) return true;
  }
  return false;
}

// The revision an ok write created (0: none), as checker/watch/truth.cc reads it.
int64_t created_revision(const history::Operation& op) {
  if (op.outcome != history::Outcome::kOk || op.response.has_error() || op.return_ns == history::kNeverReturned)
    return 0;
  const etcdserverpb::ApiRequest& req = op.request;
  const etcdserverpb::ApiResponse& resp = op.response;
  if (req.has_put() && resp.has_put()) return resp.put().header().revision();
  if (req.has_delete_range() && resp.has_delete_range())
    return resp.delete_range().deleted() > 0 ? resp.delete_range().header().revision() : 0;
  if (req.has_txn() && resp.has_txn()) return txn_wrote(resp.txn()) ? resp.txn().header().revision() : 0;
  return 0;
}

void note_earliest(std::map<int64_t, int64_t>& times, int64_t revision, int64_t at_ns) {
  if (revision <= 0) return;
  auto [it, inserted] = times.emplace(revision, at_ns);
  if (!inserted) it->second = std::min(it->second, at_ns);
}

struct Sample {
  int64_t at_ns = 0;
  std::array<int64_t, kDelaySeriesCount> delay_ns{};
};

// The measured events' samples, and the counts of everything seen and skipped.
std::vector<Sample> collect_samples(const history::History& h, KubeDelays& k) {
  const std::map<int64_t, int64_t> etcd_ns = etcd_revision_times(h);
  std::vector<Sample> samples;
  for (const history::Informer& informer : h.informers) {
    for (const history::KubeWatch& watch : informer.watches) {
      for (const history::KubeWatchEvent& e : watch.events) {
        if (e.type == history::KubeWatchEvent::Type::kBookmark) continue;
        ++k.events;
        const auto etcd = etcd_ns.find(e.object.resource_version);
        if (etcd == etcd_ns.end()) {
          ++k.skipped_no_etcd_time;
          continue;
        }
        if (e.cached_ns == 0) {
          ++k.skipped_no_cache_time;
          continue;
        }
        Sample s;
        s.at_ns = e.at_ns;
        s.delay_ns = {e.cached_ns - etcd->second, e.at_ns - e.cached_ns, e.at_ns - etcd->second};
        // Everything runs on one virtual clock, so no delay is negative by clock skew. But a
        // write's etcd time is when its client heard the ack, and the ack can arrive after the
        // watch cache (or even the informer) already had the event: a slow or cut return path, a
        // paused client. Then etcd had the revision earlier than we can show; the delay is at
        // most 0 and is counted as 0 (how often is in `clamped`), not as a negative number.
        for (size_t i = 0; i < kDelaySeriesCount; ++i) {
          if (s.delay_ns[i] >= 0) continue;
          s.delay_ns[i] = 0;
          ++k.clamped[i];
        }
        samples.push_back(s);
      }
    }
  }
  k.measured = samples.size();
  DST_ASSERT_EQ(k.events, k.measured + k.skipped_no_etcd_time + k.skipped_no_cache_time);
  return samples;
}

// The samples of one window, p50 / p99 / max per series.
DelayWindow window_of(int64_t start_ns, std::vector<Sample>::const_iterator begin,
                      std::vector<Sample>::const_iterator end) {
  DelayWindow w;
  w.start_ns = start_ns;
  w.events = static_cast<uint64_t>(end - begin);
  std::vector<int64_t> values;
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    values.clear();
    for (auto it = begin; it != end; ++it) values.push_back(it->delay_ns[i]);
    std::sort(values.begin(), values.end());
    w.p50_ns[i] = percentile_nearest_rank(values, 500);
    w.p99_ns[i] = percentile_nearest_rank(values, 990);
    w.max_ns[i] = percentile_nearest_rank(values, 1000);
  }
  return w;
}

std::string ms_text(int64_t ns) {
  const double ms = static_cast<double>(ns) / 1e6;
  return fixed(ms, ms >= 100 ? 0 : ms >= 10 ? 1 : 2) + " ms";
}

// "1 s", "5 min", "2 h": a window length as its round value.
std::string window_text(int64_t ns) {
  const int64_t s = ns / kSecondNs;
  if (s % 3600 == 0) return std::to_string(s / 3600) + " h";
  if (s % 60 == 0) return std::to_string(s / 60) + " min";
  return std::to_string(s) + " s";
}

}  // namespace

const char* delay_series_name(size_t series) {
  static constexpr const char* kNames[kDelaySeriesCount] = {"etcd -> cache", "cache -> informer", "etcd -> informer"};
  DST_ASSERT(series < kDelaySeriesCount);
  return kNames[series];
}

std::map<int64_t, int64_t> etcd_revision_times(const history::History& history) {
  std::map<int64_t, int64_t> times;
  for (const history::Operation& op : history.operations) note_earliest(times, created_revision(op), op.return_ns);
  for (const history::Watch& w : history.watches)
    for (const history::WatchSegment& seg : w.segments)
      for (const history::WatchResponse& r : seg.responses)
        for (const mvccpb::Event& e : r.response.events()) note_earliest(times, e.kv().mod_revision(), r.at_ns);
  return times;
}

int64_t kube_delay_window_ns(int64_t last_at_ns) {
  static_assert(kKubeDelayWindowMinNs == kSecondNs, "the candidates below start at 1 s");
  const auto windows_max = static_cast<int64_t>(kKubeDelayWindowsMax);
  const int64_t last = std::max<int64_t>(0, last_at_ns);
  // Windows start at 0; [0, last] needs last / w + 1 of them: at most windows_max iff last < w * windows_max.
  for (const int64_t s : {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600})
    if (last / windows_max < s * kSecondNs) return s * kSecondNs;
  const int64_t hour = 3600 * kSecondNs;
  return (last / (hour * windows_max) + 1) * hour;
}

KubeDelays compute_kube_delays(const history::History& history) {
  KubeDelays k;
  std::vector<Sample> samples = collect_samples(history, k);
  for (const Sample& s : samples) k.last_at_ns = std::max(k.last_at_ns, s.at_ns);
  k.window_ns = kube_delay_window_ns(k.last_at_ns);
  const auto window_start = [&](const Sample& s) { return std::max<int64_t>(0, s.at_ns) / k.window_ns * k.window_ns; };
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return a.at_ns < b.at_ns; });
  for (auto begin = samples.cbegin(); begin != samples.cend();) {
    const int64_t start = window_start(*begin);
    auto end = begin;
    while (end != samples.cend() && window_start(*end) == start) ++end;
    k.windows.push_back(window_of(start, begin, end));
    begin = end;
  }
  DST_ASSERT(k.windows.size() <= kKubeDelayWindowsMax);
  std::vector<int64_t> values;
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    values.clear();
    for (const Sample& s : samples) values.push_back(s.delay_ns[i]);
    std::sort(values.begin(), values.end());
    DelayStats& st = k.whole[i];
    st.count = values.size();
    st.p50_ns = percentile_nearest_rank(values, 500);
    st.p90_ns = percentile_nearest_rank(values, 900);
    st.p99_ns = percentile_nearest_rank(values, 990);
    st.max_ns = percentile_nearest_rank(values, 1000);
  }
  return k;
}

std::string kube_delay_dat(const KubeDelays& k) {
  std::string s = "# informer watch event propagation delay per " + window_text(k.window_ns) +
                  " window of informer arrival (nearest-rank percentiles, ms): start_s mid_s events";
  for (const char* series : {"etcd_cache", "cache_informer", "etcd_informer"})
    for (const char* q : {"p50_ms", "p99_ms", "max_ms"}) s += std::string(" ") + series + "_" + q;
  s += "\n# " + std::to_string(k.measured) + " of " + std::to_string(k.events) + " events measured; skipped: " +
       std::to_string(k.skipped_no_etcd_time) + " without an etcd time, " + std::to_string(k.skipped_no_cache_time) +
       " without a cache time; windows without events are left out (a blank line)\n";
  int64_t next_start = 0;
  for (const DelayWindow& w : k.windows) {
    if (w.start_ns != next_start && &w != &k.windows.front()) s += "\n";
    next_start = w.start_ns + k.window_ns;
    s += gp::seconds(w.start_ns, 6) + " " + gp::seconds(w.start_ns + k.window_ns / 2, 6) + " " +
         std::to_string(w.events);
    for (size_t i = 0; i < kDelaySeriesCount; ++i)
      s += " " + gp::millis(w.p50_ns[i]) + " " + gp::millis(w.p99_ns[i]) + " " + gp::millis(w.max_ns[i]);
    s += "\n";
  }
  return s;
}

namespace {

// The plot's time frame: the run's (the same x axis as every other plot), stretched to a whole
// second past the last window's midpoint if informer events came after everything else. Only the
// fields PlotLayout and the fault strip/shading read are set.
RunPlotData time_frame(const KubeDelays& k, const RunPlotData& d) {
  RunPlotData f;
  f.end_ns = d.end_ns;
  if (!k.windows.empty()) {
    const int64_t last_mid = k.windows.back().start_ns + k.window_ns / 2;
    f.end_ns = std::max(f.end_ns, (last_mid / kSecondNs + 1) * kSecondNs);
  }
  f.faults = d.faults;
  f.faults_total = d.faults_total;
  return f;
}

std::string plot_panel_title(const KubeDelays& k) {
  const uint64_t skipped = k.skipped_no_etcd_time + k.skipped_no_cache_time;
  if (k.measured == 0)
    return "no informer watch event could be measured: " + std::to_string(k.events) + " events, " +
           std::to_string(k.skipped_no_etcd_time) + " without an etcd time, " +
           std::to_string(k.skipped_no_cache_time) + " without a cache time";
  // One line across the plot (~165 characters at most): the series' names without spaces.
  std::string t = window_text(k.window_ns) + " windows by informer arrival: " + std::to_string(k.measured) +
                  " events measured";
  if (skipped > 0) t += ", " + std::to_string(skipped) + " skipped (no etcd or cache time)";
  t += ";  run p99:";
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    std::string name = delay_series_name(i);
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    t += std::string(i ? "," : "") + " " + name + " " + ms_text(k.whole[i].p99_ns);
  }
  return t;
}

// Log axis bounds in ms: a decade below the smallest p50 drawn (0.01 ms floor), the decade above
// the largest p99.
std::string y_range(const KubeDelays& k) {
  int64_t min_ns = -1, max_ns = 0;
  for (const DelayWindow& w : k.windows)
    for (size_t i = 0; i < kDelaySeriesCount; ++i) {
      const int64_t lo = std::max(w.p50_ns[i], kLatencyFloorNs);
      min_ns = min_ns < 0 ? lo : std::min(min_ns, lo);
      max_ns = std::max(max_ns, w.p99_ns[i]);
    }
  const double min_ms = static_cast<double>(std::max<int64_t>(min_ns, kLatencyFloorNs)) / 1e6;
  double bottom = 1;
  while (bottom > 0.005 && bottom >= min_ms) bottom /= 10;
  double top = 10;
  while (top < static_cast<double>(max_ns) / 1e6 * 1.3 && top < 1e12) top *= 10;
  return "[" + fixed(bottom, 3) + ":" + fixed(top, 0) + "]";
}

std::string series_lines(const KubeDelays& k) {
  if (k.windows.empty()) return "-1 notitle";
  std::string s;
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    const std::string p50 = std::to_string(4 + 3 * i), p99 = std::to_string(5 + 3 * i);
    const std::string colour = kSeriesColour[i], name = delay_series_name(i);
    // Delays of 0 (clamped, or within the same virtual instant) at the 0.01 ms floor of the log axis.
    const auto y = [](const std::string& col) { return "($" + col + " < 0.01 ? 0.01 : $" + col + ")"; };
    s += std::string(i ? ", \\\n     " : "") + (i ? "''" : "'kube_delay.dat'") + " using 2:" + y(p99) +
         " with linespoints pt 7 ps 0.35 lw 2 lc rgb '" + colour + "' title " + gp::quote(name + " p99");
    s += ", \\\n     '' using 2:" + y(p50) + " with linespoints pt 6 ps 0.35 lw 1.2 dt 2 lc rgb '" + colour +
         "' title " + gp::quote(name + " p50");
  }
  return s;
}

}  // namespace

void add_kube_delay_plot(const KubeDelays& k, const RunPlotData& d, const std::string& caption, gp::PngTerminal png,
                         PlotSet& out) {
  out.files.push_back({"kube_delay.dat", kube_delay_dat(k)});
  const RunPlotData frame = time_frame(k, d);
  PlotLayout layout(frame, 1, 320);
  std::string body = layout.begin("Kube event propagation delay, etcd -> watch cache -> informer, " + caption);
  body += layout.strip();
  body += layout.panel(0, plot_panel_title(k), true);
  if (k.windows.empty()) {
    body += "set yrange [0:1]\nset ylabel 'delay (ms)'\n" + gp::fault_shading(frame) + "plot -1 notitle\n";
  } else {
    body += "set logscale y\nset yrange " + y_range(k) + "\nset ylabel 'delay (ms)'\nset grid ytics lc rgb '#e0e0e0'\n";
    body += gp::fault_shading(frame) + layout.key();
    body += "plot " + series_lines(k) + ", \\\n     " + gp::keyentry_fault_window() + "\n";
  }
  body += "unset multiplot\n";
  out.files.push_back({"kube_delay.gp", gp::script("kube_delay",
                                                   "Propagation delay of the informers' watch events: etcd -> watch "
                                                   "cache -> informer, p99 and p50 per window.",
                                                   kPlotWidthPx, layout.height(), body, png)});
  out.plots.push_back("kube_delay");
}

namespace {

std::string html_td(const std::string& text, bool number) {
  return std::string(number ? "<td class=\"n\">" : "<td>") + html_escape(text) + "</td>";
}


std::string counts_text(const KubeDelays& k) {
  std::string s = std::to_string(k.events) + " informer watch events (ADDED, MODIFIED, DELETED): " +
                  std::to_string(k.measured) + " measured, " + std::to_string(k.skipped_no_etcd_time) +
                  " skipped without an etcd time for their revision, " + std::to_string(k.skipped_no_cache_time) +
                  " without a watch cache time.";
  uint64_t clamped = 0;
  for (const uint64_t c : k.clamped) clamped += c;
  if (clamped > 0)
    s += " " + std::to_string(clamped) + " delays came out negative (the write's ack reached its client after the "
         "event had propagated) and count as 0.";
  return s;
}

}  // namespace

std::string kube_delay_html(const KubeDelays& k) {
  std::string s = "<h3 id=\"kube_delay\">Kube event propagation delay</h3>\n<p class=\"expl\">";
  s += html_escape(
      "For every ADDED / MODIFIED / DELETED event an informer received: etcd -> cache is the time from etcd having "
      "the event's revision (the earliest ok write returning it, or an etcd watch response carrying it) to the serving "
      "apiserver's watch cache taking the event in; cache -> informer from there to the informer receiving it (a "
      "watch resumed after a break gets the events it missed from the cache, late: the wait counts); etcd -> "
      "informer end to end. Objects an informer learned from a LIST are not measured. Lines: p99 (solid) and p50 "
      "(dashed) per " + window_text(k.window_ns) + " window of informer arrival, log scale; delays of 0 are drawn "
      "at 0.01 ms.");
  s += "</p>\n<a href=\"plots/kube_delay.svg\"><img src=\"plots/kube_delay.png\" alt=\"kube_delay plot\"></a>\n";
  s += "<p class=\"small\"><a href=\"plots/kube_delay.svg\">SVG</a> &middot; <a href=\"plots/kube_delay.gp\">gnuplot "
       "script</a> &middot; <a href=\"plots/kube_delay.dat\">data</a></p>\n";
  s += "<table><tr><th>path</th><th>events</th><th>p50 (ms)</th><th>p90 (ms)</th><th>p99 (ms)</th>"
       "<th>max (ms)</th></tr>\n";
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    const DelayStats& st = k.whole[i];
    s += "<tr>" + html_td(delay_series_name(i), false) + html_td(std::to_string(st.count), true);
    for (const int64_t v : {st.p50_ns, st.p90_ns, st.p99_ns, st.max_ns}) s += html_td(st.count ? ms3_text(v) : "-", true);
    s += "</tr>\n";
  }
  s += "</table>\n<p class=\"small\">" + html_escape(counts_text(k)) + "</p>\n";
  return s;
}

std::string kube_delay_md(const KubeDelays& k) {
  std::string s = "\n### Kube event propagation delay (ms)\n\n| path | events | p50 | p90 | p99 | max |\n"
                  "|---|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    const DelayStats& st = k.whole[i];
    s += "| " + std::string(delay_series_name(i)) + " | " + std::to_string(st.count);
    for (const int64_t v : {st.p50_ns, st.p90_ns, st.p99_ns, st.max_ns}) s += " | " + (st.count ? ms3_text(v) : "-");
    s += " |\n";
  }
  s += "\n" + counts_text(k) + " Plot: `plots/kube_delay.png`.\n";
  return s;
}

}  // namespace dst::reports
