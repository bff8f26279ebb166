#!/bin/sh
# DESC: r5grow: internal write-intent bitmap: re-add after a failure rebuilds only what changed, the re-added member serves correct data, bitmap removed and added live; discard refused
# RUN: --personality ours --disks 3 --disk-size 64M --timeout 1800
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

MB=1048576
say "3-disk RAID-5 with an internal bitmap"
must mdadm --create /dev/md0 --run --assume-clean --level=5 --raid-devices=3 \
	--chunk=64 --bitmap=internal --bitmap-chunk=1M $(disks 0 2)
grep -q bitmap /proc/mdstat || fail "no bitmap: $(cat /proc/mdstat)"
make_ref /tmp/ref $((64 * MB))
put_bytes /dev/md0 /tmp/ref
check_parity md0

say "fail member 1, write 8 MiB while it is out, re-add it"
must mdadm /dev/md0 --fail "$(disk 1)"
must mdadm /dev/md0 --remove "$(disk 1)"
head -c $((8 * MB)) /dev/urandom >/tmp/new
dd if=/tmp/new of=/dev/md0 bs=1M seek=20 oflag=direct 2>/dev/null || fail "degraded write failed"
dd if=/tmp/new of=/tmp/ref bs=1M seek=20 conv=notrunc 2>/dev/null
cat /proc/mdstat
must mdadm /dev/md0 --re-add "$(disk 1)"
wait_idle md0 900
grep -q "\[3/3\]" /proc/mdstat || fail "re-add did not complete: $(cat /proc/mdstat)"
dmesg | grep "md: recovery of RAID array md0" | tail -n 1
same_bytes /dev/md0 /tmp/ref
check_parity md0

say "the re-added member holds the right data: fail member 0 and read"
must mdadm /dev/md0 --fail "$(disk 0)"
same_bytes /dev/md0 /tmp/ref
must mdadm /dev/md0 --remove "$(disk 0)"
must mdadm /dev/md0 --add "$(disk 0)"
wait_idle md0 900
same_bytes /dev/md0 /tmp/ref
check_parity md0

say "bitmap removed and added back on the live array"
must mdadm --grow /dev/md0 --bitmap=none
grep -q bitmap /proc/mdstat && fail "bitmap still there"
dd if=/tmp/new of=/dev/md0 bs=1M seek=30 oflag=direct 2>/dev/null || fail "write failed"
dd if=/tmp/new of=/tmp/ref bs=1M seek=30 conv=notrunc 2>/dev/null
must mdadm --grow /dev/md0 --bitmap=internal
grep -q bitmap /proc/mdstat || fail "bitmap not added back"
dd if=/tmp/new of=/dev/md0 bs=1M seek=40 oflag=direct 2>/dev/null || fail "write failed"
dd if=/tmp/new of=/tmp/ref bs=1M seek=40 conv=notrunc 2>/dev/null
same_bytes /dev/md0 /tmp/ref
check_parity md0

say "discard is not advertised and refused"
[ "$(cat /sys/block/md0/queue/discard_max_bytes)" = 0 ] ||
	fail "discard advertised: $(cat /sys/block/md0/queue/discard_max_bytes)"
if blkdiscard /dev/md0 2>/dev/null; then
	fail "blkdiscard succeeded"
fi
same_bytes /dev/md0 /tmp/ref
must mdadm --stop /dev/md0
say "done"
