// `dst report RUN.db [--out DIR] [--gnuplot PROGRAM] [--no-violation-page]`: the report of a
// recorded run (reports/run_report_writer.h): DIR/index.html, DIR/summary.md, DIR/junit.xml, the
// plots in DIR/plots (SVG and PNG, rendered by gnuplot), and for a violating run DIR/violation.html.
// DIR defaults to the run database's directory + "/report".
//
// Exit codes: 0 the report was written; 2 bad usage or input (the file is missing or not a run
// database: the message names it and what was wrong) or the report could not be written (no
// gnuplot, an unwritable DIR). The run's own verdict does not change the exit code: the report
// of a failed run is a successful report.
#pragma once

#include <string>
#include <vector>

namespace dst {

int report_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
