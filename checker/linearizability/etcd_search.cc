// The etcd checker's replay, as a search where the history leaves a choice.
//
// Most revisions are pinned: an acknowledged write claims its response revision, an observed value
// names its writer. A revision nothing pins (a gap, or deletions only a watch saw) was made by
// one of the unknown-outcome writes or lease expiries that fit it (etcd_explain.cc). With one
// candidate it is taken; with several that do different things, the plain replay could only mark
// the keys they touch uncertain and skip every check that reads them, leaving the verdict Unknown
// on an ordinary history without watches. Instead the replay takes the first candidate, goes on,
// and when a check fails comes back and takes the next one (depth first).
//
// Every check that needs replayed state runs right after the revision whose state it reads
// (check_revision), and what it reads depends only on revisions <= that one; so a violation met
// while replaying revision r is decided by the choices made at revisions <= r, all of which are
// on the stack, and backtracking to the innermost choice loses no assignment that could avoid it.
// Checks that need no replayed state ran before (check_static): their violations stand whatever
// is chosen, so with one of them found there is nothing to search.
//
// The verdict: Linearizable as soon as one complete assignment passes every check; Violation when
// every assignment fails (the one that got furthest is reported, with a note); Unknown when the
// step budget runs out first or some assignment only leaves uncertain checks (a revision nothing
// can explain). The budget counts the work of every assignment tried.
#include <algorithm>

#include "base/hash.h"
#include "checker/linearizability/etcd_internal.h"

namespace dst::checker::etcd {

namespace {

// A finished assignment worth reporting if nothing better turns up.
struct Assignment {
  int64_t reached = 0;  // the revision it failed at (or the last one, for a complete one)
  EtcdStats stats;
  std::vector<EtcdViolation> violations;
  std::vector<std::string> skipped;
  std::set<int64_t> uncertain_revs;
};

}  // namespace

Checker::Snapshot Checker::take_snapshot() const {
  return Snapshot{out_.stats, out_.violations.size(), out_.skipped.size()};
}

std::optional<size_t> Checker::choose(int64_t r, size_t n) {
  DST_ASSERT_GT(n, 1u);
  if (forced_ && forced_->first == r) {
    const size_t k = forced_->second;
    forced_.reset();
    DST_ASSERT_MSG(!branches_.empty() && branches_.back().rev == r && branches_.back().alternatives == n,
                   "replaying revision " + std::to_string(r) + " again gave another set of candidates");
    return k;
  }
  if (!branching_) return std::nullopt;
  // Below the outermost choice every replay shares the prefix; a signature only tells apart what
  // differs, so it starts there.
  const std::pair<uint64_t, uint64_t> sig = branches_.empty() ? std::pair<uint64_t, uint64_t>{} : signature(r);
  if (!branches_.empty() && explored_.count(sig)) {
    ++pruned_total_;
    pruned_ = true;
    branches_.push_back(Branch{r, n, n - 1, revision_start_, sig});  // nothing left to try here
    return n - 1;
  }
  branches_.push_back(Branch{r, n, 0, revision_start_, sig});
  return 0;
}

// What the replay from revision r on depends on, besides what every branch shares: the state of
// the keys changed since the outermost choice, which unknown-outcome writes are taken, whether
// an earlier revision was left uncertain (replay_gap reads it) and whether a check was skipped
// (which rules out a pass).
std::pair<uint64_t, uint64_t> Checker::signature(int64_t r) {
  DST_ASSERT(!branches_.empty());
  const int64_t from = branches_.front().rev;
  std::pair<uint64_t, uint64_t> sig{hash_combine(0x5e1f, static_cast<uint64_t>(r)), hash_combine(0x7a11, static_cast<uint64_t>(r))};
  for (const auto& [op, rev] : bound_) {
    sig.first = hash_combine(sig.first, op);
    sig.second = hash_combine(sig.second, mix64(op ^ 0x9d2c5680));
  }
  const uint64_t flags = (uncertain_revs_.empty() ? 1 : 0) | (out_.stats.checks_skipped > 0 ? 2 : 0);
  sig.first = hash_combine(hash_combine(sig.first, flags), tl_.digest_changed_since(from, r - 1, 0x51));
  sig.second = hash_combine(hash_combine(sig.second, flags), tl_.digest_changed_since(from, r - 1, 0xa3c9));
  steps_ += tl_.key_count();
  return sig;
}

void Checker::roll_back(const Branch& b) {
  out_.stats = b.before.stats;
  DST_ASSERT_LE(b.before.violations, out_.violations.size());
  out_.violations.resize(b.before.violations);
  out_.skipped.resize(std::min(out_.skipped.size(), b.before.skipped));
  tl_.truncate_from(b.rev);
  for (auto it = bound_.begin(); it != bound_.end();) it = it->second >= b.rev ? bound_.erase(it) : std::next(it);
  uncertain_revs_.erase(uncertain_revs_.lower_bound(b.rev), uncertain_revs_.end());
  std::fill(writer_.begin() + b.rev, writer_.end(), Writer{});
}

void Checker::search() {
  search_writers();
  out_.stats.choices_pruned = pruned_total_;
}

void Checker::search_writers() {
  writer_.assign(static_cast<size_t>(max_rev_) + 1, Writer{});
  // A violation that no choice can undo is already known: report it (and more) without searching.
  branching_ = out_.violations.empty();
  std::optional<Assignment> failed_furthest, uncertain_first;
  size_t tried = 0;
  auto keep = [&](int64_t reached) {
    return Assignment{reached, out_.stats, out_.violations, out_.skipped, uncertain_revs_};
  };
  int64_t r = 2;
  for (;;) {
    bool failed = false;
    for (; r <= max_rev_ && !over_budget(); ++r) {
      if (branches_.empty() && enough()) break;
      revision_start_ = take_snapshot();
      replay_revision(r);
      DST_ASSERT_MSG(!forced_, "the search's choice at revision " + std::to_string(r) + " was not asked for");
      check_revision(r);
      if (pruned_) break;  // explored before: on to the next alternative above it
      if (out_.violations.empty()) continue;
      if (branches_.empty()) {
        branching_ = false;  // decided whatever comes later: report, do not search
        continue;
      }
      failed = true;
      break;
    }
    if (branches_.empty()) return;  // no choice was made: the plain replay's result stands
    if (over_budget()) {
      // Unknown: the violations of a partial assignment are no verdict.
      roll_back(branches_.front());
      return;
    }
    if (pruned_) {
      pruned_ = false;  // neither a pass nor a failure worth reporting: the first visit was that
    } else {
      ++tried;
      if (!failed && out_.stats.checks_skipped == 0) {  // every check passed
        out_.stats.combinations_tried = tried;
        return;
      }
      if (failed && (!failed_furthest || r > failed_furthest->reached)) failed_furthest = keep(r);
      if (!failed && !uncertain_first) uncertain_first = keep(r);
    }
    while (!branches_.empty() && branches_.back().chosen + 1 >= branches_.back().alternatives) {
      if (branches_.size() > 1 && explored_.size() < kExploredMax) explored_.insert(branches_.back().signature);
      branches_.pop_back();
    }
    if (branches_.empty()) break;
    Branch& b = branches_.back();
    roll_back(b);
    ++b.chosen;
    forced_ = std::make_pair(b.rev, b.chosen);
    r = b.rev;
  }
  // Every assignment was tried. One that left checks uncertain may be fine: Unknown. Otherwise
  // every one fails; report the one that failed last.
  Assignment& o = uncertain_first ? *uncertain_first : *failed_furthest;
  out_.stats = o.stats;
  out_.violations = std::move(o.violations);
  out_.skipped = std::move(o.skipped);
  uncertain_revs_ = std::move(o.uncertain_revs);
  out_.stats.combinations_tried = tried;
  if (uncertain_first) return;
  for (EtcdViolation& v : out_.violations)
    v.lines.push_back("every choice of writers for the revisions nothing pins fails (" + std::to_string(tried) +
                      " combinations tried); this one gets furthest");
}

}  // namespace dst::checker::etcd
