#include "tools/explore_corpus.h"

#include <algorithm>
#include <bit>
#include <set>

#include "base/assert.h"

namespace dst::explore {
namespace {

// A fresh seed instead of a fork, this often (and always while the corpus is empty).
constexpr double kFreshProbability = 0.4;
// The mean interval after a fork, in percent of the scenario's: denser faults more often.
constexpr uint32_t kForkPercents[] = {25, 50, 100, 100, 200};
// Fresh seeds and salts stay readable in a reproduce command.
constexpr uint64_t kSeedBound = 1'000'000'000;
// A mutation of a swarm scenario's run redraws a part of its swarm draw this often (else forks).
constexpr double kRedrawProbability = 0.5;
// An energy unit: a feature reached by one run is worth this much.
constexpr uint64_t kEnergyScale = 1'000'000;

}  // namespace

std::vector<std::string> features_of(const history::Coverage& coverage) {
  std::vector<std::string> out;
  out.reserve(coverage.size());
  for (const auto& [name, hits] : coverage) {
    DST_ASSERT_GT(hits, 0u);
    out.push_back(name + "#" + std::to_string(std::bit_width(hits) - 1));
  }
  return out;
}

Corpus::Corpus(uint64_t seed, sim::DurationNs phase, bool fresh_only, std::vector<size_t> swarm_parts)
    : rng_(sim::Rng::substream(seed, "explore")), phase_(phase), fresh_only_(fresh_only), swarm_parts_(std::move(swarm_parts)) {
  for (size_t p : swarm_parts_) DST_ASSERT_LT(p, scenarios::kSwarmParts.size());
  DST_ASSERT_GT(phase, sim::milliseconds(1));
}

size_t Corpus::names() const {
  std::set<std::string> names;
  for (const auto& [feature, runs] : feature_runs_) names.insert(feature.substr(0, feature.rfind('#')));
  return names.size();
}

Candidate Corpus::fresh() { return Candidate{.seed = 1 + rng_.uniform_u64(kSeedBound), .forks = {}, .salts = {}, .parent = -1}; }

// Rarity divided by how often the run was forked already (AFL's "explore" power schedule): a rare
// run gets many children, but not the whole budget.
uint64_t Corpus::energy(const Entry& e) const {
  uint64_t sum = 1;  // every corpus run keeps some chance
  for (const std::string& f : e.features) {
    auto it = feature_runs_.find(f);
    DST_ASSERT(it != feature_runs_.end() && it->second > 0);
    sum += kEnergyScale / it->second;
  }
  return std::max<uint64_t>(1, sum / (1 + e.picks));
}

const Corpus::Entry& Corpus::pick_parent() {
  DST_ASSERT(!corpus_.empty());
  std::vector<uint64_t> weights;
  weights.reserve(corpus_.size());
  for (const Entry& e : corpus_) weights.push_back(energy(e));
  Entry& picked = corpus_[rng_.weighted_index(weights)];
  ++picked.picks;
  return picked;
}

// The parent with one part of its swarm draw redrawn (half the mutations, in a swarm scenario),
// or with one fork added after its last (or its last one redrawn when it has as many as a
// candidate may, or no time is left after it).
Candidate Corpus::mutate(const Entry& parent) {
  Candidate c = parent.candidate;
  c.parent = static_cast<int64_t>(parent.run);
  if (!swarm_parts_.empty() && rng_.bernoulli(kRedrawProbability)) {
    const size_t part = swarm_parts_[rng_.uniform_u64(swarm_parts_.size())];
    c.salts.salt[part] = 1 + rng_.uniform_u64(kSeedBound);
    return c;
  }
  const sim::DurationNs ms = sim::milliseconds(1);
  sim::DurationNs from = c.forks.empty() ? 0 : c.forks.back().after + ms;
  if (c.forks.size() >= kForksPerCandidateMax || from + ms >= phase_) {
    from = c.forks.back().after;
    c.forks.pop_back();
  }
  // Whole milliseconds, so the reproduce command says exactly this fork.
  const sim::DurationNs at = (from + static_cast<sim::DurationNs>(rng_.uniform_u64(static_cast<uint64_t>(phase_ - from)))) / ms * ms;
  const uint32_t percent = kForkPercents[rng_.uniform_u64(std::size(kForkPercents))];
  c.forks.push_back(faults::NemesisFork{.after = std::max(at, from), .salt = rng_.uniform_u64(kSeedBound), .interval_percent = percent});
  DST_ASSERT_LT(c.forks.back().after, phase_);
  return c;
}

std::vector<Candidate> Corpus::next_batch() {
  std::vector<Candidate> batch;
  for (size_t i = 0; i < kBatchSize; ++i) {
    const bool fresh_seed = fresh_only_ || corpus_.empty() || rng_.bernoulli(kFreshProbability);
    batch.push_back(fresh_seed ? fresh() : mutate(pick_parent()));
  }
  return batch;
}

size_t Corpus::record(const Candidate& candidate, const Outcome& outcome) {
  DST_ASSERT_LT(runs_, kRunsMax);
  const size_t run = runs_++;
  std::vector<std::string> features = features_of(outcome.coverage);
  size_t first = 0;
  for (const std::string& f : features) first += feature_runs_[f]++ == 0 ? 1 : 0;
  if (first == 0) return 0;
  corpus_.push_back(Entry{run, candidate, std::move(features)});
  if (corpus_.size() > kCorpusMax) {
    // The least energetic goes (the earliest among equals): the corpus stays bounded.
    size_t weakest = 0;
    for (size_t i = 1; i < corpus_.size(); ++i)
      if (energy(corpus_[i]) < energy(corpus_[weakest])) weakest = i;
    corpus_.erase(corpus_.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
  return first;
}

}  // namespace dst::explore
