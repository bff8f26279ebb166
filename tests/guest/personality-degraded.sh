#!/bin/sh
# DESC: r5grow: member failure (mdadm --fail and injected I/O errors), degraded reads and writes, rebuild onto a spare, second failure gives errors not garbage
# RUN: --personality ours --disks 5 --disk-size 64M --timeout 1800
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

MB=1048576
mount -t debugfs none /sys/kernel/debug 2>/dev/null
FI=/sys/kernel/debug/fail_make_request

say "3-disk RAID-5 + reference data"
must mdadm --create /dev/md0 --run --assume-clean --level=5 --raid-devices=3 \
	--chunk=64 $(disks 0 2)
make_ref /tmp/ref $((64 * MB))
put_bytes /dev/md0 /tmp/ref
check_parity md0

say "fail member 1 with mdadm --fail: reads reconstruct, writes keep parity"
must mdadm /dev/md0 --fail "$(disk 1)"
grep -q "\[3/2\]" /proc/mdstat || fail "array not degraded: $(cat /proc/mdstat)"
same_bytes /dev/md0 /tmp/ref
echo 3 >/proc/sys/vm/drop_caches
dd if=/dev/md0 bs=4k count=16384 2>/dev/null | cmp - /tmp/ref ||
	fail "buffered degraded read differs"
# rewrite the first half with new data while degraded
head -c $((32 * MB)) /dev/urandom >/tmp/half
dd if=/tmp/half of=/dev/md0 bs=1M oflag=direct 2>/dev/null || fail "degraded write failed"
dd if=/tmp/half of=/tmp/ref bs=1M conv=notrunc 2>/dev/null
# small unaligned writes while degraded
head -c 3072 /dev/urandom >/tmp/small
dd if=/tmp/small of=/dev/md0 bs=512 seek=70001 count=6 oflag=direct 2>/dev/null ||
	fail "small degraded write failed"
dd if=/tmp/small of=/tmp/ref bs=512 seek=70001 count=6 conv=notrunc 2>/dev/null
same_bytes /dev/md0 /tmp/ref

say "remove it, add a spare: rebuild, with writes during the rebuild"
must mdadm /dev/md0 --remove "$(disk 1)"
echo 2000 >/sys/block/md0/md/sync_speed_max
must mdadm /dev/md0 --add "$(disk 3)"
sleep 2
grep -q recovery /proc/mdstat || say "(recovery already done)"
head -c $((8 * MB)) /dev/urandom >/tmp/mid
dd if=/tmp/mid of=/dev/md0 bs=1M seek=40 oflag=direct 2>/dev/null || fail "write during rebuild failed"
dd if=/tmp/mid of=/tmp/ref bs=1M seek=40 conv=notrunc 2>/dev/null
echo max >/sys/block/md0/md/sync_speed_max
wait_idle md0 900
grep -q "\[3/3\]" /proc/mdstat || fail "rebuild did not complete: $(cat /proc/mdstat)"
same_bytes /dev/md0 /tmp/ref
check_parity md0

say "fail member 0: reads must now use the rebuilt member"
must mdadm /dev/md0 --fail "$(disk 0)"
same_bytes /dev/md0 /tmp/ref
must mdadm /dev/md0 --remove "$(disk 0)"
must mdadm /dev/md0 --add "$(disk 4)"
wait_idle md0 900
same_bytes /dev/md0 /tmp/ref
check_parity md0

if [ -d "$FI" ]; then
	say "injected I/O errors on member 2: md_error, array continues degraded"
	echo 100 >"$FI/probability"
	echo -1 >"$FI/times"
	echo 0 >"$FI/verbose"
	echo 1 >/sys/block/"$(basename "$(disk 2)")"/make-it-fail
	same_bytes /dev/md0 /tmp/ref
	head -c $((4 * MB)) /dev/urandom >/tmp/q
	dd if=/tmp/q of=/dev/md0 bs=1M seek=10 oflag=direct 2>/dev/null ||
		fail "write with a failing member failed"
	dd if=/tmp/q of=/tmp/ref bs=1M seek=10 conv=notrunc 2>/dev/null
	echo 0 >/sys/block/"$(basename "$(disk 2)")"/make-it-fail
	grep -q "\[3/2\]" /proc/mdstat || fail "injected errors did not fail the member: $(cat /proc/mdstat)"
	same_bytes /dev/md0 /tmp/ref
	mdadm --detail /dev/md0 | grep -q faulty || fail "member 2 not faulty"
else
	say "(no fail_make_request in debugfs: injected errors skipped)"
	must mdadm /dev/md0 --fail "$(disk 2)"
fi

say "a second failure: reads error out, never return garbage"
# md core answers EBUSY when a failure breaks the array; it is failed anyway
mdadm /dev/md0 --fail "$(disk 3)"
dmesg | grep -q "md/raid:md0: Cannot continue operation" ||
	fail "second failure not taken: $(cat /proc/mdstat)"
if dd if=/dev/md0 of=/tmp/out bs=1M count=64 iflag=direct 2>/dev/null; then
	# whatever was read must not be wrong data
	fail "read of a failed array succeeded"
fi
if dd if=/tmp/q of=/dev/md0 bs=1M count=1 oflag=direct 2>/dev/null; then
	fail "write to a failed array succeeded"
fi
must mdadm --stop /dev/md0
say "done"
