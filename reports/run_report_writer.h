// The run report of a recorded run (issue 6), written from its run database alone, so that
// `dst report RUN.db` works on any run, and `dst run` can write it right after a run:
//
//   OUT/index.html      the page: summary, checks, plots, tables (run_index.h)
//   OUT/summary.md      for CI logs and PR comments; OUT/junit.xml for CI test reports (run_ci_text.h)
//   OUT/violation.html  for a run whose verdict is "violation": the page around the first
//                       violation the checkers find again in the recorded history (violation_html.h)
//   OUT/plots/          NAME.dat, NAME.gp, and NAME.svg + NAME.png rendered by gnuplot
//                       (plot_scripts.h, plot_render.h), gnuplot.log
//
// The pages are written before the plots are rendered, so a missing gnuplot still leaves the
// summary, JUnit XML and page (and says so in the returned error).
#pragma once

#include <string>

#include "base/status.h"

namespace dst::reports {

struct RunReportOptions {
  std::string gnuplot = "gnuplot";  // the program run to render the plots (looked up on PATH)
  // For a run whose verdict is "violation": run the etcd and watch checkers on the recorded
  // history again to render the violation page (takes the checker's time once more).
  bool violation_page = true;
};

struct RunReportPaths {
  std::string dir;         // OUT
  std::string index_html;  // OUT/index.html
  bool violation_page = false;
};

// Errors: kInvalidArgument when `run_db` is missing or not a run database (the message names the
// file and what was wrong); kIoError when OUT cannot be written; kNotFound / kUnavailable /
// kIoError from gnuplot (plot_render.h), after everything else was written.
Result<RunReportPaths> write_run_report(const std::string& run_db, const std::string& out_dir,
                                        const RunReportOptions& options = {});

// OUT when none is given: the run database's directory + "/report" ("runs/7/run.db" ->
// "runs/7/report"; "run.db" -> "report").
std::string default_report_dir(const std::string& run_db);

}  // namespace dst::reports
