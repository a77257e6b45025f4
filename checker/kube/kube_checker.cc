#include "checker/kube/kube_checker.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "checker/kube/checks.h"
#include "checker/kube/prefix_truth.h"
#include "checker/watch/truth.h"

namespace dst::checker::kube {

namespace internal {

void Sink::add(Violation v) {
  ++report_.violations_total;
  ++report_.violations_by_check[static_cast<size_t>(v.check)];
  size_t& n = per_informer_check_[{v.informer, static_cast<int>(v.check)}];
  if (++n > kViolationsPerInformerCheckMax || collected_.size() >= kViolationsCollectedMax) return;
  collected_.push_back(std::move(v));
}

void Sink::finish() {
  std::stable_sort(collected_.begin(), collected_.end(),
                   [](const Violation& a, const Violation& b) { return a.at_ns < b.at_ns; });
  if (collected_.size() > kViolationsKept) collected_.resize(kViolationsKept);
  report_.violations = std::move(collected_);
}

void Context::violation(Check check, uint32_t apiserver, int64_t at_ns, std::string what,
                        std::vector<std::string> evidence) const {
  Violation v;
  v.check = check;
  v.informer = informer.id;
  v.client = informer.client;
  v.apiserver = apiserver;
  v.at_ns = at_ns;
  v.what = std::move(what);
  v.evidence = std::move(evidence);
  sink.add(std::move(v));
}

std::vector<Step> steps_of(const history::Informer& informer) {
  std::vector<std::pair<uint64_t, Step>> all;
  for (const auto& l : informer.lists) all.push_back({l.step, Step{&l, nullptr}});
  for (const auto& w : informer.watches) all.push_back({w.step, Step{nullptr, &w}});
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Step> steps;
  steps.reserve(all.size());
  for (const auto& [step, s] : all) steps.push_back(s);
  return steps;
}

std::string describe_object(const history::KubeObject& o) {
  return "'" + o.key + "'='" + o.value + "' rv " + std::to_string(o.resource_version);
}

std::string describe_event(const history::KubeWatchEvent& e, size_t index) {
  std::string s = "#" + std::to_string(index) + " " + history::kube_event_type_name(e.type) + " ";
  if (e.type == history::KubeWatchEvent::Type::kBookmark)
    s += "rv " + std::to_string(e.object.resource_version);
  else
    s += describe_object(e.object);
  return s + " at " + watch::format_ns(e.at_ns);
}

std::string describe_etcd(const PrefixEvent& e) {
  std::string s = e.deleted ? "DELETE '" + e.key + "'" : "PUT '" + e.key + "'";
  if (!e.deleted) s += e.value ? "='" + *e.value + "'" : "=(value unknown)";
  s += " @" + std::to_string(e.revision);
  if (e.truth != nullptr) s += " (" + e.truth->source.describe() + ")";
  return s;
}

std::string describe_list(const history::KubeList& l) {
  return "LIST (step " + std::to_string(l.step) + ", apiserver " + std::to_string(l.apiserver) + ") asked rv " +
         std::to_string(l.requested_rv) + " at " + watch::format_ns(l.invoke_ns) + ", answered rv " +
         std::to_string(l.resource_version) + " with " + std::to_string(l.objects.size()) + " object(s) at " +
         watch::format_ns(l.return_ns);
}

std::string describe_watch(const history::KubeWatch& w) {
  std::string s = "WATCH (step " + std::to_string(w.step) + ", apiserver " + std::to_string(w.apiserver) +
                  ") from rv " + std::to_string(w.from_rv) + ", opened " + watch::format_ns(w.created_ns);
  if (!w.end.empty()) s += ", ended '" + w.end + "' at " + watch::format_ns(w.ended_ns);
  return s;
}

void append_capped(std::vector<std::string>& evidence, const std::vector<std::string>& lines) {
  for (size_t i = 0; i < lines.size() && i < kEvidenceLinesMax; ++i) evidence.push_back(lines[i]);
  if (lines.size() > kEvidenceLinesMax)
    evidence.push_back("... and " + std::to_string(lines.size() - kEvidenceLinesMax) + " more");
}

}  // namespace internal

const char* check_name(Check c) {
  switch (c) {
    case Check::kListRv: return "list-rv";
    case Check::kListState: return "list-state";
    case Check::kWatchEvents: return "watch-events";
    case Check::kWatchBookmark: return "watch-bookmark";
    case Check::kNeverBack: return "never-back";
    case Check::kInformerConvergence: return "informer-convergence";
    case Check::kWorkqueue: return "workqueue";
  }
  return "?";
}

std::string Violation::to_string() const {
  std::string s = std::string(check_name(check)) + ": informer " + std::to_string(informer) + " (client " +
                  std::to_string(client);
  if (apiserver != 0) s += ", apiserver " + std::to_string(apiserver);
  s += ") at " + watch::format_ns(at_ns) + ": " + what;
  for (const auto& e : evidence) s += "\n    " + e;
  return s;
}

std::string Report::to_string() const {
  std::string s = ok() ? "kube: ok" : "kube: VIOLATED";
  s += " (" + std::to_string(informers) + " informers, " + std::to_string(lists) + " lists, " +
       std::to_string(watches) + " watches, " + std::to_string(events) + " events, " + std::to_string(bookmarks) +
       " bookmarks)\n  checked:";
  for (size_t c = 0; c < kCheckCount; ++c) {
    s += std::string(c == 0 ? " " : ", ") + check_name(static_cast<Check>(c)) + " " +
         std::to_string(tallies[c].checked);
    if (tallies[c].skipped > 0) s += " (+" + std::to_string(tallies[c].skipped) + " skipped)";
  }
  s += "\n";
  bool skipped = false;
  for (const Tally& t : tallies) skipped = skipped || t.skipped > 0;
  if (skipped) s += "  skipped: what the history does not decide (etcd's side unknown, an informer that did not finish)\n";
  if (ok()) return s;
  s += std::to_string(violations_total) + " violation(s):";
  for (size_t c = 0; c < kCheckCount; ++c) {
    if (violations_by_check[c] > 0)
      s += " " + std::string(check_name(static_cast<Check>(c))) + "=" + std::to_string(violations_by_check[c]);
  }
  s += "\n";
  for (const auto& v : violations) s += "  " + v.to_string() + "\n";
  if (violations.size() < violations_total)
    s += "  ... " + std::to_string(violations_total - violations.size()) + " more not shown\n";
  return s;
}

Report check(const history::History& history) {
  Report report;
  if (history.informers.empty()) return report;
  // Disagreements between the truth's sources are the watch checker's to report.
  std::vector<watch::Violation> conflicts;
  size_t conflicts_total = 0;
  const watch::Truth truth = watch::Truth::build(history, conflicts, 0, conflicts_total);
  const RevisionClock clock(history);
  const PrefixIndex index(truth, clock, history);
  std::map<std::string, std::unique_ptr<PrefixTruth>> by_prefix;
  internal::Sink sink(report);
  for (const history::Informer& informer : history.informers) {
    ++report.informers;
    for (const auto& l : informer.lists) report.lists += l.ok ? 1 : 0;
    report.watches += informer.watches.size();
    for (const auto& w : informer.watches) {
      for (const auto& e : w.events) {
        if (e.type == history::KubeWatchEvent::Type::kBookmark)
          ++report.bookmarks;
        else
          ++report.events;
      }
    }
    std::unique_ptr<PrefixTruth>& pt = by_prefix[informer.prefix];
    if (!pt) pt = std::make_unique<PrefixTruth>(truth, clock, history, index, informer.prefix);
    const internal::Context ctx{informer, *pt, sink, report};
    internal::check_lists(ctx);
    internal::check_watches(ctx);
    internal::check_never_back(ctx);
    internal::check_convergence(ctx);
    internal::check_workqueue(ctx);
  }
  sink.finish();
  return report;
}

}  // namespace dst::checker::kube
