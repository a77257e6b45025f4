// Short, readable text of the pieces of etcd requests that every report of a history shows (the
// checkers' violations, the HTML pages): key ranges, range requests, txn compares, and the requests
// that are neither reads nor writes of keys.
#pragma once

#include <string>

#include "proto/etcd_api.pb.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::history {

// "k" for one key, "k.." for every key from k, "a..b" for [a, b).
std::string range_text(const std::string& key, const std::string& end);
// `mod(k) == 5`, `value(k) == "v"`, `version(a..b) > 0`.
std::string compare_text(const etcdserverpb::Compare& c);
// "get a..b @5 limit 10 serializable count-only keys-only" (the options that are set).
std::string range_request_text(const etcdserverpb::RangeRequest& r);
// Compaction and lease requests: "compact 40", "lease-grant ttl 5", "lease-revoke 7"; any other
// kind: "request N". (Range, put, delete and txn each report renders in its own length.)
std::string other_request_text(const etcdserverpb::ApiRequest& r);

}  // namespace dst::history
