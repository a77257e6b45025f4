#include "checker/kube/revision_clock.h"

#include <algorithm>
#include <iterator>

#include "checker/watch/violation.h"

namespace dst::checker::kube {

RevisionClock::RevisionClock(const history::History& history) {
  for (const auto& op : history.operations) {
    if (op.outcome != history::Outcome::kOk || op.return_ns == history::kNeverReturned) continue;
    const int64_t r = history::response_revision(op.response);
    if (r > 0) points_.push_back(Point{op.return_ns, r, false, op.id, op.client, 0});
  }
  for (const auto& w : history.watches) {
    for (const auto& seg : w.segments) {
      for (const auto& resp : seg.responses) {
        int64_t r = resp.response.header().revision();
        for (const auto& ev : resp.response.events()) r = std::max(r, ev.kv().mod_revision());
        if (r > 0) points_.push_back(Point{resp.at_ns, r, true, w.id, w.client, 0});
      }
    }
  }
  std::stable_sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) { return a.at_ns < b.at_ns; });
  for (size_t i = 0; i < points_.size(); ++i) {
    points_[i].setter = i > 0 && points_[points_[i - 1].setter].revision >= points_[i].revision ? points_[i - 1].setter : i;
    highest_ = std::max(highest_, points_[i].revision);
  }
}

const RevisionClock::Point* RevisionClock::before(int64_t at_ns) const {
  auto it = std::lower_bound(points_.begin(), points_.end(), at_ns,
                             [](const Point& p, int64_t t) { return p.at_ns < t; });
  return it == points_.begin() ? nullptr : &points_[std::prev(it)->setter];
}

int64_t RevisionClock::existed_before(int64_t at_ns) const {
  const Point* p = before(at_ns);
  return p == nullptr ? 1 : std::max<int64_t>(p->revision, 1);
}

std::string RevisionClock::shown_before(int64_t at_ns) const {
  const Point* p = before(at_ns);
  if (p == nullptr) return "nothing (the initial store)";
  return std::string(p->watch ? "etcd watch " : "etcd op ") + std::to_string(p->id) + " (client " +
         std::to_string(p->client) + ") " + (p->watch ? "received a response at " : "returned at ") +
         watch::format_ns(p->at_ns) + " showing revision " + std::to_string(p->revision);
}

}  // namespace dst::checker::kube
