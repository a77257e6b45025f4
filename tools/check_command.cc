// See check_command.h.
#include "tools/check_command.h"

#include <cstdio>
#include <optional>

#include "checker/kube/kube_checker.h"
#include "checker/linearizability/etcd_checker.h"
#include "checker/linearizability/imported_check.h"
#include "checker/watch/watch_checker.h"
#include "history/history_file.h"
#include "history/import_jepsen.h"
#include "history/import_porcupine.h"
#include "history/run_db.h"
#include "reports/violation_html.h"
#include "sim/wall_clock.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

int fail_usage(const std::string& message) {
  const bool prefixed = message.rfind("dst check: ", 0) == 0;  // cli::Args' own messages name the command
  std::fprintf(stderr, "%s%s\n", prefixed ? "" : "dst check: ", message.c_str());
  return kExitUsage;
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

// A run database recorded by `dst run etcd --out DIR`: the etcd model and the watch guarantees.
int check_run_db(const std::string& self, const std::string& file, uint64_t budget, const std::string& html) {
  if (!history::is_regular_file(file)) return fail_usage(file + ": a run database must be a regular file");
  std::printf("check %s   format run-db   model etcd   budget %llu steps\nreproduce: %s check %s --format run-db --budget %llu\n",
              file.c_str(), static_cast<unsigned long long>(budget), self.c_str(), file.c_str(),
              static_cast<unsigned long long>(budget));
  std::fflush(stdout);
  Result<history::History> h = history::read_history(file);
  if (!h.is_ok()) return fail_usage(h.status().message());
  Result<history::RunRecord> run = history::read_run(file);
  if (!run.is_ok()) return fail_usage(run.status().message());
  if (!run->result)
    std::printf("run               did not finish: no verdict was recorded (killed or crashed while running?); "
                "its history stops where the recording stopped, and operations still in flight count as unknown\n");
  const int64_t start_ns = sim::wall_clock_ns();
  checker::etcd::EtcdCheckOptions options;
  options.step_budget = budget;
  Result<checker::etcd::EtcdVerdict> lin = checker::etcd::check_etcd(*h, options);
  checker::watch::Report watch = checker::watch::check(*h);
  std::optional<checker::kube::Report> kube;  // only when the run had informers
  if (!h->informers.empty()) kube = checker::kube::check(*h);
  const double ms = static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e6;
  if (!lin.is_ok()) return fail_usage(lin.status().message());
  std::printf("operations        %zu, watches %zu, faults %zu\n", h->operations.size(), h->watches.size(),
              h->faults.size());
  std::printf("linearizability   %s\n", lin->summary().c_str());
  std::printf("watch guarantees  %s\n", watch.ok() ? "ok" : "VIOLATED");
  if (!watch.ok()) std::printf("%s", watch.to_string().c_str());
  const bool kube_ok = !kube || kube->ok();
  if (kube && kube_ok) {
    std::printf("kube checks       ok (%zu lists, %zu events, %zu informers)\n", kube->lists, kube->events, kube->informers);
  } else if (kube) {
    std::printf("kube checks       VIOLATED\n%s", kube->to_string().c_str());
  }
  std::printf("check time        %.3f ms\n", ms);
  write_html(html, reports::render_run_violation_html(*h, &*lin, watch));
  if (!watch.ok() || !kube_ok || lin->verdict == checker::Verdict::kViolation) return kExitViolation;
  return lin->exit_code();
}

}  // namespace

namespace {

struct CheckRequest {
  std::string file, format, model, html;
  uint64_t budget = limits::kCheckerStepsDefault;
  bool partition = true;
  std::optional<std::string> text;  // the file's contents, when they had to be read to tell its format
};

// --format, or the file's own: a SQLite header is a run database, an event map with :key a
// Porcupine kv log, any other event map a Jepsen register history.
Status resolve_format(const cli::Args& args, CheckRequest& r) {
  const std::string model_name = args.value("model").value_or("");
  if (args.has("format")) {
    r.format = *args.value("format");
    if (r.format != "jepsen" && r.format != "porcupine-kv" && r.format != "run-db")
      return Status(StatusCode::kInvalidArgument, "unknown --format '" + r.format + "'; expected jepsen, porcupine-kv, run-db");
  } else {
    std::string head;
    if (history::is_regular_file(r.file)) {
      Result<std::string> h = history::read_file_head(r.file, 64 * 1024);
      if (!h.is_ok()) return h.status();
      head = std::move(*h);
    } else {  // a pipe can be read once: keep what was read for the importer
      Result<std::string> all = history::read_history_file(r.file, limits::kImportFileBytesMax);
      if (!all.is_ok()) return all.status();
      r.text = std::move(*all);
      head = r.text->substr(0, 64 * 1024);
    }
    Result<history::HistoryFormat> f = history::sniff_history_format(head, r.file);
    if (!f.is_ok()) return f.status();
    r.format = history::history_format_name(*f);
  }
  r.model = model_name.empty() ? (r.format == "jepsen" ? "register" : r.format == "run-db" ? "etcd" : "kv") : model_name;
  if (r.model != "register" && r.model != "kv" && r.model != "etcd")
    return Status(StatusCode::kInvalidArgument, "unknown --model '" + r.model + "'; expected register, kv, etcd");
  if ((r.model == "etcd") != (r.format == "run-db"))
    return Status(StatusCode::kInvalidArgument,
                  "--model etcd goes with --format run-db (a history recorded by dst run ... --out DIR), and only with "
                  "it; " + r.file + " is read as " + r.format);
  return Status::ok();
}

int check_imported_file(const std::string& self, const CheckRequest& r) {
  std::printf("check %s   format %s   model %s   budget %llu steps\nreproduce: %s check %s --format %s --model %s --budget %llu%s\n",
              r.file.c_str(), r.format.c_str(), r.model.c_str(), static_cast<unsigned long long>(r.budget), self.c_str(),
              r.file.c_str(), r.format.c_str(), r.model.c_str(), static_cast<unsigned long long>(r.budget),
              r.partition ? "" : " --no-partition");
  std::fflush(stdout);
  Result<std::string> text = r.text ? Result<std::string>(*r.text) : history::read_history_file(r.file, limits::kImportFileBytesMax);
  if (!text.is_ok()) return fail_usage(text.status().message());
  Result<history::ImportedHistory> h =
      r.format == "jepsen" ? history::import_jepsen(*text, r.file) : history::import_porcupine_kv(*text, r.file);
  if (!h.is_ok()) return fail_usage(h.status().message());
  if (h->ops.empty())
    return fail_usage(r.file + ": no operations: nothing to check (an empty history, or one with only nemesis events?)");
  checker::SearchOptions options;
  options.step_budget = r.budget;
  options.partition = r.partition;
  const int64_t start_ns = sim::wall_clock_ns();
  Result<checker::CheckResult> result = checker::check_imported(
      *h, r.model == "register" ? checker::ImportedModel::kRegister : checker::ImportedModel::kKv, options);
  const double ms = static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e6;
  if (!result.is_ok()) return fail_usage(result.status().message());
  std::printf("operations        %zu\n", h->ops.size());
  std::printf("%s", checker::format_check_report(*h, *result).c_str());
  std::printf("check time        %.3f ms\n", ms);
  if (result->verdict == checker::Verdict::kViolation) write_html(r.html, reports::render_imported_html(*h, *result));
  switch (result->verdict) {
    case checker::Verdict::kLinearizable: return kExitPass;
    case checker::Verdict::kViolation: return kExitViolation;
    case checker::Verdict::kUnknown: return kExitGaveUp;
  }
  return kExitGaveUp;
}

}  // namespace

int check_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst check", argv);
  args.positional("FILE", "the history to check", false);
  args.option("model", "M", "register (Jepsen cas-register), kv (Porcupine's get/put/append) or etcd (with run-db); "
                             "default: the format's own");
  args.option("format", "F", "jepsen, porcupine-kv or run-db (a dst run database); default: told from the file "
                             "(a SQLite file is a run database, event maps with :key a Porcupine kv log, others Jepsen)");
  args.option("budget", "STEPS", "model steps before giving up with exit 3 (default " +
                                     std::to_string(limits::kCheckerStepsDefault) + ")");
  args.option("html", "OUT", "on a violation, write a page showing the history around it to OUT (an .html file)");
  args.flag("no-partition", "search the whole history at once instead of per key (slow; for comparison)");
  if (std::optional<int> done = args.parse_or_exit()) return *done;
  CheckRequest r;
  r.file = *args.positional_value("FILE");
  if (Status st = resolve_format(args, r); !st.is_ok()) return fail_usage(st.message());
  Result<uint64_t> budget = args.u64("budget", limits::kCheckerStepsDefault);
  if (!budget.is_ok()) return fail_usage(budget.status().message());
  if (*budget == 0 || *budget > limits::kCheckerStepsMax) {
    return fail_usage("--budget must be between 1 and " + std::to_string(limits::kCheckerStepsMax));
  }
  r.budget = *budget;
  r.html = args.value("html").value_or("");
  if (args.has("html") && r.html.empty()) return fail_usage("--html expects a file name (OUT.html), got ''");
  r.partition = !args.has("no-partition");
  if (r.format == "run-db") return check_run_db(self, r.file, r.budget, r.html);
  return check_imported_file(self, r);
}

}  // namespace dst
