#include "tools/text_file.h"

#include <fstream>
#include <sstream>

namespace dst {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status(StatusCode::kIoError, path + ": read error");
  return ss.str();
}

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == '\t') {
      out.emplace_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace dst
