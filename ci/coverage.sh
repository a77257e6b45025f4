#!/usr/bin/env bash
# The coverage of the standard suite: sweeps every scenario in scenarios/ over SEEDS seeds, adds up
# what they reached (probes and the API surface, history/coverage.h) and writes the table.
#
#   ci/coverage.sh [--dst build/dst] [--seeds 20] [--jobs 2] [--out DIR] [--markdown docs/coverage.md]
#
# Exit 1 when a name of ci/coverage-must-reach.txt (the suite's must_reach) was reached by no
# sweep, or a seed failed; 2 on a usage error. The table names, for each probe and API use, the
# seeds that reached it and where it was first reached ("<scenario>:<seed>").
set -euo pipefail
cd "$(dirname "$0")/.."
DST=build/dst
SEEDS=20
JOBS=2
OUT=""
MARKDOWN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --seeds) SEEDS="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --markdown) MARKDOWN="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "ci/coverage.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$SEEDS" in ''|*[!0-9]*) echo "ci/coverage.sh: --seeds must be a number" >&2; exit 2 ;; esac
[ -x "$DST" ] || { echo "ci/coverage.sh: no dst binary at $DST (run ci/build.sh first)" >&2; exit 2; }
if [ -z "$OUT" ]; then OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
mkdir -p "$OUT"

files=()
failed=0
for scenario in scenarios/*.lua; do
  name=$(basename "$scenario" .lua)
  if ! "$DST" sweep "$scenario" --seeds "1..$SEEDS" --jobs "$JOBS" --out "$OUT/$name" > "$OUT/$name.summary" 2>/dev/null; then
    echo "ci/coverage.sh: $name: a seed failed (see $OUT/$name.summary)" >&2
    failed=1
  fi
  files+=("$OUT/$name/coverage.tsv")
done
status=0
if [ -n "$MARKDOWN" ]; then
  "$DST" coverage "${files[@]}" --must-reach ci/coverage-must-reach.txt \
    --markdown "Coverage of the standard suite ($SEEDS seeds of each scenario in scenarios/)" > "$MARKDOWN" || status=$?
  cat ci/coverage-notes.md >> "$MARKDOWN"
fi
"$DST" coverage "${files[@]}" --must-reach ci/coverage-must-reach.txt || status=$?
[ "$failed" -eq 0 ] || exit 1
exit "$status"
