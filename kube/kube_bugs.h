// Switchable bugs in the Kubernetes layer (issue #8's part of the bug zoo): each an honest change
// of behaviour modelled on a bug Kubernetes really had, off by default and switched on with
// `dst run ... --bug NAME`, so a run shows the kube checks catching it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::kube {

enum class KubeBug : uint32_t {
  // A LIST "not older than" R is answered from a watch cache that has not reached R yet, with the
  // cache's older objects labelled R, instead of waiting for the cache to catch up (the stale
  // lists from a lagging apiserver cache that Kubernetes' consistent-read work set out to end).
  kListNotCaughtUp = 1u << 0,
  // After a re-list at R an informer watches from R + 1 instead of R: the watch's resourceVersion
  // is exclusive in Kubernetes and inclusive in etcd, and mixing the two loses the events at R + 1.
  kInformerResumeSkip = 1u << 1,
  // A watcher that fell so far behind that its next event left the cache's ring is moved on to the
  // oldest event the ring still holds instead of being ended with 410 Gone: the events in between
  // are silently lost.
  kDropOnRingWrap = 1u << 2,
};

std::string_view kube_bug_name(KubeBug bug);
// One name; the error lists the valid names.
Result<KubeBug> parse_kube_bug(std::string_view name);
std::vector<KubeBug> all_kube_bugs();
inline bool has_bug(uint32_t bugs, KubeBug b) { return (bugs & static_cast<uint32_t>(b)) != 0; }

}  // namespace dst::kube
