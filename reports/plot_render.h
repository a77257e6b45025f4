// Rendering the report's gnuplot scripts (plot_scripts.h) into SVG and PNG by running gnuplot as a
// child process (posix_spawn, one process per script, waited for; no threads, no shell). gnuplot
// is a declared dependency (ci/install-deps.sh: gnuplot-nox); when it is missing the report says
// so and fails, it does not quietly leave the plots out.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "reports/plot_gp.h"

namespace dst::reports {

struct Gnuplot {
  std::string program = "gnuplot";  // looked up on PATH
  gp::PngTerminal png = gp::PngTerminal::kPngCairo;
};

// Asks `program` which terminals it has (GPVAL_TERMINALS): pngcairo if it is there, else libgd's
// png; kNotFound when the program cannot be started ("gnuplot not found on PATH; install
// gnuplot-nox (ci/install-deps.sh)"), kUnavailable when it has neither png nor svg.
Result<Gnuplot> find_gnuplot(const std::string& program = "gnuplot");

// Runs `gnuplot NAME.gp` in `dir` for every name in `plots` (each writes NAME.svg and NAME.png),
// gnuplot's messages going to dir/gnuplot.log. kIoError naming the script when gnuplot fails or an
// output is missing or empty, with the log's last lines.
Status render_plots(const Gnuplot& gnuplot, const std::string& dir, const std::vector<std::string>& plots);

}  // namespace dst::reports
