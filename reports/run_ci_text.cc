// See run_ci_text.h.
#include "reports/run_ci_text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "reports/html_text.h"
#include "reports/plot_limits.h"
#include "reports/run_index.h"

namespace dst::reports {

namespace {

// Characters of checker text in a JUnit failure / Markdown block: enough for the first violation
// and its evidence; CI pages choke on megabytes.
constexpr size_t kCiTextCharsMax = 64 * 1024;
// Fault rows in summary.md (the full table is in index.html).
constexpr size_t kMdFaultRowsMax = 40;


// Markdown table cells: a pipe would end the cell, a newline the row, and GitHub renders "<x>"
// as HTML (not inside a code span: `in_code`).
std::string cell(const std::string& text, bool in_code = false) {
  std::string s;
  for (const char c : text) {
    if (c == '<' && !in_code) {
      s += "&lt;";
    } else if (c == '>' && !in_code) {
      s += "&gt;";
    } else if (c == '|') {
      s += "\\|";
    } else if (c == '\n' || c == '\r') {
      s += ' ';
    } else {
      s += c;
    }
  }
  return s;
}

// Inline code that may contain backticks: a fence longer than any run of them inside.
std::string code(const std::string& text) {
  size_t longest = 0, run = 0;
  for (const char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  return fence + (longest ? " " : "") + cell(text, true) + (longest ? " " : "") + fence;
}

// "dst.etcd" for `dst run etcd`, "dst.scenarios/leader_isolation.lua" for a script: CI tools group
// test cases by the dotted class name, so no spaces.
std::string junit_classname(const std::string& scenario) {
  std::string name = scenario.rfind("dst run ", 0) == 0 ? scenario.substr(8) : scenario;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-' && ch != '/') ch = '_';
  return "dst." + name;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string render_summary_md(const RunReportContent& c) {
  const RunPlotData& d = c.data;
  const std::string verdict = c.run.result ? c.run.result->verdict : "unfinished";
  std::string s = "## dst: " + cell(run_caption(c)) + ": **" + cell(verdict) + "**\n\n";
  s += "| | |\n|---|---|\n";
  s += "| reproduce | " + code(reproduce_command(c.run)) + " |\n";
  if (c.run.result) {
    s += "| trace hash | " + code(trace_hash_text(c.run.result->trace_hash)) + " |\n";
    s += "| exit code | " + std::to_string(c.run.result->exit_code) + " |\n";
  }
  s += "| operations | " + std::to_string(d.all.total()) + " (" + std::to_string(d.all.ok) + " ok, " +
       std::to_string(d.all.failed) + " failed, " + std::to_string(d.all.unknown) + " unknown) |\n";
  int64_t unavailable_ns = 0;
  for (const TimeWindow& w : d.unavailable) unavailable_ns += w.length_ns();
  s += "| unavailability | " + std::to_string(d.unavailable.size()) + " windows of >= 1 s, " + secs3_text(unavailable_ns) +
       " s in total |\n";
  s += "| leadership | " + std::to_string(d.leader.leader_changes) +
       (d.leader.leader_changes == 1 ? " leader change" : " leader changes") + ", highest term " +
       std::to_string(d.leader.term_max) + " |\n";
  s += "| faults | " + std::to_string(d.faults_total) + " |\n";
  s += restores_markdown(d.restores) + defrags_markdown(d.defrags) + "\n";

  s += "### Checks\n\n| check | result | detail |\n|---|---|---|\n";
  for (const CheckOutcome& k : c.checks)
    s += "| " + cell(k.name) + " | " + check_state_name(k.state) + " | " + cell(truncate_text(k.message, 400)) + " |\n";
  if (!c.violation_page.empty()) s += "\nViolation page: `" + c.violation_page + "` (" + cell(c.violation_title) + ")\n";

  s += "\n### Latency of ok operations (ms)\n\n| kind | ok | failed | unknown | p50 | p90 | p99 | max |\n"
       "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<const KindStats*> rows;
  for (const KindStats& k : d.kinds) rows.push_back(&k);
  rows.push_back(&d.all);
  for (const KindStats* k : rows) {
    s += "| " + cell(k->kind) + " | " + std::to_string(k->ok) + " | " + std::to_string(k->failed) + " | " +
         std::to_string(k->unknown);
    for (const int64_t v : {k->p50_ns, k->p90_ns, k->p99_ns, k->max_ns}) s += " | " + (k->ok ? ms3_text(v) : "-");
    s += " |\n";
  }
  if (!d.faults.empty()) {
    s += "\n### Faults\n\n| start (s) | end (s) | kind | target |\n|---:|---:|---|---|\n";
    for (size_t i = 0; i < d.faults.size() && i < kMdFaultRowsMax; ++i) {
      const history::Fault& f = d.faults[i];
      s += "| " + secs3_text(f.start_ns) + " | " + (f.end_ns == history::kNeverReturned ? "-" : secs3_text(f.end_ns)) + " | " +
           cell(f.kind) + " | " + cell(f.target) + " |\n";
    }
    if (d.faults_total > kMdFaultRowsMax)
      s += "\n... and " + std::to_string(d.faults_total - kMdFaultRowsMax) + " more (index.html)\n";
  }
  s += c.kube_md;
  s += "\nPlots: ";
  for (size_t i = 0; i < c.plots.size(); ++i) s += (i ? ", " : "") + std::string("`plots/") + c.plots[i] + ".png`";
  s += "; full report: `index.html`.\n";
  return s;
}

std::string render_junit_xml(const RunReportContent& c) {
  size_t failures = 0, errors = 0, skipped = 0;
  for (const CheckOutcome& k : c.checks) {
    failures += k.state == CheckOutcome::State::kFailed;
    errors += k.state == CheckOutcome::State::kGaveUp;
    skipped += k.state == CheckOutcome::State::kSkipped;
  }
  const std::string n = std::to_string(c.checks.size());
  std::string wall = "0";
  if (c.run.result && c.run.result->finished_unix_ms >= c.run.info.started_unix_ms)
    wall = fixed(static_cast<double>(c.run.result->finished_unix_ms - c.run.info.started_unix_ms) / 1000.0, 3);
  const std::string counts = "tests=\"" + n + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
                             std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\"";
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dst\" " + counts + " time=\"" + wall + "\">\n";
  s += "  <testsuite name=\"" + xml_escape(run_caption(c)) + "\" " + counts + " time=\"" + wall + "\">\n    <properties>\n";
  auto property = [&](const std::string& name, const std::string& value) {
    s += "      <property name=\"" + name + "\" value=\"" + xml_escape(value) + "\"/>\n";
  };
  property("seed", std::to_string(c.run.info.seed));
  property("scenario", c.run.info.scenario);
  property("reproduce", reproduce_command(c.run));
  if (c.run.result) {
    property("trace_hash", trace_hash_text(c.run.result->trace_hash));
    property("verdict", c.run.result->verdict);
    property("exit_code", std::to_string(c.run.result->exit_code));
  }
  s += "    </properties>\n";
  const std::string classname = xml_escape(junit_classname(c.run.info.scenario));
  for (const CheckOutcome& k : c.checks) {
    s += "    <testcase classname=\"" + classname + "\" name=\"" + xml_escape(k.name) + "\" time=\"" + fixed(k.seconds, 3) + "\"";
    const std::string body = xml_escape(truncate_text(k.detail.empty() ? k.message : k.message + "\n\n" + k.detail,
                                                      kCiTextCharsMax));
    switch (k.state) {
      case CheckOutcome::State::kPassed: s += "/>\n"; continue;
      case CheckOutcome::State::kFailed:
        s += ">\n      <failure type=\"violation\" message=\"" + xml_escape(truncate_text(k.message, 1000)) + "\">" +
             body + "\n" + xml_escape("reproduce: " + reproduce_command(c.run)) + "</failure>\n";
        break;
      case CheckOutcome::State::kGaveUp:
        s += ">\n      <error type=\"no-verdict\" message=\"" + xml_escape(truncate_text(k.message, 1000)) + "\">" +
             body + "</error>\n";
        break;
      case CheckOutcome::State::kSkipped:
        s += ">\n      <skipped message=\"" + xml_escape(k.message) + "\"/>\n";
        break;
    }
    s += "    </testcase>\n";
  }
  return s + "  </testsuite>\n</testsuites>\n";
}

}  // namespace dst::reports
