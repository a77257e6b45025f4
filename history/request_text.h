// Short, readable text of the pieces of etcd requests that every report of a history shows (the
// checkers' violations, the HTML pages): key ranges and txn compares.
#pragma once

#include <string>

#include "proto/etcd_rpc.pb.h"

namespace dst::history {

// "k" for one key, "k.." for every key from k, "a..b" for [a, b).
std::string range_text(const std::string& key, const std::string& end);
// `mod(k) == 5`, `value(k) == "v"`, `version(a..b) > 0`.
std::string compare_text(const etcdserverpb::Compare& c);

}  // namespace dst::history
