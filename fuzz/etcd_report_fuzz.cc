// Fuzz target: etcd robustness reports (history/import_etcd_report.h) read, checked and written
// back. The input is client-1/operations.json, then a line "---", then client-2/watch.json.
// Promises: no crash, hang or runaway allocation in the importer, the etcd model, the watch
// checker or the exporter; an error names one of the two files; a history the importer reads is
// one the exporter writes (or refuses naming an operation) and its export reads back.
#include <string>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "fuzz/fuzz_target.h"
#include "history/export_etcd_report.h"
#include "history/import_etcd_report.h"

namespace {

std::vector<dst::history::ReportFile> files_of(const std::string& text) {
  const size_t split = text.find("\n---\n");
  if (split == std::string::npos) return {{"client-1/operations.json", text}};
  return {{"client-1/operations.json", text.substr(0, split + 1)},
          {"client-2/watch.json", text.substr(split + 5)}};
}

void check(const dst::history::History& h) {
  dst::checker::etcd::EtcdCheckOptions o;
  o.partial_kvs = true;
  o.step_budget = 200'000;
  (void)dst::checker::etcd::check_etcd(h, o);
  dst::checker::watch::Options wo;
  wo.partial_kvs = true;
  wo.compactions_recorded = false;
  (void)dst::checker::watch::check(h, wo);
}

// The export of an imported history reads back.
void round_trip(const dst::history::History& h) {
  using namespace dst;
  Result<history::EtcdReport> report = history::export_etcd_report(h);
  if (!report.is_ok()) {
    fuzz::require(report.status().message().find("operation ") != std::string::npos, "a refusal names the operation",
                  report.status().message());
    return;
  }
  std::vector<history::ReportFile> files;
  for (const history::EtcdReportClient& c : report->clients) {
    const std::string dir = "client-" + std::to_string(c.id) + "/";
    if (!c.operations.empty()) files.push_back({dir + "operations.json", c.operations});
    if (!c.watch.empty()) files.push_back({dir + "watch.json", c.watch});
  }
  Result<history::ImportedReport> back = history::import_etcd_report_files(files);
  fuzz::require(back.is_ok(), "an exported report reads back", back.is_ok() ? "" : back.status().message());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dst;
  if (size > 256 * 1024) return 0;  // the checkers' cost grows with the history; keep runs short
  const std::string text(reinterpret_cast<const char*>(data), size);
  Result<history::ImportedReport> r = history::import_etcd_report_files(files_of(text));
  if (!r.is_ok()) {
    const std::string& m = r.status().message();
    fuzz::require(fuzz::starts_with(m, "client-1/operations.json:") || fuzz::starts_with(m, "client-2/watch.json:"),
                  "an error names the file and the line", m);
    return 0;
  }
  check(r->history);
  round_trip(r->history);
  return 0;
}
