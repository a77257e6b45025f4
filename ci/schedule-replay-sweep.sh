#!/usr/bin/env bash
# Faults as data, checked end to end: for every scenario and seeds 1..N, run the seed with a run
# database, write its fault schedule out (`dst schedule RUN.db`), replay it (`dst run --schedule
# FILE`: no random fault drawn, the script's fault calls replaced by the schedule's) and require
# the replay's trace hash to equal the original's.
#
#   ci/schedule-replay-sweep.sh DST SEEDS [SCENARIO.lua ...]   (default: every scenarios/*.lua)
#
# Prints one line per scenario and a total; exits 1 if any replay diverged, 2 on a usage error.
set -euo pipefail

if [ $# -lt 2 ]; then echo "usage: $0 DST SEEDS [SCENARIO.lua ...]" >&2; exit 2; fi
dst=$1 seeds=$2
shift 2
case "$seeds" in ''|*[!0-9]*) echo "$0: SEEDS must be a number, got '$seeds'" >&2; exit 2 ;; esac
[ "$seeds" -ge 1 ] && [ "$seeds" -le 10000 ] || { echo "$0: SEEDS must be 1..10000" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$root"/scenarios/*.lua)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hash_of() { sed -n 's/^trace hash \(0x[0-9a-f]*\)$/\1/p' "$1" | tail -1; }

total=0 diverged=0
for scenario in "${scenarios[@]}"; do
  ok=0 steps=0
  for seed in $(seq 1 "$seeds"); do
    dir="$work/run"
    rm -rf "$dir"
    # The original's verdict does not matter here (a violation replays as well); only its hash.
    "$dst" run "$scenario" --seed "$seed" --out "$dir" >"$work/original.txt" 2>&1 || true
    original=$(hash_of "$work/original.txt")
    if [ -z "$original" ] || ! "$dst" schedule "$dir/run.db" >"$work/repro.lua" 2>"$work/schedule.err"; then
      echo "FAIL $scenario seed $seed: no run database or schedule: $(tail -1 "$work/original.txt") $(cat "$work/schedule.err")"
      diverged=$((diverged + 1)); total=$((total + 1)); continue
    fi
    steps=$((steps + $(grep -c '^step{' "$work/repro.lua" || true)))
    "$dst" run --schedule "$work/repro.lua" >"$work/replay.txt" 2>&1 || true
    replayed=$(hash_of "$work/replay.txt")
    total=$((total + 1))
    if [ "$replayed" = "$original" ]; then
      ok=$((ok + 1))
    else
      diverged=$((diverged + 1))
      echo "FAIL $scenario seed $seed: original $original, replay ${replayed:-none} ($(tail -1 "$work/replay.txt"))"
      cp "$work/repro.lua" "$work/../dst-replay-$(basename "$scenario" .lua)-$seed.lua" 2>/dev/null || true
    fi
  done
  printf '%-32s %3d/%d seeds replay to the same trace hash (%d steps)\n' "$(basename "$scenario")" "$ok" "$seeds" "$steps"
done
echo "total: $((total - diverged)) of $total replays gave the original trace hash"
[ "$diverged" -eq 0 ]
