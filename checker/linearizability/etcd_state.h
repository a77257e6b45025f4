// The etcd model's state for the revision-pinned checker (etcd_checker.h): every key's history as
// a list of (revision, slot) changes, so the state at any revision is one binary search per key,
// and a sequential executor that runs one KV request (range, put, delete, txn) against the state
// at a revision, giving the events it would make and the response it would get, the way the node
// (node/server/kv_apply.cc) and etcd 3.4 compute them.
//
// A key's slot may be uncertain: a revision that nothing in the history explains may have touched
// it. Whatever depends on an uncertain slot is reported as uncertain, never guessed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proto/etcd_api.pb.h"

namespace dst::checker::etcd {

struct Kv {
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
  bool operator==(const Kv&) const = default;
};

struct Slot {
  enum class Kind : uint8_t { kAbsent, kPresent, kUncertain };
  Kind kind = Kind::kAbsent;
  Kv kv;  // kPresent
  bool present() const { return kind == Kind::kPresent; }
  bool uncertain() const { return kind == Kind::kUncertain; }
  bool operator==(const Slot&) const = default;
  static Slot absent() { return Slot{}; }
  static Slot uncertain_slot() { return Slot{Kind::kUncertain, {}}; }
  static Slot present_kv(Kv kv) { return Slot{Kind::kPresent, std::move(kv)}; }
};

Kv kv_from_proto(const mvccpb::KeyValue& kv);
mvccpb::KeyValue kv_to_proto(const std::string& key, const Kv& kv);
std::string describe_slot(const Slot& s);  // "absent", "?", "c3.1 (create 4, mod 9, ver 3, lease 7)"

// etcd's range convention: empty end = the key alone; "\0" = every key >= key.
bool in_range(const std::string& k, const std::string& key, const std::string& end);

// Every key's history. Changes are appended in increasing revision order (the replay).
class Timeline {
 public:
  // The key's slot at `rev` (after revision rev was applied). Keys start absent.
  Slot at(const std::string& key, int64_t rev) const;
  // Records that from `rev` on the key is `slot`. rev must not go backwards for the key.
  void set(const std::string& key, int64_t rev, Slot slot);
  // Forgets every change at revision `rev` or later (the search backtracking to before rev).
  void truncate_from(int64_t rev);
  // Keys ever mentioned in [key, end), in key order.
  template <typename Fn>
  void for_keys(const std::string& key, const std::string& end, Fn fn) const {
    if (end.empty()) {
      auto it = keys_.find(key);
      if (it != keys_.end()) fn(it->first);
      return;
    }
    auto it = keys_.lower_bound(key);
    const bool to_end = end == std::string(1, '\0');
    for (; it != keys_.end() && (to_end || it->first < end); ++it) fn(it->first);
  }
  size_t key_count() const { return keys_.size(); }
  // Keys whose slot at `rev` is present with this lease.
  std::vector<std::string> keys_with_lease(int64_t lease, int64_t rev) const;
  // A digest of every key changed at revision `from` or later, with its slot at `at`: two
  // replays that agree before `from` have the same state at `at` when their digests agree.
  // `seed` picks one of independent digests.
  uint64_t digest_changed_since(int64_t from, int64_t at, uint64_t seed) const;

 private:
  struct Change {
    int64_t rev;
    Slot slot;
  };
  std::map<std::string, std::vector<Change>> keys_;
};

// The outcome of running one request against the state at `base` (the write, if any, gets
// revision base + 1).
struct Execution {
  std::map<std::string, Slot> changes;  // key -> slot after; empty: the request changed nothing
  etcdserverpb::ApiResponse response;   // what the state says the response must be (no headers)
  bool uncertain = false;               // it read an uncertain slot (or an option not modelled)
  std::string uncertain_why;
  bool compares_succeeded = true;  // txn: what its compares evaluate to on the state
};

// Runs `req` (range, put, delete_range or txn) on the state at `base`. With `actual` (the
// recorded response of an acknowledged txn) the branches it reports are the ones executed, nested
// txns included, else the compares choose. `steps` counts the work (keys visited).
Execution execute(const Timeline& t, int64_t base, const etcdserverpb::ApiRequest& req,
                  const etcdserverpb::ApiResponse* actual, uint64_t* steps);

// The response with every header cleared (the parts the state decides), for comparison; with
// `partial_kvs` (EtcdCheckOptions) also what an imported history does not record: key-values'
// create_revision and lease, a range's `more`, and prev_kv(s).
etcdserverpb::ApiResponse strip_headers(const etcdserverpb::ApiResponse& r, bool partial_kvs = false);
bool same_response(const etcdserverpb::ApiResponse& a, const etcdserverpb::ApiResponse& b, bool partial_kvs = false);

}  // namespace dst::checker::etcd
