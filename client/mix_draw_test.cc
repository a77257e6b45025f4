// The swarm's draws of a workload mix (client/mix_draw.h): a seed fixes the draw, every mix keeps
// a read and a write kind, every chance stays a probability (and the shares of one draw sum to at
// most 1), and across seeds the draws differ from the defaults in both directions.
#include "client/mix_draw.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace dst::client {
namespace {

bool has_read(const KvMix& m) { return m.get + m.stale_get + m.list + m.scan > 0; }
bool has_write(const KvMix& m) {
  return m.put + m.lease_put + m.txn + m.cas_mod + m.cas_value > 0;  // deletes and revokes write no value
}

TEST(MixDraw, SameSeedSameMix) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    sim::Rng a(seed), b(seed);
    KvMix ma, mb;
    WatchMix wa, wb;
    EXPECT_EQ(draw_kv_mix(a, ma) + draw_watch_mix(a, wa), draw_kv_mix(b, mb) + draw_watch_mix(b, wb));
    EXPECT_EQ(ma.put, mb.put);
    EXPECT_EQ(ma.scan_limit, mb.scan_limit);
    EXPECT_EQ(wa.slow_reader, wb.slow_reader);
  }
}

TEST(MixDraw, EveryMixReadsAndWrites) {
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    sim::Rng rng(seed);
    KvMix m;
    draw_kv_mix(rng, m);
    EXPECT_TRUE(has_read(m)) << "seed " << seed;
    EXPECT_TRUE(has_write(m)) << "seed " << seed;
    EXPECT_EQ(m.put_ignore_value, 0) << "the etcd model needs unique values";
    for (double p : {m.put_prev_kv, m.put_ignore_lease, m.del_prev_kv, m.del_range, m.scan_sub_range, m.scan_limit,
                     m.scan_sort, m.scan_keys_only, m.scan_count_only, m.scan_serializable, m.scan_filter,
                     m.scan_past_revision, m.txn_else_read, m.txn_then_read, m.txn_nested, m.txn_lease_compare}) {
      EXPECT_GE(p, 0);
      EXPECT_LE(p, 1);
    }
  }
}

TEST(MixDraw, WatchSharesOfOneDrawStayBelowOne) {
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    sim::Rng rng(seed);
    WatchMix w;
    draw_watch_mix(rng, w);
    EXPECT_LE(w.start_at_beginning + w.start_near, 1.0) << "seed " << seed;
    EXPECT_LE(w.restart_at_compaction + w.restart_below_compaction, 1.0) << "seed " << seed;
    EXPECT_GE(w.slow_reader, 0);
    EXPECT_LE(w.slow_reader, 1);
    EXPECT_GT(w.slow_read_delay_max, 0);
  }
}

TEST(MixDraw, SeedsReachBothSidesOfTheDefaults) {
  const KvMix defaults;
  std::set<uint64_t> put_weights;
  bool limit_off = false, limit_up = false, slow_long = false;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    sim::Rng rng(seed);
    KvMix m;
    WatchMix w;
    const std::string text = draw_kv_mix(rng, m);
    draw_watch_mix(rng, w);
    EXPECT_NE(text.find("kv kinds"), std::string::npos);
    put_weights.insert(m.put);
    limit_off = limit_off || m.scan_limit == 0;
    limit_up = limit_up || m.scan_limit > defaults.scan_limit;
    slow_long = slow_long || w.slow_read_delay_max >= sim::seconds(2);
  }
  EXPECT_TRUE(put_weights.count(0)) << "puts dropped on some seed";
  EXPECT_TRUE(put_weights.count(11)) << "puts halved on some seed";
  EXPECT_TRUE(put_weights.count(88)) << "puts four times as frequent on some seed";
  EXPECT_TRUE(limit_off);
  EXPECT_TRUE(limit_up);
  EXPECT_TRUE(slow_long);
}

}  // namespace
}  // namespace dst::client
