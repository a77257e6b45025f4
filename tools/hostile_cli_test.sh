#!/bin/sh
# Hostile and wrong command lines and files (issue #19): each must end in a clear error with the
# right exit code, never a silent answer. Usage: hostile_cli_test.sh DST WORKDIR TESTDATA
set -u
HERE=$(cd "$(dirname "$0")" && pwd)  # before the cd below: $0 may be relative
DST=$1
WORK=$2
DATA=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
. "$HERE/cli_expect.sh"

: > empty.txt
printf '\n\n  \n' > blank.txt
mkdir -p adir adir.lua
printf '\033LuaT\000' > binary.lua
printf 'cluster{nodes=3}\nrun_for(s(2))\nat(s(1), function() partition{{7}} end)\n' > runtime.lua

expect 2 "empty.txt: the file is empty" -- "$DST" check empty.txt
expect 2 "blank.txt: the file is empty" -- "$DST" check blank.txt
expect 2 "/dev/null: not a regular file or a pipe" -- "$DST" check /dev/null
expect 2 "/dev/urandom: not a regular file or a pipe" -- "$DST" check /dev/urandom
expect 2 "adir: no files to check" -- "$DST" check adir
expect 2 "binary.lua: no event map" -- "$DST" check binary.lua
expect 2 "^dst check: --budget expects" -- "$DST" check "$DATA/porcupine-kv/c01-ok.txt" --budget x
expect 2 "html expects a file name" -- "$DST" check "$DATA/porcupine-kv/c01-ok.txt" --html ''
expect 0 "format porcupine-kv   model kv" -- "$DST" check "$DATA/porcupine-kv/c01-ok.txt"
expect 1 "format porcupine-kv   model kv" -- sh -c "cat '$DATA/porcupine-kv/c01-bad.txt' | '$DST' check /dev/stdin"
# A register history under --model kv is refused, naming the line and what the model expects.
expect 2 "register.edn:1: the kv model expects" -- "$DST" check "$DATA/fuzz/jepsen_history/register.edn" --model kv
expect 2 "is read as run-db" -- sh -c "'$DST' run etcd --seed 1 --duration 1s --out db >/dev/null && '$DST' check db/run.db --model kv"
expect 0 "format run-db   model etcd" -- "$DST" check db/run.db
# A run killed while it runs leaves a readable database that says it never finished.
# Killed once its database exists (however slow the machine), not after a fixed time.
"$DST" run etcd --seed 2 --duration 3600s --out killed >/dev/null 2>&1 &
run_pid=$!
waited=0
while [ ! -s killed/run.db ] && [ "$waited" -lt 600 ]; do sleep 0.2; waited=$((waited + 1)); done
sleep 1
kill -9 "$run_pid" 2>/dev/null
wait "$run_pid" 2>/dev/null
expect 0 "did not finish" -- "$DST" check killed/run.db

expect 2 "is given more than once" -- "$DST" run etcd --seed 1 --seed 2
expect 2 "duration is 0ns; expected 1.0s..3600.0s" -- "$DST" run etcd --duration 0s
expect 2 "adir.lua: is a directory, not a scenario file" -- "$DST" run adir.lua
expect 2 "binary.lua: attempt to load a binary chunk" -- "$DST" run binary.lua
expect 2 "no such file\|cannot read the scenario file" -- "$DST" run missing.lua
# A runtime error goes to stderr, as a load error does.
expect 0 "dst run: scenario error: runtime.lua:3: partition{}: unknown node 7" -- \
  sh -c "'$DST' run runtime.lua --seed 1 2>&1 >/dev/null; exit 0"
# --fork and dst explore: a bad fork list or budget names what was expected; --fork with --schedule
# is refused; explore refuses the flags it owns after --.
printf 'cluster{nodes=3}\nrun_for(s(2))\n' > short.lua
expect 2 "entry 1 '5s:1': AT is not inside the fault phase" -- "$DST" run short.lua --seed 1 --fork 5s:1
expect 2 "entry 2 '1s:2': AT must be later" -- "$DST" run short.lua --seed 1 --fork 1s:1,1s:2
expect 2 "PERCENT is not a whole number in 10..1000" -- "$DST" run short.lua --seed 1 --fork 1s:1:0
expect 2 "runs must be 1..100000" -- "$DST" explore short.lua --runs 0
expect 2 "would clash with what explore gives each run" -- "$DST" explore short.lua --runs 1 -- --fork 1s:1
expect 2 "scenario error: nope.lua" -- "$DST" explore nope.lua --runs 1
expect 2 "would clash with what explore gives each run" -- "$DST" explore short.lua --runs 1 -- --swarm-salt timing=1
expect 2 "swarm-salt: 'clock=1': unknown part" -- "$DST" run short.lua --seed 1 --swarm-salt clock=1

[ "$failures" -eq 0 ] && echo "all hostile command lines refused as they should be"
exit "$failures"
