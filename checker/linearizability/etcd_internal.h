// The etcd checker's working state, shared by its two halves: building the truth timeline
// (etcd_truth.cc: facts, claims, replay) and checking operations against it (etcd_checker.cc).
// Internal to checker/linearizability.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/linearizability/etcd_checker.h"
#include "checker/linearizability/etcd_state.h"

namespace dst::checker::etcd {

// One timeline of revisions (no restores to split at: history.restores, if any, are already
// resolved, as in a timeline of history/restore_epochs.h).
Result<EtcdVerdict> check_etcd_timeline(const history::History& history, const EtcdCheckOptions& options);
// Each timeline of the split checked on its own, and the split's own check (etcd_restores.cc).
Result<EtcdVerdict> check_etcd_across_restores(const history::History& history, const EtcdCheckOptions& options);

// Something observed about one (revision, key): a PUT with the key-value after it, or a DELETE.
struct Fact {
  bool is_delete = false;
  Kv kv;              // PUT: value, mod_revision; the others as the flags below say
  bool full = false;  // create_revision and version known
  std::string source;  // "watch 3 seg 1 at 2.1s" / "op 12 ..."
  uint64_t op_id = UINT64_MAX;  // the operation that observed it (UINT64_MAX: a watch)
  bool lease_known = true;      // false: imported without it (EtcdCheckOptions::partial_kvs)
};

// The fact for an observed key-value: everything known, unless the history is imported without
// some fields (partial_kvs: lease never known, create_revision and version when nonzero; a
// version without create_revision is still compared, see fact_fits).
Fact observed_put(const mvccpb::KeyValue& kv, bool partial_kvs, std::string source, uint64_t op_id);
// Whether a fact agrees with a slot of the replayed state (an uncertain slot agrees with anything).
bool fact_fits(const Fact& f, const Slot& s);

// A watch segment's coverage: every event of [key, end) at revisions [from, to] was delivered.
struct Coverage {
  std::string key, end;
  int64_t from = 0, to = -1;
  std::set<std::pair<int64_t, std::string>> seen;  // (revision, key) it delivered
  std::string name;
};

// Who made a revision.
struct Writer {
  enum class Kind : uint8_t { kNone, kOkWrite, kUnknownWrite, kLease, kUncertain };
  Kind kind = Kind::kNone;
  size_t op = SIZE_MAX;  // operation index (kOkWrite, kUnknownWrite, and kLease for a revoke op)
  int64_t lease = 0;     // kLease without an op: the lease whose expiry made the revision
};

// A request or lease expiry that could have made a revision, and what it would change.
struct Candidate {
  size_t op = SIZE_MAX;  // SIZE_MAX: a lease expiry
  int64_t lease = 0;
  std::map<std::string, Slot> changes;
};

class Checker {
 public:
  Checker(const history::History& h, const EtcdCheckOptions& o) : h_(h), options_(o) {}
  Result<EtcdVerdict> run();

  // --- etcd_truth.cc ---
  void index_operations();
  void collect_facts();
  void add_fact(int64_t rev, const std::string& key, Fact f);
  // A watch event's key-value (a DELETE's when `is_delete`), named by `source` only when it adds
  // something: most events of a fan-out are one event seen by many watches.
  void add_watched(const mvccpb::KeyValue& kv, bool is_delete, const std::function<const std::string&()>& source);
  bool repeats_fact(const mvccpb::KeyValue& kv, bool is_delete) const;
  void collect_coverage();
  bool bound_revisions();  // false: stop (a violation was reported)
  void compute_first_observed();
  void replay_revision(int64_t r);
  void replay_claimed(int64_t r, size_t op, const std::map<std::string, Fact>& facts);
  bool replay_lease_revoke(int64_t r, const std::map<std::string, Fact>& facts);
  void replay_observed(int64_t r, const std::map<std::string, Fact>& facts);
  void replay_gap(int64_t r);
  void explain_deletes(int64_t r, const std::map<std::string, Fact>& facts);
  void resolve(int64_t r, const std::map<std::string, Fact>& facts, std::vector<Candidate> cands, bool gap);
  void apply(int64_t r, std::map<std::string, Slot> changes, const std::map<std::string, Fact>& facts, bool complete);
  void bind_unknown(int64_t r, size_t op);
  bool covered(int64_t r, const std::string& key) const;
  void check_lost(int64_t r, size_t op, const std::map<std::string, Slot>& changes);

  // --- etcd_search.cc ---
  // Replays revisions 2..max in order, each followed by the checks that need the state at it;
  // where several candidates could have made a revision, tries them in turn (depth first,
  // backtracking at the first violation). See the comment at the top of etcd_search.cc.
  // The search's order of candidates: per unknown-outcome write, the latest revision whose
  // observed deletions no acknowledged write made that it may have to explain (0: none).
  std::vector<int64_t> needed_until_;
  void index_delete_needs();
  void order_candidates(int64_t r, std::vector<Candidate>& cands) const;
  // --- etcd_gap_index.cc ---
  // A gap's candidates without trying every unknown-outcome write (gaps x writes was quadratic:
  // 39 M of the 50 M steps of a 1 M-operation history). A write is indexed by one key each of its
  // writing branches puts (a plain put: its key); when each such key is seen by a watch at the gap
  // or read unchanged from before it (stale_at), every branch's changes are not uncovered or are
  // refuted, so the write cannot be a candidate and is set aside unexecuted. The rest, in
  // unknown_writes_ order, go through the full test.
  std::map<std::vector<std::string>, std::vector<size_t>> unknown_by_branch_keys_;
  std::vector<size_t> unknown_unindexed_;  // deletes, revokes, nested txns...: always tried
  void index_gap_candidates();
  // Whether the first read of `key` at or after r saw it present and last changed before r (which
  // refutes any certain change of it at r: refuted()'s first test).
  bool stale_at(int64_t r, const std::string& key) const;
  // The writes to try for gap r, in unknown_writes_ order; `set_aside` gets the groups that cannot
  // be candidates (examined only to settle a violation's report). All of them while any revision
  // is uncertain (an uncertain slot escapes refuted()).
  std::vector<size_t> gap_candidates(int64_t r, std::vector<const std::vector<size_t>*>& set_aside);
  void search();
  void search_writers();  // search() without its final bookkeeping
  // Which of the n candidates that could have made revision r to take; nullopt: not searching
  // (the revision's keys become uncertain instead).
  std::optional<size_t> choose(int64_t r, size_t n);

  // --- etcd_lease.cc ---
  // Indexes what the lease-expired-early rule needs: every acknowledged grant/keep-alive (the
  // refreshes), every revoke that may have taken effect, and the clocks' fastest drift.
  void index_lease_refreshes();
  // The lease-expired-early rule for revision r, which the checker took as lease `lease`'s expiry.
  void check_lease_expiry(int64_t r, int64_t lease);

  // --- etcd_checker.cc ---
  void check_ok_write_response(int64_t r, size_t op, const Execution& e);
  // Checks that need no replayed state: ok operations against real time, compactions; and files
  // every read-like check under the revision whose state it needs (reads_at_).
  void check_static();
  void check_revision(int64_t r);  // the checks that need the state at r, right after r is replayed
  void check_read_like(size_t op, int64_t at);
  // The read-like check's revision (0: none, or reported already).
  int64_t read_revision(size_t op);
  void check_real_time_of(size_t op, int64_t pos, bool strict, const char* rule);
  void check_compactions();
  void violation(std::string rule, std::string message, int64_t revision, std::vector<size_t> ops,
                 std::vector<std::string> extra = {});
  void skipped(size_t op, const std::string& why);
  std::string state_line(int64_t rev, const std::string& key) const;
  std::string op_line(size_t op) const { return describe_operation(h_.operations[op]); }
  template <typename Fn>
  void for_covering(int64_t r, Fn fn) const {
    const size_t c = static_cast<size_t>(r / kChunk);
    if (c >= coverage_by_chunk_.size()) return;
    for (size_t s : coverage_by_chunk_[c])
      if (coverage_[s].from <= r && r <= coverage_[s].to) fn(coverage_[s]);
  }
  bool enough() const { return out_.violations.size() >= options_.violations_max || over_budget(); }
  bool over_budget() const { return steps_ > options_.step_budget; }

  const history::History& h_;
  EtcdCheckOptions options_;
  EtcdVerdict out_;
  uint64_t steps_ = 0;
  Timeline tl_;

  // Per operation (index = position in h_.operations).
  std::vector<bool> claims_;       // an acknowledged write that made a new revision
  std::vector<int64_t> position_;  // claimed revision / header revision (ok ops); 0: none
  std::map<std::string, std::vector<size_t>> writers_of_value_;  // put values in requests -> ops
  std::vector<size_t> unknown_writes_;                            // ops with unknown outcome that can write
  std::map<size_t, int64_t> bound_;                               // unknown write -> its revision
  std::map<int64_t, std::vector<size_t>> revokes_at_;             // ok lease revokes by header revision
  // The lease-expired-early rule (etcd_lease.cc). A refresh: an acknowledged grant or keep-alive,
  // from whose send the lease lives at least its TTL on the leader's clock.
  struct LeaseRefresh {
    int64_t invoke_ns;
    int64_t ttl_seconds;
    int64_t earliest_expiry_ns;  // invoke + TTL / (1 + the fastest drift)
    size_t op;
  };
  std::map<int64_t, std::vector<LeaseRefresh>> lease_refreshes_;  // lease -> its refreshes
  std::map<int64_t, std::vector<size_t>> lease_revokes_;           // lease -> revokes not certainly failed
  int64_t lease_drift_ppm_ = 0;  // the fastest any member's monotonic clock may run (ppm over true time)
  std::string lease_drift_source_;

  std::map<int64_t, std::map<std::string, Fact>> facts_;
  std::map<std::string, int64_t> value_seen_at_;  // value -> a revision it was observed put at
  std::vector<Coverage> coverage_;
  std::map<int64_t, size_t> claimant_;  // revision -> the acknowledged write that claims it
  std::map<int64_t, std::pair<int64_t, size_t>> revoked_;  // lease -> (lowest ok revoke header, op)
  std::vector<std::vector<size_t>> coverage_by_chunk_;     // revision / kChunk -> segments overlapping it
  static constexpr int64_t kChunk = 1024;
  int64_t max_rev_ = 1;
  std::string max_rev_source_;
  // By revision: the earliest time anything showed a revision >= it, and who.
  struct Observation {
    int64_t at = INT64_MAX;
    std::string source;
  };
  std::vector<Observation> first_observed_;
  std::vector<Writer> writer_;  // by revision
  std::set<int64_t> uncertain_revs_;

  // Real time: operations linearized at a known revision (ok writes, linearizable reads, other ok
  // requests through raft), by return time, and the index of the highest position among the
  // first i + 1 of them.
  struct Returned {
    int64_t ret;
    int64_t pos;
    size_t op;
  };
  std::vector<Returned> returned_;
  std::vector<size_t> returned_best_;
  // The highest-positioned operation that returned before `t`, if any.
  const Returned* returned_before(int64_t t) const;
  std::vector<std::vector<size_t>> reads_at_;  // revision -> read-like checks that need its state

  // The search (etcd_search.cc): what must be restored to replay revision r again.
  struct Snapshot {
    EtcdStats stats;
    size_t violations = 0;
    size_t skipped = 0;
  };
  struct Branch {
    int64_t rev = 0;
    size_t alternatives = 0;
    size_t chosen = 0;
    Snapshot before;  // taken before revision rev was replayed
    std::pair<uint64_t, uint64_t> signature{};  // what the search from here depends on (explored_)
  };
  // The signatures of branch points whose every alternative was explored without a passing
  // assignment (Porcupine's cache of failed states, for the choice of writers): reaching one
  // again (the same writers used, the same state, in another order) cannot pass either. Two
  // independent 64-bit digests: a wrong prune needs both to collide. At most kExploredMax (about
  // 30 MB of set nodes); past it nothing new is remembered (still sound, only slower).
  static constexpr size_t kExploredMax = 500'000;
  std::set<std::pair<uint64_t, uint64_t>> explored_;
  bool pruned_ = false;  // the branch just made was explored before: fail it at once
  size_t pruned_total_ = 0;  // out of out_.stats, which backtracking rolls back
  std::pair<uint64_t, uint64_t> signature(int64_t r);
  bool branching_ = false;
  std::vector<Branch> branches_;
  std::optional<std::pair<int64_t, size_t>> forced_;  // (revision, candidate) to take when replaying it again
  Snapshot revision_start_;
  Snapshot take_snapshot() const;
  void roll_back(const Branch& b);
  // What acknowledged reads saw of each key: (revision read, present, mod_revision), by revision.
  struct KeyObservation {
    int64_t at;
    bool present;
    int64_t mod;
    int64_t create;   // 0: not known
    int64_t version;  // 0: not known
  };
  std::map<std::string, std::vector<KeyObservation>> key_observations_;
  void collect_key_observations();
  // Keys some observation shows put at revision r (its mod or create revision), and whether
  // created there: whoever made r put them.
  std::map<int64_t, std::map<std::string, bool>> put_at_;
  void note_put(const std::string& key, int64_t mod, int64_t create);
  // Whether observations refute that these changes were made at revision r.
  bool refuted(int64_t r, const std::map<std::string, Slot>& changes);
  // Whether the unknown-outcome write `op` cannot have made revision r because an operation at
  // revision r or later completed before it was sent.
  bool too_early(int64_t r, size_t op) const {
    const Returned* p = returned_before(h_.operations[op].invoke_ns);
    return p != nullptr && p->pos >= r;
  }
};

}  // namespace dst::checker::etcd
