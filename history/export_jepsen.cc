// See export_jepsen.h.
#include "history/export_jepsen.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "base/assert.h"

namespace dst::history {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;

enum class RegFn : uint8_t { kRead, kWrite, kCas };

struct RegOp {
  const Operation* op = nullptr;
  RegFn fn = RegFn::kRead;
  std::string key;
  std::string a, b;  // write: a; cas: a expected, b new
  bool spans = false;  // a read of a range over several keys (split_range)
};

Status cannot(const Operation& op, const std::string& why) {
  return Status(StatusCode::kInvalidArgument, "operation " + std::to_string(op.id) + " (client " +
                                                  std::to_string(op.client) + "): " + why +
                                                  "; the register model reads, writes and compare-and-sets one key");
}

// The txn of the register workload's compare-and-set: value(key) == a ? put(key, b) : nothing.
Result<std::optional<RegOp>> cas_of(const Operation& op) {
  const etcdserverpb::TxnRequest& t = op.request.txn();
  if (t.compare_size() != 1 || t.success_size() != 1 || t.failure_size() != 0 || !t.success(0).has_request_put())
    return cannot(op, "a txn other than one value compare and one put");
  const Compare& c = t.compare(0);
  const etcdserverpb::PutRequest& put = t.success(0).request_put();
  if (c.target() != Compare::VALUE || c.result() != Compare::EQUAL || !c.range_end().empty() || put.key() != c.key() ||
      put.lease() != 0 || put.ignore_value() || put.ignore_lease())
    return cannot(op, "a txn other than value(key) == v ? put(key, w)");
  return std::optional<RegOp>(RegOp{&op, RegFn::kCas, c.key(), c.value(), put.value()});
}

bool filtered_or_sorted(const etcdserverpb::RangeRequest& r) {
  using etcdserverpb::RangeRequest;
  const bool by_key_ascending = r.sort_order() == RangeRequest::NONE ||
                                (r.sort_target() == RangeRequest::KEY && r.sort_order() == RangeRequest::ASCEND);
  return r.min_mod_revision() != 0 || r.max_mod_revision() != 0 || r.min_create_revision() != 0 ||
         r.max_create_revision() != 0 || !by_key_ascending;
}

// The register operation `op` is, nullopt for one that changes no key, or an error. A range over
// several keys comes back as a read of its first key with `spans` set (split_range does the rest).
Result<std::optional<RegOp>> register_op(const Operation& op) {
  const ApiRequest& r = op.request;
  switch (r.request_case()) {
    case ApiRequest::kRange:
      // A serializable read may be stale by design: it constrains nothing linearizable. A filtered
      // or reordered range shows a subset that says nothing about the keys it hides; dropping a
      // read only weakens the history.
      if (r.range().serializable() || r.range().count_only() || filtered_or_sorted(r.range()))
        return std::optional<RegOp>();
      if (r.range().revision() != 0) return cannot(op, "a read at a past revision");
      if (r.range().keys_only()) return cannot(op, "a keys-only range (its values are not known)");
      return std::optional<RegOp>(RegOp{&op, RegFn::kRead, r.range().key(), "", "", !r.range().range_end().empty()});
    case ApiRequest::kPut:
      if (r.put().lease() != 0 || r.put().ignore_value() || r.put().ignore_lease())
        return cannot(op, "a put with a lease or ignore flags");
      return std::optional<RegOp>(RegOp{&op, RegFn::kWrite, r.put().key(), r.put().value(), ""});
    case ApiRequest::kTxn: return cas_of(op);
    case ApiRequest::kDeleteRange: return cannot(op, "a delete");
    case ApiRequest::kLeaseRevoke: return cannot(op, "a lease revoke (it may delete keys)");
    default: return std::optional<RegOp>();  // compaction, lease grants and reads, status: no key changes
  }
}

// A range over several keys, as one read per register key it covers (splitting an atomic read
// only weakens it: the logs can lose a violation, never make one up). When a limit cut the answer
// short (`more`), keys after the last one returned are not known and not read.
void split_range(const RegOp& range, const std::set<std::string>& keys, std::map<std::string, std::vector<RegOp>>& by_key) {
  const etcdserverpb::RangeRequest& req = range.op->request.range();
  const etcdserverpb::RangeResponse& resp = range.op->response.range();
  const bool to_end = req.range_end() == std::string(1, '\0');
  std::optional<std::string> last_known;
  if (range.op->outcome == Outcome::kOk && resp.more()) last_known = resp.kvs_size() ? resp.kvs(resp.kvs_size() - 1).key() : req.key();
  for (auto it = keys.lower_bound(req.key()); it != keys.end(); ++it) {
    if (!to_end && *it >= req.range_end()) break;
    if (last_known && *it > *last_known) break;
    RegOp read = range;
    read.key = *it;
    by_key[*it].push_back(std::move(read));
  }
}

// Values as small integers, per key, in order of first appearance; the empty value is 0.
class ValueNames {
 public:
  std::string operator()(const std::string& v) {
    if (v.empty()) return "0";
    auto [it, fresh] = ids_.emplace(v, ids_.size() + 1);
    return std::to_string(it->second);
  }

 private:
  std::map<std::string, size_t> ids_;
};

std::string invoke_value(const RegOp& r, ValueNames& names) {
  if (r.fn == RegFn::kRead) return "nil";
  if (r.fn == RegFn::kWrite) return names(r.a);
  return "[" + names(r.a) + " " + names(r.b) + "]";
}

std::string completion(const RegOp& r, const std::string& invoked, ValueNames& names) {
  const Operation& op = *r.op;
  static const char* const kF[] = {":read", ":write", ":cas"};
  const std::string f = kF[static_cast<int>(r.fn)];
  if (op.outcome == Outcome::kUnknown) return ":info\t" + f + "\t" + invoked;
  if (op.outcome == Outcome::kFailed) return ":fail\t" + f + "\t" + invoked;
  if (r.fn == RegFn::kRead) {
    for (const mvccpb::KeyValue& kv : op.response.range().kvs())
      if (kv.key() == r.key) return ":ok\t:read\t" + names(kv.value());
    return ":ok\t:read\tnil";
  }
  if (r.fn == RegFn::kCas && !op.response.txn().succeeded()) return ":fail\t:cas\t" + invoked;
  return ":ok\t" + f + "\t" + invoked;
}

// One key's operations (in id order: invocation order) as log lines.
JepsenKeyLog key_log(const std::string& key, const std::vector<RegOp>& ops, const std::map<uint32_t, uint64_t>& clients) {
  // Jepsen numbers a client's process anew after every operation it cannot know the end of:
  // process = the client's place among all clients + clients x its unknown outcomes so far.
  std::map<uint32_t, uint64_t> generation;  // client -> operations with unknown outcome so far
  std::vector<uint64_t> process(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const Operation& op = *ops[i].op;
    process[i] = clients.at(op.client) + clients.size() * generation[op.client];
    if (op.outcome == Outcome::kUnknown) ++generation[op.client];
  }
  // (time, 0 invoke | 1 completion, index): at one instant invocations first, so touching
  // intervals overlap rather than order.
  std::vector<std::tuple<int64_t, int, size_t>> events;
  for (size_t i = 0; i < ops.size(); ++i) {
    events.emplace_back(ops[i].op->invoke_ns, 0, i);
    events.emplace_back(ops[i].op->outcome == Outcome::kUnknown ? kNeverReturned : ops[i].op->return_ns, 1, i);
  }
  std::sort(events.begin(), events.end());
  ValueNames names;
  std::vector<std::string> invoked(ops.size());
  JepsenKeyLog log{key, "", ops.size()};
  for (const auto& [at, kind, i] : events) {
    const std::string prefix = "INFO  jepsen.util - " + std::to_string(process[i]) + "\t";
    if (kind == 0) {
      invoked[i] = invoke_value(ops[i], names);
      log.text += prefix + ":invoke\t" + (ops[i].fn == RegFn::kRead ? ":read" : ops[i].fn == RegFn::kWrite ? ":write" : ":cas") +
                  "\t" + invoked[i] + "\n";
    } else {
      log.text += prefix + completion(ops[i], invoked[i], names) + "\n";
    }
  }
  return log;
}

}  // namespace

Result<std::vector<JepsenKeyLog>> export_jepsen_log(const History& h) {
  std::vector<RegOp> ops;
  std::set<std::string> keys;  // the registers: every key a single-key operation names
  std::map<uint32_t, uint64_t> clients;  // client id -> its place in id order
  for (const Operation& op : h.operations) clients.emplace(op.client, 0);
  uint64_t place = 0;
  for (auto& [client, index] : clients) index = place++;
  for (const Operation& op : h.operations) {
    Result<std::optional<RegOp>> r = register_op(op);
    if (!r.is_ok()) return r.status();
    if (!*r) continue;
    if (!(*r)->spans) keys.insert((*r)->key);
    ops.push_back(std::move(**r));
  }
  std::map<std::string, std::vector<RegOp>> by_key;  // each key's in id order
  for (const RegOp& r : ops) {
    if (r.spans) split_range(r, keys, by_key);
    else by_key[r.key].push_back(r);
  }
  std::vector<JepsenKeyLog> out;
  for (const auto& [key, ops] : by_key) out.push_back(key_log(key, ops, clients));
  return out;
}

}  // namespace dst::history
