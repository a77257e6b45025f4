// See plot_data.h: the leader/term timeline from the periodic metric samples (node/server/
// kv_run_world.h names them): member 0's "leader" (the live leader with the highest term, 0: none),
// each member's "up" and "term". A sample's value holds until the next sample.
#include <algorithm>
#include <map>
#include <utility>

#include "base/assert.h"
#include "reports/plot_data.h"

namespace dst::reports {

namespace {

using Series = std::vector<std::pair<int64_t, int64_t>>;  // (at_ns, value), by time

// The stretches [t_i, t_i+1) where `pred(value)` holds, adjacent ones merged. The last sample has
// no successor: it only closes the stretch before it.
template <typename Pred>
std::vector<TimeWindow> stretches(const Series& s, Pred pred) {
  std::vector<TimeWindow> out;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (!pred(s[i].second)) continue;
    if (!out.empty() && out.back().end_ns == s[i].first) {
      out.back().end_ns = s[i + 1].first;
    } else {
      out.push_back({s[i].first, s[i + 1].first});
    }
  }
  return out;
}

}  // namespace

LeaderTimeline build_leader_timeline(const std::vector<history::MetricSample>& metrics) {
  LeaderTimeline t;
  Series cluster_leader;
  std::map<uint32_t, Series> up;                   // ordered: members in id order
  std::map<int64_t, int64_t> term_at;              // at_ns -> highest term reported then
  for (const history::MetricSample& m : metrics) {
    if (m.member == 0 && m.name == "leader") cluster_leader.emplace_back(m.at_ns, m.value);
    if (m.member == 0) continue;
    up[m.member];  // every sampled member gets a lane, even one that never went down
    if (m.name == "up") up[m.member].emplace_back(m.at_ns, m.value);
    if (m.name == "term") {
      auto [it, inserted] = term_at.emplace(m.at_ns, m.value);
      if (!inserted) it->second = std::max(it->second, m.value);
    }
  }
  // read_metrics orders by (name, member, at_ns); sort anyway so any order works.
  std::stable_sort(cluster_leader.begin(), cluster_leader.end());
  for (auto& [member, series] : up) {
    std::stable_sort(series.begin(), series.end());
    t.members.push_back(member);
    for (const TimeWindow& w : stretches(series, [](int64_t v) { return v == 0; }))
      t.spans.push_back({member, w.start_ns, w.end_ns, MemberSpan::State::kDown});
  }
  for (const uint32_t member : t.members) {
    for (const TimeWindow& w : stretches(cluster_leader, [member](int64_t v) { return v == member; }))
      t.spans.push_back({member, w.start_ns, w.end_ns, MemberSpan::State::kLeader});
  }
  std::stable_sort(t.spans.begin(), t.spans.end(), [](const MemberSpan& a, const MemberSpan& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.member < b.member;
  });
  t.no_leader = stretches(cluster_leader, [](int64_t v) { return v == 0; });
  int64_t previous = 0;
  for (const auto& [at, leader] : cluster_leader) {
    if (leader == 0) continue;
    if (previous != 0 && leader != previous) ++t.leader_changes;
    previous = leader;
  }
  for (const auto& [at, term] : term_at) {
    t.terms.push_back({at, term});
    t.term_max = std::max(t.term_max, term);
  }
  DST_ASSERT(std::is_sorted(t.terms.begin(), t.terms.end(),
                            [](const TermPoint& a, const TermPoint& b) { return a.at_ns < b.at_ns; }));
  return t;
}

}  // namespace dst::reports
