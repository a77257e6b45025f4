#include "tools/explore_corpus.h"

#include <gtest/gtest.h>

namespace dst::explore {
namespace {

using sim::seconds;

// An outcome a candidate "reaches": a name per seed parity, and a rare name for forks at late times.
Outcome fake_outcome(const Candidate& c) {
  Outcome o;
  o.coverage["probe.common"] = 1 + c.seed % 3;
  o.coverage[c.seed % 2 == 0 ? "probe.even" : "probe.odd"] = 1;
  if (!c.forks.empty() && c.forks.back().after > seconds(8)) o.coverage["probe.late-fork"] = c.forks.size();
  return o;
}

std::vector<Candidate> explore(uint64_t seed, size_t batches) {
  Corpus corpus(seed, seconds(10));
  std::vector<Candidate> all;
  for (size_t b = 0; b < batches; ++b) {
    for (const Candidate& c : corpus.next_batch()) {
      corpus.record(c, fake_outcome(c));
      all.push_back(c);
    }
  }
  return all;
}

TEST(ExploreCorpus, FeaturesBucketHitsByPowersOfTwo) {
  EXPECT_EQ(features_of({{"a", 1}, {"b", 2}, {"c", 3}, {"d", 8}}), (std::vector<std::string>{"a#0", "b#1", "c#1", "d#3"}));
}

TEST(ExploreCorpus, TheSameSeedAndOutcomesGiveTheSameCandidates) {
  const std::vector<Candidate> a = explore(5, 6), b = explore(5, 6), c = explore(6, 6);
  ASSERT_EQ(a.size(), 6 * kBatchSize);
  bool same = true, differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    same &= a[i].seed == b[i].seed && a[i].forks == b[i].forks && a[i].parent == b[i].parent;
    differs |= a[i].seed != c[i].seed || a[i].forks != c[i].forks;
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differs);
}

// The first batch is fresh seeds; later ones fork corpus runs: the same seed as the parent, its
// forks kept, one more after them, strictly later, inside the phase, never more than the bound.
TEST(ExploreCorpus, ForksKeepTheParentsSeedAndForksAndAddALaterOne) {
  const std::vector<Candidate> all = explore(11, 30);
  for (size_t i = 0; i < kBatchSize; ++i) EXPECT_EQ(all[i].parent, -1);
  size_t forked = 0;
  for (const Candidate& c : all) {
    ASSERT_LE(c.forks.size(), kForksPerCandidateMax);
    for (size_t k = 0; k < c.forks.size(); ++k) {
      EXPECT_LT(c.forks[k].after, seconds(10));
      EXPECT_EQ(c.forks[k].after % sim::milliseconds(1), 0);
      if (k > 0) {
        EXPECT_GT(c.forks[k].after, c.forks[k - 1].after);
      }
    }
    if (c.parent < 0) continue;
    ++forked;
    const Candidate& p = all[static_cast<size_t>(c.parent)];
    EXPECT_EQ(c.seed, p.seed);
    ASSERT_FALSE(c.forks.empty());
    const size_t kept = std::min(p.forks.size(), c.forks.size() - 1);
    for (size_t k = 0; k < kept; ++k) EXPECT_EQ(c.forks[k], p.forks[k]);
  }
  EXPECT_GT(forked, all.size() / 2);
}

// In a swarm scenario half the mutations redraw one part of the parent's swarm draw (a salt
// added or changed) and keep its forks; the others fork it.
TEST(ExploreCorpus, SwarmMutationsRedrawOnePartOfTheDraw) {
  Corpus corpus(21, seconds(10), false, {2, 3});
  std::vector<Candidate> all;
  for (int b = 0; b < 20; ++b) {
    for (const Candidate& c : corpus.next_batch()) {
      corpus.record(c, fake_outcome(c));
      all.push_back(c);
    }
  }
  size_t redrawn = 0, forked = 0;
  for (const Candidate& c : all) {
    if (c.parent < 0) continue;
    const Candidate& p = all[static_cast<size_t>(c.parent)];
    size_t changed = 0;
    for (size_t part = 0; part < c.salts.salt.size(); ++part) {
      if (c.salts.salt[part] == p.salts.salt[part]) continue;
      ++changed;
      EXPECT_TRUE(part == 2 || part == 3) << part;
    }
    if (changed == 1) {
      ++redrawn;
      EXPECT_EQ(c.forks, p.forks);
    } else {
      EXPECT_EQ(changed, 0u);
      ++forked;
      EXPECT_EQ(c.forks.size(), std::min(p.forks.size() + 1, kForksPerCandidateMax));
    }
  }
  EXPECT_GT(redrawn, 10u);
  EXPECT_GT(forked, 10u);
}

// A run joins the corpus only when it reaches a feature first; the rare feature draws the search.
TEST(ExploreCorpus, OnlyRunsReachingSomethingNewJoinAndRareStatesGetMoreRuns) {
  Corpus corpus(3, seconds(10));
  Outcome plain;
  plain.coverage["probe.common"] = 1;
  EXPECT_EQ(corpus.record(Candidate{.seed = 1}, plain), 1u);
  EXPECT_EQ(corpus.record(Candidate{.seed = 2}, plain), 0u);
  EXPECT_EQ(corpus.corpus_size(), 1u);
  Outcome rare = plain;
  rare.coverage["probe.rare"] = 4;
  EXPECT_EQ(corpus.record(Candidate{.seed = 3}, rare), 1u);
  EXPECT_EQ(corpus.corpus_size(), 2u);
  EXPECT_EQ(corpus.names(), 2u);
  EXPECT_EQ(corpus.features(), 2u);
  size_t from_rare = 0, forks = 0;
  for (int b = 0; b < 20; ++b) {
    for (const Candidate& c : corpus.next_batch()) {
      if (c.parent < 0) continue;
      ++forks;
      from_rare += c.seed == 3 ? 1 : 0;
    }
  }
  EXPECT_GT(from_rare * 3, forks * 2) << from_rare << " of " << forks;  // energy 1e6+1e6 vs 1e6/3
}

}  // namespace
}  // namespace dst::explore
