// See report_command.h.
#include "tools/report_command.h"

#include <cstdio>

#include "reports/run_report_writer.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

int report_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst report", argv);
  args.positional("RUN.db", "the run database (dst run ... --out DIR writes DIR/run.db)", false);
  args.option("out", "DIR", "where the report goes (default: RUN.db's directory + /report)");
  args.option("gnuplot", "PROGRAM", "the gnuplot to run for the plots (default: gnuplot on PATH)");
  args.flag("no-violation-page", "for a violating run, do not run the checkers again to draw violation.html");
  if (std::optional<int> done = args.parse_or_exit(
          "\nwrites DIR/index.html, DIR/summary.md, DIR/junit.xml, DIR/plots/*.{svg,png,dat,gp} and, for a "
          "violating run, DIR/violation.html (docs/report.md)\n"))
    return *done;
  const std::string run_db = *args.positional_value("RUN.db");
  const std::string out = args.value("out").value_or(reports::default_report_dir(run_db));
  reports::RunReportOptions options;
  options.gnuplot = args.value("gnuplot").value_or("gnuplot");
  options.violation_page = !args.has("no-violation-page");
  Result<reports::RunReportPaths> paths = reports::write_run_report(run_db, out, options);
  if (!paths.is_ok()) {
    std::fprintf(stderr, "dst report: %s\n", paths.status().message().c_str());
    return kExitUsage;
  }
  std::printf("report            %s\n", paths->index_html.c_str());
  if (paths->violation_page) std::printf("violation page    %s/violation.html\n", paths->dir.c_str());
  std::printf("summary           %s/summary.md, %s/junit.xml\n", paths->dir.c_str(), paths->dir.c_str());
  (void)self;
  return kExitPass;
}

}  // namespace dst
