#!/bin/sh
# DESC: r5grow: real resync, concurrent random I/O (iover, direct and buffered), check and repair with mismatch_cnt, stripe cache resize live
# RUN: --personality ours --disks 3 --disk-size 64M --timeout 1800
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

grep -q r5grow /proc/modules || fail "r5grow is not loaded"

say "create a 3-disk RAID-5 without --assume-clean: the resync runs"
# stale data on the members so the resync has parity to fix
for d in $(disks 0 2); do
	dd if=/dev/urandom of="$d" bs=1M count=64 2>/dev/null
done
must mdadm --create /dev/md0 --run --level=5 --raid-devices=3 --chunk=64 \
	$(disks 0 2)
grep -q "resync" /proc/mdstat || say "(resync already finished)"
wait_idle md0 900
grep -q "md0 : active raid5" /proc/mdstat || fail "md0 not active"
check_parity md0

say "sequential reference data, O_DIRECT and buffered read-back"
make_ref /tmp/ref $((64 * 1048576))
put_bytes /dev/md0 /tmp/ref
same_bytes /dev/md0 /tmp/ref
echo 3 >/proc/sys/vm/drop_caches
dd if=/dev/md0 bs=64k count=1024 2>/dev/null | cmp - /tmp/ref ||
	fail "buffered read-back differs"

say "odd sizes and offsets: 1 KiB writes at 512-byte boundaries"
head -c 1024 /dev/urandom >/tmp/small
dd if=/tmp/small of=/dev/md0 bs=512 seek=12345 count=2 oflag=direct 2>/dev/null ||
	fail "small write failed"
dd if=/tmp/small of=/tmp/ref bs=512 seek=12345 count=2 conv=notrunc 2>/dev/null
same_bytes /dev/md0 /tmp/ref

if command -v iover >/dev/null; then
	say "iover: 4 writers + 2 readers, O_DIRECT, 40 s"
	must iover random --state /tmp/st --threads 4 --readers 2 --seconds 40 \
		--direct --verify-end /dev/md0
	say "iover: 4 writers + 2 readers, buffered, 30 s"
	must iover random --state /tmp/st2 --threads 4 --readers 2 --seconds 30 \
		--buffered --verify-end /dev/md0
else
	say "(iover not in this initramfs: concurrent dd writers instead)"
	for i in 0 1 2 3; do
		dd if=/tmp/ref of=/dev/md0 bs=4k skip=$((i * 4096)) \
			seek=$((i * 4096)) count=4096 oflag=direct 2>/dev/null &
	done
	wait
	same_bytes /dev/md0 /tmp/ref
fi

say "stripe_cache_size grows and shrinks under load"
put_bytes /dev/md0 /tmp/ref	# iover wrote its own data over it
[ "$(md_attr md0 stripe_cache_size)" = 256 ] || fail "default stripe_cache_size is $(md_attr md0 stripe_cache_size)"
dd if=/dev/md0 of=/dev/null bs=1M count=64 iflag=direct 2>/dev/null &
dd if=/tmp/ref of=/dev/md0 bs=1M count=32 oflag=direct 2>/dev/null &
echo 1024 >/sys/block/md0/md/stripe_cache_size || fail "cannot grow the stripe cache"
echo 32 >/sys/block/md0/md/stripe_cache_size || fail "cannot shrink the stripe cache"
wait
echo 256 >/sys/block/md0/md/stripe_cache_size
[ "$(md_attr md0 stripe_cache_size)" = 256 ] || fail "stripe_cache_size not set back"
cat /sys/block/md0/md/stripe_cache_active
same_bytes /dev/md0 /tmp/ref
check_parity md0

say "damage parity behind md's back: check counts it, repair fixes it"
off=$(mdadm -E "$(disk 1)" | sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p')
[ -n "$off" ] || fail "no data offset"
must mdadm --stop /dev/md0
# 16 KiB of garbage on member 1 at 1 MiB into its data area
dd if=/dev/urandom of="$(disk 1)" bs=512 seek=$((off + 2048)) count=32 conv=notrunc 2>/dev/null
must mdadm --assemble /dev/md0 $(disks 0 2)
echo check >/sys/block/md0/md/sync_action
sleep 1
wait_idle md0
mm=$(md_attr md0 mismatch_cnt)
[ "$mm" -gt 0 ] || fail "check found no mismatch after damaging a member"
say "check found mismatch_cnt $mm"
echo repair >/sys/block/md0/md/sync_action
sleep 1
wait_idle md0
check_parity md0
must mdadm --stop /dev/md0

say "--grow --size: start at 32 MiB per member, grow to the full disks"
must mdadm --create /dev/md0 --run --assume-clean --level=5 --raid-devices=3 \
	--chunk=64 --size=32768 $(disks 0 2)
small=$(size_bytes md0)
make_ref /tmp/ref $((32 * 1048576))
put_bytes /dev/md0 /tmp/ref
must mdadm --grow /dev/md0 --size=max
wait_idle md0 900
big=$(size_bytes md0)
[ "$big" -gt "$small" ] || fail "size did not grow ($small -> $big)"
say "size $small -> $big bytes"
same_bytes /dev/md0 /tmp/ref
check_parity md0
must mdadm --stop /dev/md0
say "done"
