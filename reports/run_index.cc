// See run_index.h.
#include "reports/run_index.h"

#include <ctime>

#include "reports/html_text.h"
#include "reports/plot_limits.h"

namespace dst::reports {

namespace {

constexpr PlotInfo kPlots[] = {
    {"latency", "Latency over time",
     "Every operation at its invocation time and latency, one panel per kind (log scale). Blue dots: ok; grey "
     "crosses: failed (certainly no effect; 0 ms ones are refusals drawn at 0.01 ms); red circles: unknown outcome, "
     "at the time the client gave up; red triangles: never returned, drawn at the end of the run."},
    {"throughput", "Throughput over time",
     "Ok operations per second by the second they returned in, per kind and all together; the dashed red line "
     "counts failed and unknown returns."},
    {"percentiles", "Latency percentiles",
     "p50 / p90 / p99 / max latency of the ok operations of each kind (nearest rank), and of all kinds together."},
    {"leader", "Leader and term",
     "From the metric samples (every 500 ms): which member the cluster's leader was (green), members down (grey), "
     "time without a leader (red), and the highest raft term among the members that were up."},
    {"unavailability", "Unavailability windows",
     "Stretches of at least 1 s within the workload in which no operation completed successfully (red), over the "
     "ok and failed/unknown operations per second."},
};

std::string td(const std::string& text) { return "<td>" + html_escape(text) + "</td>"; }
std::string tdr(const std::string& text) { return "<td class=\"n\">" + html_escape(text) + "</td>"; }

std::string css() {
  return "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1240px;color:#222;padding:0 12px}"
         "h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}"
         "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;"
         "vertical-align:top}th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}"
         "code,pre{font:12px/1.4 ui-monospace,monospace;background:#f6f8fa}pre{padding:8px;overflow-x:auto}"
         ".pass{color:#1a7f37;font-weight:bold}.fail{color:#c00;font-weight:bold}.gaveup{color:#b35900;font-weight:bold}"
         "img{max-width:100%;border:1px solid #eee}.expl{color:#555;max-width:1000px}.small{color:#666;font-size:12px}";
}

const char* state_class(CheckOutcome::State s) {
  switch (s) {
    case CheckOutcome::State::kPassed: return "pass";
    case CheckOutcome::State::kFailed: return "fail";
    default: return "gaveup";
  }
}

// The run row's wall-clock metadata: a date when it looks like a Unix time, else the raw value.
std::string wall_time(int64_t unix_ms) {
  if (unix_ms < 1'000'000'000'000) return std::to_string(unix_ms) + " ms";
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string summary_table(const RunReportContent& c) {
  const history::RunInfo& i = c.run.info;
  std::string s = "<table>\n";
  auto row = [&](const std::string& k, const std::string& v_html) { s += "<tr><th>" + k + "</th><td>" + v_html + "</td></tr>\n"; };
  row("seed", html_escape(std::to_string(i.seed)));
  row("scenario", html_escape(i.scenario));
  row("options", "<code>" + html_escape(i.options) + "</code>");
  row("reproduce", "<code>" + html_escape(reproduce_command(c.run)) + "</code>");
  row("dst version", html_escape(i.dst_version));
  if (c.run.result) {
    const history::RunResult& r = *c.run.result;
    row("trace hash", "<code>" + html_escape(trace_hash_text(r.trace_hash)) + "</code>");
    const char* cls = r.verdict == "pass" ? "pass" : r.verdict == "unknown" ? "gaveup" : "fail";
    row("verdict", "<span class=\"" + std::string(cls) + "\">" + html_escape(r.verdict) + "</span> (exit " +
                       std::to_string(r.exit_code) + ")");
    row("wall clock", html_escape(wall_time(i.started_unix_ms) + ", took " +
                                  fixed(static_cast<double>(r.finished_unix_ms - i.started_unix_ms) / 1000.0, 3) + " s"));
  } else {
    row("verdict", "<span class=\"gaveup\">none: the run did not finish</span>");
  }
  row("recorded", html_escape(std::to_string(c.operations) + " operations, " + std::to_string(c.watches) + " watches (" +
                              std::to_string(c.watch_responses) + " responses), " + std::to_string(c.data.faults_total) +
                              " faults, " + std::to_string(c.metric_samples) + " metric samples, " +
                              secs3_text(c.data.end_ns) + " s of virtual time"));
  row("run database", "<code>" + html_escape(c.run_db_name) + "</code>");
  return s + "</table>\n";
}

std::string checks_section(const RunReportContent& c) {
  std::string s = "<h2>Checks</h2>\n<table><tr><th>check</th><th>result</th><th>detail</th></tr>\n";
  for (const CheckOutcome& k : c.checks)
    s += "<tr><td>" + html_escape(k.name) + "</td><td class=\"" + state_class(k.state) + "\">" +
         html_escape(check_state_name(k.state)) + "</td>" + td(k.message) + "</tr>\n";
  s += "</table>\n";
  if (!c.violation_page.empty()) {
    s += "<p><b>Violation:</b> <a href=\"" + html_escape(c.violation_page) + "\">" + html_escape(c.violation_title) +
         "</a> &mdash; the history around it, the operations involved and the checker's evidence.</p>\n";
  } else if (!c.violation_note.empty()) {
    s += "<p class=\"expl\">" + html_escape(c.violation_note) + "</p>\n";
  }
  if (c.run.result && !c.run.result->checker_summary.empty())
    s += "<details><summary>checker summary</summary><pre>" + html_escape(c.run.result->checker_summary) +
         "</pre></details>\n";
  return s;
}

std::string kinds_table(const RunPlotData& d) {
  std::string s = "<h2>Operations by kind</h2>\n<p class=\"expl\">Latency percentiles (ms, nearest rank) are over "
                  "the ok operations of each kind.</p>\n<table><tr><th>kind</th><th>total</th><th>ok</th><th>failed</th>"
                  "<th>unknown</th><th>never returned</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n";
  std::vector<const KindStats*> rows;
  for (const KindStats& k : d.kinds) rows.push_back(&k);
  rows.push_back(&d.all);
  for (const KindStats* k : rows) {
    s += "<tr>" + td(k->kind) + tdr(std::to_string(k->total())) + tdr(std::to_string(k->ok)) +
         tdr(std::to_string(k->failed)) + tdr(std::to_string(k->unknown)) + tdr(std::to_string(k->never_returned));
    for (const int64_t v : {k->p50_ns, k->p90_ns, k->p99_ns, k->max_ns}) s += tdr(k->ok ? ms3_text(v) : "-");
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

std::string unavailability_table(const RunPlotData& d) {
  std::string s = "<h2>Unavailability windows</h2>\n";
  if (d.unavailable.empty()) return s + "<p>No stretch of 1 s or more without a successful operation.</p>\n";
  s += "<table><tr><th>#</th><th>from (s)</th><th>to (s)</th><th>length (s)</th></tr>\n";
  for (size_t i = 0; i < d.unavailable.size() && i < kReportTableRowsMax; ++i) {
    const TimeWindow& w = d.unavailable[i];
    s += "<tr>" + tdr(std::to_string(i + 1)) + tdr(secs3_text(w.start_ns)) + tdr(secs3_text(w.end_ns)) + tdr(secs3_text(w.length_ns())) + "</tr>\n";
  }
  s += "</table>\n";
  if (d.unavailable.size() > kReportTableRowsMax)
    s += "<p>... " + std::to_string(d.unavailable.size() - kReportTableRowsMax) + " more (plots/unavailable.dat)</p>\n";
  return s;
}

std::string leader_section(const RunPlotData& d) {
  const LeaderTimeline& t = d.leader;
  std::string s = "<h2>Leadership</h2>\n";
  if (!t.has_samples()) return s + "<p>No metric samples in this run.</p>\n";
  int64_t without = 0;
  for (const TimeWindow& w : t.no_leader) without += w.length_ns();
  return s + "<p>" + std::to_string(t.members.size()) + " members; " + std::to_string(t.leader_changes) +
         (t.leader_changes == 1 ? " leader change" : " leader changes") + "; highest term " + std::to_string(t.term_max) + "; " + secs3_text(without) +
         " s without a leader (sampled every 500 ms).</p>\n";
}

std::string fault_table(const RunPlotData& d) {
  std::string s = "<h2>Fault schedule</h2>\n";
  if (d.faults.empty()) return s + "<p>No faults were injected.</p>\n";
  s += "<table><tr><th>#</th><th>kind</th><th>target</th><th>start (s)</th><th>end (s)</th><th>length (s)</th></tr>\n";
  for (size_t i = 0; i < d.faults.size() && i < kReportTableRowsMax; ++i) {
    const history::Fault& f = d.faults[i];
    const bool open = f.end_ns == history::kNeverReturned;
    s += "<tr>" + tdr(std::to_string(i + 1)) + td(f.kind) + td(f.target) + tdr(secs3_text(f.start_ns)) +
         tdr(open ? "never healed" : secs3_text(f.end_ns)) + tdr(open ? "-" : secs3_text(f.end_ns - f.start_ns)) + "</tr>\n";
  }
  s += "</table>\n";
  if (d.faults_total > kReportTableRowsMax)
    s += "<p>... " + std::to_string(d.faults_total - kReportTableRowsMax) + " more faults (see the run database)</p>\n";
  return s;
}

std::string plots_section(const RunReportContent& c) {
  std::string s = "<h2>Plots</h2>\n<p class=\"expl\">x: seconds of virtual time. Every time plot has the faults "
                  "on top (one lane per kind: a tick at each start, a bar over its window, the target as label) "
                  "and their windows shaded orange below.</p>\n";
  for (const std::string& name : c.plots) {
    const PlotInfo* info = plot_info(name);
    const std::string n = html_escape(name);
    s += "<h3 id=\"" + n + "\">" + html_escape(info ? info->title : name) + "</h3>\n";
    if (info) s += "<p class=\"expl\">" + html_escape(info->explanation) + "</p>\n";
    s += "<a href=\"plots/" + n + ".svg\"><img src=\"plots/" + n + ".png\" alt=\"" + n + " plot\"></a>\n";
    s += "<p class=\"small\"><a href=\"plots/" + n + ".svg\">SVG</a> &middot; <a href=\"plots/" + n +
         ".gp\">gnuplot script</a></p>\n";
  }
  return s;
}

}  // namespace

const PlotInfo* plot_info(const std::string& name) {
  for (const PlotInfo& p : kPlots)
    if (name == p.name) return &p;
  return nullptr;
}

std::string render_index_html(const RunReportContent& c) {
  const std::string caption = run_caption(c);
  std::string verdict = c.run.result ? c.run.result->verdict : "unfinished";
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                    html_escape("dst report: " + caption + ": " + verdict) + "</title>\n<style>" + css() +
                    "</style></head>\n<body>\n";
  out += "<h1>" + html_escape(caption) + ": " + html_escape(verdict) + "</h1>\n";
  out += summary_table(c);
  out += checks_section(c);
  out += plots_section(c);
  out += c.kube_html;
  out += kinds_table(c.data);
  out += unavailability_table(c.data);
  out += leader_section(c.data);
  out += restores_html(c.data.restores);
  out += defrags_html(c.data.defrags);
  out += fault_table(c.data);
  out += "<p class=\"small\">Written by <code>dst report " + html_escape(c.run_db_name) +
         "</code>; the numbers behind each plot are in <code>plots/*.dat</code>.</p>\n</body></html>\n";
  return out;
}

std::string run_caption(const RunReportContent& c) {
  return c.run.info.scenario + ", seed " + std::to_string(c.run.info.seed);
}

}  // namespace dst::reports
