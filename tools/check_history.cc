// See check_history.h.
#include "tools/check_history.h"

#include <cstdio>
#include <filesystem>

#include "checker/linearizability/imported_check.h"
#include "checker/suite/check_suite.h"
#include "checker/suite/suite_text.h"
#include "history/history_file.h"
#include "history/import_etcd_report.h"
#include "history/import_jepsen.h"
#include "history/import_porcupine.h"
#include "history/run_db.h"
#include "reports/violation_html.h"
#include "sim/wall_clock.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

double ms_since(int64_t start_ns) { return static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e6; }

CheckOutcome input_error(CheckOutcome o, const std::string& message) {
  o.exit_code = kExitUsage;
  o.error = message;
  return o;
}

int exit_code_of(checker::Verdict v) {
  switch (v) {
    case checker::Verdict::kLinearizable: return kExitPass;
    case checker::Verdict::kViolation: return kExitViolation;
    case checker::Verdict::kUnknown: return kExitGaveUp;
  }
  return kExitGaveUp;
}

// --html FILE: the violation's page, written only when there is one; a write error is reported
// but does not change the verdict's exit code.
void write_html(const std::string& path, const std::optional<std::string>& page) {
  if (path.empty() || !page) return;
  if (Status st = reports::write_report_file(path, *page); !st.is_ok()) {
    std::fprintf(stderr, "dst check: --html: %s\n", st.message().c_str());
    return;
  }
  std::printf("html report       %s\n", path.c_str());
}

void print_header(const std::string& self, const CheckRequest& r) {
  const auto budget = static_cast<unsigned long long>(r.budget);
  std::printf("check %s   format %s   model %s   budget %llu steps\n", r.file.c_str(), r.format.c_str(),
              r.model.c_str(), budget);
  std::printf("reproduce: %s check %s --format %s --model %s --budget %llu%s", self.c_str(), r.file.c_str(),
              r.format.c_str(), r.model.c_str(), budget, r.partition ? "" : " --no-partition");
  if (r.explain_budget != 0) std::printf(" --explain-budget %llu", static_cast<unsigned long long>(r.explain_budget));
  std::printf("%s\n", r.explain ? "" : " --no-explain");
  std::fflush(stdout);
}

// The suite's report: every check's line, and for a run database the verdict its stored rows
// and the history decide (the same as the `dst run` that wrote it).
void print_suite_report(const history::History& h, const checker::suite::SuiteResult& suite) {
  std::printf("operations        %zu, watches %zu, faults %zu\n", h.operations.size(), h.watches.size(),
              h.faults.size());
  std::printf("%s", checker::suite::render_check_lines(suite).c_str());
  const history::RunVerdict& v = suite.verdict;
  if (v.deciding && v.name == "violation")
    std::printf("first violation:  %s\n", history::describe_failure(suite.rows[*v.deciding]).c_str());
  std::printf("verdict           %s\n", history::verdict_line(v));
}

// The history a run database or an etcd robustness report holds, read; `partial_kvs` for a report
// (it does not record every field of a key-value: EtcdCheckOptions::partial_kvs).
struct EtcdHistory {
  history::History h;
  bool partial_kvs = false;
  // What the suite is told of the world: a run database's stored rows; nothing for a report.
  checker::suite::WorldFindings world;
  checker::suite::Requirements required;
};

Result<EtcdHistory> read_etcd_history(const CheckRequest& r, bool verbose) {
  if (r.format == "etcd-report") {
    Result<history::ImportedReport> report = history::import_etcd_report(r.file);
    if (!report.is_ok()) return report.status();
    if (report->history.operations.empty() && report->history.watches.empty())
      return Status(StatusCode::kInvalidArgument,
                    r.file + ": the report holds no operation and no watch: nothing to check");
    if (verbose) {
      std::printf("report            %zu client(s); %zu record(s) left out (no effect to check)\n", report->clients,
                  report->left_out);
      for (const std::string& note : report->notes) std::printf("assumed           %s\n", note.c_str());
    }
    EtcdHistory read{std::move(report->history), true, {}, {}};
    read.world.not_observed = "not observed: an etcd robustness report records what clients saw, not the cluster";
    return read;
  }
  if (!history::is_regular_file(r.file))
    return Status(StatusCode::kInvalidArgument, r.file + ": a run database must be a regular file");
  Result<history::History> h = history::read_history(r.file);
  if (!h.is_ok()) return h.status();
  Result<history::RunRecord> run = history::read_run(r.file);
  if (!run.is_ok()) return run.status();
  if (verbose && !run->result)
    std::printf("run               did not finish: no verdict was recorded (killed or crashed while running?); "
                "its history stops where the recording stopped, and operations still in flight count as unknown\n");
  const std::vector<history::CheckRow> stored = run->result ? run->result->checks : std::vector<history::CheckRow>{};
  return EtcdHistory{std::move(*h), false, checker::suite::findings_from_rows(stored),
                     checker::suite::requirements_from_rows(stored)};
}

// A run database recorded by `dst run etcd --out DIR`, or an etcd robustness report: the etcd
// model and the watch guarantees.
CheckOutcome check_etcd_history(const std::string& self, const CheckRequest& r, bool verbose) {
  CheckOutcome o{.format = r.format, .model = r.model};
  if (verbose) print_header(self, r);
  const int64_t start_ns = sim::wall_clock_ns();
  Result<EtcdHistory> read = read_etcd_history(r, verbose);
  if (!read.is_ok()) return input_error(o, read.status().message());
  const history::History& h = read->h;
  checker::suite::SuiteOptions options;
  options.step_budget = r.budget;
  options.partial_kvs = read->partial_kvs;
  options.required = read->required;
  const checker::suite::SuiteResult suite = checker::suite::run_check_suite(h, read->world, options);
  const Result<checker::etcd::EtcdVerdict>& lin = *suite.linearizability;
  if (!lin.is_ok()) return input_error(o, lin.status().message());
  o.verdict_ms = ms_since(start_ns);
  o.operations = h.operations.size();
  o.steps = lin->stats.steps;
  o.exit_code = suite.verdict.exit_code;  // decided once, by history::decide_verdict
  const bool decided_by_a_failure = suite.verdict.deciding && suite.verdict.name != "pass";
  o.explanation = decided_by_a_failure ? history::describe_failure(suite.rows[*suite.verdict.deciding]) : lin->summary();
  if (o.exit_code == kExitUsage) o.error = r.file + ": the recorded run was an error: " + o.explanation;
  if (!verbose) return o;
  print_suite_report(h, suite);
  std::printf("check time        %.3f ms\n", o.verdict_ms);
  write_html(r.html, reports::render_suite_violation_html(h, suite));
  return o;
}

// One line on the explanation, for a summary: the core's size and whether it is 1-minimal.
std::string explanation_line(const checker::CheckResult& r, bool explained) {
  if (r.verdict != checker::Verdict::kViolation) return "";
  if (!explained) return "not explained (--no-explain)";
  if (!r.minimal) return "no minimal core shown within the explanation's budget";
  const checker::MinimalCounterexample& m = *r.minimal;
  return std::to_string(m.core.size()) + " operation(s) in " + m.partition + " cannot be ordered" +
         (m.one_minimal ? " (1-minimal)" : " (not shown 1-minimal)");
}

Result<history::ImportedHistory> import_file(const CheckRequest& r, const std::optional<std::string>& piped) {
  Result<std::string> text =
      piped ? Result<std::string>(*piped) : history::read_history_file(r.file, limits::kImportFileBytesMax);
  if (!text.is_ok()) return text.status();
  Result<history::ImportedHistory> h =
      r.format == "jepsen" ? history::import_jepsen(*text, r.file) : history::import_porcupine_kv(*text, r.file);
  if (!h.is_ok()) return h.status();
  // Only nemesis events is a history in which nothing needs ordering (Knossos's test data has one);
  // no event at all is a file that is not one.
  if (h->ops.empty() && h->nemesis_events == 0)
    return Status(StatusCode::kInvalidArgument, r.file + ": no events: nothing to check (an empty history?)");
  return h;
}

checker::ImportedModel imported_model_named(const std::string& name) {
  if (name == "register") return checker::ImportedModel::kRegister;
  if (name == "mutex") return checker::ImportedModel::kMutex;
  return checker::ImportedModel::kKv;
}

// Verdict first: printed (and flushed) as soon as the search decides, before the minimiser runs.
CheckOutcome check_imported_file(const std::string& self, const CheckRequest& r, const std::optional<std::string>& piped,
                                 bool verbose) {
  const int64_t start_ns = sim::wall_clock_ns();
  Result<history::ImportedHistory> h = import_file(r, piped);
  // A Jepsen history's own model (the register's, or the mutex's when it acquires and releases)
  // is known once it is read, and the header (with the reproduce command) comes first after that.
  CheckRequest req = r;
  if (req.model.empty()) req.model = h.is_ok() ? checker::imported_model_name(checker::jepsen_model_of(*h)) : "register";
  CheckOutcome o{.format = req.format, .model = req.model};
  if (verbose) print_header(self, req);
  if (!h.is_ok()) return input_error(o, h.status().message());
  checker::SearchOptions options;
  options.step_budget = r.budget;
  options.partition = r.partition;
  const checker::ImportedModel model = imported_model_named(req.model);
  Result<checker::CheckResult> result = checker::check_imported(*h, model, options, /*minimize=*/false);
  if (!result.is_ok()) return input_error(o, result.status().message());
  o.verdict_ms = ms_since(start_ns);
  o.operations = h->ops.size();
  o.steps = result->steps;
  o.exit_code = exit_code_of(result->verdict);
  if (verbose) {
    std::printf("operations        %zu\n%s", h->ops.size(), checker::format_verdict_report(*result).c_str());
    std::printf("verdict time      %.3f ms (reading, parsing and the search)\n", o.verdict_ms);
    std::fflush(stdout);
  }
  const bool explain = r.explain && result->verdict == checker::Verdict::kViolation;
  if (explain) {
    const int64_t explain_start_ns = sim::wall_clock_ns();
    if (Status st = checker::explain_imported(*h, model, options, r.explain_budget, *result); !st.is_ok())
      return input_error(o, st.message());
    o.explain_ms = ms_since(explain_start_ns);
  }
  o.explanation = explanation_line(*result, r.explain);
  if (!verbose) return o;
  std::printf("%s", checker::format_explanation(*h, *result).c_str());
  if (explain) std::printf("explain time      %.3f ms (the minimal core: %s)\n", o.explain_ms, o.explanation.c_str());
  if (result->verdict == checker::Verdict::kViolation) write_html(r.html, reports::render_imported_html(*h, *result));
  return o;
}

}  // namespace

// One file of an etcd robustness report (client-<N>/operations.json or watch.json) is one client's
// part of a history: checked alone, the other clients' writes would look like values nobody wrote.
Status refuse_report_part(const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  const std::string name = p.filename().string();
  if (name != "operations.json" && name != "watch.json") return Status::ok();
  const fs::path root = p.parent_path().parent_path();
  if (!history::is_etcd_report_dir(root.empty() ? "." : root.string())) return Status::ok();
  return Status(StatusCode::kInvalidArgument, file + ": one client's part of an etcd robustness report; check the "
                                                     "whole report: dst check " + (root.empty() ? "." : root.string()));
}

Status resolve_check_format(CheckRequest& r, std::optional<std::string>& text, bool* unrecognized) {
  if (unrecognized) *unrecognized = false;
  if (r.format == "auto" && history::is_etcd_report_dir(r.file)) r.format = "etcd-report";
  if (r.format == "auto") {
    if (Status st = refuse_report_part(r.file); !st.is_ok()) return st;
    std::string head;
    if (history::is_regular_file(r.file)) {
      Result<std::string> h = history::read_file_head(r.file, 64 * 1024);
      if (!h.is_ok()) return h.status();
      head = std::move(*h);
    } else {  // a pipe can be read once: keep what was read for the importer
      Result<std::string> all = history::read_history_file(r.file, limits::kImportFileBytesMax);
      if (!all.is_ok()) return all.status();
      text = std::move(*all);
      head = text->substr(0, 64 * 1024);
    }
    Result<history::HistoryFormat> f = history::sniff_history_format(head, r.file);
    if (!f.is_ok()) {
      if (unrecognized) *unrecognized = true;  // read, but no known format: not an I/O error
      return f.status();
    }
    r.format = history::history_format_name(*f);
  } else if (r.format != "jepsen" && r.format != "porcupine-kv" && r.format != "run-db" && r.format != "etcd-report") {
    return Status(StatusCode::kInvalidArgument,
                  "unknown --format '" + r.format + "'; expected auto, jepsen, porcupine-kv, run-db, etcd-report");
  }
  const bool etcd_format = r.format == "run-db" || r.format == "etcd-report";
  // A Jepsen history's model is told from its operations once it is read (check_imported_file).
  if (r.model.empty() && r.format != "jepsen") r.model = etcd_format ? "etcd" : "kv";
  if (!r.model.empty() && r.model != "register" && r.model != "mutex" && r.model != "kv" && r.model != "etcd")
    return Status(StatusCode::kInvalidArgument, "unknown --model '" + r.model + "'; expected register, mutex, kv, etcd");
  if ((r.model == "etcd") != etcd_format)
    return Status(StatusCode::kInvalidArgument,
                  "--model etcd goes with --format run-db (a history recorded by dst run ... --out DIR) or etcd-report "
                  "(an etcd robustness test report directory), and only with them; " + r.file + " is read as " + r.format);
  return Status::ok();
}

CheckOutcome check_history(const std::string& self, CheckRequest r, bool verbose) {
  std::optional<std::string> text;
  bool unrecognized = false;
  if (Status st = resolve_check_format(r, text, &unrecognized); !st.is_ok()) {
    CheckOutcome o = input_error(CheckOutcome{.format = r.format, .model = r.model}, st.message());
    o.not_a_history = unrecognized;
    return o;
  }
  if (r.format == "run-db" || r.format == "etcd-report") return check_etcd_history(self, r, verbose);
  return check_imported_file(self, r, text, verbose);
}

}  // namespace dst
