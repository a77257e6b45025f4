#include "runs/child_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "base/assert.h"
#include "sim/wall_clock.h"

extern char** environ;

namespace dst {
namespace {

// A log bigger than head + tail is read only in those parts.
constexpr size_t kLogHeadBytes = 4u << 20;
constexpr size_t kLogTailBytes = 64u << 10;
// How often the reaping loop looks again while no child has finished.
constexpr int64_t kPollNs = 20'000'000;

void sleep_ns(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

struct Started {
  size_t index = 0;
  int64_t started_ns = 0;
  bool killed = false;
};

ChildExit exit_of(int status, const Started& s, int64_t now_ns) {
  ChildExit e;
  e.wall_ns = now_ns - s.started_ns;
  e.timed_out = s.killed;
  if (WIFEXITED(status)) {
    e.exit_code = WEXITSTATUS(status);
  } else {
    DST_ASSERT(WIFSIGNALED(status));
    e.exit_code = 128 + WTERMSIG(status);
  }
  return e;
}

}  // namespace

Result<pid_t> spawn_logged(const std::vector<std::string>& argv, const std::string& log) {
  DST_ASSERT(!argv.empty());
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  DST_ASSERT_EQ(posix_spawn_file_actions_init(&fa), 0);
  DST_ASSERT_EQ(posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0), 0);
  DST_ASSERT_EQ(posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
  DST_ASSERT_EQ(posix_spawn_file_actions_adddup2(&fa, 1, 2), 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return Status(StatusCode::kIoError, "cannot start " + argv[0] + ": " + std::strerror(rc));
  DST_ASSERT_GT(pid, 0);
  return pid;
}

std::string read_log_bounded(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const size_t size = static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(0);
  if (size <= kLogHeadBytes + kLogTailBytes) {
    std::string all(size, '\0');
    in.read(all.data(), static_cast<std::streamsize>(size));
    return all;
  }
  std::string head(kLogHeadBytes, '\0'), tail(kLogTailBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  in.seekg(static_cast<std::streamoff>(size - kLogTailBytes));
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  return head + "\n[log cut here]\n" + tail;
}

std::vector<ChildExit> run_children(const std::vector<ChildCommand>& commands, size_t jobs, int64_t timeout_ns) {
  DST_ASSERT_GT(jobs, 0u);
  std::vector<ChildExit> exits(commands.size());
  std::map<pid_t, Started> running;
  size_t next = 0;
  while (next < commands.size() || !running.empty()) {
    while (running.size() < jobs && next < commands.size()) {
      const size_t i = next++;
      Result<pid_t> pid = spawn_logged(commands[i].argv, commands[i].log);
      if (pid.is_ok()) running[*pid] = Started{i, sim::wall_clock_ns(), false};
      else exits[i] = ChildExit{.exit_code = 2, .spawn_error = pid.status().message()};
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    const int64_t now = sim::wall_clock_ns();
    if (pid > 0) {
      auto it = running.find(pid);
      DST_ASSERT_MSG(it != running.end(), "reaped a child the pool did not start");
      exits[it->second.index] = exit_of(status, it->second, now);
      running.erase(it);
      continue;
    }
    DST_ASSERT_MSG(pid == 0 || errno == EINTR, std::string("waitpid: ") + std::strerror(errno));
    for (auto& [child, s] : running) {
      if (timeout_ns > 0 && !s.killed && now - s.started_ns > timeout_ns) {
        s.killed = true;
        kill(child, SIGKILL);  // reaped by a later waitpid like any other exit
      }
    }
    sleep_ns(kPollNs);
  }
  return exits;
}

}  // namespace dst
