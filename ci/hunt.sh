#!/usr/bin/env bash
# The bug hunt a CI job runs (issue 21): the two swarm scenarios, which draw the faults, the
# cluster's size and timing, the workload and the Kubernetes layer from the seed, over a range of
# seeds each; no scenario is chosen per bug. Stops at the first failing seed of each scenario and
# prints its reproduce command.
#
#   ci/hunt.sh [--dst build/dst] [--seeds 500] [--kube-seeds 300] [--from 1] [--jobs 2] [--out DIR] [-- RUN ARGS]
#
# --seeds is for swarm.lua, --kube-seeds for swarm_kube.lua (a kube run costs more, and the kube
# layer's zoo bugs are found within 70 seeds; docs/bug-zoo.md).
#
# RUN ARGS go to every run (e.g. -- --bug stale-read to measure how soon a known bug is caught;
# a kube bug runs only on swarm_kube.lua, the one world with apiservers). With --explore, each
# scenario is explored instead (`dst explore --runs SEEDS --seed FROM`, docs/explore.md).
# Exit: 1 if a seed failed, else the sweeps' exit codes (0 all passed).
set -euo pipefail
cd "$(dirname "$0")/.."
DST=build/dst
SEEDS=500
KUBE_SEEDS=300
FROM=1
JOBS=2
OUT=""
EXPLORE=0
RUN_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --seeds) SEEDS="$2"; shift 2 ;;
    --kube-seeds) KUBE_SEEDS="$2"; shift 2 ;;
    --from) FROM="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --explore) EXPLORE=1; shift ;;
    --) shift; RUN_ARGS=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "ci/hunt.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for n in "$SEEDS" "$KUBE_SEEDS" "$FROM" "$JOBS"; do
  case "$n" in ''|*[!0-9]*) echo "ci/hunt.sh: --seeds, --kube-seeds, --from and --jobs take whole numbers" >&2; exit 2 ;; esac
done
[ -x "$DST" ] || { echo "ci/hunt.sh: no dst binary at $DST (run ci/build.sh first)" >&2; exit 2; }
if [ -z "$OUT" ]; then OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
kube_bug=0
for a in "${RUN_ARGS[@]}"; do
  case "$a" in *list-not-caught-up*|*informer-resume-skip*|*drop-on-ring-wrap*) kube_bug=1 ;; esac
done

worst=0
for scenario in scenarios/swarm.lua scenarios/swarm_kube.lua; do
  if [ "$kube_bug" -eq 1 ] && [ "$scenario" = scenarios/swarm.lua ]; then continue; fi
  name=$(basename "$scenario" .lua)
  n=$SEEDS
  if [ "$scenario" = scenarios/swarm_kube.lua ]; then n=$KUBE_SEEDS; fi
  set +e
  if [ "$EXPLORE" -eq 1 ]; then
    "$DST" explore "$scenario" --seed "$FROM" --runs "$n" --jobs "$JOBS" --out "$OUT/$name" -- "${RUN_ARGS[@]}"
  else
    "$DST" sweep "$scenario" --seeds "$FROM..$((FROM + n - 1))" --jobs "$JOBS" --fail-fast --out "$OUT/$name" -- "${RUN_ARGS[@]}"
  fi
  code=$?
  set -e
  echo "ci/hunt.sh: $name: exit $code"
  if [ "$code" -eq 1 ] || { [ "$code" -ne 0 ] && [ "$worst" -ne 1 ]; }; then worst=$code; fi
done
exit "$worst"
