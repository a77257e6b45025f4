#include "client/etcdctl/etcdctl_txn.h"

#include "client/etcdctl/etcdctl_parse.h"
#include "client/etcdctl/etcdctl_tokenize.h"
#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

using etcdserverpb::Compare;

// Lines one txn may span. etcd rejects more than 128 ops (--max-txn-ops) anyway; a script feeding
// ten thousand lines into one txn has lost a blank line somewhere.
constexpr size_t kTxnLinesMax = 10'000;

Status invalid(std::string message) { return Status(StatusCode::kInvalidArgument, std::move(message)); }

std::string_view trim(std::string_view s) {
  const char* kSpace = " \t\r\n\v\f";
  const size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

void skip_spaces(std::string_view* s) {
  while (!s->empty() && (s->front() == ' ' || s->front() == '\t')) s->remove_prefix(1);
}

// fmt.Sscanf's %q: one Go double-quoted (or back-quoted raw) string after optional spaces.
Result<std::string> scan_quoted(std::string_view* s) {
  skip_spaces(s);
  if (!s->empty() && s->front() == '`') {
    const size_t end = s->find('`', 1);
    if (end == std::string_view::npos) return invalid("unterminated raw string");
    std::string out(s->substr(1, end - 1));
    s->remove_prefix(end + 1);
    return out;
  }
  if (s->empty() || s->front() != '"') return invalid("expected quoted string");
  size_t used = 0;
  auto out = go_unquote_prefix(*s, &used);
  if (out.is_ok()) s->remove_prefix(used);
  return out;
}

Result<Compare::CompareResult> compare_result(const std::string& op) {
  if (op == "=") return Compare::EQUAL;
  if (op == "!=") return Compare::NOT_EQUAL;
  if (op == ">") return Compare::GREATER;
  if (op == "<") return Compare::LESS;
  return invalid("unknown operator " + go_quote(op) + " (expected =, !=, > or <)");
}

}  // namespace

Result<Compare> parse_compare(std::string_view raw_line) {
  const std::string line(trim(raw_line));
  const size_t lparen = line.find('(');
  if (lparen == std::string::npos) return invalid("malformed comparison: " + line);
  const std::string target = line.substr(0, lparen);
  // The shape is `%q) %s %q`: quoted key, ')', an operator word, quoted operand.
  std::string_view rest = std::string_view(line).substr(lparen + 1);
  std::string key, op, value;
  int scanned = 0;
  if (auto k = scan_quoted(&rest); k.is_ok()) {
    key = *k, ++scanned;
    if (!rest.empty() && rest.front() == ')') {
      rest.remove_prefix(1);
      skip_spaces(&rest);
      const size_t end = rest.find_first_of(" \t");
      op = std::string(rest.substr(0, end));
      rest.remove_prefix(op.size());
      if (!op.empty()) ++scanned;
      if (auto v = scan_quoted(&rest); scanned == 2 && v.is_ok()) value = *v, ++scanned;
    }
  }
  if (scanned != 3) {
    return invalid("malformed comparison: " + line + "; got " + target + "(" + go_quote(key) + ") " + op + " " +
                   go_quote(value));
  }
  auto result = compare_result(op);
  if (!result.is_ok()) return invalid("malformed comparison: " + line + " (" + result.status().message() + ")");
  Compare c;
  c.set_key(key);
  c.set_result(*result);
  Result<int64_t> number = int64_t{0};
  if (target == "ver" || target == "version") {
    c.set_target(Compare::VERSION);
    if (number = go_parse_int(value, 10); number.is_ok()) c.set_version(*number);
  } else if (target == "c" || target == "create") {
    c.set_target(Compare::CREATE);
    if (number = go_parse_int(value, 10); number.is_ok()) c.set_create_revision(*number);
  } else if (target == "m" || target == "mod") {
    c.set_target(Compare::MOD);
    if (number = go_parse_int(value, 10); number.is_ok()) c.set_mod_revision(*number);
  } else if (target == "val" || target == "value") {
    c.set_target(Compare::VALUE);
    c.set_value(value);
  } else if (target == "lease") {
    c.set_target(Compare::LEASE);
    if (number = go_parse_int(value, 16); number.is_ok()) c.set_lease(*number);
  } else {
    return invalid("malformed comparison: " + line + " (unknown target " + target + ")");
  }
  if (!number.is_ok()) return invalid("invalid txn compare request: " + line);
  return c;
}

std::string TxnParser::take_prompt() {
  if (!interactive_ || prompted_ || section_ == Section::kDone) return "";
  prompted_ = true;
  switch (section_) {
    case Section::kCompares: return "compares:\n";
    case Section::kSuccess: return "success requests (get, put, del):\n";
    case Section::kFailure: return "failure requests (get, put, del):\n";
    case Section::kDone: break;
  }
  return "";
}

Result<bool> TxnParser::feed(std::string_view raw_line) {
  DST_ASSERT_MSG(section_ != Section::kDone, "TxnParser fed after the transaction was complete");
  if (++lines_ > kTxnLinesMax)
    return invalid("txn input longer than " + std::to_string(kTxnLinesMax) + " lines (missing blank line?)");
  const std::string_view line = trim(raw_line);
  if (line.empty()) {
    section_ = section_ == Section::kCompares  ? Section::kSuccess
               : section_ == Section::kSuccess ? Section::kFailure
                                               : Section::kDone;
    prompted_ = false;
    return done();
  }
  if (section_ == Section::kCompares) {
    auto c = parse_compare(line);
    if (!c.is_ok()) return c.status();
    *request_.add_compare() = std::move(*c);
    return false;
  }
  auto op = parse_txn_op(line);
  if (!op.is_ok()) return op.status();
  *(section_ == Section::kSuccess ? request_.add_success() : request_.add_failure()) = std::move(*op);
  return false;
}

Status TxnParser::end_of_input() const {
  DST_ASSERT(!done());
  return invalid("EOF");
}

}  // namespace dst::etcdctl
