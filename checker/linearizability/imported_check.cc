// See imported_check.h.
#include "checker/linearizability/imported_check.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "checker/linearizability/kv_model.h"
#include "checker/linearizability/minimize.h"
#include "checker/linearizability/mutex_model.h"
#include "checker/linearizability/register_model.h"

namespace dst::checker {

using history::ImportedFn;
using history::ImportedHistory;
using history::ImportedOp;
using history::ImportedOutcome;
using history::ImportedValue;

const char* imported_model_name(ImportedModel m) {
  switch (m) {
    case ImportedModel::kRegister: return "register";
    case ImportedModel::kKv: return "kv";
    case ImportedModel::kMutex: return "mutex";
  }
  return "?";
}

ImportedModel jepsen_model_of(const ImportedHistory& h) {
  for (const ImportedOp& op : h.ops) {
    if (op.fn == ImportedFn::kAcquire || op.fn == ImportedFn::kRelease) return ImportedModel::kMutex;
  }
  return ImportedModel::kRegister;
}

namespace {

Status wrong_model(const ImportedHistory& h, const ImportedOp& op, const char* model, const char* expected) {
  return Status(StatusCode::kInvalidArgument, h.source + ":" + std::to_string(op.invoke_line) + ": the " + model +
                                                  " model expects " + expected + ", found :" +
                                                  history::imported_fn_name(op.fn));
}

bool keep(const ImportedOp& op) {
  if (op.outcome == ImportedOutcome::kFailed) return false;
  const bool read = op.fn == ImportedFn::kRead || op.fn == ImportedFn::kGet;
  return !(read && op.outcome == ImportedOutcome::kUnknown);
}

template <typename Op>
Operation<Op> timed(const ImportedOp& src, Op op) {
  Operation<Op> o;
  o.op = op;
  o.call = src.invoke_at;
  o.ret = src.outcome == ImportedOutcome::kOk ? src.return_at : kNeverReturns;
  o.id = src.id;
  return o;
}

// After a violation: the smallest set of operations that cannot be ordered (minimize.h), with a
// fresh model from make_model() for each re-check. The search options are the user's (greedy,
// memo size; an unpartitioned check is minimised per partition, see Minimizer::locate_partition).
template <typename MakeModel, typename Op>
void minimize_into(CheckResult& r, MakeModel&& make_model, std::span<const Operation<Op>> ops,
                   const SearchOptions& options, uint64_t budget) {
  if (r.verdict != Verdict::kViolation) return;
  MinimizeOptions mo;
  mo.search = options;
  mo.steps_budget = budget;
  r.minimal = minimize_counterexample(make_model, ops, r, mo);
}

// A register history as the search takes it, with the model that reads it: one register, or one
// per key in the order the keys first appear (the file's order, so reports are reproducible).
struct RegisterHistory {
  std::vector<Operation<RegisterOp>> ops;
  std::vector<std::string> keys;  // empty: one register
  bool versioned = false;
  RegisterModel model() const { return keys.empty() ? RegisterModel() : RegisterModel(keys, versioned); }
};

RegisterOp register_op(const ImportedOp& op) {
  RegisterOp r;
  if (op.fn == ImportedFn::kRead) {
    if (op.result.kind == ImportedValue::Kind::kNil) r = RegisterOp::read(std::nullopt);
    else r = RegisterOp::read(op.result.a);
  } else if (op.fn == ImportedFn::kWrite) {
    r = RegisterOp::write(op.argument.a);
  } else {
    r = RegisterOp::cas(op.argument.a, op.argument.b);
  }
  // Only an operation seen to complete names a version (an :info write's is not known).
  if (op.outcome == ImportedOutcome::kOk && op.version != history::kImportedNoVersion) r = r.at_version(op.version);
  return r;
}

Result<RegisterHistory> register_operations(const ImportedHistory& h) {
  RegisterHistory out;
  out.versioned = h.form == history::RegisterForm::kVersioned;
  const bool keyed = h.form != history::RegisterForm::kSingle;
  std::map<std::string, uint32_t> key_index;
  out.ops.reserve(h.ops.size());
  for (const ImportedOp& op : h.ops) {
    if (op.fn != ImportedFn::kRead && op.fn != ImportedFn::kWrite && op.fn != ImportedFn::kCas) {
      return wrong_model(h, op, "register", ":read, :write or :cas");
    }
    if (!keep(op)) continue;
    RegisterOp r = register_op(op);
    if (keyed) {
      auto [it, added] = key_index.emplace(op.key, static_cast<uint32_t>(out.keys.size()));
      if (added) out.keys.push_back(op.key);
      r = r.on_key(it->second);
    }
    out.ops.push_back(timed(op, r));
  }
  if (keyed && out.keys.empty()) out.keys.push_back("(none)");  // every operation failed: nothing to check
  for (const Operation<RegisterOp>& o : out.ops) DST_ASSERT_LT(o.op.key, std::max<size_t>(out.keys.size(), 1));
  return out;
}

// A register's state is one register's: several keys are only ever searched one partition each,
// whatever --no-partition asked (one search over all keys would make them share one value).
SearchOptions register_options(const RegisterHistory& r, SearchOptions options) {
  if (r.keys.size() > 1) options.partition = true;
  return options;
}

Result<CheckResult> check_register(const ImportedHistory& h, const SearchOptions& options) {
  Result<RegisterHistory> r = register_operations(h);
  if (!r.is_ok()) return r.status();
  RegisterModel model = r->model();
  return check_linearizable(model, std::span<const Operation<RegisterOp>>(r->ops), register_options(*r, options));
}

Status explain_register(const ImportedHistory& h, const SearchOptions& options, uint64_t budget, CheckResult& result) {
  Result<RegisterHistory> r = register_operations(h);
  if (!r.is_ok()) return r.status();
  const RegisterHistory& rh = *r;
  minimize_into(result, [&rh] { return rh.model(); }, std::span<const Operation<RegisterOp>>(rh.ops),
                register_options(rh, options), budget);
  return Status();
}

Result<std::vector<Operation<MutexOp>>> mutex_operations(const ImportedHistory& h) {
  std::vector<Operation<MutexOp>> ops;
  ops.reserve(h.ops.size());
  for (const ImportedOp& op : h.ops) {
    if (op.fn != ImportedFn::kAcquire && op.fn != ImportedFn::kRelease) {
      return wrong_model(h, op, "mutex", ":acquire or :release");
    }
    if (keep(op)) ops.push_back(timed(op, MutexOp{op.fn == ImportedFn::kAcquire}));
  }
  return ops;
}

Result<CheckResult> check_mutex(const ImportedHistory& h, const SearchOptions& options) {
  Result<std::vector<Operation<MutexOp>>> ops = mutex_operations(h);
  if (!ops.is_ok()) return ops.status();
  MutexModel model;
  return check_linearizable(model, std::span<const Operation<MutexOp>>(*ops), options);
}

Status explain_mutex(const ImportedHistory& h, const SearchOptions& options, uint64_t budget, CheckResult& r) {
  Result<std::vector<Operation<MutexOp>>> ops = mutex_operations(h);
  if (!ops.is_ok()) return ops.status();
  minimize_into(r, [] { return MutexModel{}; }, std::span<const Operation<MutexOp>>(*ops), options, budget);
  return Status();
}

size_t text_bytes_of(const ImportedHistory& h) {
  size_t n = 0;
  for (const ImportedOp& op : h.ops) n += op.key.size() + op.argument.text.size() + op.result.text.size();
  return n;
}

// kv_operations with the history's text bytes counted already (check_kv needs them first).
Status kv_operations_sized(const ImportedHistory& h, size_t text_bytes, KvModel& model,
                           std::pmr::vector<Operation<KvOp>>& ops) {
  model.reserve(h.ops.size(), text_bytes);
  ops.clear();
  ops.reserve(h.ops.size());
  for (const ImportedOp& op : h.ops) {
    KvOp::Kind kind;
    if (op.fn == ImportedFn::kGet) kind = KvOp::Kind::kGet;
    else if (op.fn == ImportedFn::kPut) kind = KvOp::Kind::kPut;
    else if (op.fn == ImportedFn::kAppend) kind = KvOp::Kind::kAppend;
    else return wrong_model(h, op, "kv", ":get, :put or :append");
    if (!keep(op)) continue;
    const std::string& value = kind == KvOp::Kind::kGet ? op.result.text : op.argument.text;
    ops.push_back(timed(op, model.make(kind, op.key, value)));
  }
  model.seal();
  return Status();
}

}  // namespace

// Deterministic, which is how minimisation gets a model that no search has used (explain_kv).
Status kv_operations(const ImportedHistory& h, KvModel& model, std::pmr::vector<Operation<KvOp>>& ops) {
  return kv_operations_sized(h, text_bytes_of(h), model, ops);
}

namespace {

Result<CheckResult> check_kv(const ImportedHistory& h, const SearchOptions& options) {
  // One block for the model's tables, the operations and the search. The partitions are the
  // keys, not known yet: room for a few dozen (more spill to the heap).
  const size_t n = h.ops.size(), text_bytes = text_bytes_of(h);
  ArenaResource arena(KvModel::reserved_bytes(n, text_bytes) + n * sizeof(Operation<KvOp>) +
                      search_bytes_for<KvModel>(n, std::min<size_t>(n, 64)));
  KvModel model(&arena);
  std::pmr::vector<Operation<KvOp>> ops(&arena);
  if (Status st = kv_operations_sized(h, text_bytes, model, ops); !st.is_ok()) return st;
  return check_linearizable(model, std::span<const Operation<KvOp>>(ops), options, &arena);
}

// The check's model has served its search; a fresh conversion gives an unused one with the same
// ids (kv_operations is deterministic), and each re-check copies it (cheaper than converting again).
Status explain_kv(const ImportedHistory& h, const SearchOptions& options, uint64_t budget, CheckResult& r) {
  KvModel pristine;
  std::pmr::vector<Operation<KvOp>> ops;
  if (Status st = kv_operations(h, pristine, ops); !st.is_ok()) return st;
  minimize_into(r, [&pristine] { return pristine; }, std::span<const Operation<KvOp>>(ops), options, budget);
  return Status();
}

std::string lines_of(const ImportedHistory& h, uint64_t id) {
  if (id >= h.ops.size()) return "";
  const ImportedOp& op = h.ops[id];
  std::string s = "line " + std::to_string(op.invoke_line);
  if (op.return_line != 0) s += "-" + std::to_string(op.return_line);
  if (op.invoke_time_ns >= 0) {
    s += ", t=" + std::to_string(op.invoke_time_ns);
    s += op.return_time_ns >= 0 && op.outcome == ImportedOutcome::kOk ? ".." + std::to_string(op.return_time_ns) : "..?";
  }
  s += ", process " + std::to_string(op.process);
  if (op.outcome == ImportedOutcome::kUnknown) s += ", outcome unknown";
  return s;
}

// The minimal counterexample: the core first (what a reader needs), then the operations with
// unknown outcome it is stated against, then how it was found.
std::string format_minimal(const ImportedHistory& h, const MinimalCounterexample& m) {
  std::string out = "these " + std::to_string(m.core.size()) + " operation(s) in " + m.partition +
                    " cannot be ordered (";
  out += m.one_minimal ? "1-minimal: weakening any one of them makes the rest linearizable"
                       : "not shown 1-minimal: " + m.cut_short;
  out += "):\n";
  for (const CounterexampleOp& op : m.core) out += "    " + op.what + "   [" + lines_of(h, op.id) + "]\n";
  if (!m.may_have_happened.empty()) {
    out += "  even allowing each of these " + std::to_string(m.may_have_happened.size()) +
           " to take effect at any time after its call, or never";
    out += m.weakened == 0 ? ":\n"
                           : " (" + std::to_string(m.weakened) + " of them returned: the core does not need that):\n";
    const size_t shown = limits::kCounterexampleOpsShownMax;
    for (size_t k = 0; k < m.may_have_happened.size() && k < shown; ++k) {
      const CounterexampleOp& op = m.may_have_happened[k];
      // lines_of already says "outcome unknown" for those that were so in the history.
      out += "    " + op.what + "   [" + lines_of(h, op.id) + "]" + (op.ret != kNeverReturns ? ": " + op.note : "") + "\n";
    }
    if (m.may_have_happened.size() > shown) {
      out += "    ... and " + std::to_string(m.may_have_happened.size() - shown) + " more\n";
    }
  }
  // The cut is in event positions; the reader knows lines: the core's last return's.
  std::string cut = "t=" + std::to_string(m.cut_time);
  for (const CounterexampleOp& op : m.core) {
    if (op.ret == m.cut_time && op.id < h.ops.size() && h.ops[op.id].return_line != 0) {
      cut = "line " + std::to_string(h.ops[op.id].return_line);
    }
  }
  out += "  (reduced from the " + std::to_string(m.partition_ops) + " operations of " + m.partition +
         ", those invoked after " + cut + " left out";
  if (!m.unobserved.empty()) out += ", and " + std::to_string(m.unobserved.size()) + " write(s) whose value nothing reads";
  out += "; " + std::to_string(m.checks) + " re-checks, " + std::to_string(m.steps) + " steps)\n";
  return out;
}

}  // namespace

Result<CheckResult> check_imported(const ImportedHistory& h, ImportedModel model, const SearchOptions& options,
                                   bool minimize) {
  Result<CheckResult> r = model == ImportedModel::kRegister ? check_register(h, options)
                          : model == ImportedModel::kMutex  ? check_mutex(h, options)
                                                            : check_kv(h, options);
  if (!r.is_ok() || !minimize) return r;
  if (Status st = explain_imported(h, model, options, 0, *r); !st.is_ok()) return st;
  return r;
}

Status explain_imported(const ImportedHistory& h, ImportedModel model, const SearchOptions& options, uint64_t budget,
                        CheckResult& r) {
  if (r.verdict != Verdict::kViolation) return Status();
  if (model == ImportedModel::kMutex) return explain_mutex(h, options, budget, r);
  return model == ImportedModel::kRegister ? explain_register(h, options, budget, r)
                                           : explain_kv(h, options, budget, r);
}

std::string format_check_report(const ImportedHistory& h, const CheckResult& r) {
  return format_verdict_report(r) + format_explanation(h, r);
}

std::string format_verdict_report(const CheckResult& r) {
  std::string out;
  out += "verdict           " + std::string(verdict_name(r.verdict));
  if (r.verdict == Verdict::kUnknown) out += " (" + r.unknown_reason + ")";
  out += "\n";
  size_t done = 0;
  for (const PartitionStats& p : r.partitions) done += p.verdict != Verdict::kUnknown;
  out += "model steps       " + std::to_string(r.steps) + " in " + std::to_string(r.partitions.size()) +
         " partition(s), " + std::to_string(done) + " decided\n";
  // The busiest partitions, most steps first (ties by position: deterministic).
  std::vector<size_t> order(r.partitions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return r.partitions[a].steps > r.partitions[b].steps; });
  for (size_t k = 0; k < order.size() && k < 5; ++k) {
    const PartitionStats& p = r.partitions[order[k]];
    out += "  " + p.name + ": " + std::to_string(p.ops) + " ops, " + std::to_string(p.steps) + " steps, " +
           (p.verdict == Verdict::kUnknown ? "undecided" : verdict_name(p.verdict)) + "\n";
  }
  return out;
}

std::string format_explanation(const ImportedHistory& h, const CheckResult& r) {
  std::string out;
  if (r.minimal) out += format_minimal(h, *r.minimal);
  if (!r.counterexample) return out;
  const Counterexample& c = *r.counterexample;
  out += "counterexample in " + c.partition + ":\n";
  out += "  the longest linearizable prefix found has " + std::to_string(c.prefix_length) + " operation(s)";
  out += c.prefix_tail.size() < c.prefix_length ? "; its last " + std::to_string(c.prefix_tail.size()) + ":\n" : ":\n";
  for (const CounterexampleOp& op : c.prefix_tail) out += "    " + op.what + "   [" + lines_of(h, op.id) + "]\n";
  out += "  state after it: " + c.state_after_prefix + "\n";
  out += "  none of these can come next:\n";
  for (const CounterexampleOp& op : c.unplaced) {
    out += "    " + op.what + "   [" + lines_of(h, op.id) + "]: " + op.note + "\n";
  }
  return out;
}

}  // namespace dst::checker
