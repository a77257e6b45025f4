// See run_report_writer.h.
#include "reports/run_report_writer.h"

#include <filesystem>

#include "checker/suite/check_suite.h"
#include "history/run_db.h"
#include "reports/kube_delay.h"
#include "reports/plot_render.h"
#include "reports/plot_scripts.h"
#include "reports/run_ci_text.h"
#include "reports/run_index.h"
#include "reports/violation_html.h"

namespace dst::reports {

namespace {

// Whatever the reader refused (missing file, another SQLite file, another schema, corruption) is
// bad input for the report; the reader's messages already name the file, say so if not.
Status bad_input(const std::string& run_db, const Status& st) {
  std::string m = st.message();
  if (m.find(run_db) == std::string::npos) m = run_db + ": " + m;
  return Status(StatusCode::kInvalidArgument, m + " (dst report needs a run database written by dst run --out DIR)");
}

struct Loaded {
  history::RunRecord run;
  history::History history;
  std::vector<history::MetricSample> metrics;
};

Result<Loaded> load(const std::string& run_db) {
  Result<history::RunDbReader> reader = history::RunDbReader::open(run_db);
  if (!reader.is_ok()) return bad_input(run_db, reader.status());
  Loaded l;
  Result<history::RunRecord> run = reader->read_run();
  if (!run.is_ok()) return bad_input(run_db, run.status());
  l.run = std::move(*run);
  Result<history::History> h = reader->read_history();
  if (!h.is_ok()) return bad_input(run_db, h.status());
  l.history = std::move(*h);
  Result<std::vector<history::MetricSample>> m = reader->read_metrics();
  if (!m.is_ok()) return bad_input(run_db, m.status());
  l.metrics = std::move(*m);
  return l;
}

// For a violating run: the page of the check that decided it, as the run's stored rows say
// (history::decide_verdict). Its typed violation comes from the suite run again on the recorded
// history, told what the world found and required as those rows say.
void add_violation_page(const Loaded& l, const std::string& out_dir, RunReportContent& c, Status& write_error) {
  const std::vector<history::CheckRow>& stored = l.run.result->checks;
  const history::RunVerdict decided = history::decide_verdict(stored);
  if (!decided.deciding) {
    c.violation_note = "The run database stores no failed check: its verdict cannot be traced to one.";
    return;
  }
  const std::string& check = stored[*decided.deciding].name;
  checker::suite::SuiteOptions options;
  options.required = checker::suite::requirements_from_rows(stored);
  const checker::suite::SuiteResult suite =
      checker::suite::run_check_suite(l.history, checker::suite::findings_from_rows(stored), options);
  const std::optional<ViolationView> view = suite_violation_view(l.history, suite, check);
  if (!view) {
    c.violation_note = "The verdict comes from the " + check + " check, whose violation the recorded history does "
                       "not show (the world decided it by watching the cluster, or the run itself did); the run's "
                       "output and the checks table name it.";
    return;
  }
  c.violation_title = view->title;
  c.violation_page = "violation.html";
  if (Status st = write_report_file(out_dir + "/violation.html", render_violation_html(l.history, *view)); !st.is_ok())
    write_error = st;
}

RunReportContent make_content(const std::string& run_db, const Loaded& l) {
  RunReportContent c;
  c.run_db_name = std::filesystem::path(run_db).filename().string();
  c.run = l.run;
  c.data = build_plot_data(l.history, l.metrics);
  c.checks = run_checks(l.run);
  c.operations = l.history.operations.size();
  c.watches = l.history.watches.size();
  for (const history::Watch& w : l.history.watches)
    for (const history::WatchSegment& s : w.segments) c.watch_responses += s.responses.size();
  c.metric_samples = l.metrics.size();
  return c;
}

}  // namespace

std::string default_report_dir(const std::string& run_db) {
  const std::filesystem::path parent = std::filesystem::path(run_db).parent_path();
  return parent.empty() ? std::string("report") : (parent / "report").string();
}

Result<RunReportPaths> write_run_report(const std::string& run_db, const std::string& out_dir,
                                        const RunReportOptions& options) {
  Result<Loaded> loaded = load(run_db);
  if (!loaded.is_ok()) return loaded.status();
  const std::string plots_dir = out_dir + "/plots";
  std::error_code ec;
  std::filesystem::create_directories(plots_dir, ec);
  if (ec) return Status(StatusCode::kIoError, plots_dir + ": " + ec.message());

  RunReportContent c = make_content(run_db, *loaded);
  // The PNG terminal depends on the gnuplot at hand; without one, the scripts are written for
  // pngcairo (the usual build) and the error is returned once everything else is written.
  Result<Gnuplot> gnuplot = find_gnuplot(options.gnuplot);
  const gp::PngTerminal png = gnuplot.is_ok() ? gnuplot->png : gp::PngTerminal::kPngCairo;
  PlotSet plots = make_plot_files(c.data, run_caption(c), png);
  c.plots = plots.plots;
  // A run with Kubernetes-style informers (issue #8): the propagation-delay plot, rendered with
  // the others but kept out of c.plots: its section (with the whole-run table) is its own.
  if (!loaded->history.informers.empty()) {
    const KubeDelays kube = compute_kube_delays(loaded->history);
    add_kube_delay_plot(kube, c.data, run_caption(c), png, plots);
    c.kube_html = kube_delay_html(kube);
    c.kube_md = kube_delay_md(kube);
  }
  Status write_error;
  for (const PlotFile& f : plots.files) {
    if (Status st = write_report_file(plots_dir + "/" + f.name, f.content); !st.is_ok()) return st;
  }
  if (options.violation_page && c.run.result && c.run.result->verdict == "violation")
    add_violation_page(*loaded, out_dir, c, write_error);
  if (!write_error.is_ok()) return write_error;
  RunReportPaths paths{out_dir, out_dir + "/index.html", !c.violation_page.empty()};
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"index.html", render_index_html(c)},
                                   {"summary.md", render_summary_md(c)},
                                   {"junit.xml", render_junit_xml(c)}}) {
    if (Status st = write_report_file(out_dir + "/" + name, text); !st.is_ok()) return st;
  }
  if (!gnuplot.is_ok())
    return Status(gnuplot.status().code(), gnuplot.status().message() + " (written in " + out_dir +
                                               ": the pages, the plot data and scripts; not the images)");
  if (Status st = render_plots(*gnuplot, plots_dir, plots.plots); !st.is_ok()) return st;
  return paths;
}

}  // namespace dst::reports
