#!/bin/sh
# `dst check` of many histories and its verdict-first output (issue 25), `dst export --format
# jepsen-log` checked back, etcd robustness reports checked, and `dst export --format etcd-report`
# checked back. Usage: check_cli_test.sh DST WORKDIR TESTDATA
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

# Jepsen's other layouts and models: pretty-printed EDN in a list (a history of only nemesis
# events orders nothing), keyed registers, jepsen-io/etcd's versioned register, a mutex.
mkdir -p forms
printf '; nothing but faults\n({:process :nemesis,\n  :type :info, :f :kill, :value nil}\n {:process :nemesis, :type :info,\n  :f :recover, :value nil})\n' > forms/nemesis.edn
expect 0 "^verdict  *linearizable" -- "$DST" check forms/nemesis.edn
printf '' > forms/empty.edn
expect 2 "forms/empty.edn" -- "$DST" check forms/empty.edn --format jepsen
printf '0\t:invoke\t:write\t[0 1]\n0\t:ok\t:write\t[0 1]\n1\t:invoke\t:read\t[7 nil]\n1\t:ok\t:read\t[7 nil]\n'\
'1\t:invoke\t:read\t[0 nil]\n1\t:ok\t:read\t[0 2]\n' > forms/keyed.log
expect 1 "in key 0 cannot be ordered" -- "$DST" check forms/keyed.log
printf '{:type :invoke, :f :write, :value [3 [nil 4]], :process 0}\n{:type :ok, :f :write, :value [3 [2 4]], :process 0}\n' > forms/versioned.edn
expect 1 "write 4 @v2" -- "$DST" check forms/versioned.edn
printf '0\t:invoke\t:acquire\tnil\n0\t:ok\t:acquire\tnil\n1\t:invoke\t:acquire\tnil\n1\t:ok\t:acquire\tnil\n' > forms/lock.log
expect 1 "reproduce: .* --model mutex" -- "$DST" check forms/lock.log
expect 1 "^FAIL  *forms/lock.log   jepsen/mutex" -- "$DST" check forms
expect 2 "the register model expects :read, :write or :cas, found :acquire" -- "$DST" check forms/lock.log --model register

# A register run exported as Jepsen's log lines checks back with the run's verdict.
expect 0 "verdict *PASS" -- "$DST" run etcd --profile register --seed 3 --duration 3s --clients 6 --out run
expect 0 "operations" -- "$DST" export run/run.db --format jepsen-log --out jepsen
expect 0 "histories: [0-9]* linearizable, 0 not linearizable, 0 gave up, 0 unreadable" -- "$DST" check jepsen
expect 2 "give --out DIR" -- "$DST" export run/run.db --format jepsen-log
expect 2 "--format must be jepsen-log or etcd-report" -- "$DST" export run/run.db --format edn
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
# etcd robustness reports: a report directory is one history, told by its client-N/*.json; in a
# directory of reports each is one line; one client's file alone is refused, naming the report.
R=$DATA/robustness
expect 0 "format etcd-report   model etcd" -- "$DST" check "$R/basic"
expect 0 "watch guarantees  ok" -- "$DST" check "$R/basic" --format etcd-report
expect 1 "stale-read: ordered at revision 2" -- "$DST" check "$R/stale_read"
expect 1 "lost-write: a watch that covered the revision and key did not see the change" -- "$DST" check "$R/lost_write"
expect 1 "^total  *3 histories: 1 linearizable, 2 not linearizable, 0 gave up, 0 unreadable" -- "$DST" check "$R" --jobs 2
expect 1 "^FAIL  *$R/stale_read   etcd-report/etcd" -- "$DST" check "$R" --jobs 1
expect 2 "one client's part of an etcd robustness report; check the whole report: dst check $R/basic" -- "$DST" check "$R/basic/client-1/operations.json"
expect 2 "--model etcd goes with --format run-db" -- "$DST" check "$R/basic" --model register
cp "$R/basic/client-2/operations.json" lone-operations.json
expect 2 "lone-operations.json: it looks like one file of an etcd robustness report" -- "$DST" check lone-operations.json
expect 2 "not a directory; an etcd robustness report is a directory" -- "$DST" check "$R/basic/client-1/operations.json" --format etcd-report
mkdir -p no-report empty-report/client-1 && : > empty-report/client-1/operations.json
expect 2 "no-report: no etcd robustness report here" -- "$DST" check no-report --format etcd-report
expect 2 "empty-report: the report holds no operation and no watch: nothing to check" -- "$DST" check empty-report
mkdir -p broken/client-1 && printf '{"ClientId": 0, "Input": {"Type": "watch"}, "Output": {}}\n' > broken/client-1/operations.json
expect 2 "broken/client-1/operations.json:1: Type: expected range, txn" -- "$DST" check broken

# A run exported as etcd's robustness report checks back with the run's verdict (the etcd model
# on both; the report reads as partial key-values). Seeds 3 and 11 lose acknowledged writes.
for seed in 1 2 3 11; do
  rm -rf rep rep-report && "$DST" run "$DATA/scenarios/report_lost_writes.lua" --seed $seed --bug ack-before-fsync --out rep > /dev/null 2>&1
  "$DST" export rep/run.db --format etcd-report --out rep-report > rep-export.txt 2>&1 || { echo "FAIL: seed $seed: export"; cat rep-export.txt; failures=$((failures + 1)); }
  "$DST" check rep/run.db --no-explain > rep-db.txt 2>&1
  run=$?
  "$DST" check rep-report > rep-check.txt 2>&1
  report=$?
  # The run database's verdict also counts what the world saw (raft invariants, member agreement:
  # not in a report); the etcd model's word on the clients' history is the same on both.
  run_lin=$(grep -o '^linearizability   etcd model: [a-z ]*' rep-db.txt)
  report_lin=$(grep -o '^linearizability   etcd model: [a-z ]*' rep-check.txt)
  if [ -z "$run_lin" ] || [ "$run_lin" != "$report_lin" ] || { [ "$report" -ne 0 ] && [ "$report" -ne "$run" ]; }; then
    echo "FAIL: seed $seed: the run database checks $run ($run_lin), its etcd report $report ($report_lin)"; head -20 rep-check.txt; failures=$((failures + 1))
  else
    echo "ok: seed $seed: run $run and report $report, both '${report_lin#linearizability   }'"
  fi
  case $seed in 3 | 11) [ "$run" -eq 1 ] || { echo "FAIL: seed $seed should lose a write"; failures=$((failures + 1)); } ;; esac
done
expect 2 "give --out DIR" -- "$DST" export rep/run.db --format etcd-report
expect 2 "exists and is not an empty directory" -- "$DST" export rep/run.db --format etcd-report --out rep-report
expect 2 "the compare .value(r/[0-9]*) == .*etcd's robustness report cannot express it" -- "$DST" export run/run.db --format etcd-report --out reg-report

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all passed"
