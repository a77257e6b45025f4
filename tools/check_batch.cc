// See check_batch.h.
#include "tools/check_batch.h"
#include "base/parse_number.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "base/assert.h"
#include "history/import_etcd_report.h"
#include "sim/wall_clock.h"
#include "tools/exit_codes.h"

namespace dst {

namespace fs = std::filesystem;

namespace {

bool hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

Status too_many() {
  return Status(StatusCode::kInvalidArgument, "more than " + std::to_string(limits::kCheckBatchFilesMax) +
                                                  " files to check; name fewer files or a smaller directory");
}

// A directory's files, recursively, without hidden entries or symbolic links to directories. An
// etcd robustness report (a directory of client-<N>/*.json) is one history, not its files.
Status walk_directory(const std::string& dir, std::vector<BatchFile>& out) {
  std::error_code ec;
  std::vector<std::string> found;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return Status(StatusCode::kNotFound, dir + ": cannot read the directory: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Status(StatusCode::kIoError, dir + ": cannot read the directory: " + ec.message());
    const fs::directory_entry& e = *it;
    const bool is_dir = e.is_directory(ec);
    if (hidden(e.path()) || (is_dir && static_cast<size_t>(it.depth()) + 1 >= limits::kCheckBatchDepthMax)) {
      if (is_dir) it.disable_recursion_pending();
      continue;
    }
    if (is_dir && history::is_etcd_report_dir(e.path().string())) {
      it.disable_recursion_pending();
    } else if (is_dir || !e.is_regular_file(ec)) {
      continue;
    }
    found.push_back(e.path().string());
    if (found.size() + out.size() > limits::kCheckBatchFilesMax) return too_many();
  }
  std::sort(found.begin(), found.end());  // the iterator's order is the file system's
  for (std::string& f : found) out.push_back(BatchFile{std::move(f), true});
  return Status::ok();
}

}  // namespace

Result<std::vector<BatchFile>> expand_check_paths(const std::vector<std::string>& paths) {
  std::vector<BatchFile> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) return Status(StatusCode::kNotFound, p + ": no such file or directory");
    if (fs::is_directory(st) && !history::is_etcd_report_dir(p)) {
      if (Status s = walk_directory(p, out); !s.is_ok()) return s;
    } else {
      out.push_back(BatchFile{p, false});
    }
    if (out.size() > limits::kCheckBatchFilesMax) return too_many();
  }
  return out;
}

namespace {

// One outcome as a line between a worker and the batch (fields separated by \x1f).
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\x1f') c = ' ';
  return s;
}

std::string encode(size_t index, const CheckOutcome& o) {
  char nums[160];
  std::snprintf(nums, sizeof nums, "%zu\x1f%d\x1f%d\x1f%zu\x1f%llu\x1f%.6f\x1f%.6f", index, o.exit_code,
                o.not_a_history ? 1 : 0, o.operations, static_cast<unsigned long long>(o.steps), o.verdict_ms,
                o.explain_ms);
  return std::string(nums) + "\x1f" + one_line(o.format) + "\x1f" + one_line(o.model) + "\x1f" +
         one_line(o.explanation) + "\x1f" + one_line(o.error) + "\n";
}

std::optional<std::pair<size_t, CheckOutcome>> decode(const std::string& line) {
  std::vector<std::string> f;
  size_t start = 0;
  for (size_t at; (at = line.find('\x1f', start)) != std::string::npos; start = at + 1) f.push_back(line.substr(start, at - start));
  f.push_back(line.substr(start));
  if (f.size() != 11) return std::nullopt;
  CheckOutcome o;
  // A worker's line is ours; one that does not read as written is no outcome (the parse end counts).
  const std::optional<size_t> index = parse_unsigned<size_t>(f[0]);
  const std::optional<int> exit_code = parse_signed<int>(f[1]);
  const std::optional<size_t> operations = parse_unsigned<size_t>(f[3]);
  const std::optional<uint64_t> steps = parse_u64(f[4]);
  const std::optional<double> verdict_ms = parse_double(f[5]), explain_ms = parse_double(f[6]);
  if (!index || !exit_code || !operations || !steps || !verdict_ms || !explain_ms) return std::nullopt;
  o.exit_code = *exit_code;
  o.not_a_history = f[2] == "1";
  o.operations = *operations;
  o.steps = *steps;
  o.verdict_ms = *verdict_ms;
  o.explain_ms = *explain_ms;
  o.format = f[7];
  o.model = f[8];
  o.explanation = f[9];
  o.error = f[10];
  return std::make_pair(*index, o);
}

CheckOutcome check_one(const std::string& self, const BatchFile& f, const CheckRequest& request) {
  CheckRequest r = request;
  r.file = f.path;
  return check_history(self, r, /*verbose=*/false);
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string pending;  // bytes read after the last whole line
};

// Forks a worker that checks files w, w + jobs, w + 2 jobs, ... and writes one line per file.
// `earlier`: the workers started before, whose pipes the child must not hold open.
Result<Worker> start_worker(const std::string& self, const std::vector<BatchFile>& files, const CheckRequest& r,
                            size_t w, size_t jobs, const std::vector<Worker>& earlier) {
  int fds[2];
  if (::pipe(fds) != 0) return Status(StatusCode::kIoError, std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status(StatusCode::kIoError, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    for (const Worker& e : earlier) ::close(e.fd);
    for (size_t i = w; i < files.size(); i += jobs) {
      const std::string line = encode(i, check_one(self, files[i], r));
      for (size_t done = 0; done < line.size();) {
        const ssize_t n = ::write(fds[1], line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ::_exit(kExitUsage);
        done += static_cast<size_t>(n);
      }
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  return Worker{pid, fds[0], ""};
}

}  // namespace

namespace {

struct Totals {
  size_t histories = 0, pass = 0, violation = 0, gave_up = 0, errors = 0, skipped = 0;
  double verdict_ms = 0, explain_ms = 0;
  std::vector<std::string> skipped_names;
};

void print_line(const BatchFile& f, const CheckOutcome& o, Totals& t) {
  if (o.not_a_history && f.found_in_directory) {  // a directory's other files: results.edn, logs, ...
    ++t.skipped;
    if (t.skipped_names.size() < 3) t.skipped_names.push_back(f.path);
    return;
  }
  ++t.histories;
  t.verdict_ms += o.verdict_ms;
  t.explain_ms += o.explain_ms;
  if (o.exit_code == kExitUsage) {
    ++t.errors;
    std::printf("ERROR     %s\n", o.error.c_str());
    return;
  }
  const char* word = o.exit_code == kExitPass ? "ok" : o.exit_code == kExitViolation ? "FAIL" : "UNKNOWN";
  t.pass += o.exit_code == kExitPass;
  t.violation += o.exit_code == kExitViolation;
  t.gave_up += o.exit_code == kExitGaveUp;
  std::printf("%-9s %s   %s/%s   %zu ops   %llu steps   verdict %.3f ms", word, f.path.c_str(), o.format.c_str(),
              o.model.c_str(), o.operations, static_cast<unsigned long long>(o.steps), o.verdict_ms);
  if (o.explain_ms > 0) std::printf("   explanation %.3f ms", o.explain_ms);
  if (!o.explanation.empty()) std::printf(": %s", o.explanation.c_str());
  std::printf("\n");
}

int print_totals(const Totals& t, size_t jobs, double wall_ms) {
  std::printf("total     %zu histories: %zu linearizable, %zu not linearizable, %zu gave up, %zu unreadable", t.histories,
              t.pass, t.violation, t.gave_up, t.errors);
  if (t.skipped > 0) {
    std::printf("; %zu file(s) skipped, not histories (", t.skipped);
    for (size_t i = 0; i < t.skipped_names.size(); ++i) std::printf("%s%s", i ? ", " : "", t.skipped_names[i].c_str());
    std::printf("%s)", t.skipped > t.skipped_names.size() ? ", ..." : "");
  }
  std::printf("\ntime      verdicts %.3f ms, explanations %.3f ms (summed over histories); wall %.3f ms, %zu job(s)\n",
              t.verdict_ms, t.explain_ms, wall_ms, jobs);
  if (t.histories == 0) {
    std::fprintf(stderr, "dst check: no history among the %zu file(s) given\n", t.skipped);
    return kExitUsage;
  }
  return t.violation > 0 ? kExitViolation : t.errors > 0 ? kExitUsage : t.gave_up > 0 ? kExitGaveUp : kExitPass;
}

// Reads the workers' lines until every pipe ends, printing outcomes in file order as they come.
void collect(std::vector<Worker>& workers, const std::vector<BatchFile>& files, Totals& t) {
  std::map<size_t, CheckOutcome> ready;
  size_t next = 0;
  std::vector<pollfd> polls;
  for (const Worker& w : workers) polls.push_back(pollfd{w.fd, POLLIN, 0});
  size_t open = workers.size();
  while (open > 0) {
    if (::poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;  // the pipes are closed below, which ends the workers' writes
    }
    for (size_t k = 0; k < polls.size(); ++k) {
      if (polls[k].fd < 0 || polls[k].revents == 0) continue;
      char buf[1 << 14];
      const ssize_t n = ::read(polls[k].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(polls[k].fd);
        polls[k].fd = -1;
        --open;
        continue;
      }
      workers[k].pending.append(buf, static_cast<size_t>(n));
      for (size_t nl; (nl = workers[k].pending.find('\n')) != std::string::npos;) {
        std::optional<std::pair<size_t, CheckOutcome>> rec = decode(workers[k].pending.substr(0, nl));
        workers[k].pending.erase(0, nl + 1);
        if (rec && rec->first < files.size()) ready.emplace(rec->first, std::move(rec->second));
      }
      for (auto it = ready.find(next); it != ready.end(); it = ready.find(++next)) {
        print_line(files[next], it->second, t);
        ready.erase(it);
      }
      std::fflush(stdout);
    }
  }
  for (pollfd& p : polls)
    if (p.fd >= 0) ::close(p.fd);
  // A worker that died (a crash of the checker) leaves its files without a line: say so.
  for (; next < files.size(); ++next) {
    auto it = ready.find(next);
    CheckOutcome crashed{.exit_code = kExitUsage,
                         .error = files[next].path + ": its worker ended without a verdict (the checker crashed?)"};
    print_line(files[next], it != ready.end() ? it->second : crashed, t);
  }
}

}  // namespace

int check_batch(const std::string& self, const std::vector<BatchFile>& files, const CheckRequest& request, size_t jobs) {
  DST_ASSERT(jobs >= 1);
  jobs = std::min(jobs, std::max<size_t>(files.size(), 1));
  const int64_t start_ns = sim::wall_clock_ns();
  Totals t;
  if (jobs == 1) {
    for (const BatchFile& f : files) {
      print_line(f, check_one(self, f, request), t);
      std::fflush(stdout);
    }
  } else {
    std::vector<Worker> workers;
    for (size_t w = 0; w < jobs; ++w) {
      Result<Worker> started = start_worker(self, files, request, w, jobs, workers);
      if (!started.is_ok()) {
        std::fprintf(stderr, "dst check: %s\n", started.status().message().c_str());
        break;  // the workers started still cover their files; the rest are reported as unchecked
      }
      workers.push_back(*started);
    }
    collect(workers, files, t);
    for (const Worker& w : workers) ::waitpid(w.pid, nullptr, 0);
  }
  const double wall_ms = static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e6;
  return print_totals(t, jobs, wall_ms);
}

}  // namespace dst
