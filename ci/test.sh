#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs the whole test suite.
#   ci/test.sh              normal build (build/)
#   ci/test.sh --sanitize   the same tests under ASan + UBSan (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."

ci/install-deps.sh
ci/build.sh "$@"
BUILD_DIR=build
if [ "${1:-}" = "--sanitize" ]; then BUILD_DIR=build-asan; fi
# halt_on_error: a sanitizer report fails the test that caused it.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$BUILD_DIR"
rc=0
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" || rc=$?
# Where the suite's time goes: the ten slowest tests of this run (ctest's own cost data, seconds).
if [ -r Testing/Temporary/CTestCostData.txt ]; then
  echo "--- slowest tests ($BUILD_DIR)"
  # awk takes the first ten itself: a `head` would close the pipe early, and pipefail would turn
  # sort's SIGPIPE into the script's exit status.
  sed '/^---/,$d' Testing/Temporary/CTestCostData.txt | sort -k3 -g -r | awk 'NR <= 10 {printf "%8.1fs  %s\n", $3, $1}' || true
fi
exit "$rc"
