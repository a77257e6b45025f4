#!/usr/bin/env bash
# Swarm alone against guided exploration (issue 21), for every zoo bug: runs and wall time to the
# first detection with (a) the plain seed sweep of swarm.lua (swarm_kube.lua for the kube layer's
# bugs), seeds one at a time from 5 ranges (10001.., 20001.., ...), and (b) `dst explore` of the
# same scenario with explorer seeds 1..5,
# --jobs 1. Medians of 5; "runs" counts up to and including the detecting run (exploration's wall
# time includes the rest of that run's batch of 8). The plain sweep of each bug's own scenario is
# ci/bug-zoo.sh's table. Writes Markdown rows to --out (default stdout).
#
#   ci/explore-zoo.sh [--dst build/dst] [--reps 5] [--max-runs 200] [--only NAME,NAME] [--out FILE]
#                     [--swarm-only] [--jobs J]
#
# --swarm-only measures (a) alone (the explore columns print "-"); --jobs runs that many seed
# ranges of a bug at once (wall times are then per range, on a shared machine).
#
# Nothing is timed against a threshold: the table reports what was measured.
set -euo pipefail
cd "$(dirname "$0")/.."
DST=build/dst
REPS=5
MAX_RUNS=200
ONLY=""
OUT=/dev/stdout
SWARM_ONLY=0
JOBS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --reps) REPS="$2"; shift 2 ;;
    --max-runs) MAX_RUNS="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --swarm-only) SWARM_ONLY=1; shift ;;
    --jobs) JOBS="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "ci/explore-zoo.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$DST" ] || { echo "ci/explore-zoo.sh: no dst binary at $DST (run ci/build.sh first)" >&2; exit 2; }

# Every zoo bug with the swarm scenario of its layer: swarm.lua for etcd's and Raft's, swarm_kube.lua
# for the kube layer's (a kube bug needs apiservers; no other choice is made per bug).
BUGS=(stale-read ack-before-fsync progress-notify-ahead watch-duplicate-event watch-lost-under-starvation
      applied-index-not-atomic watch-drop-at-compaction compaction-revision-decrease watch-time-travel
      lease-expiry-on-follower-clock lease-renew-on-stale-leader vote-not-persisted commit-old-term
      list-not-caught-up informer-resume-skip drop-on-ring-wrap)
scenario_of() {
  case "$1" in list-not-caught-up|informer-resume-skip|drop-on-ring-wrap) echo scenarios/swarm_kube.lua ;; *) echo scenarios/swarm.lua ;; esac
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now_ms() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
secs() { awk '{printf "%.1f", $1 / 1000}'; }

# swarm_alone BUG K: echo "RUNS MS" of the first detection from seed K*10000+1 on, or "- MS".
swarm_alone() {
  local start=$(($2 * 10000 + 1)) t0 s code scenario
  scenario=$(scenario_of "$1")
  t0=$(now_ms)
  for ((s = start; s < start + MAX_RUNS; s++)); do
    set +e
    "$DST" run "$scenario" --seed "$s" --bug "$1" >"$work/run.$1.$2.log" 2>&1
    code=$?
    set -e
    if [ "$code" -eq 1 ]; then echo "$((s - start + 1)) $(($(now_ms) - t0))"; return; fi
  done
  echo "- $(($(now_ms) - t0))"
}

# explored BUG K: the same with `dst explore --seed K`.
explored() {
  local t0 first
  t0=$(now_ms)
  rm -rf "$work/explore"
  "$DST" explore "$(scenario_of "$1")" --seed "$2" --runs "$MAX_RUNS" --jobs 1 --out "$work/explore" -- --bug "$1" >/dev/null 2>&1 || true
  first=$(awk -F'\t' 'NR > 1 && ($6 == "violation" || $6 == "crash" || $6 == "timeout") {print $1 + 1; exit}' "$work/explore/explore.tsv")
  echo "${first:--} $(($(now_ms) - t0))"
}

# summarize "RUNS MS" lines: median runs, median seconds over the detections, detections / reps.
summarize() {
  local lines found
  lines=$(cat)
  found=$(printf '%s\n' "$lines" | awk '$1 != "-"' | wc -l)
  if [ "$found" -eq 0 ]; then echo "> $MAX_RUNS | - | 0 / $REPS"; return; fi
  echo "$(printf '%s\n' "$lines" | awk '$1 != "-" {print $1}' | median) | $(printf '%s\n' "$lines" | awk '$1 != "-" {print $2}' | median | secs) s | $found / $REPS"
}

for bug in "${BUGS[@]}"; do
  if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$bug,"* ]]; then continue; fi
  plain="" explore=""
  if [ "$SWARM_ONLY" -eq 1 ]; then
    # The seed ranges at once, at most JOBS at a time; each writes its "RUNS MS" line to a file.
    for ((k = 1; k <= REPS; k++)); do
      while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
      swarm_alone "$bug" "$k" >"$work/plain.$k" &
    done
    wait
    for ((k = 1; k <= REPS; k++)); do
      p=$(cat "$work/plain.$k")
      echo "explore-zoo: $bug rep $k: swarm alone $p" >&2
      plain+="$p"$'\n'
      explore+="- 0"$'\n'
    done
  else
    for ((k = 1; k <= REPS; k++)); do
      p=$(swarm_alone "$bug" "$k")
      e=$(explored "$bug" "$k")
      echo "explore-zoo: $bug rep $k: swarm alone $p, explore $e" >&2
      plain+="$p"$'\n'
      explore+="$e"$'\n'
    done
  fi
  echo "| \`$bug\` | \`$(basename "$(scenario_of "$bug")")\` | $(printf '%s' "$plain" | summarize) | $(printf '%s' "$explore" | summarize) |" >>"$OUT"
done
