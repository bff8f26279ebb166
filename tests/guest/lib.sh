# shellcheck shell=sh
# Helpers for in-guest test scripts. In the guest this file is
# /lib/raidtest.sh; a test sources it with ". /lib/raidtest.sh".
# POSIX sh (busybox ash).

# Print what the test checks.
say() {
	echo "== $*"
}

# Fail the test with a reason.
fail() {
	echo "FAIL: $*"
	exit 1
}

# Skip the test (the runner counts status 77 as skipped).
skip() {
	echo "SKIP: $*"
	exit 77
}

# Run a command, failing the test when it fails.
must() {
	"$@" || fail "command failed ($?): $*"
}

# The Nth virtio disk, counting from 0: disk 0 is /dev/vda.
disk() {
	printf '/dev/vd%s\n' "$(echo abcdefghijklmnopqrst | cut -c$(($1 + 1)))"
}

# Disks FIRST..LAST as a list: disks 0 2 is "/dev/vda /dev/vdb /dev/vdc".
disks() {
	i=$1
	while [ "$i" -le "$2" ]; do
		disk "$i"
		i=$((i + 1))
	done | tr '\n' ' '
}

# md sysfs attribute of an array: md_attr md0 sync_action
md_attr() {
	cat "/sys/block/$1/md/$2"
}

# Wait until the array has no resync, recovery, check or reshape running.
# wait_idle md0 [SECONDS]
wait_idle() {
	t=${2:-600}
	while [ "$t" -gt 0 ]; do
		act=$(md_attr "$1" sync_action)
		pos=$(md_attr "$1" reshape_position 2>/dev/null || echo none)
		if [ "$act" = idle ] && [ "$pos" = none ]; then
			return 0
		fi
		sleep 1
		t=$((t - 1))
	done
	cat /proc/mdstat
	fail "$1 still busy ($act, reshape_position $pos) after ${2:-600}s"
}

# Parity check: run "check" and require mismatch_cnt 0.
check_parity() {
	wait_idle "$1"
	echo check >"/sys/block/$1/md/sync_action" || fail "cannot start check on $1"
	sleep 1
	wait_idle "$1"
	mm=$(md_attr "$1" mismatch_cnt)
	[ "$mm" = 0 ] || fail "$1: mismatch_cnt is $mm after check"
	say "$1: parity check passed (mismatch_cnt 0)"
}

# Array size in bytes.
size_bytes() {
	blockdev --getsize64 "/dev/$1"
}

# Fill FILE with BYTES of random data (the independent reference).
make_ref() {
	head -c "$2" /dev/urandom >"$1" || fail "cannot make reference $1"
}

# Compare the start of a device with a reference file whose size is a
# whole number of MiB, reading the device with O_DIRECT so no page cache
# can hide what is on the disks.  same_bytes /dev/md0 /tmp/ref
same_bytes() {
	n=$(stat -c %s "$2")
	[ $((n % 1048576)) = 0 ] || fail "reference $2 is not whole MiB"
	dd if="$1" bs=1M count=$((n / 1048576)) iflag=direct 2>/dev/null |
		cmp - "$2" || fail "$1 differs from reference $2"
}

# Write a reference file to the start of a device, O_DIRECT.
put_bytes() {
	dd if="$2" of="$1" bs=1M oflag=direct conv=notrunc 2>/dev/null ||
		fail "cannot write $2 to $1"
}
