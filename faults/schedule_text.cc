#include "faults/schedule_text.h"

#include <cinttypes>
#include <cstdio>

#include "base/assert.h"

namespace dst::faults {

namespace {

std::string real(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string integer(int64_t v) { return std::to_string(v); }

const char* dist_kind(sim::DurationDist::Kind k) {
  switch (k) {
    case sim::DurationDist::Kind::kConstant: return "constant";
    case sim::DurationDist::Kind::kUniform: return "uniform";
    case sim::DurationDist::Kind::kExponential: return "exponential";
    case sim::DurationDist::Kind::kNormal: return "normal";
    case sim::DurationDist::Kind::kLogNormal: return "lognormal";
    case sim::DurationDist::Kind::kPareto: return "pareto";
  }
  return "constant";
}

// A constant is a plain duration; anything else the table the scenario's uniform() etc. build,
// with its clamp, so that the replay samples exactly the same latencies.
std::string dist_to_lua(const sim::DurationDist& d, const std::string& text) {
  if (d.kind == sim::DurationDist::Kind::kConstant && d.min_ns <= static_cast<int64_t>(d.a) &&
      static_cast<int64_t>(d.a) <= d.max_ns)
    return integer(static_cast<int64_t>(d.a));
  return std::string("{dist=\"") + dist_kind(d.kind) + "\", a=" + real(d.a) + ", b=" + real(d.b) +
         ", min=" + integer(d.min_ns) + ", max=" + integer(d.max_ns) + ", text=" + lua_quote(text) + "}";
}

std::string groups_to_lua(const Groups& groups) {
  std::string out = "{";
  for (size_t g = 0; g < groups.size(); ++g) {
    out += g ? ", {" : "{";
    for (size_t k = 0; k < groups[g].size(); ++k) out += (k ? ", " : "") + std::to_string(groups[g][k]);
    out += "}";
  }
  return out + "}";
}

std::string kind_fields(const FaultStep& s) {
  const std::string node = ", node=" + std::to_string(s.node);
  switch (s.kind) {
    case FaultKind::kPartition: return ", groups=" + groups_to_lua(s.groups);
    case FaultKind::kOneWay: return node + ", to=" + std::to_string(s.to);
    case FaultKind::kDrop:
      return ", loss=" + real(s.loss) + ", duplicate=" + real(s.duplicate) + ", reorder=" + real(s.reorder);
    case FaultKind::kDelay: return ", latency=" + dist_to_lua(s.dist, s.dist_text);
    case FaultKind::kKill:
      return node + ", lose_unsynced=" + (s.lose_unsynced ? "true" : "false") + ", torn=" + (s.torn ? "true" : "false");
    case FaultKind::kSlowFsync: return node + ", latency=" + dist_to_lua(s.dist, s.dist_text);
    case FaultKind::kFsyncError: return node + ", count=" + integer(s.count);
    case FaultKind::kDiskFull: return node + ", full=" + (s.full ? "true" : "false");
    case FaultKind::kBitflip:
      return node + ", file=" + lua_quote(s.file) + ", offset=" + std::to_string(s.offset) +
             ", length=" + std::to_string(s.length) + ", bits=" + std::to_string(s.bits);
    case FaultKind::kClockSkew: case FaultKind::kClockJump: case FaultKind::kWatchStall: case FaultKind::kClientStall: return node + ", ns=" + integer(s.ns);
    case FaultKind::kWatchRewind: return node + ", count=" + integer(s.count);
    case FaultKind::kClockDrift: return node + ", ppm=" + integer(s.ppm);
    case FaultKind::kFailpoint:
      return node + ", point=" + lua_quote(s.point) + ", action=" + lua_quote(s.action) + ", delay=" + integer(s.delay) +
             ", skip=" + std::to_string(s.skip) + ", times=" + std::to_string(s.times);
    default:
      return acts_on_member(s.kind) || acts_on_kube(s.kind) || acts_on_workload(s.kind) ? node : "";
  }
}

}  // namespace

std::string lua_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03u", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string step_to_lua(const FaultStep& s) {
  std::string out = "{at=" + integer(s.at) + ", kind=\"" + std::string(fault_kind_name(s.kind)) + "\"";
  if (s.origin != Origin::kTimed) out += ", origin=\"" + std::string(origin_name(s.origin)) + "\"";
  if (s.origin == Origin::kScript) out += ", call=" + std::to_string(s.call);
  out += kind_fields(s);
  if (!s.refused.empty()) out += ", refused=" + lua_quote(s.refused);
  return out + "}";
}

std::string schedule_line(const std::string& step_lua, int64_t at, const std::string& note) {
  std::string comment = "t=" + sim::format_seconds(at) + " " + note;
  for (char& c : comment)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';  // a note never ends the comment's line
  return "step" + step_lua + "  -- " + comment + "\n";
}

std::string schedule_to_lua(const Schedule& schedule, const std::string& source) {
  std::string out = schedule_header(schedule, source, schedule.steps.size());
  for (const FaultStep& s : schedule.steps) out += schedule_line(step_to_lua(s), s.at, describe(s));
  if (!schedule.source.empty()) {
    out += "\n-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the\n";
    out += "-- file replay{} names (which may have changed or be elsewhere).\n";
    out += source_to_lua(schedule.source);
  }
  return out;
}

std::string source_to_lua(const std::string& text) {
  std::string level;
  // The closing bracket must first occur where it is written: not inside the text, and not made of
  // the text's last characters and the closing "]" (a text ending in "]" + level). Some level is
  // always free: the text is finite.
  auto taken = [&text](const std::string& l) {
    const std::string open_end = "]" + l;
    return text.find(open_end + "]") != std::string::npos ||
           (text.size() >= open_end.size() && text.compare(text.size() - open_end.size(), open_end.size(), open_end) == 0);
  };
  DST_ASSERT_MSG(text.find('\r') == std::string::npos, "a long string turns carriage returns into line feeds");
  while (taken(level)) {
    level += "=";
    DST_ASSERT_LE(level.size(), text.size() + 1);
  }
  // Lua drops a line break right after the opening bracket: the text comes back exactly.
  return "scenario_source [" + level + "[\n" + text + "]" + level + "]\n";
}

std::string reduction_to_lua(const Reduction& r) {
  if (r.empty()) return "";
  std::string fields;
  auto add = [&fields](const std::string& field) { fields += (fields.empty() ? "" : ", ") + field; };
  if (r.nodes) add("nodes=" + std::to_string(*r.nodes));
  if (r.clients) add("clients=" + std::to_string(*r.clients));
  if (r.watchers) add("watchers=" + std::to_string(*r.watchers));
  if (r.keys) add("keys=" + std::to_string(*r.keys));
  if (r.rate) add("rate=" + real(*r.rate));
  if (r.run_for_ns) add("run_for=" + integer(*r.run_for_ns));
  if (!r.without.empty()) {
    std::string kinds;
    for (const std::string& k : r.without) kinds += (kinds.empty() ? "" : ", ") + lua_quote(k);
    add("without={" + kinds + "}");
  }
  return "reduce{" + fields + "}";
}

std::string schedule_header(const Schedule& schedule, const std::string& source, size_t steps) {
  std::string out;
  std::string from = source;
  for (char& c : from)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  out += "-- The fault schedule of " + from + " (" + std::to_string(steps) + " steps).\n";
  out += "-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)\n";
  out += "--         or  dst run SCENARIO --seed N --schedule THIS_FILE\n";
  out += "-- A replay applies exactly these steps and draws no random fault: steps without a call run at\n";
  out += "-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a\n";
  out += "-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin=\"config\"\n";
  out += "-- steps are the scenario's own configuration and are set by it again (listed, not replayed).\n";
  out += "replay{scenario=" + lua_quote(schedule.scenario) + ", seed=\"" + std::to_string(schedule.seed) + "\"";
  if (!schedule.bugs.empty()) out += ", bug=" + lua_quote(schedule.bugs);
  out += "}\n";
  if (!schedule.reduce.empty()) {
    out += "-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):\n";
    out += reduction_to_lua(schedule.reduce) + "\n";
  }
  return out;
}

}  // namespace dst::faults
