# shellcheck shell=bash
# Helpers for host-side guest tests (tests/guest/*.host). The runner sets
# GUEST_RUN (guest/run), TEST_TMP (a scratch directory) and TEST_LOGS.

failures=0

say() {
	echo "== $*"
}

# expect_status WANT "what" [guest/run options] -- SCRIPT [ARGS]
expect_status() {
	local want=$1 what=$2 opts=() got
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	"$GUEST_RUN" -q "${opts[@]}" "$@" >"$TEST_TMP/last.out" 2>&1
	got=$?
	if [ "$got" = "$want" ]; then
		say "ok: $what (status $got)"
	else
		say "FAILED: $what: status $got, wanted $want"
		sed 's/^/   | /' "$TEST_TMP/last.out" | tail -n 30
		failures=$((failures + 1))
	fi
}

finish() {
	rm -rf "$TEST_TMP"
	[ "$failures" = 0 ]
}
