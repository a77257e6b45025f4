#include "tools/shell_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace dst::shell {

namespace {

// Go's syscall error texts are strerror's, starting lower case ("no such file or directory").
std::string go_errno_text(int err) {
  std::string s = std::strerror(err);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

class LocalFiles : public ShellFiles {
 public:
  Status write_atomically(const std::string& path, std::string_view bytes) override {
    const std::string part = path + ".part";
    std::FILE* f = std::fopen(part.c_str(), "wb");
    if (f == nullptr)
      return Status(StatusCode::kIoError, "could not open " + part + " (open " + part + ": " + go_errno_text(errno) + ")");
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    const int write_errno = errno;
    const bool closed = std::fclose(f) == 0;
    if (!written || !closed) {
      std::remove(part.c_str());
      return Status(StatusCode::kIoError, "write " + part + ": " + go_errno_text(written ? errno : write_errno));
    }
    if (std::rename(part.c_str(), path.c_str()) != 0) {
      const int e = errno;
      std::remove(part.c_str());
      return Status(StatusCode::kIoError, "could not rename " + part + " to " + path + " (rename " + part + " " +
                                              path + ": " + go_errno_text(e) + ")");
    }
    return Status::ok();
  }

  Result<std::string> read(const std::string& path, size_t max_bytes) override {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return Status(StatusCode::kNotFound, "stat " + path + ": " + go_errno_text(errno));
    std::string out;
    char buf[1 << 16];
    for (;;) {
      const size_t n = std::fread(buf, 1, sizeof buf, f);
      out.append(buf, n);
      if (out.size() > max_bytes) {
        std::fclose(f);
        return Status(StatusCode::kInvalidArgument, path + ": larger than " + std::to_string(max_bytes) + " bytes");
      }
      if (n < sizeof buf) break;
    }
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return Status(StatusCode::kIoError, "read " + path + ": input/output error");
    return out;
  }
};

}  // namespace

std::unique_ptr<ShellFiles> local_files() { return std::make_unique<LocalFiles>(); }

Status MemoryFiles::write_atomically(const std::string& path, std::string_view bytes) {
  files_[path] = std::string(bytes);
  return Status::ok();
}

Result<std::string> MemoryFiles::read(const std::string& path, size_t max_bytes) {
  auto it = files_.find(path);
  if (it == files_.end()) return Status(StatusCode::kNotFound, "stat " + path + ": no such file or directory");
  if (it->second.size() > max_bytes)
    return Status(StatusCode::kInvalidArgument, path + ": larger than " + std::to_string(max_bytes) + " bytes");
  return it->second;
}

}  // namespace dst::shell
