#!/bin/sh
# DESC: upstream raid456 + mdadm: 3-disk RAID-5, random data, grow to 5, bytes and parity intact
# RUN: --personality upstream --disks 5 --disk-size 64M
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

say "create a 3-disk RAID-5 (metadata 1.2) and wait for the resync"
must mdadm --create /dev/md0 --run --level=5 --raid-devices=3 --chunk=64 \
	$(disks 0 2)
wait_idle md0
before=$(size_bytes md0)

say "write 48 MiB of random data, O_DIRECT"
make_ref /tmp/ref 50331648
put_bytes /dev/md0 /tmp/ref
same_bytes /dev/md0 /tmp/ref

say "add two spares and grow to 5 members"
must mdadm /dev/md0 --add $(disks 3 4)
must mdadm --grow /dev/md0 --raid-devices=5
sleep 1
grep -q reshape /proc/mdstat || say "(reshape already done or not shown)"
wait_idle md0 600
cat /proc/mdstat

after=$(size_bytes md0)
[ "$(md_attr md0 raid_disks)" = 5 ] || fail "raid_disks is $(md_attr md0 raid_disks)"
[ "$after" -gt "$before" ] || fail "size did not grow ($before -> $after)"
say "size $before -> $after bytes"

same_bytes /dev/md0 /tmp/ref
say "data intact after the grow"
check_parity md0
must mdadm --stop /dev/md0
