#!/usr/bin/env bash
# Fuzzing: every fuzz target (fuzz/: a Lua scenario, a Jepsen history, a Porcupine kv log, a run
# database, etcdctl command lines, JSON, etcd robustness reports) under ASan + UBSan, SECONDS each, as many at once as there are
# cores.
#   ci/fuzz.sh SECONDS [--engine libfuzzer|driver] [TARGET...]
#     --engine libfuzzer (default): coverage-guided libFuzzer in build-fuzz/ (clang: ci/build.sh --fuzz)
#     --engine driver: the seeded mutational driver (fuzz/fuzz_replay_main.cc) in the gcc sanitizer
#       build, build-asan/; what .ci/run uses (ci/fuzz.sh 60 --engine driver), because a third
#       build would not fit CI's time
# DST_FUZZ_JOBS sets how many run at once (default: the cores). Corpora grow in BUILD/fuzz/corpus/<target>/ from testdata/fuzz/ (libFuzzer keeps what reaches new
# code); a crash, a hang (one input over 10 s), a leak or an out-of-memory leaves its input in
# BUILD/fuzz/artifacts/<target>/ (the driver: ./fuzz-crash-input there) and fails the run
# (exit 1). Prints per target the executions, executions per second, corpus size and outcome.
# Reproduce one input with BUILD/fuzz/fuzz_<target> FILE.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: ci/fuzz.sh SECONDS [--engine libfuzzer|driver] [TARGET...]   (targets: ${ALL[*]})" >&2; exit 2; }
ALL=(lua_scenario jepsen_history porcupine_log run_db etcdctl json etcd_report)
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then usage; fi
SECONDS_EACH=$1
shift
ENGINE=libfuzzer
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) [ $# -ge 2 ] || usage; ENGINE=$2; shift 2 ;;
    --engine=*) ENGINE=${1#--engine=}; shift ;;
    *) case " ${ALL[*]} " in *" $1 "*) TARGETS+=("$1"); shift ;; *) echo "ci/fuzz.sh: unknown target '$1'" >&2; usage ;; esac ;;
  esac
done
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=("${ALL[@]}"); fi
case "$ENGINE" in
  libfuzzer) BUILD=build-fuzz; ci/install-deps.sh >/dev/null; ci/build.sh --fuzz >/dev/null ;;
  driver) BUILD=build-asan; ci/install-deps.sh >/dev/null; ci/build.sh --sanitize >/dev/null ;;
  *) usage ;;
esac
OUT=$BUILD/fuzz
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# Seeds beyond testdata/fuzz/<target>/ (as fuzz/CMakeLists.txt has them), and dictionaries.
extra_seeds() {
  case "$1" in
    lua_scenario) echo scenarios testdata/scenarios ;;
    porcupine_log) echo testdata/porcupine-kv ;;
  esac
}
dict_of() {
  case "$1" in
    jepsen_history|porcupine_log) echo fuzz/history.dict ;;
    *) echo "fuzz/$1.dict" ;;
  esac
}

run_target() {
  local t=$1 corpus=$OUT/corpus/$1 artifacts=$OUT/artifacts/$1
  mkdir -p "$corpus" "$artifacts"
  cp -n testdata/fuzz/"$t"/* "$corpus"/ 2>/dev/null || true
  for d in $(extra_seeds "$t"); do
    for f in "$d"/*; do case "$f" in *.lua|*.txt|*.edn) cp -n "$f" "$corpus"/ ;; esac; done
  done
  if [ "$ENGINE" = libfuzzer ]; then
    "$BUILD/fuzz/fuzz_$t" "$corpus" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -dict="$(dict_of "$t")" -artifact_prefix="$artifacts/" -print_final_stats=1 \
      >"$OUT/$t.log" 2>&1
  else
    (cd "$artifacts" && timeout -s ABRT -k 10 $((SECONDS_EACH + 120)) "$OLDPWD/$BUILD/fuzz/fuzz_$t" \
      --seconds "$SECONDS_EACH" --seed "${DST_FUZZ_SEED:-$RANDOM}" "$OLDPWD/$corpus") >"$OUT/$t.log" 2>&1
  fi
}

mkdir -p "$OUT"
JOBS=${DST_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
pids=()
for t in "${TARGETS[@]}"; do
  run_target "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$JOBS" ]; then wait "${pids[0]}" || true; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || true; done

status=0
printf '%-16s %12s %10s %8s  %s\n' target executions "exec/s" corpus outcome
for t in "${TARGETS[@]}"; do
  log=$OUT/$t.log
  if [ "$ENGINE" = libfuzzer ]; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  else
    execs=$(sed -n 's/^executions \([0-9]*\).*/\1/p' "$log" | tail -1)
  fi
  rate=$([ -n "${execs:-}" ] && echo $((execs / SECONDS_EACH)) || echo "?")
  corpus=$(find "$OUT/corpus/$t" -type f | wc -l)
  found=$(find "$OUT/artifacts/$t" -type f | wc -l)
  if [ -z "${execs:-}" ] || [ "$found" -gt 0 ] || grep -q "ERROR: libFuzzer\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|broken promise" "$log"; then
    outcome="FAILED: see $log and $OUT/artifacts/$t/"
    status=1
  else
    outcome="0 crashes, 0 hangs"
  fi
  printf '%-16s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "$rate" "$corpus" "$outcome"
done
exit $status
