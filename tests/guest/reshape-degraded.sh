#!/bin/sh
# DESC: r5grow: a member fails in the middle of a grow 3->4; the reshape goes on degraded and finishes, the bytes are intact, a rebuild onto the re-added disk ends with a clean parity check
# RUN: --personality ours --disks 4 --disk-size 64M --timeout 900
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

MD=/sys/block/md0/md

must mdadm --create /dev/md0 --run --level=5 --raid-devices=3 --chunk=64 \
	$(disks 0 2)
wait_idle md0
make_ref /tmp/ref 50331648
put_bytes /dev/md0 /tmp/ref
must mdadm --add /dev/md0 /dev/vdd
echo 3000 >"$MD/sync_speed_max"
echo 4 >"$MD/raid_disks" || fail "raid_disks 4 refused"
echo reshape >"$MD/sync_action" || fail "reshape refused"
t=60
while [ "$(cat "$MD/reshape_position")" = 0 ] && [ "$t" -gt 0 ]; do
	sleep 1
	t=$((t - 1))
done
pos=$(cat "$MD/reshape_position")
case $pos in
none | 0) fail "the reshape did not move ($pos)" ;;
esac
must mdadm /dev/md0 --fail /dev/vdb
say "vdb failed at reshape_position $pos"
dd if=/dev/md0 of=/dev/null bs=1M count=10 iflag=direct 2>/dev/null ||
	fail "reads fail while degraded"
echo system >"$MD/sync_speed_max"
wait_idle md0 600
[ "$(cat "$MD/raid_disks")" = 4 ] || fail "raid_disks is $(cat "$MD/raid_disks")"
[ "$(cat "$MD/degraded")" = 1 ] || fail "degraded is $(cat "$MD/degraded")"
same_bytes /dev/md0 /tmp/ref
say "the degraded grow finished with the bytes intact"
must mdadm /dev/md0 --remove /dev/vdb
must mdadm --zero-superblock /dev/vdb
must mdadm /dev/md0 --add /dev/vdb
sleep 1
wait_idle md0 600
[ "$(cat "$MD/degraded")" = 0 ] || fail "still degraded after the rebuild"
same_bytes /dev/md0 /tmp/ref
check_parity md0
must mdadm --stop /dev/md0
