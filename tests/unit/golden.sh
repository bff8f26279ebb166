#!/bin/sh
# Golden-output test of raidctl over a fake sysfs tree, in the manner of
# util-linux tests/expected: runs one case and compares stdout, stderr and
# the exit code with the files the case keeps.
#
#   golden.sh RAIDCTL CASEDIR WORKDIR
#
# CASEDIR/cmd    line 1: the tree under trees/ to run on (copied first, so
#                writes never touch the committed tree); line 2: arguments
# CASEDIR/stdout, CASEDIR/stderr, CASEDIR/rc    what must come out
# CASEDIR/after  optional: "PATH VALUE" lines; PATH (in the copied tree)
#                must then hold VALUE, e.g. sys/block/md0/md/sync_action frozen
# CASEDIR/unchanged  optional, empty: the tree must be exactly as it was
#
# GOLDEN_UPDATE=1 writes what came out into CASEDIR instead of comparing.
set -eu

raidctl=$1
case_dir=$2
work=$3/${case_dir##*/}
here=$(cd "$(dirname "$0")" && pwd)

tree=$(sed -n 1p "$case_dir/cmd")
args=$(sed -n 2p "$case_dir/cmd")
rm -rf "$work"
mkdir -p "$work"
cp -a "$here/trees/$tree" "$work/root"

RAIDCTL_SYSFS_ROOT=$work/root
RAIDCTL_MDADM=$here/fake-mdadm
export RAIDCTL_SYSFS_ROOT RAIDCTL_MDADM
rc=0
# shellcheck disable=SC2086 # the arguments are split on purpose
"$raidctl" $args >"$work/stdout" 2>"$work/stderr" </dev/null || rc=$?
echo "$rc" >"$work/rc"

if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	cp "$work/stdout" "$work/stderr" "$work/rc" "$case_dir/"
	exit 0
fi

fail=0
for f in stdout stderr rc; do
	diff -u "$case_dir/$f" "$work/$f" || fail=1
done
if [ -f "$case_dir/after" ]; then
	while read -r path value; do
		got=$(cat "$work/root/$path" 2>/dev/null || echo "<missing>")
		if [ "$got" != "$value" ]; then
			echo "after: $path holds '$got', expected '$value'"
			fail=1
		fi
	done <"$case_dir/after"
fi
if [ -f "$case_dir/unchanged" ]; then
	diff -r "$here/trees/$tree" "$work/root" || fail=1
fi
exit "$fail"
