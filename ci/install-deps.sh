#!/usr/bin/env bash
# Installs the Debian packages dst needs, only those that are missing. Idempotent; safe to run often.
# Runs apt-get through sudo when not root.
#   --porcupine  also golang-go: to build bench/porcupine_helper (ci/porcupine-helper.sh), which times
#                Porcupine's own checker next to ours in `dst bench checker`. Not needed to build or
#                test dst, so CI does not install it.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libboost-context-dev     # fibers (Boost.Context)
  libsqlite3-dev           # the node backend and the run database
  sqlite3                  # the sqlite3 shell: docs/run-db.md's queries; tests compare run databases
  libprotobuf-dev protobuf-compiler  # raft messages, WAL records, the etcd API
  liblua5.4-dev            # scenarios
  libgtest-dev             # unit tests
  libbenchmark-dev         # dst bench
  libgoogle-perftools-dev  # tcmalloc: the dst binary's and the tests' allocator (a fifth faster)
  gnuplot-nox              # reports
  python3                  # ci/check-function-length.py (a test: no function over 70 lines)
  ccache                   # compiler cache: a fresh clone in another folder reuses an earlier build's objects (ci/build.sh)
  clang libclang-rt-14-dev # the sanitizer build and its fuzz targets (libFuzzer: ci/fuzz.sh)
)

for arg in "$@"; do
  case "$arg" in
    --porcupine) PACKAGES+=(golang-go) ;;  # Go 1.19: Porcupine's module (go 1.16, no dependencies) builds offline
    *) echo "install-deps: unknown option '$arg' (known: --porcupine)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
