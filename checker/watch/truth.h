// The truth the watch checks compare against: which events happened at each committed revision,
// merged from every source the history has, and each key's state just before each event.
//
// Sources: successful writes (a put's event is known from its request and the response's revision;
// a txn's from its executed branch; a delete's keys only when single-key or asked with prev_kv) and
// the events watches received (they reveal writes with unknown outcomes, range deletes' keys, lease
// revocations). Sources must agree: two writes answered with the same revision, two sources with
// different events for the same (revision, key), or more events at a revision than its write made,
// are reported as kConsistent violations. The key states are derived by replaying the revisions in
// order from an empty store; a revision that is missing or not completely known makes every key it
// may have touched unknown until a later event tells its state again, so checks that need a state
// (prev_kv, is-create) are only made where the truth really knows it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/watch/violation.h"
#include "history/history.h"
#include "proto/etcd_kv.pb.h"

namespace dst::checker::watch {

// Where a fact came from, for the report.
struct Source {
  enum class Kind : uint8_t { kOperation, kWatch };
  Kind kind = Kind::kOperation;
  uint64_t id = 0;  // operation id or watch id
  uint32_t client = 0;
  uint32_t member = 0;
  int64_t at_ns = 0;   // the write's return time / the response's arrival
  size_t segment = 0;  // watches only
  size_t response = 0;
  std::string describe() const;  // "op 12 (client 3) returned 1.2s" / "watch 4 seg 1 resp 7 at 2.0s"
};

// A key's state at some revision, as far as the truth knows it.
struct KeyState {
  enum class Kind : uint8_t { kUnknown, kAbsent, kPresent };
  Kind kind = Kind::kUnknown;
  int64_t mod_revision = 0;  // kPresent: always known
  std::optional<std::string> value;
  std::optional<int64_t> lease;
  std::optional<int64_t> create_revision;
  std::optional<int64_t> version;
};

struct TruthEvent {
  mvccpb::Event::EventType type = mvccpb::Event::PUT;
  std::string key;
  // PUT only; unset where no source told it.
  std::optional<std::string> value;
  std::optional<int64_t> lease;
  std::optional<int64_t> create_revision;
  std::optional<int64_t> version;
  Source source;                      // the first source that told of it
  std::optional<Source> meta_source;  // the first source that told create_revision/version (a watch)
  // The key's state at revision - 1 as a write response told it (put/delete with prev_kv).
  std::optional<KeyState> before_from_response;
  KeyState before;  // the key's state at revision - 1, derived by the replay
};

struct Revision {
  std::map<std::string, TruthEvent> events;  // by key: etcd never changes a key twice in one revision
  int64_t events_expected = -1;              // how many events it has, if a source knows (-1: unknown)
  std::optional<Source> counted_by;          // the source that knew the count
  bool complete() const { return events_expected >= 0 && static_cast<int64_t>(events.size()) == events_expected; }
};

// Which keys a watch asked for, with etcd's range conventions: empty range_end is the key alone,
// range_end "\0" means every key >= key (and key "\0" with it: every key).
struct KeyRange {
  std::string key;
  std::string range_end;
  bool contains(const std::string& k) const;
};

class Truth {
 public:
  // Builds the truth from the history; disagreements between sources go to `conflicts` (at most
  // `conflicts_max` are kept, the rest only counted in `conflicts_total`).
  // `partial_kvs`: watch events do not record a key's lease, and create_revision / version only
  // when nonzero (Options::partial_kvs); what is not recorded stays unknown.
  static Truth build(const history::History& history, std::vector<Violation>& conflicts, size_t conflicts_max,
                     size_t& conflicts_total, bool partial_kvs = false);

  const std::map<int64_t, Revision>& revisions() const { return revisions_; }
  const Revision* at(int64_t revision) const;
  // The highest revision a compaction (ok or unknown outcome) invoked before `at_ns` asked for; 0 if none.
  int64_t compaction_revision_max_before(int64_t at_ns) const;

 private:
  void add_operation(const history::Operation& op);
  void add_watch(const history::Watch& watch);
  void add_event(int64_t revision, TruthEvent event);
  bool repeats_known_event(int64_t revision, const mvccpb::Event& ev) const;
  void count_events(int64_t revision, int64_t count, const Source& source);
  void check_counts();
  void replay();
  void conflict(int64_t revision, const Source& a, const Source& b, std::string what);

  std::map<int64_t, Revision> revisions_;
  std::vector<std::pair<int64_t, int64_t>> compactions_;  // (invoke_ns, revision) in operation order
  std::vector<Violation>* conflicts_ = nullptr;
  size_t conflicts_max_ = 0;
  size_t* conflicts_total_ = nullptr;
  bool partial_kvs_ = false;
};

// "PUT k=v @7 (create 3, version 2, lease 0)" / "DELETE k @8": an event as a report shows it.
std::string describe_event(const mvccpb::Event& event);

}  // namespace dst::checker::watch
