// Randomized: writes, transactions and compactions on a few keys, with watchers of random ranges,
// start revisions and options on a few streams that are read at random times (some stall long
// enough to overflow their queue). A model of the history decides what each watcher must have
// received: exactly its events, once, in order, never a split revision, correct prev_kv; or a
// prefix of them and a cancel with a compaction revision that overtook it. Every progress
// response is checked against what its stream had been sent by then.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "node/watch/watch_test_util.h"
#include "node/watch/watchable_store.h"

namespace dst::watch {
namespace {

using namespace dst::watch::testing;  // NOLINT: test helpers

// splitmix64: our own generator, so the test draws the same numbers everywhere.
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  bool percent(int p) { return below(100) < p; }

 private:
  uint64_t s_;
};

const std::vector<std::string> kKeys = {"a", "ab", "b", "c", "d"};

// The history as the store must have it: every event, and the state after every revision.
struct Model {
  std::vector<mvccpb::Event> events;
  std::vector<std::map<std::string, mvccpb::KeyValue>> states{{}, {}};  // index = revision; 1 is empty
  int64_t rev = 1;
  int64_t compact = 0;

  std::map<std::string, mvccpb::KeyValue>& begin_revision() {
    states.push_back(states.back());
    return states.back();
  }
};

struct WatchModel {
  StreamId stream = 0;
  int64_t id = 0;
  Create create;
  int64_t start = 0;  // the first revision it wants
  bool created_seen = false;
  bool cancel_requested = false;
  bool cancel_seen = false;
  int64_t compacted_at = 0;  // compact_revision of its cancel, if any
  std::vector<mvccpb::Event> got;
  std::vector<std::vector<int64_t>> batches;  // revisions per response

  bool wants(const mvccpb::Event& ev) const {
    if (ev.kv().mod_revision() < start) return false;
    if (create.no_put && ev.type() == mvccpb::Event::PUT) return false;
    if (create.no_delete && ev.type() == mvccpb::Event::DELETE) return false;
    return mvcc::in_range(ev.kv().key(), create.key, create.end);
  }
  std::vector<mvccpb::Event> expected(const Model& m, int64_t up_to) const {
    std::vector<mvccpb::Event> out;
    for (const auto& ev : m.events) {
      if (ev.kv().mod_revision() <= up_to && wants(ev)) out.push_back(ev);
    }
    return out;
  }
};

std::string strip_prev(mvccpb::Event ev) {
  ev.clear_prev_kv();
  return ev.SerializeAsString();
}

class RandomRun {
 public:
  RandomRun(uint64_t seed, mvcc::KvStore& kv, WatchableStore& ws) : rng_(seed), kv_(kv), ws_(ws) {
    for (int i = 0; i < 3; ++i) streams_.push_back(ws_.open_stream(nullptr));
    stalled_.assign(streams_.size(), false);
  }

  void step();
  void finish();

 private:
  void write();
  void txn_put(mvcc::WriteTxn& t, std::map<std::string, mvccpb::KeyValue>& state, const std::string& key);
  void txn_delete(mvcc::WriteTxn& t, std::map<std::string, mvccpb::KeyValue>& state, const std::string& key,
                  const std::string& end);
  void create_watcher();
  void pop_some(size_t s, int64_t max);
  void on_response(StreamId stream, const etcdserverpb::WatchResponse& r);
  void check_progress(StreamId stream, int64_t watch_id, int64_t rev);
  void check_final(const WatchModel& w);
  std::pair<std::string, std::string> random_range();

  SplitMix rng_;
  mvcc::KvStore& kv_;
  WatchableStore& ws_;
  Model m_;
  std::vector<StreamId> streams_;
  std::vector<bool> stalled_;
  std::vector<WatchModel> watchers_;
  std::map<std::pair<StreamId, int64_t>, size_t> live_;  // (stream, id) -> watchers_ index
};

std::pair<std::string, std::string> RandomRun::random_range() {
  const std::string& k = kKeys[static_cast<size_t>(rng_.below(static_cast<int64_t>(kKeys.size())))];
  switch (rng_.below(4)) {
    case 0: return {k, ""};                              // one key
    case 1: return {k, std::string(1, static_cast<char>(k[0] + 1))};  // prefix
    case 2: return {k, kAll};                            // from key
    default: return {"a", "c"};                          // a range
  }
}

void RandomRun::txn_put(mvcc::WriteTxn& t, std::map<std::string, mvccpb::KeyValue>& state, const std::string& key) {
  std::string value = "v" + std::to_string(rng_.below(1000));
  ASSERT_TRUE(t.put(key, value, 0).is_ok());
  mvccpb::KeyValue kv;
  kv.set_key(key);
  kv.set_value(value);
  kv.set_mod_revision(m_.rev + 1);
  auto it = state.find(key);
  kv.set_create_revision(it == state.end() ? m_.rev + 1 : it->second.create_revision());
  kv.set_version(it == state.end() ? 1 : it->second.version() + 1);
  state[key] = kv;
  mvccpb::Event ev;
  *ev.mutable_kv() = kv;
  m_.events.push_back(ev);
}

void RandomRun::txn_delete(mvcc::WriteTxn& t, std::map<std::string, mvccpb::KeyValue>& state,
                           const std::string& key, const std::string& end) {
  ASSERT_TRUE(t.delete_range(key, end).is_ok());
  for (auto it = state.begin(); it != state.end();) {
    if (!mvcc::in_range(it->first, key, end)) {
      ++it;
      continue;
    }
    mvccpb::Event ev;
    ev.set_type(mvccpb::Event::DELETE);
    ev.mutable_kv()->set_key(it->first);
    ev.mutable_kv()->set_mod_revision(m_.rev + 1);
    m_.events.push_back(ev);
    it = state.erase(it);
  }
}

void RandomRun::write() {
  const size_t events_before = m_.events.size();
  auto& state = m_.begin_revision();
  {
    mvcc::WriteTxn t = kv_.write();
    int kind = static_cast<int>(rng_.below(10));
    if (kind < 5) {
      txn_put(t, state, kKeys[static_cast<size_t>(rng_.below(5))]);
    } else if (kind < 7) {
      auto [k, e] = random_range();
      txn_delete(t, state, k, e);
    } else {
      // A transaction: puts of distinct keys, maybe a delete of one other key (etcd refuses
      // overlapping keys in one txn).
      std::vector<std::string> keys = kKeys;
      for (size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[static_cast<size_t>(rng_.below(static_cast<int64_t>(i)))]);
      size_t puts = 2 + static_cast<size_t>(rng_.below(3));
      for (size_t i = 0; i < puts; ++i) txn_put(t, state, keys[i]);
      if (rng_.percent(50)) txn_delete(t, state, keys[puts], "");
    }
    int64_t rev = t.end();
    ASSERT_EQ(rev, m_.events.size() > events_before ? m_.rev + 1 : m_.rev);
  }
  if (m_.events.size() > events_before) {
    ++m_.rev;
  } else {
    m_.states.pop_back();  // nothing changed: no revision
  }
}

void RandomRun::create_watcher() {
  WatchModel w;
  auto [k, e] = random_range();
  w.create.key = k;
  w.create.end = e;
  int choice = static_cast<int>(rng_.below(4));
  if (choice > 0) w.create.start = std::max<int64_t>(1, m_.compact - 2) + rng_.below(m_.rev + 4 - std::max<int64_t>(1, m_.compact - 2));
  w.create.prev_kv = rng_.percent(40);
  w.create.progress_notify = rng_.percent(40);
  w.create.no_put = rng_.percent(10);
  w.create.no_delete = rng_.percent(10);
  w.stream = streams_[static_cast<size_t>(rng_.below(static_cast<int64_t>(streams_.size())))];
  w.start = w.create.start == 0 ? m_.rev + 1 : w.create.start;
  auto id = ws_.watch(w.stream, request(w.create));
  ASSERT_TRUE(id.is_ok()) << id.status().to_string();
  w.id = *id;
  ASSERT_EQ(live_.count({w.stream, w.id}), 0u);
  live_[{w.stream, w.id}] = watchers_.size();
  watchers_.push_back(std::move(w));
}

void RandomRun::check_progress(StreamId stream, int64_t watch_id, int64_t rev) {
  ASSERT_LE(rev, m_.rev);
  for (const WatchModel& w : watchers_) {
    if (w.stream != stream || !w.created_seen || w.cancel_seen) continue;
    if (watch_id != -1 && w.id != watch_id) continue;
    // Progress at `rev`: everything up to it must have been sent already.
    EXPECT_EQ(w.got.size(), w.expected(m_, rev).size())
        << "progress " << rev << " ahead of events for watcher " << w.id << " on stream " << stream;
  }
}

void RandomRun::on_response(StreamId stream, const etcdserverpb::WatchResponse& r) {
  if (r.watch_id() == -1) return check_progress(stream, -1, r.header().revision());
  auto it = live_.find({stream, r.watch_id()});
  ASSERT_NE(it, live_.end()) << "response for unknown watcher " << describe(r);
  WatchModel& w = watchers_[it->second];
  ASSERT_FALSE(w.cancel_seen);
  if (r.created()) {
    ASSERT_FALSE(w.created_seen);
    w.created_seen = true;
    return;
  }
  ASSERT_TRUE(w.created_seen);
  if (r.canceled()) {
    w.cancel_seen = true;
    w.compacted_at = r.compact_revision();
    if (w.compacted_at == 0) {
      EXPECT_TRUE(w.cancel_requested);
    }
    live_.erase(it);
    return;
  }
  if (r.events_size() == 0) return check_progress(stream, r.watch_id(), r.header().revision());
  std::vector<int64_t> batch;
  for (const auto& ev : r.events()) {
    EXPECT_LE(ev.kv().mod_revision(), r.header().revision());
    batch.push_back(ev.kv().mod_revision());
    w.got.push_back(ev);
  }
  w.batches.push_back(batch);
}

void RandomRun::pop_some(size_t s, int64_t max) {
  for (int64_t i = 0; i < max; ++i) {
    auto r = ws_.pop(streams_[s]);
    if (!r) return;
    on_response(streams_[s], *r);
  }
}

void RandomRun::step() {
  int kind = static_cast<int>(rng_.below(100));
  if (kind < 45) {
    write();
  } else if (kind < 50 && m_.rev > m_.compact) {
    int64_t at = m_.compact + 1 + rng_.below(m_.rev - m_.compact);
    ASSERT_TRUE(kv_.compact(at).is_ok());
    m_.compact = at;
  } else if (kind < 58 && ws_.watchers() < 40) {
    create_watcher();
  } else if (kind < 61 && !live_.empty()) {
    auto it = std::next(live_.begin(), rng_.below(static_cast<int64_t>(live_.size())));
    WatchModel& w = watchers_[it->second];
    if (!w.cancel_requested) {
      Status st = ws_.cancel(w.stream, w.id);
      // Already canceled by compaction (its cancel not read yet) is the only refusal.
      if (st.is_ok()) w.cancel_requested = true;
    }
  } else if (kind < 65) {
    ASSERT_TRUE(ws_.request_progress(streams_[static_cast<size_t>(rng_.below(3))]).is_ok());
  } else if (kind < 68) {
    ws_.progress_notify_tick();
  } else if (kind < 80) {
    ws_.sync_step();
  }
  for (size_t s = 0; s < streams_.size(); ++s) {
    if (rng_.percent(3)) stalled_[s] = !stalled_[s];
    if (!stalled_[s]) pop_some(s, rng_.below(6));
  }
}

void RandomRun::check_final(const WatchModel& w) {
  std::vector<mvccpb::Event> want = w.expected(m_, m_.rev);
  ASSERT_LE(w.got.size(), want.size());
  for (size_t i = 0; i < w.got.size(); ++i) {
    ASSERT_EQ(strip_prev(w.got[i]), strip_prev(want[i])) << "event " << i << " of watcher " << w.id;
    const mvccpb::Event& ev = w.got[i];
    int64_t r = ev.kv().mod_revision();
    auto before = m_.states[static_cast<size_t>(r - 1)].find(ev.kv().key());
    bool existed = before != m_.states[static_cast<size_t>(r - 1)].end();
    if (!w.create.prev_kv) {
      EXPECT_FALSE(ev.has_prev_kv());
    } else if (ev.has_prev_kv()) {
      ASSERT_TRUE(existed);
      EXPECT_EQ(ev.prev_kv().SerializeAsString(), before->second.SerializeAsString());
    } else {
      EXPECT_TRUE(!existed || r - 1 < m_.compact) << "prev_kv missing at " << r;
    }
  }
  for (size_t b = 1; b < w.batches.size(); ++b) {
    EXPECT_LT(w.batches[b - 1].back(), w.batches[b].front()) << "a revision split or reordered";
  }
  if (w.compacted_at != 0) {
    // Overtaken by a compaction: it got a prefix and needed something below the cancel's revision.
    EXPECT_LE(w.compacted_at, m_.compact);
    EXPECT_LT(w.start, w.compacted_at);
    if (!w.got.empty()) {
      EXPECT_LT(w.got.back().kv().mod_revision(), w.compacted_at);
    }
  } else if (!w.cancel_requested) {
    EXPECT_EQ(w.got.size(), want.size()) << "watcher " << w.id << " on stream " << w.stream << " missed events";
  }
}

void RandomRun::finish() {
  for (size_t i = 0; i < 10'000; ++i) {
    for (size_t s = 0; s < streams_.size(); ++s) pop_some(s, 1'000'000);
    bool more = ws_.sync_step();
    bool empty = true;
    for (StreamId s : streams_) empty &= ws_.queued(s) == 0;
    if (!more && empty && ws_.counters().watchers_unsynced == 0) break;
  }
  EXPECT_EQ(ws_.counters().watchers_unsynced, 0u);
  for (const WatchModel& w : watchers_) {
    EXPECT_TRUE(w.created_seen);
    check_final(w);
  }
}

TEST(WatchableStoreRandom, EveryWatcherGetsExactlyTheModelsEvents) {
  uint64_t overflows = 0, cancels = 0, progress = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    World w(seed);
    with_watch_store(w, [&](mvcc::KvStore& kv, WatchableStore& ws) {
      RandomRun run(seed, kv, ws);
      for (int i = 0; i < 600 && !::testing::Test::HasFatalFailure(); ++i) run.step();
      if (!::testing::Test::HasFatalFailure()) run.finish();
      overflows += ws.counters().overflows;
      cancels += ws.counters().compaction_cancels;
      progress += ws.counters().progress_responses;
    });
    if (::testing::Test::HasFailure()) break;
  }
  // The runs exercised what they are meant to.
  EXPECT_GT(overflows, 0u);
  EXPECT_GT(cancels, 0u);
  EXPECT_GT(progress, 0u);
  std::printf("overflows=%llu compaction_cancels=%llu progress=%llu\n", static_cast<unsigned long long>(overflows),
              static_cast<unsigned long long>(cancels), static_cast<unsigned long long>(progress));
}

}  // namespace
}  // namespace dst::watch
