// See register_model.h.
#include "checker/linearizability/register_model.h"

#include <utility>

#include "base/assert.h"
#include "base/limits.h"

namespace dst::checker {

static_assert(limits::kCheckerOpsMax < INT32_MAX, "a register's version counts its writes in an int32_t");

RegisterModel::RegisterModel(std::vector<std::string> key_names, bool versioned)
    : key_names_(std::move(key_names)), versioned_(versioned) {
  DST_ASSERT(!key_names_.empty());
}

std::optional<RegisterState> RegisterModel::step(const State& s, const Op& op) const {
  if (versioned_) return step_versioned(s, op);
  switch (op.kind) {
    case Op::Kind::kRead:
      if (op.nil ? s.nil : (!s.nil && s.value == op.value)) return s;
      return std::nullopt;
    case Op::Kind::kWrite:
      return State::holding(op.value);
    case Op::Kind::kCas:
      if (!s.nil && s.value == op.value) return State::holding(op.to);
      return std::nullopt;
  }
  return std::nullopt;
}

// jepsen-io/etcd's VersionedRegister: nil names nothing; a named version must be the one the
// operation sees (a read) or makes (a write or cas, one more than the state's).
std::optional<RegisterState> RegisterModel::step_versioned(const State& s, const Op& op) const {
  const bool named = op.version != Op::kAnyVersion;
  switch (op.kind) {
    case Op::Kind::kRead:
      if (named && op.version != s.version) return std::nullopt;
      if (!op.nil && (s.nil || s.value != op.value)) return std::nullopt;
      return s;
    case Op::Kind::kWrite:
      if (named && op.version != s.version + 1) return std::nullopt;
      return State::holding(op.value, s.version + 1);
    case Op::Kind::kCas:
      if (named && op.version != s.version + 1) return std::nullopt;
      if (s.nil || s.value != op.value) return std::nullopt;
      return State::holding(op.to, s.version + 1);
  }
  return std::nullopt;
}

std::string RegisterModel::describe_op(const Op& op) const {
  const std::string at = versioned_ && op.version != Op::kAnyVersion ? " @v" + std::to_string(op.version) : "";
  switch (op.kind) {
    case Op::Kind::kRead: return "read -> " + (op.nil ? std::string("nil") : std::to_string(op.value)) + at;
    case Op::Kind::kWrite: return "write " + std::to_string(op.value) + at;
    case Op::Kind::kCas: return "cas " + std::to_string(op.value) + " -> " + std::to_string(op.to) + at;
  }
  return "?";
}

std::string RegisterModel::describe_state(const State& s) const {
  const std::string v = s.nil ? "nil" : std::to_string(s.value);
  return versioned_ ? v + " @v" + std::to_string(s.version) : v;
}

}  // namespace dst::checker
