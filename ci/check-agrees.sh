#!/usr/bin/env bash
# `dst check RUN.db` decides as the `dst run` that wrote RUN.db: the same exit code, the same verdict
# line and the same first violation (deciding check, rule and message), for passing runs and for a
# failing run of every bug of the zoo (issue 48). Each run's database and both outputs stay in DIR.
#   ci/check-agrees.sh [--dst build/dst] [--out DIR] [--runs N] [--max-seeds S] [--quick]
#     --runs N       passing-or-not runs of the standard scenarios (seeds 1, 2, ... of each), default 60
#     --max-seeds S  seeds tried per zoo bug for a failing run (10001..), default 20
#     --quick        the CI version: 4 plain runs and three zoo bugs (a Raft, a watch and a kube one)
#     --only BUG     only that zoo bug (repeatable), after the --runs plain runs
# Exit 0 when every run agrees, 1 naming each that does not, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."
DST=build/dst OUT="" RUNS=60 MAX_SEEDS=20 QUICK=0 ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --max-seeds) MAX_SEEDS="$2"; shift 2 ;;
    --quick) QUICK=1; RUNS=4; shift ;;
    --only) ONLY+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "ci/check-agrees.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$DST" ] || { echo "ci/check-agrees.sh: no dst binary at $DST" >&2; exit 2; }
if [ -z "$OUT" ]; then OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
mkdir -p "$OUT"

# The zoo's bugs and the scenario that catches each (ci/bug-zoo.sh's table).
ZOO=$(sed -n '/^ZOO=(/,/^)/p' ci/bug-zoo.sh | grep -o '"[^"]*"' | tr -d '"' | awk -F'|' '{print $1 "|" $3}')
[ "$QUICK" = 1 ] && ZOO=$(grep -E '^(ack-before-fsync|watch-duplicate-event|informer-resume-skip)\|' <<<"$ZOO")
if [ ${#ONLY[@]} -gt 0 ]; then ZOO=$(grep -E "^($(IFS='|'; echo "${ONLY[*]}"))\|" <<<"$ZOO" || true); fi

runs=0 disagree=0 failing=0
decided() { grep -E '^(first violation:|verdict  )' "$1"; }
# agree NAME ARGS...: runs, checks the database, compares; sets $code to the run's exit code.
agree() {
  local name="$1"; shift
  local dir="$OUT/$name"
  rm -rf "$dir"
  "$DST" run "$@" --out "$dir" > "$dir.run.txt" 2>&1; code=$?
  "$DST" check "$dir/run.db" --no-explain > "$dir.check.txt" 2>&1; local check=$?
  runs=$((runs + 1))
  if [ "$code" -ne "$check" ] || [ "$(decided "$dir.run.txt")" != "$(decided "$dir.check.txt")" ]; then
    echo "DISAGREE $name: dst run $* exited $code, dst check $check"
    diff <(decided "$dir.run.txt") <(decided "$dir.check.txt") | sed 's/^/  /'
    disagree=$((disagree + 1))
  else
    echo "agree    $name: exit $code, $(grep '^first violation:' "$dir.run.txt" | cut -c19- | cut -c1-90)"
  fi
}

scenarios=(scenarios/*.lua)
for ((i = 0; runs < RUNS; i++)); do
  f=${scenarios[$((i % ${#scenarios[@]}))]}
  seed=$((i / ${#scenarios[@]} + 1))
  agree "$(basename "$f" .lua)-$seed" "$f" --seed "$seed"
done
while IFS='|' read -r bug scenario; do
  [ -n "$bug" ] || continue
  found=0
  for ((s = 10001; s < 10001 + MAX_SEEDS; s++)); do
    agree "$bug-$s" "scenarios/$scenario" --seed "$s" --bug "$bug"
    if [ "$code" -eq 1 ]; then found=1; failing=$((failing + 1)); break; fi
  done
  [ "$found" = 1 ] || echo "note     $bug: no failing seed in 10001..$((10000 + MAX_SEEDS)) of $scenario"
done <<<"$ZOO"
echo "$runs runs, $failing zoo bugs caught, $disagree disagreements"
[ "$disagree" -eq 0 ]
