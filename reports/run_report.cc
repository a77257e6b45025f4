// See violation_html.h: choosing which violation of a checked run gets the page (the suite's
// deciding check), and writing it.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "reports/violation_html.h"

namespace dst::reports {

std::optional<ViolationView> suite_violation_view(const history::History& history,
                                                  const checker::suite::SuiteResult& suite, std::string_view check) {
  if (check == "linearizability") {
    if (!suite.linearizability || !suite.linearizability->is_ok()) return std::nullopt;
    const checker::etcd::EtcdVerdict& lin = **suite.linearizability;
    if (lin.verdict != checker::Verdict::kViolation || lin.violations.empty()) return std::nullopt;
    return from_etcd_violation(history, lin.violations.front());
  }
  if (check == "watch") {
    if (suite.watch.violations.empty()) return std::nullopt;
    return from_watch_violation(history, suite.watch.violations.front());
  }
  const checker::suite::Evidence* e = suite.evidence_of(check);
  if (e == nullptr) return std::nullopt;
  return from_evidence(history, *e);
}

std::optional<std::string> render_suite_violation_html(const history::History& history,
                                                       const checker::suite::SuiteResult& suite) {
  const history::RunVerdict& v = suite.verdict;
  if (v.deciding && v.name == "violation")
    if (auto view = suite_violation_view(history, suite, suite.rows[*v.deciding].name))
      return render_violation_html(history, *view);
  for (const history::CheckRow& row : suite.rows)  // decided outside the history: its first failed check
    if (row.status == history::CheckStatus::kFail)
      if (auto view = suite_violation_view(history, suite, row.name)) return render_violation_html(history, *view);
  return std::nullopt;
}

Status write_report_file(const std::string& path, const std::string& content) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status(StatusCode::kIoError, path + ": " + std::strerror(errno));
  const size_t written = std::fwrite(content.data(), 1, content.size(), f);
  const bool closed = std::fclose(f) == 0;
  if (written != content.size() || !closed) return Status(StatusCode::kIoError, path + ": write failed");
  return Status::ok();
}

}  // namespace dst::reports
