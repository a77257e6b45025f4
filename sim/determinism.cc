// Runs a world twice and finds where the traces part; see determinism.h.
#include "sim/determinism.h"

#include <algorithm>
#include <memory>

namespace dst::sim {

std::string describe_record(uint64_t index, const TraceRecord& r, const Simulator& sim) {
  std::string process = "world";
  if (r.process != kNoProcess) {
    process = "process=" + std::to_string(r.process);
    if (sim.alive(r.process) || r.process < 1'000'000) {
      process += " (" + sim.process_name(r.process) + ")";
    }
  }
  std::string label;
  if (const std::string* l = sim.trace().label_of(r.kind, r.digest)) label = " " + *l;
  return "#" + std::to_string(index) + " t=" + format_time(r.time) + " " + event_kind_name(r.kind) + " " + process +
         label + " digest=" + format_trace_hash(r.digest);
}

namespace {

// Harness actions (kills, network changes, faults, notes) are taken while some queued event runs.
bool is_action(EventKind kind) { return static_cast<uint8_t>(kind) >= static_cast<uint8_t>(EventKind::kProcessStart); }

// The queued event that was running when records[i] (an action) was taken, described; "" if
// records[i] is itself an event.
std::string running_event(const std::vector<TraceRecord>& records, size_t i, const Simulator& sim) {
  if (i >= records.size() || !is_action(records[i].kind)) return "";
  for (size_t j = i; j-- > 0;)
    if (!is_action(records[j].kind)) return describe_record(j, records[j], sim);
  return "(the world's setup, before the first event)";
}

void describe_divergence(DeterminismReport& report, size_t i, const Simulator& first, const Simulator& second) {
  const auto& a = first.trace().records();
  const auto& b = second.trace().records();
  report.divergence_index = i;
  report.divergence_time = i < a.size() ? a[i].time : b[i].time;
  report.first_event = i < a.size() ? describe_record(i, a[i], first) : "(run ended)";
  report.second_event = i < b.size() ? describe_record(i, b[i], second) : "(run ended)";
  report.first_running = running_event(a, i, first);
  report.second_running = running_event(b, i, second);
  for (size_t j = i >= 3 ? i - 3 : 0; j < i; ++j) report.agreed_before.push_back(describe_record(j, a[j], first));
}

}  // namespace

DeterminismReport check_determinism(uint64_t seed, const World& world, SimConfig config) {
  config.record_trace = true;
  auto first = std::make_unique<Simulator>(seed, config);
  world(*first);
  auto second = std::make_unique<Simulator>(seed, config);
  world(*second);

  DeterminismReport report;
  report.hash_first = first->trace().hash();
  report.hash_second = second->trace().hash();
  report.events_first = first->trace().event_count();
  report.events_second = second->trace().event_count();
  report.deterministic =
      report.hash_first == report.hash_second && report.events_first == report.events_second;
  if (report.deterministic) return report;

  const auto& a = first->trace().records();
  const auto& b = second->trace().records();
  const size_t common = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < common && a[i] == b[i]) ++i;
  if (i < common || a.size() != b.size()) describe_divergence(report, i, *first, *second);
  return report;
}

std::string DeterminismReport::describe() const {
  if (deterministic) {
    return "deterministic: both runs executed " + std::to_string(events_first) +
           " events, trace hash " + format_trace_hash(hash_first);
  }
  std::string out = "NOT deterministic: run 1 hash " + format_trace_hash(hash_first) + " after " +
                    std::to_string(events_first) + " events; run 2 hash " +
                    format_trace_hash(hash_second) + " after " + std::to_string(events_second) +
                    " events\n";
  if (!divergence_index) return out + "the runs agree on every kept trace record; they diverge after the record limit\n";
  out += "first divergence at event " + std::to_string(*divergence_index) + " (t=" + format_time(divergence_time) + "):\n";
  out += "  run 1: " + first_event + "\n";
  if (!first_running.empty()) out += "         while running " + first_running + "\n";
  out += "  run 2: " + second_event + "\n";
  if (!second_running.empty()) out += "         while running " + second_running + "\n";
  if (!agreed_before.empty()) {
    out += "  the events before it agree:\n";
    for (const std::string& e : agreed_before) out += "    " + e + "\n";
  }
  return out;
}

}  // namespace dst::sim
