// etcdctl 3.4's txn input language, read line by line as `dst shell` receives it:
//
//   compares, one per line         mod("foo") < "100"      value("k") = "v"
//   a blank line
//   success ops, one per line      put k v | get k --prefix | del k
//   a blank line
//   failure ops, one per line
//   a blank line                   (etcdctl needs this one too; without it: "Error: EOF")
//
// Compare targets: ver|version, c|create, m|mod, val|value, lease (hex id); operators = != > <;
// both the key and the operand are Go double-quoted strings. Lines are trimmed before use.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

// One compare line, with etcdctl's error texts ("malformed comparison: ...", "invalid txn compare
// request: ..."). An unknown operator makes etcdctl panic; here it is an error naming it.
Result<etcdserverpb::Compare> parse_compare(std::string_view line);

class TxnParser {
 public:
  // interactive: `txn -i`, which prints a prompt before each section.
  explicit TxnParser(bool interactive = false) : interactive_(interactive) {}

  // The prompt to print before the next line is read, once per section, or "" (not interactive,
  // or this section's prompt was already taken). Includes the newline.
  std::string take_prompt();

  // Feeds one line (its newline removed). Returns true when the transaction is complete (the blank
  // line closing the failure section was read); feeding after that is a bug.
  Result<bool> feed(std::string_view line);

  // The input ended before the transaction was complete: etcdctl's "EOF" error.
  Status end_of_input() const;

  bool done() const { return section_ == Section::kDone; }
  // Blank lines still to come before the body ends (3 before any, 0 when done): a body whose line
  // failed to parse is read to its end without acting (etcdctl exits without running any of it).
  int blank_lines_left() const { return 3 - static_cast<int>(section_); }
  const etcdserverpb::TxnRequest& request() const { return request_; }

 private:
  enum class Section { kCompares, kSuccess, kFailure, kDone };
  bool interactive_;
  bool prompted_ = false;
  Section section_ = Section::kCompares;
  size_t lines_ = 0;
  etcdserverpb::TxnRequest request_;
};

}  // namespace dst::etcdctl
