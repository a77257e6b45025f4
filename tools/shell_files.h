// Where `dst shell`'s snapshot commands keep files: etcdctl writes `snapshot save FILE` on the
// machine it runs on and `snapshot status FILE` reads it there. The session sees files only
// through this seam: the real file system for the command (local_files()), memory in tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dst::shell {

class ShellFiles {
 public:
  virtual ~ShellFiles() = default;
  // Writes `bytes` to PATH.part, then renames it to PATH (a reader never sees half a file). The
  // error is etcdctl's: "could not open PATH.part (open PATH.part: no such file or directory)".
  virtual Status write_atomically(const std::string& path, std::string_view bytes) = 0;
  // The file, at most `max_bytes`; etcdctl's error otherwise: "stat PATH: no such file or directory".
  virtual Result<std::string> read(const std::string& path, size_t max_bytes) = 0;
};

// The machine's files (relative paths from the working directory).
std::unique_ptr<ShellFiles> local_files();

// Files in memory, for tests.
class MemoryFiles : public ShellFiles {
 public:
  Status write_atomically(const std::string& path, std::string_view bytes) override;
  Result<std::string> read(const std::string& path, size_t max_bytes) override;
  std::map<std::string, std::string>& files() { return files_; }

 private:
  std::map<std::string, std::string> files_;
};

}  // namespace dst::shell
