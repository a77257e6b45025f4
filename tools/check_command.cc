// See check_command.h.
#include "tools/check_command.h"

#include <cstdio>
#include <optional>

#include "checker/kube/kube_checker.h"
#include "checker/linearizability/etcd_checker.h"
#include "checker/linearizability/imported_check.h"
#include "checker/watch/watch_checker.h"
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
  std::fprintf(stderr, "dst check: %s\n", message.c_str());
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
  std::printf("check %s   format run-db   model etcd   budget %llu steps\nreproduce: %s check %s --format run-db --budget %llu\n",
              file.c_str(), static_cast<unsigned long long>(budget), self.c_str(), file.c_str(),
              static_cast<unsigned long long>(budget));
  std::fflush(stdout);
  Result<history::History> h = history::read_history(file);
  if (!h.is_ok()) return fail_usage(h.status().message());
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

int check_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst check", argv);
  args.positional("FILE", "the history to check", false);
  args.option("model", "M", "register (Jepsen cas-register), kv (Porcupine's get/put/append) or etcd (with run-db); "
                             "default: the format's own");
  args.option("format", "F", "jepsen, porcupine-kv or run-db (a dst run database; default: porcupine-kv with "
                             "--model kv, run-db with --model etcd, else jepsen)");
  args.option("budget", "STEPS", "model steps before giving up with exit 3 (default " +
                                     std::to_string(limits::kCheckerStepsDefault) + ")");
  args.option("html", "OUT", "on a violation, write a page showing the history around it to OUT (an .html file)");
  args.flag("no-partition", "search the whole history at once instead of per key (slow; for comparison)");
  if (Status st = args.parse(); !st.is_ok()) {
    std::fprintf(stderr, "%s\n\n%s", st.message().c_str(), args.usage().c_str());
    return kExitUsage;
  }
  if (args.has("help")) {
    std::printf("%s", args.usage().c_str());
    return kExitPass;
  }
  const std::string file = *args.positional_value("FILE");
  const std::string model_name = args.value("model").value_or("");
  std::string format = args.value("format").value_or(model_name == "kv" ? "porcupine-kv" : "jepsen");
  if (model_name == "etcd" && !args.has("format")) format = "run-db";
  if (format != "jepsen" && format != "porcupine-kv" && format != "run-db") {
    return fail_usage("unknown --format '" + format + "'; expected jepsen, porcupine-kv, run-db");
  }
  const std::string model =
      model_name.empty() ? (format == "jepsen" ? "register" : format == "run-db" ? "etcd" : "kv") : model_name;
  if (model != "register" && model != "kv" && model != "etcd") {
    return fail_usage("unknown --model '" + model + "'; expected register, kv, etcd");
  }
  if ((model == "etcd") != (format == "run-db")) {
    return fail_usage("--model etcd goes with --format run-db (a history recorded by dst run etcd --out DIR), "
                      "and only with it");
  }
  Result<uint64_t> budget = args.u64("budget", limits::kCheckerStepsDefault);
  if (!budget.is_ok()) return fail_usage(budget.status().message());
  if (*budget == 0 || *budget > limits::kCheckerStepsMax) {
    return fail_usage("--budget must be between 1 and " + std::to_string(limits::kCheckerStepsMax));
  }
  const std::string html = args.value("html").value_or("");
  if (format == "run-db") return check_run_db(self, file, *budget, html);

  std::printf("check %s   format %s   model %s   budget %llu steps\nreproduce: %s check %s --format %s --model %s --budget %llu%s\n",
              file.c_str(), format.c_str(), model.c_str(), static_cast<unsigned long long>(*budget), self.c_str(),
              file.c_str(), format.c_str(), model.c_str(), static_cast<unsigned long long>(*budget),
              args.has("no-partition") ? " --no-partition" : "");
  std::fflush(stdout);
  Result<history::ImportedHistory> h =
      format == "jepsen" ? history::import_jepsen_file(file) : history::import_porcupine_kv_file(file);
  if (!h.is_ok()) return fail_usage(h.status().message());

  checker::SearchOptions options;
  options.step_budget = *budget;
  options.partition = !args.has("no-partition");
  const int64_t start_ns = sim::wall_clock_ns();
  Result<checker::CheckResult> r = checker::check_imported(
      *h, model == "register" ? checker::ImportedModel::kRegister : checker::ImportedModel::kKv, options);
  const double ms = static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e6;
  if (!r.is_ok()) return fail_usage(r.status().message());
  std::printf("operations        %zu\n", h->ops.size());
  std::printf("%s", checker::format_check_report(*h, *r).c_str());
  std::printf("check time        %.3f ms\n", ms);
  if (r->verdict == checker::Verdict::kViolation) write_html(html, reports::render_imported_html(*h, *r));
  switch (r->verdict) {
    case checker::Verdict::kLinearizable: return kExitPass;
    case checker::Verdict::kViolation: return kExitViolation;
    case checker::Verdict::kUnknown: return kExitGaveUp;
  }
  return kExitGaveUp;
}

}  // namespace dst
