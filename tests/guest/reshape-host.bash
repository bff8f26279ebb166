# shellcheck shell=bash
# Host side of the reshape (online grow) guest tests: reshape-*.host.
# The personality comes from RESHAPE_PERSONALITY: ours (the default, what
# the suite runs) or upstream (stock raid456, to validate the tests
# themselves), e.g.  RESHAPE_PERSONALITY=upstream tests/guest/run-all 'reshape-*'
# The runner sets GUEST_RUN, TEST_TMP and TEST_LOGS.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pers=${RESHAPE_PERSONALITY:-ours}
case "$pers" in
ours | upstream) ;;
*)
	echo "RESHAPE_PERSONALITY wants ours or upstream, not '$pers'"
	exit 2
	;;
esac

# run_guest_script NAME [guest/run options]: one boot running NAME.guest
# with reshape-lib.guest in /root; exits with its status (77: skipped).
run_guest_script() {
	local name=$1 console rc
	shift
	console=${TEST_LOGS:-${TEST_TMP:?}}/$name-$pers.console
	"$GUEST_RUN" -q --log "$console" --personality "$pers" \
		--file "$here/reshape-lib.guest" "$@" "$here/$name.guest"
	rc=$?
	# What the script said, without the kernel's lines: its "== " steps
	# when it passed, its last lines when not.
	if [ "$rc" = 0 ]; then
		grep -E '^== ' "$console"
	else
		grep -v '^\[' "$console" | sed -n '/running script/,$p' | tail -n 40
	fi
	rm -rf "${TEST_TMP:?}"
	exit "$rc"
}
