// See kv_model.h.
#include "checker/linearizability/kv_model.h"

#include "base/limits.h"

namespace dst::checker {

namespace {

uint64_t hash_tuple(const uint32_t* t, size_t n) {
  uint64_t h = 0x6b76ull;
  for (size_t i = 0; i < n; ++i) h = mix64(h ^ t[i]);
  return h;
}

// A value for a report: long append chains are cut in the middle.
std::string quote(const std::string& v) {
  constexpr size_t kShown = 48;
  if (v.size() <= kShown) return "\"" + v + "\"";
  return "\"" + v.substr(0, 16) + "..." + v.substr(v.size() - 24) + "\" (" + std::to_string(v.size()) + " bytes)";
}

}  // namespace

KvModel::KvModel() : bytes_max_(limits::kCheckerModelBytesMax) { intern_value(""); }

uint32_t KvModel::intern_key(std::string_view key) {
  DST_ASSERT_MSG(!sealed_, "keys are fixed once the model is sealed");
  auto it = key_ids_.find(key);
  if (it != key_ids_.end()) return it->second;
  keys_.emplace_back(key);
  const auto id = static_cast<uint32_t>(keys_.size() - 1);
  key_ids_.emplace(keys_.back(), id);
  return id;
}

uint32_t KvModel::intern_value(std::string_view value) {
  auto it = value_ids_.find(value);
  if (it != value_ids_.end()) return it->second;
  values_.emplace_back(value);
  bytes_ += value.size() + 64;
  const auto id = static_cast<uint32_t>(values_.size() - 1);
  value_ids_.emplace(values_.back(), id);
  return id;
}

KvOp KvModel::make(Op::Kind kind, std::string_view key, std::string_view value) {
  return Op{kind, intern_key(key), intern_value(value), next_index_++};
}

void KvModel::seal() {
  if (sealed_) return;
  sealed_ = true;
  scratch_.assign(keys_.size(), 0);  // every key "" (value id 0)
  const State s0 = intern_tuple(scratch_);
  DST_ASSERT_EQ(s0, 0u);
}

KvModel::State KvModel::initial_state() const {
  DST_ASSERT_MSG(sealed_, "KvModel::seal() before the search");
  return 0;
}

KvModel::State KvModel::intern_tuple(const std::vector<uint32_t>& t) {
  const uint64_t h = hash_tuple(t.data(), t.size());
  std::vector<State>& same = tuple_ids_[h];
  for (State s : same) {
    if (std::equal(t.begin(), t.end(), tuple(s))) return s;
  }
  const auto s = static_cast<State>(keys_.empty() ? tuples_.size() : tuples_.size() / keys_.size());
  tuples_.insert(tuples_.end(), t.begin(), t.end());
  bytes_ += t.size() * sizeof(uint32_t) + 48;
  same.push_back(s);
  return s;
}

std::optional<KvModel::State> KvModel::step(State s, const Op& op) {
  if (op.kind == Op::Kind::kGet) {
    if (tuple(s)[op.key] == op.value) return s;
    return std::nullopt;
  }
  const uint64_t memo_key = (static_cast<uint64_t>(s) << 32) | op.index;
  if (auto it = transitions_.find(memo_key); it != transitions_.end()) return it->second;
  const uint32_t* t = tuple(s);
  uint32_t value = op.value;  // put
  if (op.kind == Op::Kind::kAppend) {
    value = values_[op.value].empty() ? t[op.key] : intern_value(values_[t[op.key]] + values_[op.value]);
  }
  scratch_.assign(t, t + keys_.size());
  scratch_[op.key] = value;
  const State next = intern_tuple(scratch_);
  transitions_.emplace(memo_key, next);
  bytes_ += 32;
  return next;
}

bool KvModel::may_become_legal(State s, const Op* target, std::span<const Op* const> window) const {
  if (target->kind != Op::Kind::kGet) return true;
  const std::string& now = values_[tuple(s)[target->key]];
  const std::string& want = values_[target->value];
  if (want.size() >= now.size() && want.compare(0, now.size(), now) == 0) return true;
  for (const Op* op : window) {
    if (op->kind != Op::Kind::kPut || op->key != target->key) continue;
    const std::string& put = values_[op->value];
    if (want.size() >= put.size() && want.compare(0, put.size(), put) == 0) return true;
  }
  return false;
}

std::vector<Partition> KvModel::partition(std::span<const Operation<Op>> ops) const {
  std::vector<Partition> parts(keys_.size());
  for (size_t k = 0; k < keys_.size(); ++k) parts[k].name = "key " + quote(keys_[k]);
  for (size_t i = 0; i < ops.size(); ++i) parts[ops[i].op.key].ops.push_back(i);
  std::vector<Partition> used;
  for (Partition& p : parts) {
    if (!p.ops.empty()) used.push_back(std::move(p));
  }
  return used;
}

std::string KvModel::describe_op(const Op& op) const {
  const std::string key = quote(keys_[op.key]);
  switch (op.kind) {
    case Op::Kind::kGet: return "get(" + key + ") -> " + quote(values_[op.value]);
    case Op::Kind::kPut: return "put(" + key + ", " + quote(values_[op.value]) + ")";
    case Op::Kind::kAppend: return "append(" + key + ", " + quote(values_[op.value]) + ")";
  }
  return "?";
}

std::string KvModel::describe_state(State s) const {
  std::string out = "{";
  const uint32_t* t = tuple(s);
  for (size_t k = 0; k < keys_.size(); ++k) {
    if (t[k] == 0) continue;
    if (out.size() > 1) out += ", ";
    out += quote(keys_[k]) + ": " + quote(values_[t[k]]);
  }
  return out + "} (other keys \"\")";
}

}  // namespace dst::checker
