// `dst bench checker`, the register sets (issue 25): many small Jepsen register histories, checked
// one after another as `dst check DIR/` would, next to Porcupine's own checker on the same files
// in the same run.
//
// Sets: checker/sets/register, generated (register_histories.h: 60-200 operations, 5-15
// processes, timeouts, half with anomalies); checker/sets/porcupine-jepsen, Porcupine's own Jepsen
// etcd logs, when DST_PORCUPINE_SRC names a checkout of Porcupine (its test_data/jepsen).
// Porcupine's times come from bench/porcupine_helper (ci/porcupine-helper.sh builds it), found at
// DST_PORCUPINE_HELPER or next to the dst binary's build directory as porcupine-helper.
//
// Per file, the median of DST_SET_ROUNDS rounds (default 5) of (a) reading, parsing and deciding,
// (b) the same plus the explanation; the set's figures are the sums. Counters: files, violations,
// gave_up, verdict_ms, explained_ms, porcupine_ms (-1 without a helper), disagreements (files where
// the verdicts differ), porcupine_gave_up.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "bench/register_histories.h"
#include "base/parse_number.h"
#include "checker/linearizability/imported_check.h"
#include "history/history_file.h"
#include "history/import_jepsen.h"
#include "sim/wall_clock.h"
#include "runs/child_pool.h"

namespace dst::bench {
namespace {

namespace fs = std::filesystem;
using checker::CheckResult;
using checker::Verdict;

constexpr uint64_t kRegisterSetSeed = 25;
constexpr size_t kRegisterSetFiles = 100;

size_t rounds() {
  const char* v = std::getenv("DST_SET_ROUNDS");
  const long n = v ? parse_signed<long>(v).value_or(5) : 5;
  return static_cast<size_t>(std::clamp<long>(n, 1, 1000));
}

// The project's one wall clock (sim/wall_clock.h): a harness measuring itself.
double now_ms() { return static_cast<double>(sim::wall_clock_ns()) / 1e6; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct FileTimes {
  Verdict verdict = Verdict::kUnknown;
  double verdict_ms = 0, explained_ms = 0;
  bool one_minimal = false;
};

// One round on one file: read, import, decide; then (explain) the minimal core.
Result<FileTimes> check_once(const std::string& path, bool explain) {
  FileTimes t;
  const double start = now_ms();
  Result<std::string> text = history::read_history_file(path, limits::kImportFileBytesMax);
  if (!text.is_ok()) return text.status();
  Result<history::ImportedHistory> h = history::import_jepsen(*text, path);
  if (!h.is_ok()) return h.status();
  Result<CheckResult> r = checker::check_imported(*h, checker::ImportedModel::kRegister, {}, false);
  if (!r.is_ok()) return r.status();
  t.verdict_ms = now_ms() - start;
  t.verdict = r->verdict;
  if (explain) {
    if (Status st = checker::explain_imported(*h, checker::ImportedModel::kRegister, {}, 0, *r); !st.is_ok()) return st;
    t.one_minimal = r->minimal && r->minimal->one_minimal;
  }
  t.explained_ms = now_ms() - start;
  return t;
}

// Porcupine's verdicts and times, from the helper. Empty when there is no helper.
struct PorcupineRun {
  bool ran = false;
  double total_ms = 0;
  std::map<std::string, std::string> verdicts;  // path -> ok, fail, unknown
  std::string error;
};

std::string helper_path() {
  if (const char* v = std::getenv("DST_PORCUPINE_HELPER"); v && *v) return v;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const fs::path& p : {self.parent_path() / "porcupine-helper", self.parent_path().parent_path() / "porcupine-helper"})
    if (fs::exists(p, ec)) return p.string();
  return "";
}

PorcupineRun run_porcupine(const std::vector<std::string>& files) {
  PorcupineRun out;
  const std::string helper = helper_path();
  if (helper.empty()) return out;
  std::vector<std::string> argv{helper, "-repeat", std::to_string(rounds())};
  argv.insert(argv.end(), files.begin(), files.end());
  const std::string log = (fs::temp_directory_path() / ("dst-porcupine-" + std::to_string(::getpid()) + ".txt")).string();
  Result<pid_t> pid = spawn_logged(argv, log);
  if (!pid.is_ok()) {
    out.error = pid.status().message();
    return out;
  }
  int status = 0;
  ::waitpid(*pid, &status, 0);
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string path, verdict, ns;
    std::getline(fields, path, '\t');
    std::getline(fields, verdict, '\t');
    if (path == "total") out.total_ms = parse_double(verdict).value_or(0) / 1e6;
    else out.verdicts[path] = verdict;
  }
  std::error_code ec;
  fs::remove(log, ec);
  out.ran = WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.verdicts.size() == files.size();
  if (!out.ran) out.error = "the helper failed (" + helper + "): exit status " + std::to_string(status);
  return out;
}

const char* porcupine_word(Verdict v) {
  return v == Verdict::kLinearizable ? "ok" : v == Verdict::kViolation ? "fail" : "unknown";
}

void BM_CheckSet(benchmark::State& state, const std::vector<std::string>& files) {
  std::map<std::string, std::vector<double>> verdict_ms, explained_ms;
  std::map<std::string, FileTimes> last;
  for (auto _ : state) {
    for (size_t round = 0; round < rounds(); ++round) {
      for (const std::string& f : files) {
        Result<FileTimes> a = check_once(f, false), b = check_once(f, true);
        if (!a.is_ok() || !b.is_ok()) {
          state.SkipWithError((a.is_ok() ? b.status() : a.status()).to_string().c_str());
          return;
        }
        verdict_ms[f].push_back(a->verdict_ms);
        explained_ms[f].push_back(b->explained_ms);
        last[f] = *b;
      }
    }
  }
  double v_ms = 0, e_ms = 0, violations = 0, gave_up = 0, one_minimal = 0;
  for (const std::string& f : files) {
    v_ms += median(verdict_ms[f]);
    e_ms += median(explained_ms[f]);
    violations += last[f].verdict == Verdict::kViolation;
    gave_up += last[f].verdict == Verdict::kUnknown;
    one_minimal += last[f].one_minimal;
  }
  const PorcupineRun p = run_porcupine(files);
  double disagreements = 0, porcupine_gave_up = 0;
  for (const std::string& f : files) {
    auto it = p.verdicts.find(f);
    if (!p.ran || it == p.verdicts.end()) continue;
    disagreements += it->second != porcupine_word(last[f].verdict);
    porcupine_gave_up += it->second == "unknown";
  }
  state.SetLabel(!p.error.empty() ? p.error : fs::path(files.front()).parent_path().string());
  state.counters["files"] = static_cast<double>(files.size());
  state.counters["violations"] = violations;
  state.counters["gave_up"] = gave_up;
  state.counters["one_minimal"] = one_minimal;
  state.counters["verdict_ms"] = v_ms;
  state.counters["explained_ms"] = e_ms;
  state.counters["porcupine_ms"] = p.ran ? p.total_ms : -1;
  state.counters["disagreements"] = p.ran ? disagreements : -1;
  state.counters["porcupine_gave_up"] = p.ran ? porcupine_gave_up : -1;
}

std::vector<std::string> porcupine_jepsen_files() {
  std::vector<std::string> files;
  const char* src = std::getenv("DST_PORCUPINE_SRC");
  if (!src || !*src) return files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(src) / "test_data" / "jepsen", ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".log" && e.file_size(ec) > 0) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

int register_sets() {
  static std::vector<std::string> generated, jepsen;
  benchmark::RegisterBenchmark("checker/sets/register", [](benchmark::State& s) {
    if (generated.empty()) {
      // The same files every run: a fixed place, rewritten (`dst check` it to see one).
      const std::string dir = (fs::temp_directory_path() / ("dst-register-set-" + std::to_string(kRegisterSetSeed))).string();
      Result<std::vector<std::string>> files = write_register_set(dir, kRegisterSetSeed, kRegisterSetFiles);
      if (!files.is_ok()) return s.SkipWithError(files.status().to_string().c_str());
      generated = *files;
    }
    BM_CheckSet(s, generated);
  })->Iterations(1)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("checker/sets/porcupine-jepsen", [](benchmark::State& s) {
    if (jepsen.empty()) jepsen = porcupine_jepsen_files();
    if (jepsen.empty()) return s.SkipWithError("set DST_PORCUPINE_SRC to a checkout of Porcupine to check its test_data/jepsen");
    BM_CheckSet(s, jepsen);
  })->Iterations(1)->Unit(benchmark::kMillisecond);
  return 0;
}
const int kRegistered = register_sets();

}  // namespace
}  // namespace dst::bench
