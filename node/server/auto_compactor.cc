// etcd 3.4's periodic and revision compactors; see auto_compactor.h.
#include "node/server/auto_compactor.h"

#include <algorithm>
#include <deque>

#include "base/assert.h"
#include "base/limits.h"
#include "base/probes.h"
#include "node/mvcc/kv_store.h"

namespace dst::node {
namespace {

// etcd's compactors treat "already compacted" as done.
bool compacted(const etcdserverpb::ApiResponse& r) {
  return r.has_compaction() || (r.has_error() && r.error().message() == mvcc::kErrCompacted);
}

// Asks the member's own API for a compaction to `revision`, telling the world before and after.
bool compact(const AutoCompactorHooks& hooks, int64_t revision) {
  etcdserverpb::ApiRequest req;
  req.mutable_compaction()->set_revision(revision);
  if (hooks.observe) hooks.observe(AutoCompactionEvent{revision, false, {}});
  etcdserverpb::ApiResponse answer = hooks.handle(req);
  if (hooks.observe) hooks.observe(AutoCompactionEvent{revision, true, answer});
  if (answer.has_compaction()) DST_PROBE(kServerAutoCompacted);
  if (answer.has_error() && compacted(answer)) DST_PROBE(kServerAutoCompactionAlreadyDone);
  return compacted(answer);
}

void run_periodic(sim::Env& env, sim::DurationNs period, const AutoCompactorHooks& hooks) {
  const sim::DurationNs compact_interval = std::min(period, sim::seconds(3600));
  const sim::DurationNs retry_interval = std::max<sim::DurationNs>(compact_interval / 10, 1);
  // Revisions noted over the last period: revs.front() is the one from about `period` ago.
  const size_t retentions = static_cast<size_t>(period / retry_interval) + 1;
  DST_ASSERT_LE(retentions, kAutoCompactionPeriodMax / sim::seconds(360) + 11);
  std::deque<int64_t> revs;
  sim::TimeNs last_success = env.monotonic_now();
  sim::DurationNs base_interval = period;
  for (;;) {
    revs.push_back(hooks.revision());
    if (revs.size() > retentions) revs.pop_front();
    if (env.sleep(retry_interval) != sim::WaitResult::kOk) return;
    if (!hooks.leads()) continue;  // etcd pauses the compactor on followers
    if (env.monotonic_now() - last_success < base_interval) continue;
    base_interval = compact_interval;  // the first compaction waits a whole period, later ones less
    if (compact(hooks, revs.front())) last_success = env.monotonic_now();
  }
}

void run_revision(sim::Env& env, int64_t keep, const AutoCompactorHooks& hooks) {
  int64_t previous = 0;
  for (;;) {
    if (env.sleep(kAutoCompactionRevisionInterval) != sim::WaitResult::kOk) return;
    if (!hooks.leads()) continue;
    const int64_t rev = hooks.revision() - keep;
    if (rev <= 0 || rev == previous) continue;
    if (compact(hooks, rev)) previous = rev;
  }
}

}  // namespace

void run_auto_compactor(sim::Env& env, const AutoCompaction& config, const AutoCompactorHooks& hooks) {
  DST_ASSERT(config.enabled());
  DST_ASSERT(hooks.leads && hooks.revision && hooks.handle);
  if (config.mode == AutoCompaction::Mode::kPeriodic) {
    run_periodic(env, config.period, hooks);
  } else {
    run_revision(env, config.revisions, hooks);
  }
}

}  // namespace dst::node
