#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the default world with a
# fresh seed. Extra arguments go to `dst run` (for example --seed 42).
set -euo pipefail
cd "$(dirname "$0")/.."

ci/install-deps.sh
ci/build.sh
exec ./build/dst run "$@"
