#!/bin/sh
# CLI test of `dst shrink` (declared in tools/CMakeLists.txt):
#   shrink_cli_test.sh DST SCENARIO_DIR TESTDATA_SHRINK_DIR
# A planted bug's failing seed shrinks to a smaller schedule that fails the same check when run
# again; --jobs 1, --jobs 2 and the run database give the same schedule; a spent --budget says
# so; a passing run and usage errors exit 2. Failures whose minimal causes are known shrink to
# exactly them: one crash among ten faults (testdata/shrink/known_cause.lua), a power loss after a
# vote plus the leader's crash among seven (testdata/shrink/two_causes.lua).
set -u
DST=$1
SCENARIOS=$2
TESTDATA=$3
dir=shrink_cli
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

shrink() {  # shrink JOBS OUT: the progress-notify-ahead bug on crash_restart_storm's seed 10004
  "$DST" shrink "$SCENARIOS/crash_restart_storm.lua" --seed 10004 --jobs "$1" --out "$dir/$2" \
    -- --bug progress-notify-ahead >"$dir/$2.out" 2>"$dir/$2.err"
}

shrink 1 one
rc=$?
[ $rc = 0 ] || { cat "$dir/one.out" "$dir/one.err"; fail "dst shrink --jobs 1 exited $rc"; }
cat "$dir/one.out"
before=$(sed -n 's/^reduced  *fault steps \([0-9]*\) -> \([0-9]*\)$/\1/p' "$dir/one.out")
after=$(sed -n 's/^reduced  *fault steps \([0-9]*\) -> \([0-9]*\)$/\2/p' "$dir/one.out")
[ -n "$before" ] && [ -n "$after" ] || fail "no 'reduced fault steps N -> M' line"
[ "$after" -lt "$before" ] || fail "the schedule did not shrink ($before -> $after)"
grep -q '^failure  *watch: bookmarkable' "$dir/one.out" || fail "the minimal run does not fail the same check"
[ -f "$dir/one/minimal/run.db" ] || fail "no run database of the minimal run"

# The result depends on the input and the budget, not on how many runs went at once.
shrink 2 two || fail "dst shrink --jobs 2 exited $?"
# (The files' first lines say how long each shrink took: compared without the comments.)
steps_of() { grep -v '^--' "$1"; }
steps_of "$dir/one/shrunk.schedule.lua" >"$dir/one.steps"
steps_of "$dir/two/shrunk.schedule.lua" >"$dir/two.steps"
cmp "$dir/one.steps" "$dir/two.steps" || fail "--jobs 1 and --jobs 2 shrank differently"
grep -q '^--   fault steps [0-9]* -> [0-9]*$' "$dir/one/shrunk.schedule.lua" || fail "no reduction in the header"
grep -q '^--   virtual time 20.000s -> ' "$dir/one/shrunk.schedule.lua" || fail "the run was not made shorter"
grep -q '^reduce{.*run_for=' "$dir/one/shrunk.schedule.lua" || fail "no reduce{} line in the shrunk schedule"

# From the run database of the original run: the same shrunk schedule.
"$DST" shrink "$dir/one/original/run.db" --out "$dir/db" >"$dir/db.out" 2>&1 || fail "dst shrink RUN.db exited $?"
steps_of "$dir/db/shrunk.schedule.lua" >"$dir/db.steps"
cmp "$dir/one.steps" "$dir/db.steps" || fail "RUN.db and SCENARIO --seed shrank differently"

# A wall-time budget spent before the first candidate: the whole schedule, said to be unshrunk.
"$DST" shrink "$dir/one/original/run.db" --budget 1ms --out "$dir/budget" >"$dir/budget.out" 2>&1 ||
  fail "dst shrink --budget exited $?"
grep -q "^search .*stopped" "$dir/budget.out" || fail "--budget: no 'stopped' in the summary"

# The shrunk schedule is a replay file: run on its own, it fails with the same check.
"$DST" run --schedule "$dir/one/shrunk.schedule.lua" >"$dir/replay.out" 2>&1
[ $? = 1 ] || fail "the shrunk schedule's replay did not exit 1"
# It embeds the scenario: with the scenario's file gone (here: renamed in replay{}), the same run.
sed 's|^replay{scenario="[^"]*"|replay{scenario="gone/elsewhere.lua"|' "$dir/one/shrunk.schedule.lua" >"$dir/moved.lua"
grep -q '^replay{scenario="gone/elsewhere.lua"' "$dir/moved.lua" || fail "could not rename the scenario in the copy"
"$DST" run --schedule "$dir/moved.lua" >"$dir/moved.out" 2>&1
[ $? = 1 ] || { tail -5 "$dir/moved.out"; fail "the shrunk schedule without its scenario file did not exit 1"; }
grep -q "^seed .*reproduce: .* run --schedule $dir/moved.lua --seed" "$dir/moved.out" || fail "the reproduce line does not name the schedule file"
# dst run FILE takes a schedule file as the replay it describes (a scenario cannot call replay{}).
"$DST" run "$dir/moved.lua" >"$dir/moved2.out" 2>&1
[ $? = 1 ] || { tail -5 "$dir/moved2.out"; fail "dst run SHRUNK.lua did not replay it"; }
[ "$(tail -1 "$dir/moved.out")" = "$(tail -1 "$dir/moved2.out")" ] || fail "dst run FILE and dst run --schedule FILE differ"

# The known cause, and nothing else: one step, the crash of n2, among a partition, a pause, a slow
# disk, message loss and a skewed clock.
"$DST" shrink "$TESTDATA/known_cause.lua" --seed 1 --jobs 2 --out "$dir/known" -- --bug applied-index-not-atomic \
  >"$dir/known.out" 2>&1 || { cat "$dir/known.out"; fail "dst shrink of the known cause exited $?"; }
grep '^step' "$dir/known/shrunk.schedule.lua" >"$dir/known.steps"
[ "$(wc -l <"$dir/known.steps")" = 1 ] && grep -q 'kind="crash", node=2}' "$dir/known.steps" ||
  { cat "$dir/known.steps"; fail "the known cause (crash n2) was not found exactly"; }
grep -q '^failure  *member-agreement' "$dir/known.out" || fail "the known cause's failure changed check"

# A cause of two faults, both needed, among seven that cannot cause it: the power loss armed
# right after n1's vote and the leader's crash that makes n1 vote (testdata/shrink/two_causes.lua).
"$DST" shrink "$TESTDATA/two_causes.lua" --seed 1 --jobs 2 --out "$dir/two_causes" -- --bug vote-not-persisted \
  >"$dir/two_causes.out" 2>&1 || { cat "$dir/two_causes.out"; fail "dst shrink of the two causes exited $?"; }
grep '^step' "$dir/two_causes/shrunk.schedule.lua" >"$dir/two_causes.steps"
[ "$(wc -l <"$dir/two_causes.steps")" = 2 ] &&
  grep -q 'kind="failpoint", node=1, point="after-vote", action="power-loss"' "$dir/two_causes.steps" &&
  grep -q 'kind="crash", node=2}' "$dir/two_causes.steps" ||
  { cat "$dir/two_causes.steps"; fail "the two causes (n1's power loss after its vote, the leader's crash) were not found exactly"; }

# --same-rule keeps the rule inside the check: ack-before-fsync's State Machine Safety (without it,
# the shrink may end on another Raft invariant of the same lost write).
"$DST" shrink "$SCENARIOS/lost_unsynced_writes.lua" --seed 10001 --jobs 2 --same-rule --out "$dir/rule" \
  -- --bug ack-before-fsync >"$dir/rule.out" 2>&1 || { cat "$dir/rule.out"; fail "dst shrink --same-rule exited $?"; }
grep -q '^failure  *raft-invariants: State Machine Safety' "$dir/rule.out" || fail "--same-rule did not keep the rule"
"$DST" shrink "$SCENARIOS/leader_isolation.lua" --seed 1 --same-rule --any-violation >/dev/null 2>&1
[ $? = 2 ] || fail "--same-rule with --any-violation: expected exit 2"

# A run that passes has nothing to shrink; usage errors.
"$DST" shrink "$SCENARIOS/leader_isolation.lua" --seed 1 --out "$dir/pass" >"$dir/pass.out" 2>&1
[ $? = 2 ] && grep -q "nothing to shrink" "$dir/pass.out" || fail "a passing run: expected exit 2, nothing to shrink"
"$DST" shrink "$SCENARIOS/leader_isolation.lua" >/dev/null 2>&1
[ $? = 2 ] || fail "no --seed: expected exit 2"
"$DST" shrink "$SCENARIOS/leader_isolation.lua" --seed 1 -- --seed 2 >/dev/null 2>&1
[ $? = 2 ] || fail "--seed after --: expected exit 2"
"$DST" shrink "$dir/one/original/run.db" --seed 3 >/dev/null 2>&1
[ $? = 2 ] || fail "RUN.db with --seed: expected exit 2"
"$DST" shrink "$dir/one/original/run.db" --out "$dir/one" >/dev/null 2>&1
[ $? = 2 ] || fail "an input inside the directories the shrink rewrites: expected exit 2"
"$DST" shrink "$SCENARIOS/leader_isolation.lua" --seed 1 -- --fork 1:2s >/dev/null 2>&1
[ $? = 2 ] || fail "--fork after --: expected exit 2"
echo "shrink cli ok: $before -> $after steps"
