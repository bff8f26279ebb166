# shellcheck shell=bash
# Power cuts during a grow (reshape-powercut*.host). Each trial is two
# boots over the same disk images (guest/run --disk-dir):
#   boot 1: create md0 (3 disks, chunk 64K, the given metadata), write the
#           reference bytes (made on the host, copied in), optionally start
#           iover random with a crash-safe journal on vde, start a grow to 4
#           throttled to 2 MB/s a member, print the marker; QEMU is killed
#           DELAY seconds after it;
#   boot 2: mdadm --assemble --scan; the reshape resumes by itself and
#           completes; size, raid_disks, every reference byte (and every
#           acknowledged iover write), parity check.
# With the writer, odd trials (LAZY) on r5grow checkpoint only when a step needs
# it (reshape_checkpoint_ms 600000): most writes then land between the
# recorded position and the cursor, where they go to both geometries.
# Delays vary across trials (0 s: the very first stripes, then mid-way);
# RESHAPE_TRIALS sets the number of trials, RESHAPE_BUDGET (seconds) stops
# starting new ones once spent.
# shellcheck source=tests/guest/reshape-host.bash
. "$(dirname "${BASH_SOURCE[0]}")/reshape-host.bash"
# shellcheck source=tests/guest/host-lib.bash
. "$here/host-lib.bash"

# The delays, in this order: the first RESHAPE_TRIALS of them (cycled).
DELAYS=(0 6 3 0.3 9 1.5 4.5 12 0.8 7.5)

cat >"$TEST_TMP/boot1.sh" <<'SCRIPT'
# shellcheck source=tests/guest/reshape-lib.guest
. /root/reshape-lib.guest
bitmap=""
[ "$BITMAP" = 1 ] && bitmap="--bitmap=internal --bitmap-chunk=1M"
# shellcheck disable=SC2086
must mdadm --create /dev/md0 --run --assume-clean --metadata="$META" \
	--level=5 --raid-devices=3 --chunk=64 $bitmap /dev/vda /dev/vdb /dev/vdc
put_bytes /dev/md0 /root/ref.bin
same_bytes /dev/md0 /root/ref.bin
if [ "$WRITER" = 1 ]; then
	must iover fill --journal /dev/vde --offset 24M --length 32M /dev/md0
	iover random --journal /dev/vde --threads 2 --readers 1 --max-size 256K \
		--seconds 600 --hot-follow /sys/block/md0/md/reshape_position \
		/dev/md0 &
	sleep 1
fi
sync
must sysfs_set /sys/block/md0/md/sync_speed_max 2000
if [ "$WRITER" = 1 ] && [ "$LAZY" = 1 ] &&
	[ -e /sys/block/md0/md/reshape_checkpoint_ms ]; then
	# r5grow, odd trials: checkpoints only when a step needs one, so
	# most writes behind the cursor land between C and P and go to both
	# geometries.
	must sysfs_set /sys/block/md0/md/reshape_checkpoint_ms 600000
	say "reshape_checkpoint_ms 600000"
fi
if [ "$GROW" = raidctl ]; then
	must raidctl grow md0 --to 4 --add /dev/vdd
else
	grow_"$GROW" md0 4 /dev/vdd
fi
if [ "$FAIL" = 1 ]; then
	# a degraded grow: an old member fails once the reshape has moved
	wait_reshape_running md0
	must mdadm /dev/md0 --fail /dev/vdb
	say "vdb failed at reshape_position $(md_attr md0 reshape_position)"
fi
echo "R5G-CUT-NOW at reshape_position $(md_attr md0 reshape_position)"
# Keep the console going (and show where the cut came).
while :; do
	echo "reshape_position $(md_attr md0 reshape_position)"
	sleep 0.5
done
SCRIPT

cat >"$TEST_TMP/boot2.sh" <<'SCRIPT'
# shellcheck source=tests/guest/reshape-lib.guest
. /root/reshape-lib.guest
if [ "$FAIL" = 1 ]; then
	# the remaining members; degraded and not clean, which mdadm starts
	# only with --force (md's write-hole rule, raid456 the same)
	must mdadm --assemble --force /dev/md0 /dev/vda /dev/vdc /dev/vdd
else
	must mdadm --assemble --scan
fi
md=$(awk '/^md[0-9]+ : active/ { print $1; exit }' /proc/mdstat)
[ -n "$md" ] || { cat /proc/mdstat; fail "mdadm --assemble --scan started no array"; }
mbytes=$(member_bytes "$md")
rd=$(md_attr "$md" raid_disks) at=$(md_attr "$md" reshape_position)
say "$md assembled: raid_disks $rd, reshape_position $at, sync_action $(md_attr "$md" sync_action)"
if [ "$at" = none ] && [ "$rd" = 3 ]; then
	say "the cut came before the reshape reached the disks: the array is the old one"
	want=3
else
	want=4
	if [ "$WRITER" = 1 ] && [ "$at" != none ] && [ "$(personality)" = ours ]; then
		# Reads across both geometries while the reshape resumes.
		must iover verify --journal /dev/vde "/dev/$md"
	fi
	wait_idle "$md" 300
fi
if [ "$FAIL" = 1 ]; then
	[ "$(md_attr "$md" degraded)" = 1 ] ||
		fail "$md: degraded is $(md_attr "$md" degraded) after a degraded grow, not 1"
	same_bytes "/dev/$md" /root/ref.bin
	say "$md: the degraded grow completed, every reference byte intact; vdb added back"
	must mdadm --zero-superblock /dev/vdb
	must mdadm "/dev/$md" --add /dev/vdb
	sleep 1
	wait_idle "$md" 300
fi
check_grown "$md" "$want" "$mbytes"
if [ "$BITMAP" = 1 ]; then
	grep -A3 "^$md " /proc/mdstat | grep -q 'bitmap:' ||
		fail "$md lost its bitmap: $(cat /proc/mdstat)"
	say "$md: bitmap present; $(dmesg | grep -c "md: resync of RAID array $md") bitmap-driven resync(s) after the reshape"
fi
same_bytes "/dev/$md" /root/ref.bin
say "$md: every reference byte intact"
if [ "$WRITER" = 1 ]; then
	must iover verify --journal /dev/vde "/dev/$md"
	say "$md: every acknowledged write intact"
fi
check_parity "$md"
must mdadm --stop "/dev/$md"
SCRIPT

# powercut_trial I META WRITER BITMAP GROW DELAY [LAZY [FAIL]]: one trial
# (two boots); LAZY 1 makes r5grow checkpoint only when a step needs it
# (default: odd I); FAIL 1 fails vdb once the grow has moved, before the
# cut, and adds it back once the resumed grow is done;
# status 0 when the array came back grown with every byte and a clean
# parity, 1 when not (what went wrong is printed), 77 when the guest
# skipped it. $TEST_TMP/ref.bin must exist.
powercut_trial() {
	local i=$1 meta=$2 writer=$3 bitmap=$4 grow=$5 delay=$6 lazy=${7:-$(($1 % 2))}
	local failed=${8:-0}
	local dir=$TEST_TMP/disks.$i opts rc console what
	console=${TEST_LOGS:-$TEST_TMP}/reshape-powercut-$meta-w$writer-b$bitmap-f$failed-$grow-$pers-$i
	what="trial $i ($meta, $grow, cut $delay s into the grow)"
	opts=(--personality "$pers" --disks 5 --disk-size 32M --disk-dir "$dir"
		--timeout 400 --file "$here/reshape-lib.guest" --file "$TEST_TMP/ref.bin"
		--env "META=$meta" --env "WRITER=$writer" --env "LAZY=$lazy"
		--env "FAIL=$failed"
		--env "BITMAP=$bitmap" --env "GROW=$grow")
	"$GUEST_RUN" -q --log "$console.boot1" "${opts[@]}" \
		--kill-after-marker R5G-CUT-NOW "$delay" "$TEST_TMP/boot1.sh" \
		>"$TEST_TMP/last.out" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q '^raidtest: script exited with status 77' "$console.boot1"; then
		grep '^SKIP' "$console.boot1"
		return 77
	fi
	if [ "$rc" != 0 ]; then
		say "FAILED: $what: boot 1 status $rc"
		cat "$TEST_TMP/last.out"
		grep -v '^\[' "$console.boot1" | sed -n '/running script/,$p' | tail -n 20
		return 1
	fi
	say "$what: $(grep -a '^reshape_position' "$console.boot1" | tail -n1)"
	"$GUEST_RUN" -q --log "$console.boot2" "${opts[@]}" "$TEST_TMP/boot2.sh" \
		>"$TEST_TMP/last.out" 2>&1
	rc=$?
	grep -a '^== ' "$console.boot2" | sed 's/^/   /'
	rm -rf "$dir"
	if [ "$rc" != 0 ]; then
		say "FAILED: $what: boot 2 status $rc"
		cat "$TEST_TMP/last.out"
		grep -v '^\[' "$console.boot2" | sed -n '/running script/,$p' | tail -n 30
		return 1
	fi
	say "ok: trial $i: resumed, completed, data and parity intact"
}

# powercut_trials METADATA WRITER(0|1) DEFAULT-TRIALS [BITMAP(0|1)
#                 [mdadm|sysfs|raidctl [FAIL(0|1)]]]
powercut_trials() {
	local meta=$1 writer=$2 trials=${RESHAPE_TRIALS:-$3} budget=${RESHAPE_BUDGET:-150}
	local bitmap=${4:-0} grow=${5:-mdadm} failed=${6:-0}
	local i start=$SECONDS
	head -c $((24 * 1048576)) /dev/urandom >"$TEST_TMP/ref.bin"
	for ((i = 0; i < trials; i++)); do
		if [ "$i" -gt 0 ] && [ $((SECONDS - start)) -ge "$budget" ]; then
			say "time budget of $budget s spent after $i trials"
			break
		fi
		powercut_trial "$i" "$meta" "$writer" "$bitmap" "$grow" \
			"${DELAYS[i % ${#DELAYS[@]}]}" $((i % 2)) "$failed"
		case $? in
		0) ;;
		77)
			rm -rf "$TEST_TMP"
			exit 77
			;;
		*) failures=$((failures + 1)) ;;
		esac
	done
	finish
}
