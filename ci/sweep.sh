#!/usr/bin/env bash
# The longer seed sweep, on this machine, behind its own command (ci/test.sh runs only a few seeds).
#   ci/sweep.sh [SCENARIO] [SEEDS] [-- RUN ARGS...]
#     SCENARIO   etcd (default), raft, or a scenario file
#     SEEDS      A..B, default 1..300
#     RUN ARGS   passed to every `dst run`; default for etcd: --duration 5s
#   Environment: DST (the binary, default build/dst, built with ci/build.sh when missing),
#   SWEEP_OUT (default build/sweep-SCENARIO), JOBS (default: all CPUs), plus --shard's variables
#   (JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID with DST_SHARDS) when run as one shard of many.
# Exit code: dst sweep's (0 all passed, 1 a violation, 2 usage/scenario error, 3 a checker gave up).
# Writes SWEEP_OUT/sweep.tsv, summary.txt and the logs; see docs/sweep.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SCENARIO=etcd
SEEDS=1..300
if [ $# -gt 0 ] && [ "$1" != "--" ]; then SCENARIO=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then SEEDS=$1; shift; fi
RUN_ARGS=()
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || { echo "usage: ci/sweep.sh [SCENARIO] [SEEDS] [-- RUN ARGS...]" >&2; exit 2; }
  shift
  RUN_ARGS=("$@")
elif [ "$SCENARIO" = etcd ]; then
  RUN_ARGS=(--duration 5s)
fi

DST=${DST:-build/dst}
if [ ! -x "$DST" ]; then ci/build.sh; fi
SWEEP=("$DST" sweep)
OUT=${SWEEP_OUT:-build/sweep-$(basename "$SCENARIO" .lua)}
JOB_ARGS=()
if [ -n "${JOBS:-}" ]; then JOB_ARGS=(--jobs "$JOBS"); fi
# These worlds write no run directory (no --out): logs only.
case "$SCENARIO" in raft|demo) JOB_ARGS+=(--no-run-out) ;; esac

echo "ci/sweep.sh: $SCENARIO seeds $SEEDS -> $OUT" >&2
exec "${SWEEP[@]}" "$SCENARIO" --seeds "$SEEDS" --out "$OUT" "${JOB_ARGS[@]}" -- "${RUN_ARGS[@]}"
