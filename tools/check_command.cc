// See check_command.h.
#include "tools/check_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "tools/check_batch.h"
#include "tools/check_history.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

int fail_usage(const std::string& message) {
  const bool prefixed = message.rfind("dst check: ", 0) == 0;  // cli::Args' own messages name the command
  std::fprintf(stderr, "%s%s\n", prefixed ? "" : "dst check: ", message.c_str());
  return kExitUsage;
}

void declare(cli::Args& args) {
  args.positional("FILE", "the history to check; several files, or directories (their histories, recursively), "
                          "are checked one line each with a total", false);
  args.more_positionals(limits::kCheckBatchFilesMax);
  args.option("model", "M", "register (Jepsen's cas-register, keyed or versioned), mutex (Jepsen's acquire/release), "
                             "kv (Porcupine's get/put/append) or etcd (with run-db and etcd-report); "
                             "default: the format's own (Jepsen: told from its operations)");
  args.option("format", "F", "auto (the default: told from the file), jepsen (EDN maps or log lines), porcupine-kv, "
                             "run-db (a dst run database) or etcd-report (an etcd robustness test report directory)");
  args.option("budget", "STEPS", "model steps before giving up with exit 3 (default " +
                                     std::to_string(limits::kCheckerStepsDefault) + ")");
  args.option("explain-budget", "STEPS", "model steps the explanation (the minimal core of a violation) may take in "
                                         "all, after the verdict is printed (default: scaled to the decision's)");
  args.flag("no-explain", "print the verdict and the longest linearizable prefix only, without minimising");
  args.option("jobs", "J", "with several histories, check this many at once in forked workers (default: the "
                           "number of online CPUs); never changes a verdict");
  args.option("html", "OUT", "on a violation, write a page showing the history around it to OUT (an .html file)");
  args.flag("no-partition", "search the whole history at once instead of per key (slow; for comparison)");
}

Result<uint64_t> steps_option(const cli::Args& args, const char* name, uint64_t fallback) {
  Result<uint64_t> v = args.u64(name, fallback);
  if (!v.is_ok()) return v;
  if ((*v == 0 && fallback != 0) || *v > limits::kCheckerStepsMax)
    return Status(StatusCode::kInvalidArgument, std::string("--") + name + " must be between 1 and " +
                                                    std::to_string(limits::kCheckerStepsMax));
  if (args.has(name) && *v == 0)
    return Status(StatusCode::kInvalidArgument, std::string("--") + name + " must be at least 1 (--no-explain for none)");
  return v;
}

Result<size_t> jobs_option(const cli::Args& args) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const uint64_t fallback = std::clamp<uint64_t>(cpus > 0 ? static_cast<uint64_t>(cpus) : 1, 1, limits::kCheckBatchJobsMax);
  Result<uint64_t> jobs = args.u64("jobs", fallback);
  if (!jobs.is_ok()) return jobs.status();
  if (*jobs < 1 || *jobs > limits::kCheckBatchJobsMax)
    return Status(StatusCode::kInvalidArgument, "--jobs must be 1.." + std::to_string(limits::kCheckBatchJobsMax));
  return static_cast<size_t>(std::min<uint64_t>(*jobs, limits::kCheckBatchJobsMax));
}

Result<CheckRequest> request_of(const cli::Args& args) {
  CheckRequest r;
  r.format = args.value("format").value_or("auto");
  r.model = args.value("model").value_or("");
  Result<uint64_t> budget = steps_option(args, "budget", limits::kCheckerStepsDefault);
  if (!budget.is_ok()) return budget.status();
  r.budget = *budget;
  Result<uint64_t> explain_budget = steps_option(args, "explain-budget", 0);
  if (!explain_budget.is_ok()) return explain_budget.status();
  r.explain_budget = *explain_budget;
  r.explain = !args.has("no-explain");
  if (!r.explain && args.has("explain-budget"))
    return Status(StatusCode::kInvalidArgument, "--explain-budget and --no-explain contradict each other");
  r.html = args.value("html").value_or("");
  if (args.has("html") && r.html.empty())
    return Status(StatusCode::kInvalidArgument, "--html expects a file name (OUT.html), got ''");
  r.partition = !args.has("no-partition");
  return r;
}

std::vector<BatchFile> named_paths(const std::vector<std::string>& paths) {
  std::vector<BatchFile> out;
  for (const std::string& p : paths) out.push_back(BatchFile{p, false});
  return out;
}

}  // namespace

int check_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst check", argv);
  declare(args);
  if (std::optional<int> done = args.parse_or_exit()) return *done;
  Result<CheckRequest> r = request_of(args);
  if (!r.is_ok()) return fail_usage(r.status().message());
  std::vector<std::string> paths{*args.positional_value("FILE")};
  paths.insert(paths.end(), args.more().begin(), args.more().end());
  Result<size_t> jobs = jobs_option(args);
  if (!jobs.is_ok()) return fail_usage(jobs.status().message());
  // An explicit etcd-report names report directories: each is one history, not walked.
  Result<std::vector<BatchFile>> files =
      r->format == "etcd-report" ? named_paths(paths) : expand_check_paths(paths);
  if (!files.is_ok()) return fail_usage(files.status().message());
  const bool one = files->size() == 1 && !files->front().found_in_directory;
  if (!one) {
    if (!r->html.empty()) return fail_usage("--html writes the page of one history; name a single file");
    if (files->empty()) return fail_usage(paths.front() + ": no files to check");
    return check_batch(self, *files, *r, *jobs);
  }
  r->file = files->front().path;
  const CheckOutcome o = check_history(self, *r, /*verbose=*/true);
  if (o.exit_code == kExitUsage) return fail_usage(o.error);
  return o.exit_code;
}

}  // namespace dst
