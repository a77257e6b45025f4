// See register_model.h.
#include "checker/linearizability/register_model.h"

namespace dst::checker {

std::optional<RegisterState> RegisterModel::step(const State& s, const Op& op) const {
  switch (op.kind) {
    case Op::Kind::kRead:
      if (op.nil ? s.nil : (!s.nil && s.value == op.value)) return s;
      return std::nullopt;
    case Op::Kind::kWrite:
      return State{false, op.value};
    case Op::Kind::kCas:
      if (!s.nil && s.value == op.value) return State{false, op.to};
      return std::nullopt;
  }
  return std::nullopt;
}

std::string RegisterModel::describe_op(const Op& op) const {
  switch (op.kind) {
    case Op::Kind::kRead: return "read -> " + (op.nil ? std::string("nil") : std::to_string(op.value));
    case Op::Kind::kWrite: return "write " + std::to_string(op.value);
    case Op::Kind::kCas: return "cas " + std::to_string(op.value) + " -> " + std::to_string(op.to);
  }
  return "?";
}

std::string RegisterModel::describe_state(const State& s) const {
  return s.nil ? "nil" : std::to_string(s.value);
}

}  // namespace dst::checker
