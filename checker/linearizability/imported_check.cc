// See imported_check.h.
#include "checker/linearizability/imported_check.h"

#include <algorithm>

#include "checker/linearizability/kv_model.h"
#include "checker/linearizability/register_model.h"

namespace dst::checker {

using history::ImportedFn;
using history::ImportedHistory;
using history::ImportedOp;
using history::ImportedOutcome;
using history::ImportedValue;

const char* imported_model_name(ImportedModel m) { return m == ImportedModel::kRegister ? "register" : "kv"; }

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

Result<CheckResult> check_register(const ImportedHistory& h, const SearchOptions& options) {
  std::vector<Operation<RegisterOp>> ops;
  ops.reserve(h.ops.size());
  for (const ImportedOp& op : h.ops) {
    if (op.fn != ImportedFn::kRead && op.fn != ImportedFn::kWrite && op.fn != ImportedFn::kCas) {
      return wrong_model(h, op, "register", ":read, :write or :cas");
    }
    if (!keep(op)) continue;
    RegisterOp r;
    if (op.fn == ImportedFn::kRead) {
      if (op.result.kind == ImportedValue::Kind::kNil) r = RegisterOp::read(std::nullopt);
      else r = RegisterOp::read(op.result.a);
    } else if (op.fn == ImportedFn::kWrite) {
      r = RegisterOp::write(op.argument.a);
    } else {
      r = RegisterOp::cas(op.argument.a, op.argument.b);
    }
    ops.push_back(timed(op, r));
  }
  RegisterModel model;
  return check_linearizable(model, std::span<const Operation<RegisterOp>>(ops), options);
}

Result<CheckResult> check_kv(const ImportedHistory& h, const SearchOptions& options) {
  KvModel model;
  size_t text_bytes = 0;
  for (const ImportedOp& op : h.ops) text_bytes += op.key.size() + op.argument.text.size() + op.result.text.size();
  model.reserve(h.ops.size(), text_bytes);
  std::vector<Operation<KvOp>> ops;
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
  return check_linearizable(model, std::span<const Operation<KvOp>>(ops), options);
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

}  // namespace

Result<CheckResult> check_imported(const ImportedHistory& h, ImportedModel model, const SearchOptions& options) {
  return model == ImportedModel::kRegister ? check_register(h, options) : check_kv(h, options);
}

std::string format_check_report(const ImportedHistory& h, const CheckResult& r) {
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
