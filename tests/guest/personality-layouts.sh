#!/bin/sh
# DESC: r5grow: every RAID-5 layout, chunk 4K/64K/512K, 0.90 and 1.2: data and parity written by ours read back and check clean under raid456, and the reverse
# RUN: --personality ours --disks 3 --disk-size 64M --timeout 2400
# shellcheck source=tests/guest/lib.sh disable=SC2046
. /lib/raidtest.sh

# Both personalities take turns in this one boot: stop the array, unload
# one module, load the other, assemble again. The component size is cut
# to 8 MiB so that each parity check is short.
MEMBERS=$(disks 0 2)
REF_BYTES=$((8 * 1048576))	# 8 MiB of data of the 16 MiB array

use_personality() {
	if [ "$1" = ours ]; then
		rmmod raid456 2>/dev/null
		modprobe r5grow || fail "cannot load r5grow"
	else
		rmmod r5grow 2>/dev/null
		modprobe raid456 || fail "cannot load raid456"
	fi
}

assemble() {
	# shellcheck disable=SC2086
	must mdadm --assemble /dev/md0 $MEMBERS
	grep -q "md0 : active raid5" /proc/mdstat || fail "md0 not active"
}

stop() {
	must mdadm --stop /dev/md0
}

one() {
	meta=$1 layout=$2 chunk=$3
	say "metadata $meta, layout $layout, chunk ${chunk}K"
	use_personality ours
	# shellcheck disable=SC2086
	must mdadm --create /dev/md0 --run --assume-clean --level=5 \
		--raid-devices=3 --metadata="$meta" --layout="$layout" \
		--chunk="$chunk" --size=8192 $MEMBERS
	make_ref /tmp/ref "$REF_BYTES"
	put_bytes /dev/md0 /tmp/ref
	# make the unused tail's parity right too: check must see a clean array
	echo repair >/sys/block/md0/md/sync_action
	wait_idle md0
	stop

	use_personality upstream
	assemble
	same_bytes /dev/md0 /tmp/ref
	check_parity md0
	make_ref /tmp/ref2 "$REF_BYTES"
	put_bytes /dev/md0 /tmp/ref2
	stop

	use_personality ours
	assemble
	same_bytes /dev/md0 /tmp/ref2
	check_parity md0
	stop
	# shellcheck disable=SC2086
	mdadm --zero-superblock $MEMBERS
}

for meta in 1.2 0.90; do
	for layout in left-asymmetric right-asymmetric left-symmetric right-symmetric; do
		for chunk in 4 64 512; do
			one "$meta" "$layout" "$chunk"
		done
	done
done
say "all layouts and chunk sizes agree with raid456"
