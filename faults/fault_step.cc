#include "faults/fault_step.h"

#include <array>
#include <cstdio>

#include "base/assert.h"

namespace dst::faults {

namespace {

constexpr std::array<std::string_view, static_cast<size_t>(FaultKind::kCount)> kKindNames = {
    "partition",       "isolate",         "majorities_ring",   "minority_third",  "bridge",
    "one_way",         "heal",            "drop",              "delay",           "reset_delay",
    "crash",           "kill",            "restart",           "pause",           "resume",
    "slow_fsync",      "normal_fsync",    "fsync_error",       "disk_full",       "bitflip",
    "clock_skew",      "clock_drift",     "clock_jump",        "failpoint",       "apiserver_crash",
    "apiserver_restart", "apiserver_cut", "apiserver_reconnect", "controller_pause", "controller_resume",
    "watch_stall",     "watch_rewind",    "client_stall",      "stop",
};

constexpr std::array<std::string_view, 4> kOriginNames = {"random", "script", "config", "timed"};

template <size_t N>
std::optional<size_t> index_of(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return i;
  return std::nullopt;
}

std::string node_name(size_t n) { return "n" + std::to_string(n); }

std::string percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", p * 100);
  return buf;
}

std::string groups_text(const Groups& groups) {
  std::string out;
  for (const auto& g : groups) {
    if (!out.empty()) out += "|";
    for (size_t k = 0; k < g.size(); ++k) out += (k ? "," : "") + node_name(g[k]);
  }
  return out;
}

}  // namespace

std::string_view fault_kind_name(FaultKind kind) {
  DST_ASSERT_LT(static_cast<size_t>(kind), kKindNames.size());
  return kKindNames[static_cast<size_t>(kind)];
}

std::optional<FaultKind> parse_fault_kind(std::string_view name) {
  const std::optional<size_t> i = index_of(kKindNames, name);
  return i ? std::optional<FaultKind>(static_cast<FaultKind>(*i)) : std::nullopt;
}

std::string_view origin_name(Origin origin) {
  DST_ASSERT_LT(static_cast<size_t>(origin), kOriginNames.size());
  return kOriginNames[static_cast<size_t>(origin)];
}

std::optional<Origin> parse_origin(std::string_view name) {
  const std::optional<size_t> i = index_of(kOriginNames, name);
  return i ? std::optional<Origin>(static_cast<Origin>(*i)) : std::nullopt;
}

bool acts_on_kube(FaultKind kind) { return kind >= FaultKind::kApiserverCrash && kind <= FaultKind::kControllerResume; }

bool acts_on_workload(FaultKind kind) {
  return kind == FaultKind::kWatchStall || kind == FaultKind::kWatchRewind || kind == FaultKind::kClientStall;
}

bool acts_on_member(FaultKind kind) {
  switch (kind) {
    case FaultKind::kIsolate: case FaultKind::kOneWay: case FaultKind::kCrash: case FaultKind::kKill:
    case FaultKind::kRestart: case FaultKind::kPause: case FaultKind::kResume: case FaultKind::kSlowFsync:
    case FaultKind::kNormalFsync: case FaultKind::kFsyncError: case FaultKind::kDiskFull: case FaultKind::kBitflip:
    case FaultKind::kClockSkew: case FaultKind::kClockDrift: case FaultKind::kClockJump: case FaultKind::kFailpoint:
      return true;
    default:
      return false;
  }
}

std::string describe(const FaultStep& s) {
  if (!s.refused.empty()) {
    FaultStep acted = s;
    acted.refused.clear();
    return describe(acted) + " (refused)";
  }
  std::string out(fault_kind_name(s.kind));
  const std::string n = node_name(s.node);
  switch (s.kind) {
    case FaultKind::kPartition: return out + " " + groups_text(s.groups);
    case FaultKind::kOneWay: return out + " " + n + "->" + node_name(s.to);
    case FaultKind::kDrop:
      return out + " " + percent(s.loss) + (s.duplicate > 0 ? " duplicate " + percent(s.duplicate) : "") +
             (s.reorder > 0 ? " reorder " + percent(s.reorder) : "");
    case FaultKind::kDelay: return out + " " + s.dist_text;
    case FaultKind::kKill:
      return out + " " + n + (s.lose_unsynced ? " lose_unsynced" : "") + (s.torn ? " torn" : "");
    case FaultKind::kSlowFsync: return out + " " + n + " " + s.dist_text;
    case FaultKind::kFsyncError: return out + " " + n + " x" + std::to_string(s.count);
    case FaultKind::kDiskFull: return out + " " + n + (s.full ? "" : " off");
    case FaultKind::kBitflip: return out + " " + n + " " + s.file + " @" + std::to_string(s.offset);
    case FaultKind::kClockSkew: case FaultKind::kClockJump: return out + " " + n + " " + sim::format_duration(s.ns);
    case FaultKind::kClockDrift: return out + " " + n + " " + std::to_string(s.ppm) + "ppm";
    case FaultKind::kFailpoint:
      return out + " " + n + " " + s.point + " " + s.action + " skip " + std::to_string(s.skip);
    case FaultKind::kApiserverCrash: case FaultKind::kApiserverRestart: case FaultKind::kApiserverCut:
    case FaultKind::kApiserverReconnect:
      return out + " apiserver" + std::to_string(s.node);
    case FaultKind::kControllerPause: case FaultKind::kControllerResume:
      return out + " controller" + std::to_string(s.node);
    case FaultKind::kWatchStall: return out + " watcher" + std::to_string(s.node) + " " + sim::format_duration(s.ns);
    case FaultKind::kClientStall: return out + " client" + std::to_string(s.node) + " " + sim::format_duration(s.ns);
    case FaultKind::kWatchRewind:
      return out + " watcher" + std::to_string(s.node) + " by " + std::to_string(s.count) + " revisions";
    default:
      return acts_on_member(s.kind) ? out + " " + n : out;
  }
}

}  // namespace dst::faults
