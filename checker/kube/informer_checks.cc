// never-back, informer-convergence and workqueue: an informer's whole life, its final store, and
// what its controller did with what it was told.
#include <algorithm>
#include <map>
#include <set>

#include "checker/kube/checks.h"
#include "checker/watch/violation.h"

namespace dst::checker::kube::internal {

namespace {

using EventType = history::KubeWatchEvent::Type;

// The resourceVersion the informer holds, walked through its steps in order.
class RvWalk {
 public:
  explicit RvWalk(const Context& ctx) : ctx_(ctx) {}

  void list(const history::KubeList& l) {
    ++ctx_.tally(Check::kNeverBack).checked;
    if (l.resource_version < model_.rv()) {
      back(l.apiserver, l.return_ns, "a LIST answered at rv " + std::to_string(l.resource_version), Where{&l});
      return;
    }
    model_.list(l);
    closed_ = true;
    keys_.clear();
  }

  void watch(const history::KubeWatch& w) {
    ++ctx_.tally(Check::kNeverBack).checked;
    if (w.from_rv < model_.rv())
      back(w.apiserver, w.created_ns, "a WATCH started from rv " + std::to_string(w.from_rv), Where{nullptr, &w});
    for (size_t i = 0; i < w.events.size(); ++i)
      if (!event(w, i)) break;  // the informer refused it and ended the watch
  }

 private:
  bool event(const history::KubeWatch& w, size_t i) {
    ++ctx_.tally(Check::kNeverBack).checked;
    const history::KubeWatchEvent& e = w.events[i];
    const int64_t r = e.object.resource_version;
    const Where here{nullptr, &w, i};
    const int64_t had = model_.rv();
    if (e.type == EventType::kBookmark) {
      if (r < had) back(w.apiserver, e.at_ns, "a BOOKMARK at rv " + std::to_string(r), here);
      if (r >= had) {
        closed_ = true;
        keys_.clear();
      }
      return model_.event(w, i);
    }
    // One revision may change several keys (a txn): more events at it are fine, for other keys,
    // until a list or bookmark said the revision was complete.
    if (r < had || (r == had && (closed_ || keys_.count(e.object.key) > 0))) {
      back(w.apiserver, e.at_ns,
           "an event at rv " + std::to_string(r) + (r == had && !closed_ ? " for a key it already had at that rv" : ""),
           here);
      return model_.event(w, i);
    }
    if (!model_.event(w, i)) return false;
    if (r > had) {
      closed_ = false;
      keys_.clear();
    }
    keys_.insert(e.object.key);
    return true;
  }

  void back(uint32_t apiserver, int64_t at_ns, const std::string& what, const Where& then) {
    ctx_.violation(Check::kNeverBack, apiserver, at_ns,
                   what + ", not after the rv " + std::to_string(model_.rv()) + " the informer already had",
                   {"had:  " + model_.rv_by().describe(), "then: " + then.describe()});
  }

  const Context& ctx_;
  InformerModel model_;
  bool closed_ = true;          // no more events at the model's rv may come
  std::set<std::string> keys_;  // keys changed at the model's rv so far
};

}  // namespace

std::string Where::describe() const {
  if (list != nullptr) return describe_list(*list);
  if (watch == nullptr) return "nothing (its start)";
  if (event == SIZE_MAX) return describe_watch(*watch);
  return describe_event(watch->events[event], event) + " on " + describe_watch(*watch);
}

bool InformerModel::list(const history::KubeList& l) {
  if (!l.ok || l.resource_version < rv_) return false;
  for (const auto& [key, obj_rv] : store_) told_[key] = l.resource_version;
  store_.clear();
  for (const auto& o : l.objects) {
    store_[o.key] = o.resource_version;
    told_[o.key] = l.resource_version;
  }
  rv_ = complete_ = l.resource_version;
  rv_by_ = Where{&l};
  return true;
}

bool InformerModel::event(const history::KubeWatch& w, size_t i) {
  const history::KubeWatchEvent& e = w.events[i];
  const int64_t r = e.object.resource_version;
  if (e.type == EventType::kBookmark) {
    if (r > rv_) rv_by_ = Where{nullptr, &w, i};
    rv_ = std::max(rv_, r);
    complete_ = std::max(complete_, r);
    return true;
  }
  if (r < rv_ || r <= complete_) return false;
  auto it = store_.find(e.object.key);
  const bool fits = e.type == EventType::kAdded      ? it == store_.end()
                    : e.type == EventType::kModified ? it != store_.end() && it->second < r
                                                     : it != store_.end();
  if (!fits) return false;
  if (e.type == EventType::kDeleted)
    store_.erase(it);
  else
    store_[e.object.key] = r;
  if (r > rv_) rv_by_ = Where{nullptr, &w, i};
  rv_ = r;
  told_[e.object.key] = r;
  return true;
}

void check_never_back(const Context& ctx) {
  RvWalk walk(ctx);
  for (const Step& step : steps_of(ctx.informer)) {
    if (step.list != nullptr) {
      if (step.list->ok) walk.list(*step.list);
    } else {
      walk.watch(*step.watch);
    }
  }
}

void check_convergence(const Context& ctx) {
  const history::Informer& inf = ctx.informer;
  Tally& tally = ctx.tally(Check::kInformerConvergence);
  if (!inf.finished) {
    ++tally.skipped;
    return;
  }
  const std::string final_line = "final store: rv " + std::to_string(inf.final_rv) + ", " +
                                 std::to_string(inf.final_objects.size()) + " object(s) at " +
                                 watch::format_ns(inf.final_ns);
  // etcd's last change under P that it showed before the end: the informer must have reached it.
  const int64_t existed = ctx.truth.clock().existed_before(inf.final_ns);
  const auto& events = ctx.truth.events();
  auto last = events.upper_bound(existed);
  if (last != events.begin()) {
    --last;
    if (last->first > inf.final_rv) {
      std::vector<std::string> lines;
      for (auto it = events.upper_bound(inf.final_rv); it != events.end() && it->first <= existed; ++it)
        for (const auto& [key, pe] : it->second) lines.push_back("missed: " + describe_etcd(pe));
      std::vector<std::string> evidence{final_line};
      append_capped(evidence, lines);
      ctx.violation(Check::kInformerConvergence, 0, inf.final_ns,
                    "stale at the end: the informer is at rv " + std::to_string(inf.final_rv) +
                        " but etcd changed '" + ctx.truth.prefix() + "' up to revision " + std::to_string(last->first),
                    std::move(evidence));
    }
  }
  const StateDiff diff = diff_state(ctx.truth, inf.final_objects, inf.final_rv, tally);
  if (diff.empty()) return;
  std::vector<std::string> evidence{final_line};
  append_capped(evidence, diff.lines);
  ctx.violation(Check::kInformerConvergence, 0, inf.final_ns,
                "the final store differs from etcd's objects under '" + ctx.truth.prefix() + "' at revision " +
                    std::to_string(inf.final_rv) + ": " + diff.summary(),
                std::move(evidence));
}

void check_workqueue(const Context& ctx) {
  const history::Informer& inf = ctx.informer;
  Tally& tally = ctx.tally(Check::kWorkqueue);
  const history::KubeList* first = nullptr;
  for (const Step& step : steps_of(inf)) {
    if (step.list != nullptr && step.list->ok) {
      first = step.list;
      break;
    }
  }
  // Without a list the informer knew nothing; before the end its controller may still be busy; a
  // kubelet's informer feeds no workqueue.
  if (first == nullptr || !inf.finished || inf.client >= history::kInformerWithoutWorkqueueClientIdBase) {
    ++tally.skipped;
    return;
  }
  std::set<std::string> first_keys;
  for (const auto& o : first->objects) first_keys.insert(o.key);
  InformerModel model;
  for (const Step& step : steps_of(inf)) {
    if (step.list != nullptr) {
      if (step.list->ok) model.list(*step.list);
      continue;
    }
    for (size_t i = 0; i < step.watch->events.size(); ++i)
      if (!model.event(*step.watch, i)) break;
  }
  const std::map<std::string, int64_t>& told = model.told();
  std::map<std::string, const history::KubeProcessed*> processed;  // the highest informer rv per key
  for (const auto& p : inf.processed) {
    auto [it, fresh] = processed.emplace(p.key, &p);
    if (!fresh && it->second->informer_rv < p.informer_rv) it->second = &p;
  }
  for (const std::string& key : ctx.truth.keys()) {
    const PrefixEvent* last = ctx.truth.last_event(key);
    if (last == nullptr) continue;
    const int64_t r = last->revision;
    if (r <= first->resource_version && first_keys.count(key) == 0) continue;  // gone before the informer started
    auto t = told.find(key);
    if (t == told.end() || t->second < r) {
      ++tally.skipped;  // the informer never heard of this change: the other checks judge that
      continue;
    }
    ++tally.checked;
    auto p = processed.find(key);
    if (p != processed.end() && p->second->informer_rv >= r) continue;
    std::vector<std::string> evidence{"etcd's last change: " + describe_etcd(*last),
                                      "the informer was told at rv " + std::to_string(t->second)};
    if (p == processed.end())
      evidence.push_back("processed: never");
    else
      evidence.push_back("processed last at informer rv " + std::to_string(p->second->informer_rv) + " at " +
                         watch::format_ns(p->second->at_ns));
    ctx.violation(Check::kWorkqueue, 0, inf.final_ns,
                  "'" + key + "' last changed at rv " + std::to_string(r) +
                      " but the controller never processed it at an informer rv >= " + std::to_string(r),
                  std::move(evidence));
  }
}

}  // namespace dst::checker::kube::internal
