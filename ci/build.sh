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
# A compiler cache when ccache is installed (ci/install-deps.sh installs it): CI builds each
# submission in a fresh clone in another folder, so paths are taken relative to the clone
# (CCACHE_BASEDIR) and the working directory is not hashed (CCACHE_NOHASHDIR): the same sources
# compile to the same cached objects wherever they are cloned. PCH and __DATE__ need the sloppiness.
LAUNCHER=()
if command -v ccache >/dev/null 2>&1 && [ "${DST_CCACHE:-1}" != 0 ]; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=)  # DST_CCACHE=0 turns it off in an existing build tree too
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "${LAUNCHER[@]}" "${EXTRA[@]}" >/dev/null
# Two jobs: CI and developer machines have 2 cores; more only adds memory pressure.
ninja -C "$BUILD_DIR" -j "$(nproc 2>/dev/null || echo 2)"
