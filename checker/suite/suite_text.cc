// See suite_text.h. The lines of the checks dst has always printed keep their words; a check
// added to the suite later is printed from its row alone (its label: its name, dashes as spaces).
#include "checker/suite/suite_text.h"

#include <cstdio>

namespace dst::checker::suite {

namespace {

using history::CheckRow;
using history::CheckStatus;

std::string line(std::string label, const std::string& text) {
  if (label.size() < 17) label.resize(17, ' ');
  return label + " " + text + "\n";
}

std::string world_line(const CheckRow& r) {
  if (r.status == CheckStatus::kSkipped) return line(r.name == "raft-invariants" ? "raft invariants" : r.name, r.summary);
  if (r.name == "raft-invariants") return line("raft invariants", r.status == CheckStatus::kPass ? "ok" : r.first_message);
  if (r.name == "liveness")
    return line("liveness", r.status == CheckStatus::kPass
                                ? r.summary + " (a write acknowledged, every member answered a linearizable read)"
                                : r.summary);
  return line("member agreement", r.status == CheckStatus::kPass ? r.summary : "FAILED: " + r.summary);
}

std::string kube_lines(const SuiteResult& s) {
  if (!s.kube) return "";
  if (!s.kube->ok()) return line("kube checks", "VIOLATED") + s.kube->to_string();
  char counts[120];
  std::snprintf(counts, sizeof counts, "ok (%zu lists, %zu events, %zu informers)", s.kube->lists, s.kube->events,
                s.kube->informers);
  return line("kube checks", counts);
}

std::string linearizability_line(const SuiteResult& s) {
  const Result<etcd::EtcdVerdict>& lin = *s.linearizability;
  return line("linearizability", lin.is_ok() ? lin->summary() : "could not check: " + lin.status().to_string());
}

// A check known only by its row: "lease keepalive answered ok: ..." / "... VIOLATED: first".
std::string generic_line(const CheckRow& r) {
  std::string label = r.name;
  for (char& c : label)
    if (c == '-') c = ' ';
  if (r.status != CheckStatus::kFail) return line(label, r.summary);
  std::string text = "VIOLATED: " + r.summary;
  if (!r.first_message.empty()) text += "\n  first: " + (r.first_rule.empty() ? "" : r.first_rule + ": ") + r.first_message;
  return line(label, text);
}

}  // namespace

std::string render_check_lines(const SuiteResult& s) {
  std::string out;
  for (const CheckRow& r : s.rows) {
    if (r.name == "raft-invariants" || r.name == "liveness" || r.name == "member-agreement") {
      out += world_line(r);
    } else if (r.name == "watch") {
      out += line("watch guarantees", s.watch.ok() ? "ok" : "VIOLATED");
      if (!s.watch.ok()) out += s.watch.to_string();
    } else if (r.name == "kube") {
      out += kube_lines(s);
    } else if (r.name == "linearizability") {
      out += linearizability_line(s);
    } else if (r.name != "determinism" && r.name != history::kScenarioCheck) {
      out += generic_line(r);
    }
  }
  return out;
}

}  // namespace dst::checker::suite
