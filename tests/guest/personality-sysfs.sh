#!/bin/sh
# DESC: r5grow: junk to every writable md sysfs attribute (array and members): no crash, no splat, values unchanged where rejected, data intact
# RUN: --personality ours --disks 3 --disk-size 64M --timeout 1200
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

must mdadm --create /dev/md0 --run --assume-clean --level=5 --raid-devices=3 \
	--chunk=64 $(disks 0 2)
make_ref /tmp/ref $((16 * 1048576))
put_bytes /dev/md0 /tmp/ref

# Junk values: words, negatives, huge numbers, empty, spaces, hex, trailing junk.
JUNK="abc -1 -4096 99999999999999999999999 18446744073709551616 4294967296 2147483648 0x10 1e3 12abc ,"

try_attr() {
	f=$1 v=$2
	before=$(cat "$f" 2>/dev/null)
	if printf '%s\n' "$v" >"$f" 2>/dev/null; then
		echo "accepted: $f <- '$v' (was '$before', now '$(cat "$f" 2>/dev/null)')" >>/tmp/accepted
	else
		after=$(cat "$f" 2>/dev/null)
		case "$f" in
		*/bitmap/location)
			# md core (md-bitmap.c location_store) keeps the offset
			# when creating the bitmap fails, with raid456 too;
			# "none" clears it again
			echo none >"$f"
			after=$(cat "$f" 2>/dev/null) ;;
		esac
		[ "$before" = "$after" ] ||
			fail "$f changed from '$before' to '$after' on a rejected write of '$v'"
	fi
}

# Attributes whose legitimate job is to act on the array; junk still goes
# in, but nothing that parses as a valid command is written.
n=0
: >/tmp/accepted
for f in /sys/block/md0/md/* /sys/block/md0/md/dev-*/* /sys/block/md0/md/bitmap/*; do
	[ -f "$f" ] || continue
	# root passes "test -w" everywhere: look at the mode bits instead
	mode=$(stat -c %a "$f")
	[ $((0$mode & 0200)) -ne 0 ] || continue
	for v in $JUNK ""; do
		try_attr "$f" "$v"
		n=$((n + 1))
	done
	grep -q "md0 : active" /proc/mdstat || fail "md0 stopped after junk to $f"
done
say "$n junk writes done, $(wc -l </tmp/accepted) accepted (md core parses them as valid):"
sed 's/^/   /' /tmp/accepted

say "stripe_cache_size bounds: rejected values leave it unchanged"
for v in 0 1 31 32769 100000 -5; do
	if printf '%s\n' "$v" >/sys/block/md0/md/stripe_cache_size 2>/dev/null; then
		fail "stripe_cache_size accepted $v"
	fi
	[ "$(md_attr md0 stripe_cache_size)" = 256 ] || fail "stripe_cache_size changed by $v"
done
echo 32 >/sys/block/md0/md/stripe_cache_size || fail "32 rejected"
echo 32768 >/sys/block/md0/md/stripe_cache_size || fail "32768 rejected"
echo 256 >/sys/block/md0/md/stripe_cache_size || fail "256 rejected"
if printf '5\n' >/sys/block/md0/md/stripe_cache_active 2>/dev/null; then
	fail "stripe_cache_active is writable"
fi

say "refusals: layouts and reshape we do not support"
if echo 4 >/sys/block/md0/md/layout 2>/dev/null; then
	fail "layout 4 (parity-first) accepted on a running array"
fi
[ "$(md_attr md0 layout)" = 2 ] || fail "layout changed"
dmesg | grep "md/raid:md0" | tail -n 5

grep -q "md0 : active raid5" /proc/mdstat || fail "md0 not active"
# junk may have moved the sync window or speeds: put them back
echo 0 >/sys/block/md0/md/sync_min
echo max >/sys/block/md0/md/sync_max
echo system >/sys/block/md0/md/sync_speed_min
echo system >/sys/block/md0/md/sync_speed_max
same_bytes /dev/md0 /tmp/ref
wait_idle md0
check_parity md0

say "stop while busy: during a check and with writers running"
echo 1000 >/sys/block/md0/md/sync_speed_max
echo check >/sys/block/md0/md/sync_action
sleep 2
must mdadm --stop /dev/md0
must mdadm --assemble /dev/md0 $(disks 0 2)
same_bytes /dev/md0 /tmp/ref
dd if=/tmp/ref of=/dev/md0 bs=64k oflag=direct 2>/dev/null &
sleep 1
mdadm --stop /dev/md0 2>/dev/null && say "(stopped before the writer opened it)"
wait
grep -q "md0 : active" /proc/mdstat ||
	must mdadm --assemble /dev/md0 $(disks 0 2)
echo system >/sys/block/md0/md/sync_speed_max
same_bytes /dev/md0 /tmp/ref
check_parity md0
must mdadm --stop /dev/md0
say "done"
