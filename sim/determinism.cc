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
  return "#" + std::to_string(index) + " t=" + format_time(r.time) + " " + event_kind_name(r.kind) + " " +
         process + " digest=" + format_trace_hash(r.digest);
}

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
  if (i < common) {
    report.divergence_index = i;
    report.first_event = describe_record(i, a[i], *first);
    report.second_event = describe_record(i, b[i], *second);
  } else if (a.size() != b.size()) {
    report.divergence_index = common;
    report.first_event = common < a.size() ? describe_record(common, a[common], *first) : "(run ended)";
    report.second_event = common < b.size() ? describe_record(common, b[common], *second) : "(run ended)";
  }
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
  if (divergence_index) {
    out += "first divergence at event " + std::to_string(*divergence_index) + ":\n";
    out += "  run 1: " + first_event + "\n";
    out += "  run 2: " + second_event + "\n";
  } else {
    out += "the runs agree on every kept trace record; they diverge after the record limit\n";
  }
  return out;
}

}  // namespace dst::sim
