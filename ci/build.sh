#!/usr/bin/env bash
# Configures and builds dst with CMake + Ninja.
#   ci/build.sh              -> build/        (RelWithDebInfo, assertions on)
#   ci/build.sh --sanitize   -> build-asan/   (AddressSanitizer + UndefinedBehaviorSanitizer)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=build
EXTRA=()
for arg in "$@"; do
  case "$arg" in
    --sanitize) BUILD_DIR=build-asan; EXTRA+=(-DDST_SANITIZE=ON) ;;
    *) echo "usage: ci/build.sh [--sanitize]" >&2; exit 2 ;;
  esac
done

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${EXTRA[@]}" >/dev/null
# Two jobs: CI and developer machines have 2 cores; more only adds memory pressure.
ninja -C "$BUILD_DIR" -j "$(nproc 2>/dev/null || echo 2)"
