#!/usr/bin/env bash
# Configures and builds dst with CMake + Ninja.
#   ci/build.sh              -> build/        (RelWithDebInfo, assertions on)
#   ci/build.sh --sanitize   -> build-asan/   (AddressSanitizer + UndefinedBehaviorSanitizer)
#   ci/build.sh --fuzz       -> build-fuzz/   (clang: the same sanitizers, and libFuzzer's fuzz targets with
#                                            coverage of the parsers they explore; ci/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=build
EXTRA=()
for arg in "$@"; do
  case "$arg" in
    --sanitize) BUILD_DIR=build-asan; EXTRA+=(-DDST_SANITIZE=ON) ;;
    # clang for libFuzzer (gcc has none). Not the sanitizer build's compiler: on these 2-core
    # machines clang's sanitized test suite runs 2.3x longer than gcc's (597 s against 259 s).
    --fuzz) BUILD_DIR=build-fuzz; EXTRA+=(-DDST_SANITIZE=ON -DDST_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++) ;;
    *) echo "usage: ci/build.sh [--sanitize | --fuzz]" >&2; exit 2 ;;
  esac
done

# Unity builds: each target's sources compiled eight to a translation unit, so the headers' inline
# code and templates are compiled once per eight files instead of once per file (CI spends most of
# its time compiling; see docs/performance.md for the measured build times). File-local names
# (anonymous namespaces) must therefore be unique within a target.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "${EXTRA[@]}" >/dev/null
# Two jobs: CI and developer machines have 2 cores; more only adds memory pressure.
ninja -C "$BUILD_DIR" -j "$(nproc 2>/dev/null || echo 2)"
