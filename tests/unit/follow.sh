#!/bin/sh
# progress --follow over a fake tree that changes under it: one line per
# change of state or whole percent, JSON lines with --json, a pause said
# once on stderr, "done" at the end; Ctrl-C (SIGINT) stops following,
# exits 130, and leaves the reshape as it was; a failed read exits 1.
#   follow.sh RAIDCTL WORKDIR
set -eu
raidctl=$1
work=$2/follow
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
RAIDCTL_SYSFS_ROOT=$work/root
export RAIDCTL_SYSFS_ROOT

fail() {
	echo "FAIL: $*"
	exit 1
}

# stage N ATTR=VALUE...: tree N is tree N-1 with these md0 attributes.
stage() {
	n=$1
	shift
	if [ "$n" = 0 ]; then
		cp -a "$here/trees/reshape" "$work/s0"
	else
		cp -a "$work/s$((n - 1))" "$work/s$n"
	fi
	for kv in "$@"; do
		echo "${kv#*=}" >"$work/s$n/sys/block/md0/md/${kv%%=*}"
	done
}

# Switch the root to tree N at once, so raidctl never sees half a change.
switch() {
	ln -s "s$1" "$work/next"
	mv -T "$work/next" "$work/root"
}

stage 0
stage 1 "sync_completed=64512 / 129024"
stage 2 sync_action=frozen sync_completed=none
stage 3 sync_action=reshape "sync_completed=129024 / 129024"
stage 4 sync_action=idle sync_completed=none reshape_position=none
ln -s s0 "$work/root"
md=$work/root/sys/block/md0/md

# The reshape advances to half way, pauses, resumes and ends.
(
	for n in 1 2 3 4; do
		sleep 1
		switch "$n"
	done
) &
"$raidctl" progress md0 --follow --json >"$work/out" 2>"$work/err" ||
	fail "--follow exited $?: $(cat "$work/out" "$work/err")"
wait
cat "$work/out" "$work/err"
[ "$(cat "$work/err")" = "raidctl: md0: the reshape is paused; waiting until it is resumed ('raidctl resume md0')" ] ||
	fail "the pause was not said once on stderr"
states=$(sed 's/.*"state":"\([a-z]*\)".*/\1/' "$work/out" | tr '\n' ' ')
[ "$states" = "running running paused running done " ] ||
	fail "states seen: $states"
grep -q '"percent":50.00' "$work/out" || fail "no line at 50%"

# follow_then OUT CMD...: --follow into OUT; a second later, CMD (with
# $pid the follower's); rc is its exit status.
follow_then() {
	out=$1
	shift
	"$raidctl" progress md0 --follow >"$out" 2>&1 &
	pid=$!
	sleep 1
	"$@"
	rc=0
	wait "$pid" || rc=$?
	cat "$out"
}

interrupt() {
	kill -INT "$pid"
}

switch 0
follow_then "$work/int" interrupt
[ "$rc" = 130 ] || fail "exit $rc after SIGINT, wanted 130"
grep -q "md0: stopped following; the reshape goes on" "$work/int" ||
	fail "no word after SIGINT"
[ "$(cat "$md/sync_action")" = reshape ] || fail "the reshape was touched"

# A read that fails while following is an error, not the end of the
# reshape: exit 1 and the reason.
cp -a "$work/s0" "$work/s5"
echo "6 (3" >"$work/s5/sys/block/md0/md/raid_disks"
follow_then "$work/bad" switch 5
[ "$rc" = 1 ] || fail "exit $rc after a bad read, wanted 1"
grep -q "md0: md/raid_disks: unexpected value '6 (3'" "$work/bad" ||
	fail "no reason for the failed read"
echo "follow: ok"
