#!/usr/bin/env bash
# One number parser (base/parse_number.h): fails naming every call of a C or C++ number parser
# (strtoull, strtoll, strtoul, strtol, strtod, strtof, atoi, atol, atoll, atof, std::sto*,
# from_chars, sscanf) anywhere else in the sources, tests included (ctest: number_parsers).
#   ci/check-number-parsers.sh [ROOT]
set -euo pipefail
ROOT="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$ROOT"
pattern='\b(strto(ull|ll|ul|l|d|f|ld|imax|umax)|ato(i|l|ll|f)|sto(i|l|ul|ll|ull|f|d|ld)|from_chars|v?sscanf)[[:space:]]*\('
found=$(grep -rnE "$pattern" --include='*.cc' --include='*.h' . 2>/dev/null |
        grep -vE '^\./(build[^/]*|\.git)/' | grep -vE '^\./base/parse_number\.(h|cc):' | grep -vE ':[0-9]+:[[:space:]]*//' || true)
if [ -n "$found" ]; then
  echo "number parsed outside base/parse_number.h (use parse_u64, parse_i64, parse_double, parse_unsigned<T>, parse_signed<T>):"
  echo "$found"
  exit 1
fi
echo "number parsers: only base/parse_number.h"
