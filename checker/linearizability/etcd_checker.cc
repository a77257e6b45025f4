// The etcd checker's entry point and its per-operation checks against the truth timeline built in
// etcd_truth.cc / etcd_explain.cc: responses against the state at their revision, real-time order,
// compaction and lease rules.
#include "checker/linearizability/etcd_checker.h"

#include <algorithm>

#include "checker/linearizability/etcd_internal.h"

namespace dst::checker::etcd {

namespace {

using etcdserverpb::ApiRequest;
using history::Outcome;

constexpr size_t kSkippedShownMax = 5;
constexpr size_t kStateKeysShownMax = 8;

// Keys a request reads or writes, for showing the state around a violation.
void keys_of(const ApiRequest& r, std::vector<std::pair<std::string, std::string>>* out) {
  if (r.has_range()) out->emplace_back(r.range().key(), r.range().range_end());
  if (r.has_put()) out->emplace_back(r.put().key(), "");
  if (r.has_delete_range()) out->emplace_back(r.delete_range().key(), r.delete_range().range_end());
  if (!r.has_txn()) return;
  for (const auto& c : r.txn().compare()) out->emplace_back(c.key(), c.range_end());
  for (const auto* b : {&r.txn().success(), &r.txn().failure()})
    for (const auto& op : *b) {
      ApiRequest inner;
      if (op.has_request_range()) *inner.mutable_range() = op.request_range();
      if (op.has_request_put()) *inner.mutable_put() = op.request_put();
      if (op.has_request_delete_range()) *inner.mutable_delete_range() = op.request_delete_range();
      if (op.has_request_txn()) *inner.mutable_txn() = op.request_txn();
      keys_of(inner, out);
    }
}

}  // namespace

void Checker::violation(std::string rule, std::string message, int64_t revision, std::vector<size_t> ops,
                        std::vector<std::string> extra) {
  if (out_.violations.size() >= options_.violations_max) return;
  EtcdViolation v;
  v.rule = std::move(rule);
  v.message = std::move(message);
  v.revision = revision;
  for (size_t op : ops) {
    v.ops.push_back(h_.operations[op].id);
    v.lines.push_back(op_line(op));
  }
  for (std::string& l : extra) v.lines.push_back(std::move(l));
  out_.violations.push_back(std::move(v));
}

void Checker::skipped(size_t op, const std::string& why) {
  ++out_.stats.checks_skipped;
  if (out_.skipped.size() < kSkippedShownMax) out_.skipped.push_back(op_line(op) + ": " + why);
}

std::string Checker::state_line(int64_t rev, const std::string& key) const {
  return key + " at revision " + std::to_string(rev) + ": " + describe_slot(tl_.at(key, rev));
}

// The state of the keys `op` touches at `rev`, a few lines.
static std::vector<std::string> state_lines(const Checker& c, int64_t rev, const ApiRequest& req) {
  std::vector<std::pair<std::string, std::string>> ranges;
  keys_of(req, &ranges);
  std::set<std::string> keys;
  for (const auto& [k, e] : ranges) {
    keys.insert(k);
    c.tl_.for_keys(k, e, [&](const std::string& key) {
      if (keys.size() < kStateKeysShownMax) keys.insert(key);
    });
  }
  std::vector<std::string> out;
  for (const std::string& k : keys) out.push_back(c.state_line(rev, k));
  return out;
}

void Checker::check_ok_write_response(int64_t r, size_t op, const Execution& e) {
  const history::Operation& o = h_.operations[op];
  if (e.uncertain) return skipped(op, e.uncertain_why);
  ++out_.stats.checks;
  if (o.request.has_txn() && e.compares_succeeded != o.response.txn().succeeded()) {
    auto lines = state_lines(*this, r - 1, o.request);
    violation("txn-succeeded", std::string("the txn's compares are ") + (e.compares_succeeded ? "true" : "false") +
                                   " on the state before it, but it answered succeeded=" +
                                   (o.response.txn().succeeded() ? "true" : "false"),
              r, {op}, lines);
    return;
  }
  if (same_response(e.response, o.response, options_.partial_kvs)) return;
  auto lines = state_lines(*this, r - 1, o.request);
  lines.insert(lines.begin(), "expected from the state before it: " + describe_response(e.response));
  violation("write-response", "the response differs from what the state before the write gives", r, {op}, lines);
}

int64_t Checker::read_revision(size_t op) {
  const history::Operation& o = h_.operations[op];
  const ApiRequest& req = o.request;
  if (o.outcome != Outcome::kOk || claims_[op]) return 0;
  if (!req.has_range() && !req.has_delete_range() && !req.has_txn()) return 0;
  const int64_t header = position_[op];
  int64_t at = header;
  if (req.has_range() && req.range().revision() != 0) {
    at = req.range().revision();
    if (at > header) {
      violation("future-revision", "a read of a revision above the member's own revision succeeded", at, {op});
      return 0;
    }
  }
  if (at < 1 || at > max_rev_) return 0;  // no state to check against (reported by the real-time checks)
  return at;
}

void Checker::check_read_like(size_t op, int64_t at) {
  const history::Operation& o = h_.operations[op];
  const ApiRequest& req = o.request;
  ApiRequest q = req;
  if (q.has_range()) q.mutable_range()->clear_revision();
  Execution e = execute(tl_, at, q, &o.response, &steps_);
  if (e.uncertain) return skipped(op, e.uncertain_why);
  ++out_.stats.checks;
  if (req.has_txn() && e.compares_succeeded != o.response.txn().succeeded()) {
    violation("txn-succeeded", std::string("the txn's compares are ") + (e.compares_succeeded ? "true" : "false") +
                                   " on the state at its revision, but it answered succeeded=" +
                                   (o.response.txn().succeeded() ? "true" : "false"),
              at, {op}, state_lines(*this, at, req));
    return;
  }
  if (!e.changes.empty()) {
    violation("write-effect", "answered without a new revision, but on the state at its revision it changes keys",
              at, {op}, state_lines(*this, at, req));
    return;
  }
  if (same_response(e.response, o.response, options_.partial_kvs)) return;
  auto lines = state_lines(*this, at, req);
  lines.insert(lines.begin(), "the state at revision " + std::to_string(at) + " gives: " + describe_response(e.response));
  violation(req.has_range() ? "read-result" : "write-response",
            "the response differs from the state at revision " + std::to_string(at), at, {op}, lines);
}

const Checker::Returned* Checker::returned_before(int64_t t) const {
  auto it = std::lower_bound(returned_.begin(), returned_.end(), t,
                             [](const Returned& a, int64_t v) { return a.ret < v; });
  if (it == returned_.begin()) return nullptr;
  return &returned_[returned_best_[static_cast<size_t>(it - returned_.begin()) - 1]];
}

void Checker::check_real_time_of(size_t op, int64_t pos, bool strict, const char* rule) {
  const Returned* p = returned_before(h_.operations[op].invoke_ns);
  if (p == nullptr || (strict ? pos > p->pos : pos >= p->pos)) return;
  violation(rule,
            "ordered at revision " + std::to_string(pos) + ", but an operation at revision " + std::to_string(p->pos) +
                " completed before it was sent",
            pos, {p->op, op});
}

void Checker::check_static() {
  for (size_t i = 0; i < h_.operations.size(); ++i) {
    const history::Operation& o = h_.operations[i];
    if (o.outcome != Outcome::kOk || position_[i] <= 0) continue;
    if (o.request.has_range() && o.request.range().serializable()) continue;
    returned_.push_back(Returned{o.return_ns, position_[i], i});
  }
  std::sort(returned_.begin(), returned_.end(), [](const Returned& a, const Returned& b) {
    return a.ret != b.ret ? a.ret < b.ret : a.op < b.op;
  });
  returned_best_.resize(returned_.size());
  for (size_t i = 0; i < returned_.size(); ++i)
    returned_best_[i] = (i > 0 && returned_[returned_best_[i - 1]].pos >= returned_[i].pos) ? returned_best_[i - 1] : i;
  for (const Returned& d : returned_) {
    if (enough()) return;
    const ApiRequest& req = h_.operations[d.op].request;
    if (claims_[d.op]) check_real_time_of(d.op, d.pos, true, "real-time");
    else check_real_time_of(d.op, d.pos, false, req.has_range() ? "stale-read" : "real-time");
  }
  if (!enough()) check_compactions();
  reads_at_.assign(static_cast<size_t>(max_rev_) + 1, {});
  for (size_t i = 0; i < h_.operations.size() && !enough(); ++i) {
    const int64_t at = read_revision(i);
    if (at == 1) check_read_like(i, at);  // the empty store: nothing to replay first
    else if (at > 1) reads_at_[static_cast<size_t>(at)].push_back(i);
  }
}

void Checker::check_revision(int64_t r) {
  for (size_t op : reads_at_[static_cast<size_t>(r)]) check_read_like(op, r);
  // An acknowledged revoke deletes every key of its lease: none holds it at the revoke's revision.
  if (auto it = revokes_at_.find(r); it != revokes_at_.end())
    for (size_t op : it->second) {
      const int64_t lease = h_.operations[op].request.lease_revoke().id();
      ++out_.stats.checks;
      std::vector<std::string> keys = tl_.keys_with_lease(lease, r);
      steps_ += tl_.key_count();
      if (keys.empty()) continue;
      violation("lease", "keys still hold lease " + std::to_string(lease) + " at its acknowledged revoke's revision",
                r, {op}, {state_line(r, keys.front())});
    }
  const Writer& w = writer_[static_cast<size_t>(r)];
  // A lease expiry must not come before the lease's TTL ran out (a wrong choice of writer for r
  // fails here and the search takes the next candidate).
  if (w.kind == Writer::Kind::kLease && w.op == SIZE_MAX) check_lease_expiry(r, w.lease);
  // The revision's writer against real time: sent before anything showed the revision, and (an
  // unknown-outcome write) not ordered before an operation that completed before it was sent.
  if (w.op == SIZE_MAX || w.kind == Writer::Kind::kLease) return;
  if (w.kind == Writer::Kind::kUnknownWrite) check_real_time_of(w.op, r, true, "unknown-write-too-early");
  const Observation& seen = first_observed_[static_cast<size_t>(r)];
  if (seen.at >= h_.operations[w.op].invoke_ns) return;
  violation(w.kind == Writer::Kind::kUnknownWrite ? "unknown-write-too-early" : "real-time",
            "revision " + std::to_string(r) + " was observed before the write that made it was sent", r, {w.op},
            {"observed by " + seen.source});
}

void Checker::check_compactions() {
  struct Compaction {
    int64_t ret;
    int64_t rev;
    size_t op;
  };
  std::vector<Compaction> done;
  for (size_t i = 0; i < h_.operations.size(); ++i) {
    const history::Operation& o = h_.operations[i];
    if (o.outcome != Outcome::kOk || !o.request.has_compaction()) continue;
    const int64_t c = o.request.compaction().revision();
    // A compaction imported from a report carries no revision (etcd records it as -1): unknown.
    if ((position_[i] > 0 || !options_.partial_kvs) && c > position_[i])
      violation("compaction", "compaction to a revision above the member's revision succeeded", c, {i});
    done.push_back(Compaction{o.return_ns, c, i});
  }
  std::sort(done.begin(), done.end(), [](const Compaction& a, const Compaction& b) {
    return a.ret != b.ret ? a.ret < b.ret : a.op < b.op;
  });
  std::vector<size_t> best(done.size());
  for (size_t i = 0; i < done.size(); ++i)
    best[i] = (i > 0 && done[best[i - 1]].rev >= done[i].rev) ? best[i - 1] : i;
  auto before = [&](int64_t t) -> const Compaction* {
    auto it = std::lower_bound(done.begin(), done.end(), t, [](const Compaction& a, int64_t v) { return a.ret < v; });
    if (it == done.begin()) return nullptr;
    return &done[best[static_cast<size_t>(it - done.begin()) - 1]];
  };
  for (size_t i = 0; i < h_.operations.size() && !enough(); ++i) {
    const history::Operation& o = h_.operations[i];
    if (o.outcome != Outcome::kOk) continue;
    const Compaction* c = before(o.invoke_ns);
    if (c == nullptr) continue;
    if (o.request.has_compaction() && o.request.compaction().revision() <= c->rev)
      violation("compaction", "a compaction to a revision at or below an earlier completed compaction succeeded",
                o.request.compaction().revision(), {c->op, i});
    // Linearizable reads only: a serializable read may be served by a member that has not yet
    // applied the compaction.
    if (o.request.has_range() && !o.request.range().serializable() && o.request.range().revision() > 0 &&
        o.request.range().revision() < c->rev)
      violation("compaction", "a linearizable read of a revision compacted before it was sent succeeded",
                o.request.range().revision(), {c->op, i});
  }
}

Result<EtcdVerdict> Checker::run() {
  if (h_.operations.size() > limits::kCheckerOpsMax)
    return Status(StatusCode::kInvalidArgument, "history has " + std::to_string(h_.operations.size()) +
                                                    " operations, more than the checker's limit");
  out_.stats.operations = h_.operations.size();
  index_operations();
  index_lease_refreshes();
  collect_facts();
  if (!enough() && bound_revisions()) {
    collect_coverage();
    compute_first_observed();
    collect_key_observations();
    index_delete_needs();
    index_gap_candidates();
    check_static();
    search();
  }
  out_.stats.revisions = max_rev_;
  out_.stats.uncertain_revisions = uncertain_revs_.size();
  out_.stats.steps = steps_;
  if (!out_.violations.empty()) {
    out_.verdict = Verdict::kViolation;
  } else if (over_budget()) {
    out_.verdict = Verdict::kUnknown;
    out_.unknown_reason = "step budget of " + std::to_string(options_.step_budget) + " exhausted";
  } else if (out_.stats.checks_skipped > 0) {
    out_.verdict = Verdict::kUnknown;
    out_.unknown_reason = std::to_string(out_.stats.checks_skipped) +
                          " checks need keys that unexplained revisions left uncertain; first: " + out_.skipped.front();
  } else {
    out_.verdict = Verdict::kLinearizable;
  }
  return std::move(out_);
}

Result<EtcdVerdict> check_etcd_timeline(const history::History& history, const EtcdCheckOptions& options) {
  Checker c(history, options);
  return c.run();
}

Result<EtcdVerdict> check_etcd(const history::History& history, const EtcdCheckOptions& options) {
  if (history.restores.empty()) return check_etcd_timeline(history, options);
  return check_etcd_across_restores(history, options);
}

}  // namespace dst::checker::etcd
