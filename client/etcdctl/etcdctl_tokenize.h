// Splitting a line into arguments, the two ways etcdctl input is split in practice:
//  - a command line as a POSIX shell splits it before etcdctl sees argv (`dst shell` stands in for
//    the shell): whitespace separates, '...' is literal, "..." keeps \" \\ \$ \` escapes, a
//    backslash outside quotes escapes the next character, and quotes join adjacent text;
//  - a txn operation line (`put k "v"`) as etcdctl's own argify() splits it: "..." is a Go string
//    literal (\n, \t, \x41, \u00e9 ... decoded), '...' is literal, anything else runs to whitespace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::etcdctl {

// Shell-style split. An unterminated quote or trailing backslash is an error naming it.
Result<std::vector<std::string>> tokenize_shell(std::string_view line);

// True for lines `dst shell` skips: empty, only whitespace, or a comment (first non-blank is '#').
bool is_blank_or_comment(std::string_view line);

// etcdctl argify()-style split of a txn op line. Deviation: etcdctl 3.4 slices single-quoted
// arguments with the wrong length (len(args) instead of len(arg)) and mangles them; we keep the
// text between the quotes.
Result<std::vector<std::string>> tokenize_txn_op(std::string_view line);

// Decodes one Go double-quoted string literal starting at text[0] == '"'. On success sets
// *consumed to the bytes used, closing quote included. Used by argify and by txn compares.
Result<std::string> go_unquote_prefix(std::string_view text, size_t* consumed);

}  // namespace dst::etcdctl
