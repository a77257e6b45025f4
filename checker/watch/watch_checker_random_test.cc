// Randomized: a random correct history (puts, deletes, range deletes, txns, some with unknown
// outcomes; watches over random ranges and filters receiving exactly their events in random
// batches at revision boundaries, with resumes and progress notifications) must pass; each random
// mutation of it (drop, duplicate, swap, split, corrupt prev_kv, wrong create flag, fake progress,
// resume too far) must be caught, naming the guarantee the mutation breaks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checker/watch/history_builder.h"
#include "checker/watch/watch_checker.h"

namespace dst::checker::watch {
namespace {

using testing::HistoryBuilder;
using testing::TxnWrite;
using testing::watch_request;

// splitmix64: a tiny deterministic generator of our own (no std distributions, see DESIGN.md).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }

 private:
  uint64_t state_;
};

constexpr int kKeys = 6;
std::string key(int i) { return "k" + std::to_string(i); }

void random_writes(Rng& rng, HistoryBuilder& b) {
  const int ops = 20 + static_cast<int>(rng.below(40));
  for (int i = 0; i < ops; ++i) {
    const auto outcome = rng.chance(15) ? history::Outcome::kUnknown : history::Outcome::kOk;
    const int kind = static_cast<int>(rng.below(100));
    const std::string value = "v" + std::to_string(i);
    if (kind < 45) {
      b.put(key(static_cast<int>(rng.below(kKeys))), value, 0, outcome,
            outcome == history::Outcome::kOk || rng.chance(60));
    } else if (kind < 60) {
      b.del(key(static_cast<int>(rng.below(kKeys))), outcome);
    } else if (kind < 70) {
      const int from = static_cast<int>(rng.below(kKeys));
      b.del_range(key(from), key(from + 1 + static_cast<int>(rng.below(3))), rng.chance(50), outcome);
    } else {
      std::vector<TxnWrite> writes;
      std::vector<int> keys;
      const int n = 1 + static_cast<int>(rng.below(3));
      for (int k = 0; k < n; ++k) {
        const int kk = static_cast<int>(rng.below(kKeys));
        if (std::find(keys.begin(), keys.end(), kk) != keys.end()) continue;
        keys.push_back(kk);
        writes.push_back({key(kk), value + "." + std::to_string(k), rng.chance(30)});
      }
      b.txn(writes, outcome);
    }
  }
}

etcdserverpb::WatchCreateRequest random_request(Rng& rng, bool everything) {
  etcdserverpb::WatchCreateRequest req;
  if (everything) {
    req = watch_request(std::string(1, '\0'), std::string(1, '\0'), 1, true);
    return req;
  }
  switch (rng.below(4)) {
    case 0:
      req = watch_request(key(static_cast<int>(rng.below(kKeys))));
      break;
    case 1:
      req = watch_request(key(1), key(4));
      break;
    case 2:
      req = watch_request("k", "l");
      break;
    default:
      req = watch_request("k3", std::string(1, '\0'));
      break;
  }
  req.set_prev_kv(rng.chance(50));
  if (rng.chance(15))
    req.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  else if (rng.chance(15))
    req.add_filters(etcdserverpb::WatchCreateRequest::NODELETE);
  return req;
}

// Delivers exactly the right events to one watch, in random batches, with random progress
// notifications and resumes (from the revision after the last one seen, as the client does).
void random_delivery(Rng& rng, HistoryBuilder& b, const etcdserverpb::WatchCreateRequest& request) {
  const int64_t final_rev = b.revision();
  etcdserverpb::WatchCreateRequest req = request;
  if (req.start_revision() != 1 && rng.chance(20)) req.set_start_revision(0);  // from "now"
  int64_t next = req.start_revision();
  if (next == 0) next = 2 + rng.below(final_rev - 1);  // "now" was next - 1 at the creation ack
  const size_t w = b.watch(req, 1 + static_cast<uint32_t>(rng.below(5)), 1 + static_cast<uint32_t>(rng.below(3)));
  b.created(w, req.start_revision() == 0 ? next - 1 : final_rev);
  while (next <= final_rev) {
    // The next batch: 1-3 revisions that have matching events.
    int64_t to = next;
    int batch = 1 + static_cast<int>(rng.below(3));
    for (; to <= final_rev; ++to)
      if (!b.matching(req, to, to).empty() && --batch == 0) break;
    to = std::min(to, final_rev);
    if (b.matching(req, next, to).empty()) {
      if (rng.chance(50)) b.progress(w, final_rev, rng.chance(50) ? -1 : static_cast<int64_t>(w));
      break;
    }
    b.deliver(w, next, to);
    next = to + 1;
    if (rng.chance(20)) {
      // A progress notification anywhere before the next matching event.
      int64_t upto = next;
      while (upto <= final_rev && b.matching(req, upto, upto).empty()) ++upto;
      const int64_t revision = (next - 1) + rng.below(upto - next + 1);
      b.progress(w, revision, rng.chance(50) ? -1 : static_cast<int64_t>(w));
      next = std::max(next, revision + 1);
    }
    if (rng.chance(15) && next <= final_rev) {
      b.resume(w, next, 1 + static_cast<uint32_t>(rng.below(3)));
      if (rng.chance(70)) b.created(w, final_rev);
    }
  }
}

// With `full_watch`, watch 0 sees every key from revision 1, which makes every revision completely
// known; without it, writes with unknown outcomes and range deletes leave gaps in the truth.
void generate(uint64_t seed, HistoryBuilder& b, bool full_watch = true) {
  Rng rng(seed);
  random_writes(rng, b);
  if (full_watch) random_delivery(rng, b, random_request(rng, true));
  const int watches = 2 + static_cast<int>(rng.below(3));
  for (int i = 0; i < watches; ++i) {
    auto req = random_request(rng, false);
    req.set_start_revision(1 + rng.below(b.revision()));
    random_delivery(rng, b, req);
  }
}

// Positions of every event of one watch, in delivery order.
struct EventAt {
  size_t segment, response;
  int index;
};
std::vector<EventAt> events_of(const history::Watch& w) {
  std::vector<EventAt> out;
  for (size_t s = 0; s < w.segments.size(); ++s)
    for (size_t r = 0; r < w.segments[s].responses.size(); ++r)
      for (int i = 0; i < w.segments[s].responses[r].response.events_size(); ++i) out.push_back({s, r, i});
  return out;
}

mvccpb::Event& event_at(history::Watch& w, const EventAt& at) {
  return *w.segments[at.segment].responses[at.response].response.mutable_events(at.index);
}

void erase_event(history::Watch& w, const EventAt& at) {
  auto& responses = w.segments[at.segment].responses;
  responses[at.response].response.mutable_events()->DeleteSubrange(at.index, 1);
  // An emptied response would read as a progress notification: it goes too.
  if (responses[at.response].response.events_size() == 0)
    responses.erase(responses.begin() + static_cast<long>(at.response));
}

enum class Mutation { kDrop, kDuplicate, kSwap, kSplit, kPrevKv, kCreate, kFakeProgress, kResumeSkip };
constexpr Mutation kMutations[] = {Mutation::kDrop,         Mutation::kDuplicate, Mutation::kSwap,
                                   Mutation::kSplit,        Mutation::kPrevKv,    Mutation::kCreate,
                                   Mutation::kFakeProgress, Mutation::kResumeSkip};

const char* mutation_name(Mutation m) {
  switch (m) {
    case Mutation::kDrop:
      return "drop";
    case Mutation::kDuplicate:
      return "duplicate";
    case Mutation::kSwap:
      return "swap";
    case Mutation::kSplit:
      return "split";
    case Mutation::kPrevKv:
      return "prev_kv";
    case Mutation::kCreate:
      return "create";
    case Mutation::kFakeProgress:
      return "fake-progress";
    case Mutation::kResumeSkip:
      return "resume-skip";
  }
  return "?";
}

// Applies the mutation to watch `w` if it has a place for it; returns the guarantees any of which
// names it correctly (empty: not applicable here).
std::vector<Guarantee> mutate(Rng& rng, history::Watch& w, Mutation m) {
  const auto evs = events_of(w);
  if (evs.empty()) return {};
  const EventAt at = evs[static_cast<size_t>(rng.below(static_cast<int64_t>(evs.size())))];
  switch (m) {
    case Mutation::kDrop: {
      // Only an event some later event of the watch proves was owed (watch 0 knows them all).
      const int64_t rev = event_at(w, at).kv().mod_revision();
      const int64_t last = event_at(w, evs.back()).kv().mod_revision();
      if (w.id == 0 || rev >= last) return {};
      erase_event(w, at);
      return {Guarantee::kReliable, Guarantee::kResumable, Guarantee::kBookmarkable};
    }
    case Mutation::kDuplicate: {
      auto& events = *w.segments[at.segment].responses[at.response].response.mutable_events();
      const mvccpb::Event copy = events.Get(at.index);
      *events.Add() = copy;
      for (int i = events.size() - 1; i > at.index + 1; --i) events.SwapElements(i, i - 1);
      return {Guarantee::kUnique};
    }
    case Mutation::kSwap: {
      for (size_t i = 0; i + 1 < evs.size(); ++i) {
        auto& a = event_at(w, evs[i]);
        auto& b = event_at(w, evs[i + 1]);
        if (a.kv().mod_revision() == b.kv().mod_revision() || !rng.chance(30)) continue;
        std::swap(a, b);
        return {Guarantee::kOrdered};
      }
      return {};
    }
    case Mutation::kSplit: {
      auto& responses = w.segments[at.segment].responses;
      auto& events = *responses[at.response].response.mutable_events();
      const int64_t rev = events.Get(at.index).kv().mod_revision();
      if (at.index == 0 || events.Get(at.index - 1).kv().mod_revision() != rev) return {};
      history::WatchResponse tail = responses[at.response];
      tail.response.mutable_events()->DeleteSubrange(0, at.index);
      events.DeleteSubrange(at.index, events.size() - at.index);
      responses.insert(responses.begin() + static_cast<long>(at.response) + 1, tail);
      return {Guarantee::kAtomic};
    }
    case Mutation::kPrevKv: {
      mvccpb::Event& e = event_at(w, at);
      if (!w.segments[at.segment].request.prev_kv()) return {};
      if (e.has_prev_kv()) {
        if (rng.chance(50))
          e.mutable_prev_kv()->set_value(e.prev_kv().value() + "!");
        else
          e.clear_prev_kv();
      } else {
        e.mutable_prev_kv()->set_key(e.kv().key());
        e.mutable_prev_kv()->set_mod_revision(1);
      }
      return {Guarantee::kPrevKv};
    }
    case Mutation::kCreate: {
      mvccpb::Event& e = event_at(w, at);
      if (e.type() != mvccpb::Event::PUT) return {};
      auto* kv = e.mutable_kv();
      if (kv->create_revision() == kv->mod_revision()) {
        kv->set_create_revision(kv->mod_revision() - 1);
        kv->set_version(2);
      } else {
        kv->set_create_revision(kv->mod_revision());
        kv->set_version(1);
      }
      return {Guarantee::kIsCreate};
    }
    case Mutation::kFakeProgress: {
      // A progress notification at the revision of an event, just before the response bringing it.
      auto& responses = w.segments[at.segment].responses;
      history::WatchResponse progress{responses[at.response].at_ns, {}};
      progress.response.mutable_header()->set_revision(event_at(w, at).kv().mod_revision());
      progress.response.set_watch_id(-1);
      responses.insert(responses.begin() + static_cast<long>(at.response), progress);
      return {Guarantee::kBookmarkable};
    }
    case Mutation::kResumeSkip: {
      // A resumed segment starts past its first event's revision (and so never gets it).
      if (w.id == 0 || at.segment == 0) return {};
      history::WatchSegment& seg = w.segments[at.segment];
      EventAt first{};
      bool found = false;
      for (const auto& e : evs)
        if (e.segment == at.segment) {
          first = e;
          found = true;
          break;
        }
      if (!found) return {};
      const int64_t rev = event_at(w, first).kv().mod_revision();
      if (seg.request.start_revision() != rev) return {};  // only where nothing came between
      seg.request.set_start_revision(rev + 1);
      for (auto e = events_of(w);;) {
        bool erased = false;
        for (const auto& x : e)
          if (x.segment == at.segment && event_at(w, x).kv().mod_revision() == rev) {
            erase_event(w, x);
            erased = true;
            break;
          }
        if (!erased) break;
        e = events_of(w);
      }
      return {Guarantee::kResumable};
    }
  }
  return {};
}

TEST(WatchCheckerRandomTest, CorrectHistoriesPass) {
  size_t resumed = 0, progress = 0, from_now = 0, unknown = 0, incomplete = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (const bool full_watch : {true, false}) {
      HistoryBuilder b;
      generate(seed, b, full_watch);
      const Report r = check(b.history());
      ASSERT_TRUE(r.ok()) << "seed " << seed << " full_watch " << full_watch << "\n" << r.to_string();
      if (full_watch) {
        ASSERT_EQ(r.revisions_known, r.revisions_complete) << "seed " << seed;
      }
      incomplete += r.revisions_known - r.revisions_complete;
      for (const auto& op : b.history().operations) unknown += op.outcome == history::Outcome::kUnknown;
      for (const auto& w : b.history().watches) {
        resumed += w.segments.size() - 1;
        from_now += w.segments[0].request.start_revision() == 0;
        for (const auto& seg : w.segments)
          for (const auto& resp : seg.responses)
            progress += resp.response.events_size() == 0 && !resp.response.created() && !resp.response.canceled();
      }
    }
  }
  // The generator really exercises what the checker has to get right.
  EXPECT_GT(resumed, 300u);
  EXPECT_GT(progress, 300u);
  EXPECT_GT(from_now, 100u);
  EXPECT_GT(unknown, 300u);
  EXPECT_GT(incomplete, 100u);
}

TEST(WatchCheckerRandomTest, EveryMutationIsCaughtNamingItsGuarantee) {
  size_t applied[std::size(kMutations)] = {};
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (size_t mi = 0; mi < std::size(kMutations); ++mi) {
      HistoryBuilder b;
      generate(seed, b);
      Rng rng(seed * 1000 + mi);
      auto& watches = b.history().watches;
      std::vector<Guarantee> expected;
      for (int attempt = 0; attempt < 20 && expected.empty(); ++attempt) {
        history::Watch& w = watches[static_cast<size_t>(rng.below(static_cast<int64_t>(watches.size())))];
        expected = mutate(rng, w, kMutations[mi]);
      }
      if (expected.empty()) continue;
      ++applied[mi];
      const Report r = check(b.history());
      ASSERT_FALSE(r.ok()) << "seed " << seed << " mutation " << mutation_name(kMutations[mi]) << " not caught";
      bool named = false;
      for (Guarantee g : expected) named |= r.violations_by_guarantee[static_cast<size_t>(g)] > 0;
      ASSERT_TRUE(named) << "seed " << seed << " mutation " << mutation_name(kMutations[mi]) << ":\n" << r.to_string();
    }
  }
  for (size_t mi = 0; mi < std::size(kMutations); ++mi)
    EXPECT_GT(applied[mi], 50u) << mutation_name(kMutations[mi]) << " was rarely applicable";
}

}  // namespace
}  // namespace dst::checker::watch
