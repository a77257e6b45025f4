// etcd's prefix ranges, one rule for every caller (clients, etcdctl, report formats, checkers):
// clientv3.GetPrefixRangeEnd. The range [prefix, end) holds exactly the keys that start with
// `prefix`: drop its trailing 0xff bytes and raise the last remaining byte by one; when nothing
// remains (an empty prefix, or only 0xff bytes) the end is "\0", etcd's "every key from the start
// key on".
#pragma once

#include <string>
#include <string_view>

namespace dst {

inline std::string prefix_range_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\0');
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

}  // namespace dst
