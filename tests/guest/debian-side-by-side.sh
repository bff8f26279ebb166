#!/bin/sh
# DESC: Debian's kernel as installed: md autoloads, RAID-6 on raid456 and RAID-5 on r5grow in one boot, the RAID-5 grows while the RAID-6 takes writes
# RUN: --kernel debian --personality installed --disks 8 --disk-size 64M --timeout 900
# KERNEL: debian
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

# refcnt MODULE: how many arrays hold the module (md takes a reference on
# the personality's module for each running array).
refcnt() {
	cat "/sys/module/$1/refcnt" 2>/dev/null || echo none
}

# served LEVEL R5GROW RAID456: the refcounts are what they should be.
served() {
	if [ "$(refcnt r5grow)" != "$2" ] || [ "$(refcnt raid456)" != "$3" ]; then
		fail "$1: r5grow refcnt $(refcnt r5grow), raid456 $(refcnt raid456); want $2 and $3"
	fi
	say "$1: r5grow holds $2 array(s), raid456 $3"
}

say "nothing of md is loaded yet; the package's modprobe.d is in place"
[ -d /sys/module/r5grow ] && fail "r5grow loaded before any array"
[ -d /sys/module/raid456 ] && fail "raid456 loaded before any array"
must grep -qx 'softdep raid456 pre: r5grow' /etc/modprobe.d/r5grow.conf
must test -f "/lib/modules/$(uname -r)/updates/dkms/r5grow.ko"

say "create a 4-disk RAID-6 (md6): md autoloads raid456, whose softdep loads r5grow first"
must mdadm --create /dev/md6 --run --level=6 --raid-devices=4 --chunk=64 $(disks 0 3)
wait_idle md6
[ "$(md_attr md6 level)" = raid6 ] || fail "md6 is $(md_attr md6 level)"
served "md6 running" 0 1
# md serves a level with the first personality registered for it: ours
# (raid5), then raid456's raid6, raid5 and raid4.
pers=$(sed -n 's/^Personalities : //p' /proc/mdstat)
[ "$pers" = "[raid5] [raid6] [raid5] [raid4] " ] ||
	fail "personalities registered in the order '$pers'"

say "write 32 MiB of random data to md6"
make_ref /tmp/ref6 33554432
put_bytes /dev/md6 /tmp/ref6
same_bytes /dev/md6 /tmp/ref6

say "create a 3-disk RAID-5 (md5): r5grow serves it, raid456 still serves md6"
must mdadm --create /dev/md5 --run --level=5 --raid-devices=3 --chunk=64 $(disks 4 6)
wait_idle md5
served "md5 and md6 running" 1 1
dmesg | grep -q 'md/raid:md5: raid level 5 active .*(r5grow)' ||
	fail "no (r5grow) line for md5 in dmesg"
grep -q '^md5 : active raid5' /proc/mdstat || fail "/proc/mdstat lacks md5"
grep -q '^md6 : active raid6' /proc/mdstat || fail "/proc/mdstat lacks md6"
cat /proc/mdstat

say "write 64 MiB of random data to md5"
make_ref /tmp/ref5 67108864
put_bytes /dev/md5 /tmp/ref5

say "grow md5 to 4 disks with raidctl while md6 takes a second 32 MiB"
# Held to 4 MB/s, the grow of 64 MiB outlasts the writes to md6, so the
# two overlap for certain; the limit is lifted once they are done.
echo 4000 >/sys/block/md5/md/sync_speed_max || fail "cannot limit md5's speed"
must mdadm /dev/md5 --add "$(disk 7)"
must raidctl grow md5 --to 4
make_ref /tmp/ref6b 33554432
dd if=/tmp/ref6b of=/dev/md6 bs=1M seek=32 oflag=direct conv=notrunc 2>/dev/null ||
	fail "cannot write to md6 during the grow"
[ "$(md_attr md5 sync_action)" = reshape ] ||
	fail "md5 was no longer reshaping when the md6 writes ended"
say "md6 took 32 MiB while md5 reshaped (md5 at $(md_attr md5 sync_completed))"
echo system >/sys/block/md5/md/sync_speed_max || fail "cannot lift md5's speed limit"
wait_idle md5 600
[ "$(md_attr md5 raid_disks)" = 4 ] || fail "md5 has $(md_attr md5 raid_disks) members"
served "after the grow" 1 1

say "both arrays hold their bytes, and their parity is clean"
same_bytes /dev/md5 /tmp/ref5
same_bytes /dev/md6 /tmp/ref6
dd if=/dev/md6 bs=1M skip=32 count=32 iflag=direct 2>/dev/null | cmp - /tmp/ref6b ||
	fail "md6's second 32 MiB differ"
check_parity md5
check_parity md6

say "stop both and assemble them again with mdadm --assemble --scan"
must mdadm --stop /dev/md5 /dev/md6
served "stopped" 0 0
must mdadm --assemble --scan
wait_idle md5
wait_idle md6
[ "$(md_attr md5 raid_disks)" = 4 ] || fail "md5 came back with $(md_attr md5 raid_disks)"
served "assembled again" 1 1
same_bytes /dev/md5 /tmp/ref5
same_bytes /dev/md6 /tmp/ref6
must mdadm --stop /dev/md5 /dev/md6
