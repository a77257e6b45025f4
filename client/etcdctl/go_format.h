// Small re-implementations of the Go standard-library formatting etcdctl 3.4's output depends on:
// strconv's quoting and integer-parse errors, fmt's %016x, go-humanize's Bytes, and
// time.ParseDuration. They exist so the printers and parsers here can match etcdctl byte for byte
// without each one re-deriving Go's rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dst::etcdctl {

// Go's strconv.Quote / fmt "%q" for a byte string: printable ASCII and valid UTF-8 kept, the usual
// backslash escapes, other bytes as \xNN.
std::string go_quote(std::string_view bytes);

// strconv.ParseInt(text, base, 64) with Go's error text, e.g.
// `strconv.ParseInt: parsing "abc": invalid syntax` or `...: value out of range`. base is 10 or 16.
Result<int64_t> go_parse_int(std::string_view text, int base);

// strconv.ParseBool: 1 t T TRUE true True 0 f F FALSE false False.
// strconv.ParseUint(text, base, 64): no sign; errors as "strconv.ParseUint: parsing "zz": invalid syntax".
Result<uint64_t> go_parse_uint(std::string_view text, int base);
Result<bool> go_parse_bool(std::string_view text);

// fmt's "%016x" of a lease id. Go formats a signed value: a negative id prints as "-" and the
// magnitude, padded with zeros to 16 characters in all (etcd only grants positive ids).
std::string hex16(int64_t id);
// fmt's "%x" of a uint64 (member ids in simple output).
std::string hex(uint64_t id);

// github.com/dustin/go-humanize Bytes(): SI units, "20 kB", "1.0 MB", "21 MB", "9 B".
std::string humanize_bytes(uint64_t bytes);

// time.ParseDuration: "500ms", "1s", "1m30s", "2h", "1.5s", "0". Returns nanoseconds. Error text
// follows Go: `time: invalid duration "x"`, `time: unknown unit "d" in duration "1d"`,
// `time: missing unit in duration "5"`.
Result<int64_t> go_parse_duration(std::string_view text);

// time.Duration's String(): "0s", "999ns", "1.5µs", "6.328624ms", "1.5s", "1m1s", "1h0m0s" (the
// fraction without trailing zeros; hours and minutes only from a minute up).
std::string go_duration_string(int64_t ns);

}  // namespace dst::etcdctl
