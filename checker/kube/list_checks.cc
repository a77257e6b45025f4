// list-rv and list-state: every LIST an informer got an answer to, against etcd's revisions and
// its state under the prefix at the answer's resourceVersion.
#include <map>

#include "checker/kube/checks.h"
#include "checker/watch/violation.h"

namespace dst::checker::kube::internal {

namespace {

void check_list_rv(const Context& ctx, const history::KubeList& list) {
  ++ctx.tally(Check::kListRv).checked;
  const int64_t rv = list.resource_version;
  if (list.requested_rv > 0) {
    if (rv < list.requested_rv) {
      ctx.violation(Check::kListRv, list.apiserver, list.return_ns,
                    "a LIST for resourceVersion not older than " + std::to_string(list.requested_rv) +
                        " was answered at the older " + std::to_string(rv),
                    {describe_list(list)});
    }
    return;
  }
  // resourceVersion 0: the most recent state, a linearizable read; anything etcd showed before
  // the LIST was sent must be in it.
  const int64_t existed = ctx.truth.clock().existed_before(list.invoke_ns);
  if (rv < existed) {
    ctx.violation(Check::kListRv, list.apiserver, list.return_ns,
                  "a consistent LIST (resourceVersion 0) sent at " + watch::format_ns(list.invoke_ns) +
                      " was answered at " + std::to_string(rv) + ", but etcd had reached revision " +
                      std::to_string(existed) + " before it was sent",
                  {describe_list(list), "before it: " + ctx.truth.clock().shown_before(list.invoke_ns)});
  }
}

void check_list_state(const Context& ctx, const history::KubeList& list) {
  const StateDiff diff = diff_state(ctx.truth, list.objects, list.resource_version, ctx.tally(Check::kListState));
  if (diff.empty()) return;
  std::vector<std::string> evidence{describe_list(list)};
  append_capped(evidence, diff.lines);
  ctx.violation(Check::kListState, list.apiserver, list.return_ns,
                "a LIST answered at resourceVersion " + std::to_string(list.resource_version) +
                    " differs from etcd's objects under '" + ctx.truth.prefix() + "' at revision " +
                    std::to_string(list.resource_version) + ": " + diff.summary(),
                std::move(evidence));
}

// "etcd: 'v2' rv 7 since PUT ... @7 (op 4 ...)" — what etcd had, and the change that made it so.
std::string etcd_side(const PrefixState& s) {
  std::string r = "etcd: " + s.describe();
  if (s.event != nullptr) r += ", since " + describe_etcd(*s.event);
  else if (s.since > 1) r += ", as a read of the prefix at revision " + std::to_string(s.since) + " showed";
  return r;
}

}  // namespace

std::string StateDiff::summary() const {
  std::string s = std::to_string(missing) + " missing, " + std::to_string(extra) + " extra, " +
                  std::to_string(differ) + " different";
  if (outside > 0) s += ", " + std::to_string(outside) + " outside the prefix";
  return s;
}

StateDiff diff_state(const PrefixTruth& truth, const std::vector<history::KubeObject>& objects, int64_t revision,
                     Tally& tally) {
  StateDiff diff;
  std::map<std::string, const history::KubeObject*> seen;
  for (const auto& o : objects) {
    if (!truth.contains(o.key)) {
      ++diff.outside;
      diff.lines.push_back("outside the prefix: " + describe_object(o));
      continue;
    }
    if (!seen.emplace(o.key, &o).second) {
      ++diff.differ;
      diff.lines.push_back("listed twice: " + describe_object(o));
    }
  }
  // Every key either side knows of: what the answer holds, and what etcd ever had under P.
  std::map<std::string, const history::KubeObject*> keys = seen;
  for (const auto& k : truth.keys()) keys.emplace(k, nullptr);
  for (const auto& [key, obj] : keys) {
    const PrefixState s = truth.state(key, revision);
    if (s.kind == PrefixState::Kind::kUnknown) {
      ++tally.skipped;
      continue;
    }
    ++tally.checked;
    if (s.kind == PrefixState::Kind::kAbsent) {
      if (obj == nullptr) continue;
      ++diff.extra;
      diff.lines.push_back("extra '" + key + "': seen " + describe_object(*obj) + "; " + etcd_side(s));
      continue;
    }
    if (obj == nullptr) {
      ++diff.missing;
      diff.lines.push_back("missing '" + key + "': seen nothing; " + etcd_side(s));
      continue;
    }
    if (obj->resource_version != s.mod_revision || (s.value && obj->value != *s.value)) {
      ++diff.differ;
      diff.lines.push_back("different '" + key + "': seen " + describe_object(*obj) + "; " + etcd_side(s));
    }
  }
  return diff;
}

void check_lists(const Context& ctx) {
  for (const history::KubeList& list : ctx.informer.lists) {
    if (!list.ok) continue;
    check_list_rv(ctx, list);
    check_list_state(ctx, list);
  }
}

}  // namespace dst::checker::kube::internal
