#!/usr/bin/env bash
# The layering of the source tree, checked on every #include "dir/..." (ctest runs it):
#   ci/check-layering.sh [ROOT]      exit 0 when every rule holds, 1 naming each include that breaks one
#                                    (and each source folder that has no rule)
#   ci/check-layering.sh --self-test checks that a tree with forbidden includes fails, a clean one passes
#   ci/check-layering.sh --folders   the folders the rules cover, one per line
#   ci/check-layering.sh --rules     "folder: what its code may include", one per line (docs/architecture.md's
#                                    folder table says the same: ci/check-architecture-doc.sh compares them)
#
# ALLOWED: each folder, the folders its code may include, and the folders its tests (*_test.cc,
# *_test_util.h, *_testing.h) may include besides. Anything else is refused, so a new upward
# include fails here. The picture (docs/architecture.md): base and proto at the bottom, sim on
# base; node/ is the member alone (what a real etcd is), seeing the simulation only through its
# process's sim::Env; client/ and kube/ talk to members over rpc/; history/ is what clients saw;
# checker/ judges a history and never sees the world that made it; faults/ acts through targets
# the world implements; world/ composes a run; scenarios/ drive a world; reports/ show a run's
# database; runs/ is the many-runs machinery; tools/ is the command line on top of everything.
#
# FORBIDDEN_HEADERS: single headers of an allowed folder that a folder must still not include
# outside its tests: node/ and rpc/ never the Simulator or the whole Network that can kill, pause
# and partition; faults/ never the member's server (it reaches a cluster through ClusterTarget).
set -euo pipefail

ALLOWED=(
  # folder    | its code may include                                            | its tests also
  "base       |                                                                 |"
  "proto      |                                                                 |"
  "sim        | base                                                            |"
  "demo       | base sim                                                        |"
  "rpc        | base proto sim                                                  |"
  "node       | base proto rpc sim                                              | world"
  "history    | base proto                                                      |"
  "client     | base history node proto rpc sim                                 |"
  "faults     | base history node proto sim                                     | world"
  "checker    | base history proto sim                                          | world client node faults"
  "kube       | base client faults history proto rpc sim                        | node world"
  "world      | base checker client faults history kube node proto rpc sim      |"
  "scenarios  | base checker client faults history kube node proto rpc sim world | tools"
  "reports    | base checker history proto sim                                  | tools world client node faults"
  "runs       | base sim                                                        |"
  "bench      | base checker client demo faults history node proto rpc runs sim world |"
  "tools      | base bench checker client demo faults history kube node proto reports rpc runs scenarios sim world |"
  "fuzz       | base checker client history kube node proto reports rpc scenarios sim tools world |"
)

FORBIDDEN_HEADERS=(
  "node   | sim/simulator.h sim/network.h sim/process_env.h"
  "rpc    | sim/simulator.h sim/network.h sim/process_env.h"
  "faults | node/server"
)

trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

folders() {
  local rule dir
  for rule in "${ALLOWED[@]}"; do IFS='|' read -r dir _ <<<"$rule"; trim "$dir"; echo; done
}

# "folder: what its code may include", one per line (docs/architecture.md's table says the same).
rules() {
  local rule dir allowed
  for rule in "${ALLOWED[@]}"; do
    IFS='|' read -r dir allowed _ <<<"$rule"
    echo "$(trim "$dir"): $(trim "$allowed" | tr -s ' ')"
  done
}

is_test_file() { [[ "$1" == *_test.cc || "$1" == *_test_util.h || "$1" == *_testing.h ]]; }

# forbidden_header DIR TARGET: prints the forbidden header or folder TARGET falls under, if any.
forbidden_header() {
  local rule dir headers h
  for rule in "${FORBIDDEN_HEADERS[@]}"; do
    IFS='|' read -r dir headers <<<"$rule"
    [ "$(trim "$dir")" = "$1" ] || continue
    for h in $headers; do
      if [[ "$2" == "$h" || "$2" == "$h/"* ]]; then echo "$h"; return; fi
    done
  done
}

# check_file ROOT DIR FILE ALLOWED TEST_ALLOWED KNOWN: one line per include that breaks a rule.
check_file() {
  local root="$1" dir="$2" file="$3" allowed="$4" test_allowed="$5" known="$6" line target top header broken=0
  local test=no
  is_test_file "$file" && test=yes
  while IFS=: read -r line target; do
    # In bash, not a sed per line: a fork per include made this test take a minute.
    [[ "$target" =~ include[[:space:]]*[\<\"]([^\">]*) ]] && target="${BASH_REMATCH[1]}"
    top="${target%%/*}"
    [ "$top" != "$target" ] || continue              # "foo.h": not a folder of the project
    [[ " $known " == *" $top "* ]] || continue        # <gtest/...>, <boost/...>: not ours
    if [ "$top" != "$dir" ] && [[ " $allowed " != *" $top "* ]]; then
      if [ "$test" = no ] || [[ " $test_allowed " != *" $top "* ]]; then
        echo "${file#"$root"/}:$line: includes \"$target\": $dir/ must not include $top/"
        broken=1
        continue
      fi
    fi
    if [ "$test" = no ] && header=$(forbidden_header "$dir" "$target") && [ -n "$header" ]; then
      echo "${file#"$root"/}:$line: includes \"$target\": $dir/ (outside its tests) must not include $header"
      broken=1
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$file" || true)
  return "$broken"
}

# check ROOT: prints one line per forbidden include or folder without a rule; returns 1 if any.
check() {
  local root="$1" broken=0 rule dir allowed test_allowed file known sub
  known=$(folders | tr '\n' ' ')
  # Every folder with sources has a rule (build trees and third-party helpers aside).
  while IFS= read -r -d '' sub; do
    sub="${sub#"$root"/}"
    [[ " $known " == *" $sub "* ]] && continue
    case "$sub" in build* | .* | testdata | docs | ci | cmake) continue ;; esac
    if [ -n "$(find "$root/$sub" -type f \( -name '*.h' -o -name '*.cc' \) -print -quit)" ]; then
      echo "$sub/: has sources but no rule in ci/check-layering.sh (ALLOWED)"
      broken=1
    fi
  done < <(find "$root" -mindepth 1 -maxdepth 1 -type d -print0 | sort -z)
  for rule in "${ALLOWED[@]}"; do
    IFS='|' read -r dir allowed test_allowed <<<"$rule"
    dir=$(trim "$dir"); allowed=$(trim "$allowed"); test_allowed=$(trim "$test_allowed")
    [ -d "$root/$dir" ] || continue
    while IFS= read -r -d '' file; do
      if [ ! -r "$file" ]; then echo "${file#"$root"/}: cannot be read"; broken=1; continue; fi
      check_file "$root" "$dir" "$file" "$allowed" "$test_allowed" "$known" || broken=1
    done < <(find "$root/$dir" -type f \( -name '*.h' -o -name '*.cc' \) -print0 | sort -z)
  done
  return "$broken"
}

self_test() {
  # Global, not local: the EXIT trap runs after this function has returned.
  SELF_TEST_DIR=$(mktemp -d)
  local tmp="$SELF_TEST_DIR"
  trap 'rm -rf "$SELF_TEST_DIR"' EXIT
  mkdir -p "$tmp/node/server" "$tmp/faults" "$tmp/world" "$tmp/checker/suite" "$tmp/reports" "$tmp/tools"
  printf '#include "node/raft/raft.h"\n#include "sim/env.h"\n#include "sim/simulator_x.h"\n#include <gtest/gtest.h>\n' >"$tmp/node/server/ok.cc"
  printf '#include "world/kv_world.h"\n#include "sim/simulator.h"\n' >"$tmp/node/server/api_test.cc"
  printf '#include "faults/cluster_target.h"\n#include "node/server/server.h"\n' >"$tmp/world/ok.h"
  printf '#include "history/history.h"\n#include "world/sim_cluster.h"\n' >"$tmp/checker/suite/x_test.cc"
  printf '#include "checker/suite/check_suite.h"\n' >"$tmp/reports/ok.cc"
  printf '#include "reports/run_report_writer.h"\n#include "world/kv_world.h"\n' >"$tmp/tools/ok.cc"
  if ! out=$(check "$tmp"); then echo "self-test: a clean tree was refused: $out"; return 1; fi
  printf '#include <string>\n  #  include "client/kv_client.h"\n' >"$tmp/node/server/bad.cc"
  printf '#include "world/sim_cluster.h"\n' >"$tmp/node/server/bad2.h"
  printf '#include "node/server/server.h"\n' >"$tmp/faults/bad.h"
  printf '#include <history/history.h>\n#include "kube/apiserver.h"\n' >"$tmp/node/server/bad_test.cc"
  printf '#include "sim/sync.h"\n#include <sim/simulator.h>\n' >"$tmp/node/server/bad3.cc"
  printf '#include "world/kv_run_world.h"\n' >"$tmp/checker/suite/bad.cc"
  printf '#include "tools/exit_codes.h"\n' >"$tmp/reports/bad.h"
  mkdir -p "$tmp/newfolder" && printf 'int x;\n' >"$tmp/newfolder/x.cc"
  if out=$(check "$tmp"); then echo "self-test: forbidden includes passed"; return 1; fi
  local want
  for want in 'node/server/bad.cc:2: includes "client/kv_client.h": node/ must not include client/' \
              'node/server/bad2.h:1: includes "world/sim_cluster.h"' \
              'faults/bad.h:1: includes "node/server/server.h": faults/ (outside its tests) must not include node/server' \
              'node/server/bad_test.cc:2: includes "kube/apiserver.h"' \
              'node/server/bad3.cc:2: includes "sim/simulator.h": node/ (outside its tests) must not include sim/simulator.h' \
              'checker/suite/bad.cc:1: includes "world/kv_run_world.h": checker/ must not include world/' \
              'reports/bad.h:1: includes "tools/exit_codes.h": reports/ must not include tools/' \
              'newfolder/: has sources but no rule'; do
    grep -qF "$want" <<<"$out" || { echo "self-test: not reported: $want"; echo "$out"; return 1; }
  done
  # <history/history.h> from node's test: refused too (angle brackets are no way around a rule).
  grep -qF 'node/server/bad_test.cc:1: includes "history/history.h"' <<<"$out" ||
    { echo "self-test: an angle-bracket include was not checked"; echo "$out"; return 1; }
  [ "$(wc -l <<<"$out")" -eq 9 ] || { echo "self-test: expected 9 lines:"; echo "$out"; return 1; }
  echo "self-test: ok"
}

case "${1:-}" in
  --self-test) self_test; exit ;;
  --folders) folders; exit ;;
  --rules) rules; exit ;;
esac
ROOT="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
if check "$ROOT"; then echo "layering: ok"; else exit 1; fi
