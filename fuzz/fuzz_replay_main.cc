// The driver of a fuzz target where the compiler has no libFuzzer (gcc; the clang build uses
// libFuzzer): runs the target on every file given (directories: every file in them, in name
// order), then on inputs made from them by a seeded mutator (byte flips, insertions, deletions,
// repeats, splices of two inputs): --mutations N of them, or as many as --seconds S allow. The
// inputs depend only on the seed and the round; a crash or a broken promise leaves the input in
// ./fuzz-crash-input, and so does one input that runs longer than --timeout seconds (a hang; 10 by
// default, as ci/fuzz.sh gives libFuzzer). It prints how many it ran ("executions N") for
// ci/fuzz.sh, and the slowest input's time.
//   TARGET [--mutations N] [--seconds S] [--seed S] [--timeout S] FILE_OR_DIR...
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "base/parse_number.h"
#include "sim/rng.h"
#include "sim/wall_clock.h"

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The input being run, for the crash handler: it writes it to ./fuzz-crash-input.
std::string g_current;

void on_crash(int sig) {
  static const char kCrash[] = "fuzz driver: the input that crashed is in ./fuzz-crash-input\n";
  static const char kHang[] = "fuzz driver: an input ran past --timeout (a hang); it is in ./fuzz-crash-input\n";
  if (sig == SIGALRM) (void)!write(2, kHang, sizeof kHang - 1);
  else (void)!write(2, kCrash, sizeof kCrash - 1);
  FILE* f = std::fopen("fuzz-crash-input", "wb");
  if (f != nullptr) {
    std::fwrite(g_current.data(), 1, g_current.size(), f);
    std::fclose(f);
  }
  std::signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  std::raise(sig == SIGALRM ? SIGABRT : sig);
}

unsigned g_timeout_seconds = 10;
int64_t g_slowest_ns = 0;

// Runs one input under the hang watchdog, and keeps the slowest time.
void run(const std::string& input) {
  g_current = input;
  dst::sim::arm_wall_clock_alarm(g_timeout_seconds);
  const int64_t start = dst::sim::wall_clock_ns();
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  g_slowest_ns = std::max(g_slowest_ns, dst::sim::wall_clock_ns() - start);
  dst::sim::arm_wall_clock_alarm(0);
}

[[noreturn]] void usage(const char* argv0, const std::string& why) {
  std::fprintf(stderr, "%s: %s\nusage: %s [--mutations N] [--seconds S] [--seed S] [--timeout S] FILE_OR_DIR...\n",
               argv0, why.c_str(), argv0);
  std::exit(2);
}

uint64_t number_arg(int argc, char** argv, int& i) {
  if (i + 1 >= argc) usage(argv[0], std::string(argv[i]) + " needs a number");
  const std::string v = argv[++i];
  const std::optional<uint64_t> n = dst::parse_u64(v);
  if (!n) usage(argv[0], std::string(argv[i - 1]) + " expects a whole number, got '" + v + "'");
  return *n;
}

// One mutation of `in` (corpus: the other inputs, for splices).
std::string mutate(std::string in, const std::vector<std::string>& corpus, dst::sim::Rng& rng) {
  const int edits = 1 + static_cast<int>(rng.uniform_u64(4));
  for (int e = 0; e < edits; ++e) {
    const size_t at = in.empty() ? 0 : rng.uniform_u64(in.size() + 1);
    switch (rng.uniform_u64(5)) {
      case 0: if (!in.empty() && at < in.size()) in[at] = static_cast<char>(in[at] ^ (1 << rng.uniform_u64(8))); break;
      case 1: in.insert(at, 1, static_cast<char>(rng.uniform_u64(256))); break;
      case 2: if (at < in.size()) in.erase(at, 1 + rng.uniform_u64(std::min<size_t>(16, in.size() - at))); break;
      case 3: {  // a piece of another input
        const std::string& other = corpus[rng.uniform_u64(corpus.size())];
        if (other.empty()) break;
        const size_t from = rng.uniform_u64(other.size());
        in.insert(at, other.substr(from, 1 + rng.uniform_u64(std::min<size_t>(64, other.size() - from))));
        break;
      }
      default: if (at < in.size()) in.insert(at, in.substr(at, 1 + rng.uniform_u64(std::min<size_t>(32, in.size() - at)))); break;
    }
  }
  return in.size() > (1u << 20) ? in.substr(0, 1u << 20) : in;
}

}  // namespace

int main(int argc, char** argv) {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM}) std::signal(sig, on_crash);
  uint64_t mutations = 0, seconds = 0, seed = 1;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mutations") mutations = number_arg(argc, argv, i);
    else if (a == "--seconds") seconds = std::min<uint64_t>(number_arg(argc, argv, i), 365ull * 86400);
    else if (a == "--seed") seed = number_arg(argc, argv, i);
    else if (a == "--timeout") g_timeout_seconds = static_cast<unsigned>(std::clamp<uint64_t>(number_arg(argc, argv, i), 1, 3600));
    else if (a.rfind("--", 0) == 0) usage(argv[0], "unknown option " + a);
    else if (std::filesystem::is_directory(a))
      for (const auto& e : std::filesystem::directory_iterator(a)) files.push_back(e.path());
    else files.emplace_back(a);
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> corpus;
  for (const auto& f : files) {
    corpus.push_back(read_file(f));
    run(corpus.back());
  }
  if (corpus.empty()) corpus.emplace_back();
  if (seconds > 0 && mutations == 0) mutations = UINT64_MAX;
  const int64_t deadline = dst::sim::wall_clock_ns() + static_cast<int64_t>(seconds) * 1'000'000'000;
  dst::sim::Rng rng(seed);
  uint64_t round = 0;
  for (; round < mutations; ++round) {
    if (seconds > 0 && round % 64 == 0 && dst::sim::wall_clock_ns() > deadline) break;
    std::string input = mutate(corpus[rng.uniform_u64(corpus.size())], corpus, rng);
    run(input);
    if (round % 8 == 7 && corpus.size() < 4096) corpus.push_back(std::move(input));  // grow, without coverage
  }
  std::printf("executions %llu (%zu inputs, %llu mutations, seed %llu): no crash, no hang (slowest input %.1f ms)\n",
              static_cast<unsigned long long>(files.size() + round), files.size(), static_cast<unsigned long long>(round),
              static_cast<unsigned long long>(seed), static_cast<double>(g_slowest_ns) / 1e6);
  return 0;
}
