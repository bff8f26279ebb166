# shellcheck shell=bash
# One PASS/FAIL line per check, for tests/lint and tests/packages; the
# caller prints "NAME: $pass passed, $failed failed" at the end.
pass=0 failed=0

# check NAME COMMAND...: run COMMAND; on failure show its first lines.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
		echo "PASS $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name"
		printf '%s\n' "$out" | head -n 40 | sed 's/^/    | /'
	fi
}
