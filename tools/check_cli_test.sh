#!/bin/sh
# `dst check` of many histories and its verdict-first output (issue 25), and `dst export
# --format jepsen-log` checked back. Usage: check_cli_test.sh DST WORKDIR TESTDATA
set -u
HERE=$(cd "$(dirname "$0")" && pwd)  # before the cd below: $0 may be relative
DST=$1
WORK=$2
DATA=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
. "$HERE/cli_expect.sh"

mkdir -p set/nested set/.hidden only-junk
# Linearizable: a write, then reads of it; a timed-out write that may or may not have happened.
printf 'INFO  jepsen.util - 0\t:invoke\t:write\t1\nINFO  jepsen.util - 0\t:ok\t:write\t1\n'\
'INFO  jepsen.util - 1\t:invoke\t:write\t2\nINFO  jepsen.util - 1\t:info\t:write\t:timed-out\n'\
'INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t1\n' > set/a-ok.log
# Not linearizable: a stale read after a newer write returned.
printf '0\t:invoke\t:write\t1\n0\t:ok\t:write\t1\n1\t:invoke\t:write\t2\n1\t:ok\t:write\t2\n'\
'2\t:invoke\t:read\tnil\n2\t:ok\t:read\t1\n' > set/nested/b-stale.log
printf '{:results {:valid? true}}\n' > set/results.edn-not-a-history
printf 'not a history\n' > set/.hidden/x.log
printf 'hello\n' > only-junk/readme.txt

for jobs in 1 2; do
  expect 1 "^ok  *set/a-ok.log   jepsen/register   3 ops" -- "$DST" check set --jobs $jobs
  expect 1 "^FAIL  *set/nested/b-stale.log .*: 3 operation(s) in register cannot be ordered (1-minimal)" -- "$DST" check set --jobs $jobs
  expect 1 "^total  *2 histories: 1 linearizable, 1 not linearizable, 0 gave up, 0 unreadable; 1 file(s) skipped" -- "$DST" check set --jobs $jobs
done
expect 1 "not explained (--no-explain)" -- "$DST" check set --no-explain
expect 0 "^total  *2 histories: 2 linearizable" -- "$DST" check set/a-ok.log ./set/a-ok.log
expect 2 "no history among the 1 file(s)" -- "$DST" check only-junk
expect 2 "only-junk/readme.txt: no event map" -- "$DST" check only-junk/readme.txt
expect 2 "^ERROR  *only-junk/readme.txt" -- "$DST" check set/a-ok.log only-junk/readme.txt
expect 2 "missing: no such file or directory" -- "$DST" check set missing
expect 2 "html writes the page of one history" -- "$DST" check set --html x.html
expect 2 "contradict" -- "$DST" check set/nested/b-stale.log --no-explain --explain-budget 5
expect 2 "jobs must be 1..256" -- "$DST" check set --jobs 0

# One history: the verdict is printed before the explanation is worked out.
"$DST" check set/nested/b-stale.log > one.txt 2>&1
verdict_line=$(grep -n "^verdict  " one.txt | cut -d: -f1)
core_line=$(grep -n "cannot be ordered" one.txt | head -1 | cut -d: -f1)
if [ -z "$verdict_line" ] || [ -z "$core_line" ] || [ "$verdict_line" -ge "$core_line" ] || ! grep -q "^explain time" one.txt; then
  echo "FAIL: the verdict must come before the explanation:"; cat one.txt; failures=$((failures + 1))
else
  echo "ok: verdict first"
fi
expect 1 "not shown 1-minimal: the minimisation's budget of 1 steps ran out" -- "$DST" check set/nested/b-stale.log --explain-budget 1

# A register run exported as Jepsen's log lines checks back with the run's verdict.
expect 0 "verdict *PASS" -- "$DST" run etcd --profile register --seed 3 --duration 3s --clients 6 --out run
expect 0 "operations" -- "$DST" export run/run.db --format jepsen-log --out jepsen
expect 0 "histories: [0-9]* linearizable, 0 not linearizable, 0 gave up, 0 unreadable" -- "$DST" check jepsen
expect 2 "give --out DIR" -- "$DST" export run/run.db --format jepsen-log
expect 2 "--format must be jepsen-log" -- "$DST" export run/run.db --format edn
# Runs that lose acknowledged writes (ack-before-fsync): on every seed the register model's
# verdict on the export is the etcd model's on the run (seeds 3 and 8 are NOT linearizable).
for seed in 1 2 3 4 5 6 7 8; do
  rm -rf lost && "$DST" run "$DATA/scenarios/register_lost_writes.lua" --seed $seed --bug ack-before-fsync --out lost > lost.txt 2>&1
  "$DST" export lost/run.db --format jepsen-log --out lost/jepsen > /dev/null 2>&1
  "$DST" check lost/jepsen --no-explain > lost-check.txt 2>&1
  register=$?
  if grep -q "etcd model: NOT linearizable" lost.txt; then etcd=1; else etcd=0; fi
  if [ "$register" -ne "$etcd" ]; then
    echo "FAIL: seed $seed: the etcd model says $etcd, the register model on the export $register"; failures=$((failures + 1))
  else
    echo "ok: seed $seed: both $etcd"
  fi
  case $seed in 3 | 8) [ "$etcd" -eq 1 ] || { echo "FAIL: seed $seed should lose a write"; failures=$((failures + 1)); } ;; esac
done
if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all passed"
