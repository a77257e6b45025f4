#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the default scenario
# (scenarios/leader_isolation.lua) with a fresh seed, writing its run database and report to
# build/quickstart/ (open build/quickstart/report/index.html). Arguments replace the default:
#   ci/quickstart.sh scenarios/swarm.lua --seed 42 --out build/swarm42
set -euo pipefail
cd "$(dirname "$0")/.."

ci/install-deps.sh
ci/build.sh
if [ $# -eq 0 ]; then
  rm -rf build/quickstart
  exec ./build/dst run scenarios/leader_isolation.lua --out build/quickstart
fi
exec ./build/dst run "$@"
