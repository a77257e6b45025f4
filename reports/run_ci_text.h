// The run report for CI: report/summary.md (a Markdown summary for CI logs and PR comments: the
// verdict, the reproduce command, the checks, per-kind counts and percentiles, unavailability,
// faults) and report/junit.xml (one <testsuite> for the run, one <testcase> per recorded check;
// a failed check carries a <failure> with the violation text, a check that gave up an <error>,
// a check the run did not record is <skipped>). Deterministic, bounded like index.html.
#pragma once

#include <string>
#include <string_view>

#include "reports/run_report_content.h"

namespace dst::reports {

std::string render_summary_md(const RunReportContent& content);
std::string render_junit_xml(const RunReportContent& content);

// Escapes &, <, >, " and ' for XML text and attributes, and drops what XML 1.0 cannot carry at
// all (control characters other than tab/newline/CR, shown as "\xNN").
std::string xml_escape(std::string_view text);

}  // namespace dst::reports
