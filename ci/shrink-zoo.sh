#!/usr/bin/env bash
# Shrinks one failing seed of every zoo bug (docs/shrink.md): for each row of the list below,
# `dst shrink SCENARIO --seed N -- --bug BUG`; copies the shrunk schedule to docs/shrunk/BUG.schedule.lua,
# checks that it fails with the bug and passes without it, and prints the table's rows.
#
#   ci/shrink-zoo.sh [--dst build/dst] [--jobs 2] [--out DIR]
#
# The seeds are the zoo's detecting seeds of the build that wrote docs/shrink.md; a change that
# moves every trace (most do) needs new ones: `dst sweep SCENARIO --seeds 10001..10100 --fail-fast
# -- --bug BUG` finds one. Exit 1 when a row did not shrink or its file does not behave.
set -euo pipefail
cd "$(dirname "$0")/.."
DST=build/dst
JOBS=2
OUT=$(mktemp -d)
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "ci/shrink-zoo.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$DST" ] || { echo "ci/shrink-zoo.sh: no dst binary at $DST (run ci/build.sh first)" >&2; exit 2; }
mkdir -p "$OUT" docs/shrunk
status=0
echo "| bug | scenario | seed | check | fault steps | operations | clients | watchers | virtual time | runs | wall time |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
while read -r bug scenario seed; do
  [ -z "$bug" ] && continue
  start=$(date +%s%N)
  rc=0
  "$DST" shrink "scenarios/$scenario" --seed "$seed" --jobs "$JOBS" --out "$OUT/$bug" -- --bug "$bug" \
    >"$OUT/$bug.out" 2>"$OUT/$bug.err" || rc=$?
  wall=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  reduced() { sed -n "s/^reduced  *$1 //p" "$OUT/$bug.out"; }  # "4 -> 1", or "4" when unchanged
  steps=$(reduced "fault steps"); ops=$(reduced operations); clients=$(reduced clients)
  watchers=$(reduced watchers); vtime=$(reduced "virtual time")
  runs=$(sed -n 's/^search  *\([0-9]*\) runs.*/\1/p' "$OUT/$bug.out")
  check=$(sed -n 's/^failure  *\([^:]*\):.*/\1/p' "$OUT/$bug.out")
  if [ "$rc" != 0 ]; then
    echo "| \`$bug\` | \`$scenario\` | $seed | not shrunk (exit $rc: $(tail -c 200 "$OUT/$bug.err" | tr '\n' ' ')) | | | | | | | |"
    status=1
    continue
  fi
  cp "$OUT/$bug/shrunk.schedule.lua" "docs/shrunk/$bug.schedule.lua"
  with=0; without=0
  "$DST" run --schedule "docs/shrunk/$bug.schedule.lua" >/dev/null 2>&1 || with=$?
  "$DST" run "scenarios/$scenario" --seed "$seed" --schedule "docs/shrunk/$bug.schedule.lua" >/dev/null 2>&1 || without=$?
  note=""
  if [ "$with" != 1 ] || [ "$without" != 0 ]; then
    status=1
    note=" (NOT AS EXPECTED: exit $with with the bug, $without without)"
  fi
  printf '| `%s` | `%s` | %s | %s%s | %s | %s | %s | %s | %s | %s | %s s |\n' "$bug" "$scenario" "$seed" "$check" "$note" \
    "$steps" "$ops" "$clients" "$watchers" "$vtime" "$runs" "$wall"
done <<'EOF'
stale-read paused_leader.lua 10031
ack-before-fsync lost_unsynced_writes.lua 10001
progress-notify-ahead crash_restart_storm.lua 10004
watch-duplicate-event compaction_watch.lua 10001
watch-lost-under-starvation swarm.lua 10072
applied-index-not-atomic crash_restart_storm.lua 10001
watch-drop-at-compaction compaction_watch.lua 10004
compaction-revision-decrease fault_points.lua 10003
watch-time-travel flapping_partitions.lua 10001
lease-expiry-on-follower-clock clock_skew_leases.lua 10001
restore-restarts-revisions disaster_recovery.lua 10001
vote-not-persisted fault_points.lua 10001
commit-old-term swarm.lua 10035
list-not-caught-up kube_apiserver_faults.lua 10002
informer-resume-skip kube_apiserver_faults.lua 10001
drop-on-ring-wrap kube_apiserver_faults.lua 10001
EOF
exit "$status"
