// See check_suite.h.
#include "checker/suite/check_suite.h"

#include <array>

#include "base/assert.h"
#include "sim/wall_clock.h"

namespace dst::checker::suite {

namespace {

using history::CheckRow;
using history::CheckStatus;

// What a check of the table is given and where it writes.
struct CheckInput {
  const history::History& history;
  const WorldFindings& world;
  const SuiteOptions& options;
};
struct CheckOutput {
  SuiteResult& result;
  CheckRow& row;
  std::optional<Evidence>& evidence;
};

enum class Requirement : uint8_t { kLinearizable, kWatch, kLiveness, kDurability };

struct SuiteCheck {
  const char* name;
  Requirement requirement;
  void (*run)(const CheckInput&, CheckOutput&);
};

bool required(const Requirements& r, Requirement which) {
  switch (which) {
    case Requirement::kLinearizable: return r.linearizable;
    case Requirement::kWatch: return r.watch;
    case Requirement::kLiveness: return r.liveness;
    case Requirement::kDurability: return r.durability;
  }
  DST_UNREACHABLE("a requirement of the table");
}

void set_failed(CheckRow& row, bool ok) { row.status = ok ? CheckStatus::kPass : CheckStatus::kFail; }

// A history checker's counts: passed when it found no violation, its summary then `ok_summary`.
void set_counts(CheckRow& row, size_t violations, const char* ok_summary, uint64_t checked) {
  set_failed(row, violations == 0);
  row.summary = violations == 0 ? ok_summary : "VIOLATED";
  row.checked = checked;
  row.violations = violations;
}

// --- what the world found ---

void world_row(const std::optional<WorldFinding>& f, const WorldFindings& world, CheckOutput& out) {
  if (!f) {
    out.row.status = CheckStatus::kSkipped;
    out.row.summary = world.not_observed;
    return;
  }
  set_failed(out.row, f->ok);
  out.row.summary = f->summary;
  out.row.first_message = f->first_message;
  out.row.violations = f->violations;
}

void raft_invariants(const CheckInput& in, CheckOutput& out) { world_row(in.world.raft_invariants, in.world, out); }
void liveness(const CheckInput& in, CheckOutput& out) { world_row(in.world.liveness, in.world, out); }
void member_agreement(const CheckInput& in, CheckOutput& out) { world_row(in.world.member_agreement, in.world, out); }

// --- what the history shows ---

void watch_guarantees(const CheckInput& in, CheckOutput& out) {
  watch::Options options;
  options.partial_kvs = in.options.partial_kvs;
  // As etcd's own validation of its reports: a missing prev_kv is allowed whatever was compacted.
  options.compactions_recorded = !in.options.partial_kvs;
  const watch::Report& w = out.result.watch = watch::check(in.history, options);
  set_counts(out.row, w.violations_total, "ok: ordered, unique, atomic, resumable, reliable, ...", w.events);
  if (w.violations.empty()) return;
  const watch::Violation& v = w.violations.front();
  out.row.first_rule = watch::guarantee_name(v.guarantee);
  out.row.first_message = (v.watch_id != watch::Violation::kNoWatch ? "watch " + std::to_string(v.watch_id) + ": " : "") + v.what;
  out.row.first_at_ns = v.at_ns;
  Evidence e{"watch", out.row.first_rule, v.what, v.at_ns, {}, {}, {}, v.evidence};
  if (v.watch_id != watch::Violation::kNoWatch) e.watches.push_back(v.watch_id);
  out.evidence = std::move(e);
}

void kube_checks(const CheckInput& in, CheckOutput& out) {
  if (in.history.informers.empty()) {
    out.row.status = CheckStatus::kSkipped;
    out.row.summary = "no informers";
    return;
  }
  const kube::Report& k = *(out.result.kube = kube::check(in.history));
  set_counts(out.row, k.violations_total, "ok: LISTs, WATCH streams, informer stores and workqueues agree with etcd", k.events);
  if (k.violations.empty()) return;
  const kube::Violation& v = k.violations.front();
  out.row.first_rule = kube::check_name(v.check);
  out.row.first_message = v.what;
  out.row.first_at_ns = v.at_ns;
  std::vector<std::string> lines = {"informer " + std::to_string(v.informer) + " (client " + std::to_string(v.client) +
                                    ", apiserver " + std::to_string(v.apiserver) + ")"};
  lines.insert(lines.end(), v.evidence.begin(), v.evidence.end());
  out.evidence = Evidence{"kube", out.row.first_rule, v.what, v.at_ns, {}, {}, {}, std::move(lines)};
}

void linearizability(const CheckInput& in, CheckOutput& out) {
  etcd::EtcdCheckOptions options;
  options.step_budget = in.options.step_budget;
  options.partial_kvs = in.options.partial_kvs;
  const Result<etcd::EtcdVerdict>& lin = *(out.result.linearizability = etcd::check_etcd(in.history, options));
  if (!lin.is_ok()) {
    out.row.status = CheckStatus::kFail;
    out.row.first_message = "could not check: " + lin.status().to_string();
    out.row.summary = out.row.first_message.substr(0, out.row.first_message.find('\n'));
    return;
  }
  set_failed(out.row, lin->verdict == Verdict::kLinearizable);
  if (lin->verdict == Verdict::kUnknown) out.row.status = CheckStatus::kGaveUp;
  const std::string summary = lin->summary();
  out.row.summary = summary.substr(0, summary.find('\n'));
  out.row.checked = lin->stats.operations;
  out.row.violations = lin->violations.size();
  if (lin->violations.empty()) return;
  const etcd::EtcdViolation& v = lin->violations.front();
  out.row.first_rule = v.rule;
  out.row.first_message = v.message;
  std::vector<int64_t> revisions;
  if (v.revision != 0) revisions.push_back(v.revision);
  out.evidence = Evidence{"linearizability", v.rule, v.message, -1, v.ops, {}, std::move(revisions), v.lines};
}

void lease_keepalives(const CheckInput& in, CheckOutput& out) {
  const KeepAliveReport& k = out.result.keepalive = check_keepalives(in.history);
  set_failed(out.row, k.ok());
  out.row.checked = k.keepalives;
  out.row.violations = k.violations_total;
  out.row.summary = k.ok() ? "ok: " + std::to_string(k.keepalives) + " answered, " + std::to_string(k.gone_answers) +
                                 " of them \"gone\", none while the lease had to live"
                           : std::to_string(k.violations_total) + " keep-alive(s) answered \"gone\" too early";
  if (k.violations.empty()) return;
  const Evidence& v = k.violations.front();
  out.row.first_rule = v.rule;
  out.row.first_message = v.message;
  out.row.first_at_ns = v.at_ns;
  out.evidence = v;
}

// The suite, in the order of its rows (then determinism and the scenario): the verdict names the
// first failed required one, so a new check goes last, where it moves no earlier run's deciding check.
constexpr std::array<SuiteCheck, 7> kChecks = {{
    {"raft-invariants", Requirement::kDurability, raft_invariants},
    {"liveness", Requirement::kLiveness, liveness},
    {"member-agreement", Requirement::kDurability, member_agreement},
    {"watch", Requirement::kWatch, watch_guarantees},
    {"kube", Requirement::kWatch, kube_checks},
    {"linearizability", Requirement::kLinearizable, linearizability},
    {"lease-keepalive-answered", Requirement::kLinearizable, lease_keepalives},
}};

CheckRow scenario_row(const std::optional<std::string>& error) {
  CheckRow s;
  s.name = std::string(history::kScenarioCheck);
  s.status = error ? CheckStatus::kFail : CheckStatus::kPass;
  s.summary = error ? *error : "ran to its end without an error";
  if (error) s.first_message = *error, s.violations = 1;
  return s;
}

void run_one(const SuiteCheck& check, const CheckInput& in, SuiteResult& result) {
  CheckRow& row = result.rows.emplace_back();
  row.name = check.name;
  row.required = required(in.options.required, check.requirement);
  std::optional<Evidence>& evidence = result.evidence.emplace_back();
  CheckOutput out{result, row, evidence};
  const int64_t start_ns = sim::wall_clock_ns();
  check.run(in, out);
  row.wall_us = (sim::wall_clock_ns() - start_ns) / 1000;  // metadata: never part of a verdict
}

}  // namespace

const CheckRow* SuiteResult::row(std::string_view name) const {
  for (const CheckRow& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

const Evidence* SuiteResult::evidence_of(std::string_view check) const {
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].name == check) return evidence[i] ? &*evidence[i] : nullptr;
  return nullptr;
}

const Evidence* SuiteResult::first_violation() const {
  if (verdict.name != "violation" || !verdict.deciding) return nullptr;
  const std::optional<Evidence>& e = evidence[*verdict.deciding];
  return e ? &*e : nullptr;
}

SuiteResult run_check_suite(const history::History& history, const WorldFindings& world, const SuiteOptions& options) {
  SuiteResult result;
  const CheckInput in{history, world, options};
  for (const SuiteCheck& check : kChecks) run_one(check, in, result);
  result.rows.push_back(history::determinism_check(world.determinism_checked, world.deterministic, world.determinism_report));
  result.rows.push_back(scenario_row(world.scenario_error));
  result.evidence.resize(result.rows.size());
  DST_ASSERT_EQ(result.rows.size(), check_names().size());
  result.verdict = history::decide_verdict(result.rows);
  return result;
}

std::vector<std::string> check_names() {
  std::vector<std::string> names;
  for (const SuiteCheck& c : kChecks) names.emplace_back(c.name);
  names.emplace_back("determinism");
  names.emplace_back(history::kScenarioCheck);
  return names;
}

}  // namespace dst::checker::suite
