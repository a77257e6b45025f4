#include "tools/shrink_phases.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "base/assert.h"
#include "base/parse_number.h"
#include "base/limits.h"

namespace dst::shrink {
namespace {

using faults::FaultKind;
using faults::FaultStep;
using faults::Origin;
using faults::Schedule;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kRunForStepNs = 100 * kMs;  // run_for() alternatives are whole tenths of a second

Status bad(const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "the run's result file has no usable shape entry '" + what +
                                                  "' (is the dst the runs use older than this one?)");
}

bool parse_u64(const std::map<std::string, std::string>& shape, const char* name, uint64_t& out) {
  auto it = shape.find(name);
  if (it == shape.end()) return false;
  const std::optional<uint64_t> v = dst::parse_u64(it->second);
  if (v) out = *v;
  return v.has_value();
}

bool parse_i64(const std::map<std::string, std::string>& shape, const char* name, int64_t& out) {
  uint64_t v = 0;
  if (!parse_u64(shape, name, v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
  out = static_cast<int64_t>(v);
  return true;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// One alternative per value, made by `set` on a copy of s.
template <typename T, typename Set>
std::vector<Schedule> each(const Schedule& s, const std::vector<T>& values, Set set) {
  std::vector<Schedule> out;
  for (const T& v : values) {
    out.push_back(s);
    set(out.back().reduce, v);
  }
  return out;
}

int64_t round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }

}  // namespace

Result<RunShape> parse_shape(const std::map<std::string, std::string>& shape) {
  RunShape r;
  for (auto [name, field] : {std::pair{"nodes", &r.nodes}, {"clients", &r.clients}, {"watchers", &r.watchers},
                             {"keys", &r.keys}, {"operations", &r.operations}})
    if (!parse_u64(shape, name, *field)) return bad(name);
  if (!parse_i64(shape, "run_for_ns", r.run_for_ns) || r.run_for_ns < limits::kScenarioRunForNsMin) return bad("run_for_ns");
  if (!parse_i64(shape, "phase_start_ns", r.phase_start_ns)) return bad("phase_start_ns");
  auto rate = shape.find("rate");
  const std::optional<double> rate_value = rate == shape.end() ? std::nullopt : parse_double(rate->second);
  if (!rate_value || !(*rate_value > 0)) return bad("rate");
  r.rate = *rate_value;
  auto profile = shape.find("profile");
  if (profile == shape.end() || profile->second.empty()) return bad("profile");
  r.profile = profile->second;
  if (auto kinds = shape.find("kinds"); kinds != shape.end()) r.kinds = split_commas(kinds->second);
  return r;
}

std::vector<uint64_t> smaller_counts(uint64_t current, uint64_t floor) {
  std::vector<uint64_t> out;
  for (uint64_t v : {floor, current / 8, current / 4, current / 2})
    if (v >= floor && v < current && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Schedule> fewer_nodes(const Schedule& s, const RunShape& shape) {
  std::vector<uint64_t> sizes;
  for (uint64_t n : {1, 3})
    if (n < shape.nodes) sizes.push_back(n);
  return each(s, sizes, [](faults::Reduction& r, uint64_t n) { r.nodes = n; });
}

std::vector<Schedule> shorter_run(const Schedule& s, const RunShape& shape) {
  int64_t last = 0;  // from the start of the fault phase
  for (size_t i : movable_steps(s)) last = std::max(last, s.steps[i].at - shape.phase_start_ns);
  const int64_t lo = std::max(limits::kScenarioRunForNsMin, round_up(last + kRunForStepNs, kRunForStepNs));
  const int64_t span = shape.run_for_ns - lo;
  std::vector<int64_t> lengths;
  for (int64_t cut : {int64_t{0}, span / 8, span / 4, span / 2}) {
    const int64_t t = round_up(lo + cut, kRunForStepNs);
    if (t < shape.run_for_ns && std::find(lengths.begin(), lengths.end(), t) == lengths.end()) lengths.push_back(t);
  }
  std::vector<Schedule> out = each(s, lengths, [](faults::Reduction& r, int64_t t) { r.run_for_ns = t; });
  // The generator's last wake (kStop) at the old end would come after the new one: dropped.
  for (Schedule& alt : out) {
    const int64_t end = shape.phase_start_ns + *alt.reduce.run_for_ns;
    std::erase_if(alt.steps, [end](const FaultStep& st) { return st.kind == FaultKind::kStop && st.at >= end; });
  }
  return out;
}

std::vector<Schedule> fewer_clients(const Schedule& s, const RunShape& shape) {
  return each(s, smaller_counts(shape.clients, 0), [](faults::Reduction& r, uint64_t n) { r.clients = n; });
}

std::vector<Schedule> fewer_watchers(const Schedule& s, const RunShape& shape) {
  return each(s, smaller_counts(shape.watchers, 0), [](faults::Reduction& r, uint64_t n) { r.watchers = n; });
}

std::vector<Schedule> fewer_keys(const Schedule& s, const RunShape& shape) {
  return each(s, smaller_counts(shape.keys, 1), [](faults::Reduction& r, uint64_t n) { r.keys = n; });
}

std::vector<Schedule> lower_rate(const Schedule& s, const RunShape& shape) {
  std::vector<double> rates;
  for (double d : {8.0, 4.0, 2.0})
    if (shape.rate / d >= 0.1) rates.push_back(shape.rate / d);  // workload{rate=}'s lower bound
  return each(s, rates, [](faults::Reduction& r, double v) { r.rate = v; });
}

Schedule only_kinds(const Schedule& s, const std::vector<std::string>& kinds, const std::vector<size_t>& kept) {
  Schedule out = s;
  for (size_t i = 0; i < kinds.size(); ++i)
    if (!std::binary_search(kept.begin(), kept.end(), i)) out.reduce.without.push_back(kinds[i]);
  return out;
}

std::vector<size_t> movable_steps(const Schedule& s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].origin != Origin::kConfig && s.steps[i].kind != FaultKind::kStop) out.push_back(i);
  return out;
}

std::vector<Schedule> detached(const Schedule& s, size_t step) {
  DST_ASSERT_LT(step, s.steps.size());
  const FaultStep& st = s.steps[step];
  if (st.origin != Origin::kScript || !st.refused.empty()) return {};
  Schedule out = s;
  out.steps[step].origin = Origin::kTimed;
  out.steps[step].call = 0;
  return {out};
}

std::vector<Schedule> shifted_earlier(const Schedule& s, const RunShape& shape) {
  const std::vector<size_t> movable = movable_steps(s);
  if (movable.empty()) return {};
  int64_t first = INT64_MAX;
  for (size_t i : movable) {
    if (s.steps[i].origin == Origin::kScript) return {};
    first = std::min(first, s.steps[i].at);
  }
  const int64_t room = first - (shape.phase_start_ns + kRunForStepNs);
  std::vector<int64_t> shifts;
  for (int64_t quarters : {4, 3, 2, 1}) {
    const int64_t d = room * quarters / 4 / kMs * kMs;  // whole ms
    if (d > 0 && std::find(shifts.begin(), shifts.end(), d) == shifts.end()) shifts.push_back(d);
  }
  std::vector<Schedule> out;
  for (int64_t d : shifts) {
    out.push_back(s);
    for (size_t i : movable) out.back().steps[i].at -= d;
  }
  return out;
}

bool ends_window(const FaultStep& st) {
  switch (st.kind) {
    case FaultKind::kHeal: case FaultKind::kResetDelay: case FaultKind::kRestart: case FaultKind::kResume:
    case FaultKind::kNormalFsync: case FaultKind::kApiserverRestart: case FaultKind::kApiserverReconnect:
    case FaultKind::kControllerResume:
      return true;
    case FaultKind::kDrop: return st.loss == 0 && st.duplicate == 0 && st.reorder == 0;
    case FaultKind::kClockSkew: return st.ns == 0;
    case FaultKind::kClockDrift: return st.ppm == 0;
    case FaultKind::kDiskFull: return !st.full;
    default: return false;
  }
}

std::vector<Schedule> moved_step(const Schedule& s, size_t step, const RunShape& shape) {
  DST_ASSERT_LT(step, s.steps.size());
  const FaultStep& st = s.steps[step];
  if (st.origin == Origin::kScript || st.origin == Origin::kConfig || st.kind == FaultKind::kStop) return {};
  // Its neighbours in time (the start and the end of the fault phase when it has none).
  int64_t prev = shape.phase_start_ns, next = shape.phase_start_ns + shape.run_for_ns - kMs;
  for (size_t i : movable_steps(s)) {
    if (i == step) continue;
    if (s.steps[i].at == st.at) return {};  // a replay orders steps by time: moving it could swap them
    if (s.steps[i].at < st.at) prev = std::max(prev, s.steps[i].at);
    if (s.steps[i].at > st.at) next = std::min(next, s.steps[i].at);
  }
  std::vector<int64_t> times;
  const bool end = ends_window(st);
  for (int64_t eighths : end ? std::vector<int64_t>{1, 2, 4, 6} : std::vector<int64_t>{7, 6, 4, 2}) {
    const int64_t t = end ? (prev + (st.at - prev) * eighths / 8 + kMs - 1) / kMs * kMs  // whole ms, after prev
                          : (st.at + (next - st.at) * eighths / 8) / kMs * kMs;        // whole ms, before next
    const bool inside = end ? (t > prev && t < st.at) : (t > st.at && t < next);
    if (inside && std::find(times.begin(), times.end(), t) == times.end()) times.push_back(t);
  }
  std::vector<Schedule> out;
  for (int64_t t : times) {
    out.push_back(s);
    out.back().steps[step].at = t;
  }
  return out;
}

}  // namespace dst::shrink
