// See violation_html.h: choosing which violation of a checked run gets the page, and writing it.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "reports/violation_html.h"

namespace dst::reports {

std::optional<std::string> render_run_violation_html(const history::History& history,
                                                     const checker::etcd::EtcdVerdict* linearizability,
                                                     const checker::watch::Report& watch) {
  if (linearizability != nullptr && linearizability->verdict == checker::Verdict::kViolation &&
      !linearizability->violations.empty())
    return render_violation_html(history, from_etcd_violation(history, linearizability->violations.front()));
  if (!watch.violations.empty()) return render_violation_html(history, from_watch_violation(history, watch.violations.front()));
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
