#!/bin/sh
# In-guest part of the demo (see guest/demo).
set -e
# Keep the console for the demo's own lines: kernel info messages off,
# warnings and errors (any splat) still shown.
echo 5 >/proc/sys/kernel/printk

step() {
	printf '\n>>> %s\n' "$*"
}

step "create a 3-disk RAID-5 on /dev/vda /dev/vdb /dev/vdc"
mdadm --create /dev/md0 --run --level=5 --raid-devices=3 --chunk=64 \
	/dev/vda /dev/vdb /dev/vdc 2>&1
mdadm --wait /dev/md0 || true
cat /proc/mdstat

step "make an ext4 filesystem, mount it, put 40 MiB of files on it"
mkfs.ext4 -q /dev/md0
mkdir -p /mnt/data
mount /dev/md0 /mnt/data
i=0
while [ $i -lt 10 ]; do
	head -c 4194304 /dev/urandom >/mnt/data/file$i
	i=$((i + 1))
done
(cd /mnt/data && sha256sum file* >/tmp/sums)
sync
df -h /mnt/data

step "grow the live, mounted array onto 3 new disks"
if command -v raidctl >/dev/null && [ "${DEMO_TOOL:-raidctl}" = raidctl ]; then
	raidctl grow md0 --to 6 --add /dev/vdd,/dev/vde,/dev/vdf --wait
else
	echo "(raidctl is not built yet: using mdadm)"
	mdadm /dev/md0 --add /dev/vdd /dev/vde /dev/vdf
	mdadm --grow /dev/md0 --raid-devices=6
	while grep -q reshape /proc/mdstat; do
		grep reshape /proc/mdstat
		sleep 1
	done
fi
mdadm --wait /dev/md0 || true
cat /proc/mdstat

step "grow the filesystem into the new space, still mounted"
resize2fs /dev/md0 2>&1 | grep -v "^$"
df -h /mnt/data

step "verify every file, then the parity"
(cd /mnt/data && sha256sum -c /tmp/sums)
umount /mnt/data
echo check >/sys/block/md0/md/sync_action
sleep 1
mdadm --wait /dev/md0 || true
echo "mismatch_cnt: $(cat /sys/block/md0/md/mismatch_cnt)"
[ "$(cat /sys/block/md0/md/mismatch_cnt)" = 0 ]
mdadm --detail /dev/md0 | sed -n '/Raid Level/p;/Array Size/p;/Raid Devices/p'
step "demo done: the array grew from 3 to 6 disks online, data intact"
