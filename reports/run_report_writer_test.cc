// The run report end to end: a run database in, index.html / summary.md / junit.xml / plots out,
// rendered by the real gnuplot (a declared dependency: without it these tests fail, loudly), the
// violation page for a violating run, bad input refused with the file's name, `dst report` itself
// (report_command), the same bytes twice, and a recorded run from real clients under faults.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "history/recorder.h"
#include "world/kv_run_world.h"
#include "reports/plot_render.h"
#include "reports/run_report_test_util.h"
#include "reports/run_report_writer.h"
#include "tools/report_command.h"

namespace dst::reports {
namespace {

namespace fs = std::filesystem;

using testing::slurp;
fs::path fresh_dir(const std::string& name) { return testing::fresh_dir("run_report_test", name); }

// A small XML well-formedness check: every tag closed in order, attributes quoted, no raw '<' or
// stray '&' in text. Enough to catch what string concatenation gets wrong.
::testing::AssertionResult well_formed_xml(const std::string& x) {
  std::vector<std::string> open;
  size_t i = x.rfind("<?xml", 0) == 0 ? x.find("?>") + 2 : 0;
  while (i < x.size()) {
    if (x[i] == '&') {
      const size_t semi = x.find(';', i);
      const std::string ent = semi == std::string::npos ? "" : x.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
        return ::testing::AssertionFailure() << "bad entity at " << i << ": " << x.substr(i, 12);
      i = semi + 1;
      continue;
    }
    if (x[i] != '<') {
      ++i;
      continue;
    }
    const size_t end = x.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unterminated tag at " << i;
    std::string tag = x.substr(i + 1, end - i - 1);
    if (count(tag.begin(), tag.end(), '"') % 2 != 0 || tag.find('<') != std::string::npos)
      return ::testing::AssertionFailure() << "bad tag: " << tag;
    const bool closing = tag[0] == '/', empty = tag.back() == '/';
    const std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" />", 1) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name)
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (open.empty() ? "nothing" : open.back());
      open.pop_back();
    } else if (!empty) {
      open.push_back(name);
    }
    i = end + 1;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  return ::testing::AssertionSuccess();
}

TEST(RunReport, GnuplotIsInstalled) {
  // gnuplot is a declared dependency (ci/install-deps.sh: gnuplot-nox): fail, do not skip.
  Result<Gnuplot> g = find_gnuplot();
  ASSERT_TRUE(g.is_ok()) << "gnuplot is required to render the report's plots: " << g.status().to_string();
}

TEST(RunReport, WritesPagesAndRendersEveryPlot) {
  const fs::path dir = fresh_dir("pass");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), testing::sample_run()).is_ok());
  Result<RunReportPaths> paths = write_run_report((dir / "run.db").string(), (dir / "report").string());
  ASSERT_TRUE(paths.is_ok()) << paths.status().to_string();
  EXPECT_FALSE(paths->violation_page);
  const std::string index = slurp(dir / "report/index.html");
  for (const char* needle : {"dst run etcd, seed 42: pass", "<th>seed</th><td>42</td>", "dst run etcd --seed 42 --duration 5s",
                             "0x0123456789abcdef", "<span class=\"pass\">pass</span> (exit 0)", "n1|n2,n3", "never healed",
                             "<td>partition</td>", "<td>crash</td>", "plots/latency.png", "plots/leader.svg",
                             "2023-11-14 22:13:20 UTC, took 0.750 s", "1 leader change;"})
    EXPECT_NE(index.find(needle), std::string::npos) << needle;
  // The local program path appears only as the recorded options; the reproduce command says `dst`.
  EXPECT_EQ(index.find("/build/dst"), index.rfind("/build/dst"));
  for (const char* plot : {"latency", "throughput", "percentiles", "leader", "unavailability"}) {
    const std::string png = slurp(dir / "report/plots" / (std::string(plot) + ".png"));
    const std::string svg = slurp(dir / "report/plots" / (std::string(plot) + ".svg"));
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << plot;
    EXPECT_GT(png.size(), 10'000u) << plot;
    EXPECT_NE(svg.find("<svg"), std::string::npos) << plot;
    if (std::string(plot) != "percentiles") {
      EXPECT_NE(svg.find("virtual time (s)"), std::string::npos) << plot;
    }
  }
  // The scripts ran clean: any gnuplot warning means a plot lost something.
  EXPECT_EQ(slurp(dir / "report/plots/gnuplot.log"), "");
  const std::string md = slurp(dir / "report/summary.md");
  EXPECT_NE(md.find("## dst: dst run etcd, seed 42: **pass**"), std::string::npos) << md;
  EXPECT_NE(md.find("| put | 4 | 1 | 1 | 20.000 | 40.000 | 40.000 | 40.000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2.200 | 4.500 | partition | n1\\|n2,n3 |"), std::string::npos) << md;
  const std::string junit = slurp(dir / "report/junit.xml");
  EXPECT_TRUE(well_formed_xml(junit)) << junit;
  EXPECT_NE(junit.find("tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"0\""), std::string::npos) << junit;
  EXPECT_EQ(junit.find("<failure"), std::string::npos);
}

TEST(RunReport, ViolatingRunHasFailureAndViolationPage) {
  const fs::path dir = fresh_dir("violation");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), testing::violating_run()).is_ok());
  Result<RunReportPaths> paths = write_run_report((dir / "run.db").string(), (dir / "out").string());
  ASSERT_TRUE(paths.is_ok()) << paths.status().to_string();
  EXPECT_TRUE(paths->violation_page);
  const std::string page = slurp(dir / "out/violation.html");
  EXPECT_NE(page.find("stale"), std::string::npos);
  const std::string index = slurp(dir / "out/index.html");
  EXPECT_NE(index.find("<a href=\"violation.html\">"), std::string::npos);
  EXPECT_NE(index.find("<span class=\"fail\">violation</span> (exit 1)"), std::string::npos);
  const std::string junit = slurp(dir / "out/junit.xml");
  EXPECT_TRUE(well_formed_xml(junit)) << junit;
  EXPECT_NE(junit.find("failures=\"2\""), std::string::npos) << junit;  // linearizability and the verdict
  const size_t lin = junit.find("name=\"linearizability\"");
  ASSERT_NE(lin, std::string::npos);
  const size_t failure = junit.find("<failure type=\"violation\" message=\"stale-read: op 2 read x=a at revision 2 &lt;after&gt; op 1");
  EXPECT_GT(failure, lin) << junit;
  EXPECT_GT(lin, junit.find("name=\"watch\"")) << junit;  // in the order the run made its checks
  EXPECT_NE(junit.find("reproduce: dst run etcd --seed 7"), std::string::npos);
  const std::string md = slurp(dir / "out/summary.md");
  EXPECT_NE(md.find("| linearizability | FAILED | stale-read: op 2 read x=a at revision 2 &lt;after&gt;"),
            std::string::npos) << md;
}

TEST(RunReport, BadInputNamesTheFile) {
  const fs::path dir = fresh_dir("bad");
  const std::string missing = (dir / "nope.db").string();
  Result<RunReportPaths> r = write_run_report(missing, (dir / "report").string());
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(missing), std::string::npos) << r.status().message();
  const std::string text = (dir / "notes.txt").string();
  std::ofstream(text) << "not a database\n";
  r = write_run_report(text, (dir / "report").string());
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().message();
  EXPECT_FALSE(fs::exists(dir / "report"));  // nothing written for bad input
  EXPECT_EQ(report_command("dst", {missing}), 2);
  EXPECT_EQ(report_command("dst", {text, "--out", (dir / "r").string()}), 2);
  EXPECT_EQ(report_command("dst", {}), 2);             // RUN.db is required
  EXPECT_EQ(report_command("dst", {"--bogus"}), 2);
  EXPECT_EQ(report_command("dst", {"--help"}), 0);
}

TEST(RunReport, MissingGnuplotFailsClearlyAfterWritingThePages) {
  const fs::path dir = fresh_dir("nognuplot");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), testing::sample_run()).is_ok());
  RunReportOptions o;
  o.gnuplot = (dir / "no-such-gnuplot").string();
  Result<RunReportPaths> r = write_run_report((dir / "run.db").string(), (dir / "report").string(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("gnuplot-nox"), std::string::npos) << r.status().message();
  EXPECT_TRUE(fs::exists(dir / "report/index.html"));
  EXPECT_TRUE(fs::exists(dir / "report/junit.xml"));
  EXPECT_TRUE(fs::exists(dir / "report/plots/latency.gp"));
}

TEST(RunReport, CommandDefaultsToTheRunDirectoryAndIsDeterministic) {
  const fs::path dir = fresh_dir("cmd");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), testing::sample_run()).is_ok());
  EXPECT_EQ(default_report_dir((dir / "run.db").string()), (dir / "report").string());
  EXPECT_EQ(default_report_dir("run.db"), "report");
  ASSERT_EQ(report_command("dst", {(dir / "run.db").string()}), 0);
  ASSERT_EQ(report_command("dst", {(dir / "run.db").string(), "--out", (dir / "again").string()}), 0);
  for (const char* f : {"index.html", "summary.md", "junit.xml", "plots/latency.gp", "plots/throughput.dat",
                        "plots/latency.svg", "plots/leader.svg", "plots/latency.png"})
    EXPECT_EQ(slurp(dir / "report" / f), slurp(dir / "again" / f)) << f;
}

TEST(RunReport, RecordedRunUnderFaults) {
  sim::Simulator sim(3);
  world::KvRunOptions o;
  o.duration = sim::seconds(6);
  history::MemoryRecorder rec;
  world::run_kv_world(sim, o, rec);
  testing::SampleRun run;
  run.history = rec.history();
  for (const history::Metric& m : rec.metrics()) run.metrics.push_back({m.at_ns, m.member, m.name, m.value});
  run.info.seed = 3;
  run.info.scenario = "dst run etcd";
  run.result.verdict = "pass";
  run.result.checker_summary = "etcd model: linearizable; recorded\nwatch guarantees ok";
  const fs::path dir = fresh_dir("recorded");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), run).is_ok());
  Result<RunReportPaths> paths = write_run_report((dir / "run.db").string(), (dir / "report").string());
  ASSERT_TRUE(paths.is_ok()) << paths.status().to_string();
  // Every ok operation is counted once in the throughput buckets.
  uint64_t ok = 0;
  for (const history::Operation& op : run.history.operations) ok += op.outcome == history::Outcome::kOk;
  std::istringstream dat(slurp(dir / "report/plots/throughput.dat"));
  uint64_t summed = 0;
  size_t columns = 0;
  for (std::string line; std::getline(dat, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<uint64_t> v;
    std::istringstream fields(line);
    for (uint64_t x; fields >> x;) v.push_back(x);
    if (columns == 0) columns = v.size();
    ASSERT_EQ(v.size(), columns);
    summed += v[columns - 2];
  }
  EXPECT_EQ(summed, ok);
  EXPECT_GT(ok, 100u);
  EXPECT_EQ(slurp(dir / "report/plots/gnuplot.log"), "");
}

// `dst report` on any run database, until dst_main.cc wires the command in:
// DST_REPORT_RUN_DB=/tmp/rep3/run.db run_report_test --gtest_filter=RunReport.CommandOnGivenRunDb
TEST(RunReport, CommandOnGivenRunDb) {
  const char* db = std::getenv("DST_REPORT_RUN_DB");
  if (db == nullptr) GTEST_SKIP() << "set DST_REPORT_RUN_DB=RUN.db to write its report";
  EXPECT_EQ(report_command("dst", {db}), 0);
}

}  // namespace
}  // namespace dst::reports
