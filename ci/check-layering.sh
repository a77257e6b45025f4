#!/usr/bin/env bash
# The layering of the source tree, checked on every #include "dir/..." (ctest runs it):
#   ci/check-layering.sh [ROOT]      exit 0 when every rule holds, 1 naming each include that breaks one
#   ci/check-layering.sh --self-test checks that a tree with forbidden includes fails, a clean one passes
#
# A rule: the folder, the folders (or single headers, named with their .h) it must not include,
# and whether its tests (*_test.cc, *_test_util.h) are held to it too. Why these: node/ is the
# member alone (what a real etcd is), so it knows nothing of the harness around it, and it sees
# the simulation only through its process's sim::Env (sim/env.h: time, sleep, its fibers, files,
# sockets, its random streams), never the Simulator or the whole Network that can kill, pause and
# partition (rpc/ too: the member opens connections through it); faults/ reaches a cluster only through faults::ClusterTarget; sim/ and base/ are the
# bottom every other folder stands on.
set -euo pipefail

RULES=(
  # folder           | forbidden folders                                   | tests too?
  "node              | client history faults scenarios kube tools reports checker fuzz bench demo | yes"
  "node              | world sim/simulator.h sim/network.h sim/process_env.h | no"
  "faults            | node/server scenarios kube tools reports            | yes"
  "faults            | world                                               | no"
  "sim               | node client history faults scenarios kube tools world rpc reports checker | yes"
  "base              | sim node client history faults scenarios kube tools world rpc reports checker | yes"
  "rpc               | node client history faults scenarios kube tools world | yes"
  "rpc               | sim/simulator.h sim/network.h sim/process_env.h       | no"
  "history           | node client faults scenarios kube tools world sim    | yes"
)

trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

# check ROOT: prints one line per forbidden include; returns 1 if there was any.
check() {
  local root="$1" broken=0 rule dir forbidden tests file line target f where
  for rule in "${RULES[@]}"; do
    IFS='|' read -r dir forbidden tests <<<"$rule"
    dir=$(trim "$dir"); forbidden=$(trim "$forbidden"); tests=$(trim "$tests")
    [ -d "$root/$dir" ] || continue
    while IFS= read -r -d '' file; do
      if [ ! -r "$file" ]; then echo "${file#"$root"/}: cannot be read"; broken=1; continue; fi
      if [ "$tests" = no ] && [[ "$file" == *_test.cc || "$file" == *_test_util.h ]]; then continue; fi
      while IFS=: read -r line target; do
        # In bash, not a sed per line: a fork per include made this test take a minute.
        [[ "$target" =~ include[[:space:]]*[\<\"]([^\">]*) ]] && target="${BASH_REMATCH[1]}"
        for f in $forbidden; do
          if [[ "$target" == "$f/"* || "$target" == "$f" ]]; then
            where="$dir/"
            [ "$tests" = no ] && where="$dir/ (outside its tests)"
            local what="$f/"
            [[ "$f" == *.h ]] && what="$f"
            echo "${file#"$root"/}:$line: includes \"$target\": $where must not include $what"
            broken=1
          fi
        done
      done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$file" || true)
    done < <(find "$root/$dir" -type f \( -name '*.h' -o -name '*.cc' \) -print0 | sort -z)
  done
  return "$broken"
}

self_test() {
  # Global, not local: the EXIT trap runs after this function has returned.
  SELF_TEST_DIR=$(mktemp -d)
  local tmp="$SELF_TEST_DIR"
  trap 'rm -rf "$SELF_TEST_DIR"' EXIT
  mkdir -p "$tmp/node/server" "$tmp/faults" "$tmp/world"
  printf '#include "node/raft/raft.h"\n#include "sim/env.h"\n#include "sim/simulator_x.h"\n' >"$tmp/node/server/ok.cc"
  printf '#include "world/kv_world.h"\n#include "sim/simulator.h"\n' >"$tmp/node/server/api_test.cc"
  printf '#include "faults/cluster_target.h"\n#include "node/server/server.h"\n' >"$tmp/world/ok.h"
  if ! out=$(check "$tmp"); then echo "self-test: a clean tree was refused: $out"; return 1; fi
  printf '#include <string>\n  #  include "client/kv_client.h"\n' >"$tmp/node/server/bad.cc"
  printf '#include "world/sim_cluster.h"\n' >"$tmp/node/server/bad2.h"
  printf '#include "node/server/server.h"\n' >"$tmp/faults/bad.h"
  printf '#include <history/history.h>\n' >"$tmp/node/server/bad_test.cc"
  printf '#include "sim/sync.h"\n#include <sim/simulator.h>\n' >"$tmp/node/server/bad3.cc"
  if out=$(check "$tmp"); then echo "self-test: forbidden includes passed"; return 1; fi
  local want
  for want in 'node/server/bad.cc:2: includes "client/kv_client.h"' 'node/server/bad2.h:1: includes "world/sim_cluster.h"' \
              'faults/bad.h:1: includes "node/server/server.h"' 'node/server/bad_test.cc:1: includes "history/history.h"' \
              'node/server/bad3.cc:2: includes "sim/simulator.h": node/ (outside its tests) must not include sim/simulator.h'; do
    grep -qF "$want" <<<"$out" || { echo "self-test: not reported: $want"; echo "$out"; return 1; }
  done
  [ "$(wc -l <<<"$out")" -eq 5 ] || { echo "self-test: expected 5 lines:"; echo "$out"; return 1; }
  echo "self-test: ok"
}

if [ "${1:-}" = "--self-test" ]; then self_test; exit; fi
ROOT="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
if check "$ROOT"; then echo "layering: ok"; else exit 1; fi
