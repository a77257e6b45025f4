// What the run report's pages (index.html, summary.md, junit.xml) are made from: the run row, the
// plot numbers, the recorded checks, and which files sit beside them. Built by
// write_run_report (run_report_writer.h); the renderers are pure functions of it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "history/run_db.h"
#include "reports/plot_data.h"
#include "reports/run_checks.h"

namespace dst::reports {

struct RunReportContent {
  std::string run_db_name;  // the run database's file name (no directory: the pages stay relocatable)
  history::RunRecord run;
  RunPlotData data;
  std::vector<CheckOutcome> checks;
  size_t operations = 0, watches = 0, watch_responses = 0, metric_samples = 0;
  std::vector<std::string> plots;  // plot names: plots/NAME.png, plots/NAME.svg, plots/NAME.gp
  std::string violation_page;      // "violation.html" when the report has one, else empty
  std::string violation_title;     // the violation's one-line title, when there is a page
  std::string violation_note;      // why there is no page for a failed run, when there is none
  // Sections of runs with Kubernetes-style informers (kube_delay.h), empty otherwise: HTML after
  // the plots, Markdown before the list of plots.
  std::string kube_html;
  std::string kube_md;
};

// "dst run etcd, seed 3": names the run in titles.
std::string run_caption(const RunReportContent& c);

}  // namespace dst::reports
