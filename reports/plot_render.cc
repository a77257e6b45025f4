// See plot_render.h.
#include "reports/plot_render.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/assert.h"

extern char** environ;

namespace dst::reports {

namespace {

// Bytes of gnuplot's terminal list we read: the list is ~1 KiB; a runaway child cannot make us
// hold more.
constexpr size_t kTerminalListBytesMax = 64 * 1024;
// Lines of gnuplot.log quoted in an error.
constexpr size_t kLogLinesQuoted = 8;

struct Child {
  pid_t pid = -1;
  int spawn_errno = 0;
};

// Starts argv[0] (looked up on PATH) with stdin from /dev/null and stdout/stderr on `out_fd`.
Child spawn(const std::vector<std::string>& argv, int out_fd) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
  Child c;
  c.spawn_errno = posix_spawnp(&c.pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return c;
}

// Waits for the child; its exit code, or 128 + signal.
int wait_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    DST_ASSERT_MSG(errno == EINTR, std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

Status not_found(const std::string& program, int err) {
  return Status(StatusCode::kNotFound, program + " could not be started (" + std::strerror(err) +
                                           "): the report's plots need gnuplot on PATH; install gnuplot-nox "
                                           "(ci/install-deps.sh)");
}

std::string log_tail(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string s;
  for (size_t i = lines.size() > kLogLinesQuoted ? lines.size() - kLogLinesQuoted : 0; i < lines.size(); ++i)
    s += "\n  " + lines[i];
  return s.empty() ? " (gnuplot printed nothing)" : s;
}

}  // namespace

Result<Gnuplot> find_gnuplot(const std::string& program) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status(StatusCode::kIoError, std::string("pipe: ") + std::strerror(errno));
  // `print` writes to stderr; GPVAL_TERMINALS lists every terminal this gnuplot was built with.
  const Child c = spawn({program, "-e", "print GPVAL_TERMINALS"}, fds[1]);
  close(fds[1]);
  std::string out;
  if (c.spawn_errno == 0) {
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      if (out.size() < kTerminalListBytesMax) out.append(buf, static_cast<size_t>(n));
    }
  }
  close(fds[0]);
  if (c.spawn_errno != 0) return not_found(program, c.spawn_errno);
  const int code = wait_exit(c.pid);
  // posix_spawnp may report a failed exec only through the child's exit code 127.
  if (code == 127) return not_found(program, ENOENT);
  std::istringstream words(out);
  bool svg = false, pngcairo = false, png = false;
  for (std::string w; words >> w;) {
    svg |= w == "svg";
    pngcairo |= w == "pngcairo";
    png |= w == "png";
  }
  if (code != 0 || !svg || (!pngcairo && !png))
    return Status(StatusCode::kUnavailable, program + " (exit " + std::to_string(code) +
                                                ") lacks the svg and png terminals the report needs; its terminals: " +
                                                out.substr(0, 2000));
  Gnuplot g;
  g.program = program;
  g.png = pngcairo ? gp::PngTerminal::kPngCairo : gp::PngTerminal::kPngGd;
  return g;
}

Status render_plots(const Gnuplot& gnuplot, const std::string& dir, const std::vector<std::string>& plots) {
  // The directory goes into a gnuplot command line: a line break there would end the command.
  if (dir.find_first_of("\n\r") != std::string::npos)
    return Status(StatusCode::kInvalidArgument, "plot directory name has a line break: " + dir);
  const std::string log = dir + "/gnuplot.log";
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status(StatusCode::kIoError, log + ": " + std::strerror(errno));
  // gnuplot's `cd` takes a single-quoted string, where a quote is doubled.
  std::string cd = "cd '";
  for (const char ch : dir) cd += ch == '\'' ? std::string("''") : std::string(1, ch);
  cd += "'";
  Status result;
  for (const std::string& name : plots) {
    // A previous report's images must not pass for this one's if gnuplot fails.
    for (const char* ext : {".svg", ".png"}) unlink((dir + "/" + name + ext).c_str());
    const Child c = spawn({gnuplot.program, "-e", cd, name + ".gp"}, fd);
    if (c.spawn_errno != 0) {
      result = not_found(gnuplot.program, c.spawn_errno);
      break;
    }
    const int code = wait_exit(c.pid);
    if (code != 0) {
      result = Status(StatusCode::kIoError, "gnuplot " + name + ".gp in " + dir + " failed (exit " +
                                                std::to_string(code) + "); " + log + " ends:" + log_tail(log));
      break;
    }
    for (const char* ext : {".svg", ".png"}) {
      struct stat st {};
      const std::string out = dir + "/" + name + ext;
      if (stat(out.c_str(), &st) != 0 || st.st_size == 0) {
        result = Status(StatusCode::kIoError, "gnuplot " + name + ".gp did not write " + out + "; " + log +
                                                  " ends:" + log_tail(log));
        break;
      }
    }
    if (!result.is_ok()) break;
  }
  close(fd);
  return result;
}

}  // namespace dst::reports
