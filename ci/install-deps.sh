#!/usr/bin/env bash
# Installs the Debian packages dst needs, only those that are missing. Idempotent; safe to run often.
# Runs apt-get through sudo when not root.
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
  clang libclang-rt-14-dev # the sanitizer build and its fuzz targets (libFuzzer: ci/fuzz.sh)
)

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
