#!/bin/sh
# DESC: r5grow: resync (not check) starts at the recorded checkpoint (resync_start) and fixes parity only from there; repair fixes the rest
# RUN: --personality ours --disks 3 --disk-size 64M --timeout 1500
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

must mdadm --create /dev/md0 --run --assume-clean --level=5 --raid-devices=3 \
	--chunk=64 $(disks 0 2)
make_ref /tmp/ref $((64 * 1048576))
put_bytes /dev/md0 /tmp/ref
check_parity md0
off=$(mdadm -E "$(disk 1)" | sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p')
[ -n "$off" ] || fail "no data offset"
must mdadm --stop /dev/md0

say "damage member 1 at 1 MiB and at 40 MiB into its data (16 KiB each)"
for mb in 1 40; do
	dd if=/dev/urandom of="$(disk 1)" bs=512 seek=$((off + mb * 2048)) \
		count=32 conv=notrunc 2>/dev/null
done
must mdadm --assemble /dev/md0 $(disks 0 2)

say "pretend an unclean shutdown checkpointed at 32 MiB: resync from there"
echo frozen >/sys/block/md0/md/sync_action
echo $((32 * 2048)) >/sys/block/md0/md/resync_start || fail "cannot set resync_start"
echo idle >/sys/block/md0/md/sync_action
sleep 2
wait_idle md0
dmesg | grep "md: resync of RAID array md0" | tail -n 1 | grep -q resync ||
	fail "no resync ran"
[ "$(md_attr md0 resync_start)" = none ] || fail "resync_start is $(md_attr md0 resync_start)"

say "check: only the damage before the checkpoint is left (32 sectors)"
echo check >/sys/block/md0/md/sync_action
sleep 1
wait_idle md0
mm=$(md_attr md0 mismatch_cnt)
[ "$mm" = 32 ] || fail "mismatch_cnt $mm, wanted 32 (resync ignored its start, or missed the late damage)"
echo repair >/sys/block/md0/md/sync_action
sleep 1
wait_idle md0
check_parity md0
must mdadm --stop /dev/md0
say "done"
