# Sourced by the command-line test scripts (hostile_cli_test.sh, check_cli_test.sh), after they
# cd into their work directory: `expect CODE PATTERN -- COMMAND...` runs the command and counts a
# failure (in $failures) unless it exits CODE and its stdout+stderr match PATTERN (grep).
failures=0
expect() {
  code=$1 pattern=$2
  shift 3
  out=$("$@" 2>&1)
  got=$?
  if [ "$got" -ne "$code" ] || ! printf '%s' "$out" | grep -q -- "$pattern"; then
    echo "FAIL: $* -> exit $got (want $code, output matching '$pattern'), output:"
    printf '%s\n' "$out" | head -12
    failures=$((failures + 1))
  else
    echo "ok: $*"
  fi
}
