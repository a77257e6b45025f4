// report/index.html: one static page for a recorded run (issue 6): the run summary (seed,
// scenario, options, reproduce command, trace hash, verdict, the recorded checks), a link to the
// violation page for a failed run, the plots (PNG inline, SVG/data/script linked), per-kind
// counts and latency percentiles, unavailability windows, the leader summary and the fault
// schedule. Inline CSS, no script, no network; deterministic (no clock: the only times are the
// run row's and the virtual ones); every table bounded (kReportTableRowsMax, the rest counted).
#pragma once

#include <string>

#include "reports/run_report_content.h"

namespace dst::reports {

std::string render_index_html(const RunReportContent& content);

// The plots' headings and one-line explanations, shared by the page and summary.md.
struct PlotInfo {
  const char* name;
  const char* title;
  const char* explanation;
};
const PlotInfo* plot_info(const std::string& name);  // nullptr for an unknown name

}  // namespace dst::reports
