#include "node/fault_points/fault_points.h"

#include <string>

#include "base/assert.h"

namespace dst::node {

namespace {
constexpr std::string_view kNames[] = {
    "before-wal-save", "after-wal-save", "before-send", "before-apply",
    "after-apply",     "before-snapshot-save", "after-snapshot-save",
    // The names mvcc::KvStore and backend::Backend pass to their fault hooks (kv_store.h,
    // backend.h); Server maps them back with parse_fault_point().
    "after-compaction-scheduled", "before-compaction-batch", "after-compaction-batch",
    "before-defrag", "during-defrag", "after-defrag",
    "after-vote",
};
static_assert(std::size(kNames) == static_cast<size_t>(FaultPoint::kCount));
}  // namespace

std::string_view fault_point_name(FaultPoint p) {
  DST_ASSERT_LT(static_cast<size_t>(p), std::size(kNames));
  return kNames[static_cast<size_t>(p)];
}

Result<FaultPoint> parse_fault_point(std::string_view name) {
  std::string valid;
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == name) return static_cast<FaultPoint>(i);
    valid += (i ? ", " : "") + std::string(kNames[i]);
  }
  return Status(StatusCode::kInvalidArgument,
                "unknown fault point '" + std::string(name) + "' (expected one of: " + valid + ")");
}

void FaultPoints::arm(FaultPoint p, FaultAction action) {
  DST_ASSERT_MSG(executor_ != nullptr, "fault point " + std::string(fault_point_name(p)) + " armed with no executor");
  Slot& s = slots_[index(p)];
  s.action = action;
  s.passes_armed = 0;
}

void FaultPoints::disarm(FaultPoint p) { slots_[index(p)].action.reset(); }

void FaultPoints::disarm_all() {
  for (Slot& s : slots_) s.action.reset();
}

void FaultPoints::pass(FaultPoint p) {
  std::optional<FaultAction> fired = hit(p);
  if (!fired) return;
  DST_ASSERT_MSG(executor_ != nullptr, "fault point " + std::string(fault_point_name(p)) + " fired with no executor");
  executor_(p, *fired);
}

std::optional<FaultAction> FaultPoints::hit(FaultPoint p) {
  Slot& s = slots_[index(p)];
  ++s.passes;
  if (!s.action) return std::nullopt;
  uint64_t n = s.passes_armed++;
  if (n < s.action->skip) return std::nullopt;
  FaultAction a = *s.action;
  ++s.fired;
  if (a.times != 0 && n + 1 >= a.skip + a.times) s.action.reset();
  return a;
}

}  // namespace dst::node
