#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of iover on regular files (never block devices).
#
#   test-iover.sh IOVER WORKDIR TEST
#
# Every test that expects a failure first proves the same check passes on
# intact data, and checks that its corruption really changed the file.
set -u

IOVER=$1
W=$2
T=$3
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

fail() {
	echo "FAIL ($T): $*" >&2
	exit 1
}

# expect RC CMD...: run, keep stdout in out, stderr in err, check the code.
expect() {
	local want=$1 rc
	shift
	"$@" >out 2>err
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout"; cat out; echo "--- stderr"; cat err
		fail "'$*' exited $rc, expected $want"
	fi
}

# grep_err PATTERN: the last command's stderr must match.
grep_err() {
	grep -q -- "$1" err || { cat err; fail "stderr lacks '$1'"; }
}

# field NAME: a key=value from the first summary on stdout.
field() {
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" out | head -1
}

# positive NAME: the summary field is a number above zero.
positive() {
	local v
	v=$(field "$1")
	if [ -z "$v" ] || [ "$v" = 0 ]; then
		cat out
		fail "$1 is '$v'"
	fi
}

byte_at() {
	od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '
}

# corrupt FILE OFFSET: flip every bit of one byte, and prove it changed.
corrupt() {
	local old new
	old=$(byte_at "$1" "$2")
	printf '%b' "$(printf '\\%03o' $((old ^ 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
	new=$(byte_at "$1" "$2")
	[ "$old" != "$new" ] || fail "corruption at $2 did not change the byte"
}

# bg_random ARGS...: iover random ARGS in the background, BG its pid;
# returns once its first progress line shows it is running.
bg_random() {
	local i
	: >bg.err
	"$IOVER" random --progress 0.1 "$@" >bg.out 2>bg.err &
	BG=$!
	for i in $(seq 600); do
		grep -q " s written=" bg.err && return
		kill -0 "$BG" 2>/dev/null || { cat bg.err; fail "random ended at once"; }
		sleep 0.1
	done
	fail "random did not start"
}

mkfile() {
	truncate -s "$2" "$1"
}

t_usage() {
	mkfile d 8M
	expect 0 "$IOVER" --help
	grep -q "Exit status" out || fail "--help lacks exit status"
	expect 2 "$IOVER"
	expect 2 "$IOVER" frobnicate d
	grep_err "unknown command"
	expect 2 "$IOVER" fil d
	expect 2 "$IOVER" fill
	grep_err "exactly one DEVICE"
	expect 2 "$IOVER" fill d d
	expect 2 "$IOVER" fill --bogus d
	grep_err "'--bogus'"
	expect 2 "$IOVER" fill --seed
	expect 2 "$IOVER" fill --seed x1 d
	grep_err "--seed: 'x1' is not a number"
	expect 2 "$IOVER" fill --seed -1 d
	expect 2 "$IOVER" fill --gen 0 d
	expect 2 "$IOVER" fill --length 1000 d
	expect 2 "$IOVER" fill --length 16M d
	grep_err "does not fit"
	expect 2 "$IOVER" fill --offset 100 d
	grep_err "not a multiple"
	expect 2 "$IOVER" fill --offset 9M d
	expect 2 "$IOVER" fill --align 3000 d
	expect 2 "$IOVER" fill --block 1000 d
	expect 2 "$IOVER" fill --threads 0 d
	expect 2 "$IOVER" random --threads 0 --ops 5 d
	expect 2 "$IOVER" fill --threads 65 d
	expect 2 "$IOVER" fill --seconds 3 d
	grep_err "does not apply to fill"
	expect 2 "$IOVER" verify --hot-pct 5 d
	expect 2 "$IOVER" fill --state s --journal j d
	grep_err "cannot be used together"
	expect 2 "$IOVER" fill --buffered --direct d
	expect 2 "$IOVER" random --seconds 1 --hot-start 0 --hot-follow f d
	expect 2 "$IOVER" random d
	grep_err "needs --seconds or --ops"
	expect 2 "$IOVER" random --seconds 0 d
	expect 2 "$IOVER" random --seconds abc d
	expect 2 "$IOVER" random --ops 0 d
	expect 2 "$IOVER" random --ops 1 --hot-pct 101 d
	expect 2 "$IOVER" random --ops 1 --min-size 8K --max-size 4K d
	expect 2 "$IOVER" random --ops 1 --max-size 1000 d
	expect 2 "$IOVER" random --ops 1 --hot-start 8M d
	grep_err "beyond the region"
	expect 2 "$IOVER" verify d
	grep_err "nothing to verify against"
	expect 2 "$IOVER" verify --state missing d
	expect 2 "$IOVER" verify --gen 1 missing-device
	expect 2 "$IOVER" verify --gen 1 .
	grep_err "not a block device or regular file"
	echo junk >j
	expect 2 "$IOVER" verify --journal j d
	grep_err "no valid iover journal"
	# A journal too small for the region, and on the device itself.
	mkfile j 64K
	expect 2 "$IOVER" fill --journal j d
	grep_err "too small"
	expect 2 "$IOVER" fill --journal d d
	grep_err "must not be the device"
	[ ! -e missing-device ] || fail "iover created a device file"
	# One iover per journal; SIGTERM ends a run cleanly.
	mkfile j 2M
	expect 0 "$IOVER" fill --journal j d
	expect 2 "$IOVER" verify --journal j j
	grep_err "must not be the device"
	bg_random --journal j --seconds 60 d
	expect 2 "$IOVER" verify --journal j d
	grep_err "in use by another iover"
	kill -TERM "$BG"
	wait "$BG" || fail "random did not end cleanly on SIGTERM"
	expect 0 "$IOVER" verify --journal j d
	expect 0 "$IOVER" random --journal j --ops 1 d
}

t_fill_verify() {
	mkfile d 64M
	expect 0 "$IOVER" fill --threads 2 d
	[ "$(field written)" = 67108864 ] || fail "fill wrote $(field written)"
	expect 0 "$IOVER" verify --gen 1 d
	[ "$(field verified)" = 67108864 ] || fail "verified $(field verified)"
	[ "$(field mismatches)" = 0 ] || fail "mismatches"
	expect 0 "$IOVER" verify --gen 1 --buffered --threads 3 --block 64K d
	expect 0 "$IOVER" verify --gen 1 --block 4K --progress 0.01 d
	grep_err "^iover: .* MB at .* MB/s, [0-9]*% done$"
	# gen 2 over a sub-region; gen 1 around it.
	expect 0 "$IOVER" fill --gen 2 --offset 8M --length 4M d
	expect 0 "$IOVER" verify --gen 2 --offset 8M --length 4M d
	expect 0 "$IOVER" verify --gen 1 --length 8M d
	expect 0 "$IOVER" verify --gen 1 --offset 12M d
	expect 1 "$IOVER" verify --gen 1 --offset 4M --length 8M d
	grep_err "expected gen 1, found intact gen 2 of sector 16384"
	expect 0 "$IOVER" fill --buffered --gen 3 --length 1M d
	expect 0 "$IOVER" verify --gen 3 --length 1M d
}

t_wrong_seed() {
	mkfile d 16M
	expect 0 "$IOVER" fill --seed 7 --state s d
	expect 0 "$IOVER" verify --seed 7 --gen 1 d
	expect 0 "$IOVER" verify --state s d
	expect 1 "$IOVER" verify --seed 8 --gen 1 d
	grep_err "not data of this seed"
	[ "$(field mismatches)" = 32768 ] || fail "mismatches $(field mismatches)"
	expect 2 "$IOVER" verify --seed 8 --state s d
	grep_err "differs from the saved model's seed 7"
	expect 1 "$IOVER" verify --seed 7 --gen 2 d
	grep_err "expected gen 2, found intact gen 1"
}

t_corrupt() {
	mkfile d 64M
	expect 0 "$IOVER" fill --state s d
	expect 0 "$IOVER" verify --state s d
	corrupt d 12345678
	expect 1 "$IOVER" verify --state s d
	[ "$(field mismatches)" = 1 ] || fail "mismatches $(field mismatches)"
	grep_err "mismatch at byte 12345344 (sector 24112)"
	grep_err "damaged data, header says gen 1 of sector 24112"
	# Same after random writes, on a byte that is surely known.
	mkfile d2 16M
	expect 0 "$IOVER" fill --state s2 d2
	expect 0 "$IOVER" random --state s2 --ops 300 --threads 3 d2
	expect 0 "$IOVER" verify --state s2 d2
	corrupt d2 $((5 * 1048576 + 17))
	expect 1 "$IOVER" verify --state s2 d2
	# A zeroed block is named as zeros.
	expect 0 "$IOVER" fill --state s3 d
	dd if=/dev/zero of=d bs=4096 seek=100 count=1 conv=notrunc status=none
	expect 1 "$IOVER" verify --state s3 d
	[ "$(field mismatches)" = 8 ] || fail "mismatches $(field mismatches)"
	grep_err "mismatch at byte 409600 (sector 800), 8 sectors: expected gen 1, found zeros (first sector)"
	# Each run of bad sectors is one line, up to --max-report.
	for i in 1 3 5 7 9; do
		dd if=/dev/zero of=d bs=512 seek=$((i * 1000)) count=1 \
			conv=notrunc status=none
	done
	expect 1 "$IOVER" verify --state s3 --max-report 3 d
	[ "$(field mismatches)" = 13 ] || fail "mismatches $(field mismatches)"
	[ "$(grep -c 'mismatch at' err)" = 3 ] || fail "not 3 lines"
	grep_err "further mismatches not shown"
	# Readers of random catch it too, while it runs.
	expect 0 "$IOVER" fill --length 1M d
	dd if=/dev/zero of=d bs=4096 seek=10 count=1 conv=notrunc status=none
	expect 1 "$IOVER" random --gen 1 --length 1M --threads 0 --readers 2 \
		--hot-start 40K --hot-len 4K --hot-pct 100 --seconds 0.5 d
	grep_err "found zeros"
}

t_state() {
	mkfile d 32M
	expect 0 "$IOVER" fill --state s d
	expect 0 "$IOVER" random --state s --ops 400 --threads 4 d
	positive wops
	expect 0 "$IOVER" verify --state s d
	cp s s.before
	expect 0 "$IOVER" random --state s --ops 400 d
	expect 0 "$IOVER" verify --state s d
	# The older state no longer describes the data.
	expect 1 "$IOVER" verify --state s.before d
	# A run killed before saving leaves a state verify refuses.
	bg_random --state s --seconds 60 d
	kill -9 "$BG"
	wait "$BG"
	expect 2 "$IOVER" verify --state s d
	grep_err "did not finish"
	expect 2 "$IOVER" random --state s --ops 1 d
	# A state of another region does not fit.
	mkfile small 8M
	expect 2 "$IOVER" verify --state s.before small
	grep_err "does not fit"
	expect 2 "$IOVER" verify --state s.before --offset 4096 d
	# Random without any saved model starts from unknown.
	expect 0 "$IOVER" random --state fresh --ops 100 small
	expect 0 "$IOVER" verify --state fresh small
	positive unknown
}

# random_check IO-MODE RANDOM-OPTIONS...: threaded writers and readers.
random_check() {
	mkfile d 64M
	expect 0 "$IOVER" fill --state s "$1" d
	expect 0 "$IOVER" random --state s --threads 4 --readers 2 \
		--seconds 3 --verify-end --latency "$@" d
	positive wops
	positive rops
	positive verified
	grep -q "wlat_p99_us=" out || fail "no latency in summary"
	[ "$(grep -c '^iover verify:' out)" = 1 ] || fail "no --verify-end"
	expect 0 "$IOVER" verify --state s d
	expect 0 "$IOVER" random --state s --seconds 0.5 --min-size 4K \
		--max-size 64K --progress 0.1 "$@" d
	grep_err "^iover: .* s written="
	expect 0 "$IOVER" verify --state s d
}

t_random_direct() {
	random_check --direct
	random_check --direct --align 512
}

t_random_buffered() {
	random_check --buffered --fsync-every 4
	random_check --buffered --fsync-every 1000
}

# kill_run MODE...: a random run killed -9 mid-way, then checks.
kill_run() {
	bg_random --journal j --threads 4 --readers 1 --seconds 120 "$@" d
	sleep "$KILL_AFTER"
	kill -9 "$BG"
	wait "$BG"
	[ $? = 137 ] || fail "random ended before the kill"
}

# journal_check IO-MODE RANDOM-OPTIONS...
journal_check() {
	mkfile d 64M
	mkfile j 8M
	expect 0 "$IOVER" fill --journal j "$1" d
	cp j j.fill
	expect 0 "$IOVER" verify --journal j d
	for KILL_AFTER in 0.3 1 2; do
		kill_run "$@"
		expect 2 "$IOVER" random --journal j --ops 1 "$@" d
		grep_err "cut short"
		expect 0 "$IOVER" verify --journal j d
		positive verified
		expect 0 "$IOVER" verify --journal j d
	done
	# The journal is what made it pass: the model of the fill fails.
	expect 1 "$IOVER" verify --journal j.fill d
	# A cut, then a corrupted byte: found.
	kill_run "$@"
	cp j j.cut
	corrupt d 33554433
	expect 1 "$IOVER" verify --journal j d
	# A failed verify leaves the journal as it was.
	cmp -s j j.cut || fail "failed verify changed the journal"
	# Enough writes to checkpoint a small journal many times.
	mkfile d2 16M
	mkfile j2 1400K
	expect 0 "$IOVER" fill --journal j2 "$1" d2
	expect 0 "$IOVER" random --journal j2 --ops 4000 --max-size 16K \
		--threads 2 "$@" d2
	expect 0 "$IOVER" verify --journal j2 d2
	# A cut during fill: the unwritten part is unknown, not wrong.
	mkfile d3 256M
	"$IOVER" fill --journal j "$1" --block 4K d3 >/dev/null 2>&1 &
	sleep 0.3
	kill -9 $!
	wait $!
	[ $? = 137 ] || fail "fill ended before the kill"
	expect 0 "$IOVER" verify --journal j d3
	positive unknown
}

t_journal_kill() {
	journal_check --direct
}

t_journal_kill_buffered() {
	journal_check --buffered --fsync-every 8
}

# sector_of GEN SECTOR OUT: the 512 bytes iover writes there, into OUT.
sector_of() {
	rm -f tmp.img
	mkfile tmp.img $((($2 + 1) * 512))
	"$IOVER" fill --buffered --gen "$1" --offset $(($2 * 512)) \
		--length 512 tmp.img >/dev/null || fail "cannot make gen $1"
	dd if=tmp.img of="$3" bs=512 skip="$2" count=1 status=none
}

# cut_pending IO-MODE: a killed run with pending writes; sets S, G, A to
# the first sector, gen and acked gen of one, keeps the journal in j.cut.
cut_pending() {
	local line _
	for _ in 1 2 3 4 5; do
		mkfile d 16M
		mkfile j 8M
		expect 0 "$IOVER" fill --journal j "$1" d
		KILL_AFTER=0.5
		kill_run "$@" --fsync-every 5000
		cp j j.cut
		cp j j.show
		expect 0 "$IOVER" verify --journal j.show --show-pending d
		line=$(grep -m1 "pending write: " err) || continue
		[[ $line =~ sector\ ([0-9]+),.*gen\ ([0-9]+),\ first.*\ gen\ ([0-9]+) ]] ||
			continue
		S=${BASH_REMATCH[1]} G=${BASH_REMATCH[2]} A=${BASH_REMATCH[3]}
		[ "$A" -ge 1 ] && return
	done
	fail "no pending write after 5 cuts"
}

# The sector at S: head bytes of acked gen A, the rest of pending gen G.
tear() {
	sector_of "$A" "$S" old
	sector_of "$G" "$S" new
	cmp -s old new && fail "gens $A and $G are the same data"
	dd if=old of=d bs=1 count="$1" seek=$((S * 512)) conv=notrunc status=none
	dd if=new of=d bs=1 skip="$1" seek=$((S * 512 + $1)) count=$((512 - $1)) \
		conv=notrunc status=none
}

t_torn() {
	# Buffered: a sector half old, half new is a torn write, accepted.
	cut_pending --buffered
	tear 100
	cp j.cut j1
	expect 0 "$IOVER" verify --journal j1 d
	positive torn
	# All old is fine too; garbage is not.
	dd if=old of=d bs=512 seek="$S" conv=notrunc status=none
	cp j.cut j1
	expect 0 "$IOVER" verify --journal j1 d
	positive pending_old
	dd if=/dev/zero of=d bs=1 count=8 seek=$((S * 512 + 300)) conv=notrunc \
		status=none
	cp j.cut j1
	expect 1 "$IOVER" verify --journal j1 d
	grep_err "expected gen $A or gen $G"
	# Direct I/O does not tear a sector: the same mix is a mismatch.
	cut_pending --direct
	tear 100
	cp j.cut j1
	expect 1 "$IOVER" verify --journal j1 d
	dd if=new of=d bs=512 seek="$S" conv=notrunc status=none
	cp j.cut j1
	expect 0 "$IOVER" verify --journal j1 d
}

# A grown device: the saved region follows with --extend.
t_extend() {
	mkfile d 16M
	expect 0 "$IOVER" fill --state s d
	mkfile d 32M
	expect 0 "$IOVER" verify --state s d
	[ "$(field read)" = 16777216 ] || fail "verified beyond the old region"
	expect 2 "$IOVER" random --state s --extend --length 32M --ops 1 d
	expect 0 "$IOVER" random --state s --extend --ops 400 --readers 0 d
	expect 0 "$IOVER" verify --state s d
	[ "$(field read)" = 33554432 ] || fail "region not extended"
	positive unknown
	# New space written is checked like the old.
	expect 0 "$IOVER" random --state s --hot-start 24M --hot-len 4K \
		--hot-pct 100 --min-size 4K --max-size 4K --ops 3 --readers 0 d
	expect 0 "$IOVER" verify --state s d
	corrupt d $((24 * 1048576 + 5))
	expect 1 "$IOVER" verify --state s d
	grep_err "(sector 49152): expected gen"
	# The journal keeps room for 4 times the region where it can.
	mkfile d 16M
	mkfile j 8M
	expect 0 "$IOVER" fill --journal j d
	mkfile d 64M
	expect 0 "$IOVER" random --journal j --extend --ops 400 --readers 0 d
	expect 0 "$IOVER" verify --journal j d
	[ "$(field read)" = 67108864 ] || fail "journal region not extended"
	bg_random --journal j --threads 2 --seconds 60 d
	sleep 0.5
	kill -9 "$BG"
	wait "$BG"
	expect 0 "$IOVER" verify --journal j d
	# Where it cannot, --extend says so and changes nothing.
	mkfile d 16M
	mkfile j 1400K
	expect 0 "$IOVER" fill --journal j d
	mkfile d 256M
	expect 2 "$IOVER" random --journal j --extend --ops 1 d
	grep_err "journal map holds"
	expect 0 "$IOVER" verify --journal j d
	[ "$(field read)" = 16777216 ] || fail "journal changed"
}

t_hot() {
	mkfile d 32M
	expect 0 "$IOVER" fill d
	expect 0 "$IOVER" random --gen 1 --hot-start 8M --hot-len 1M \
		--hot-pct 100 --max-size 64K --ops 300 --readers 0 d
	expect 0 "$IOVER" verify --gen 1 --length 8M d
	expect 0 "$IOVER" verify --gen 1 --offset 10M d
	expect 1 "$IOVER" verify --gen 1 --offset 8M --length 2M d
	# Follow a sector number in a file, as md's reshape_position.
	expect 0 "$IOVER" fill d
	echo "40960 / 65536" >pos
	expect 0 "$IOVER" random --gen 1 --hot-follow pos --hot-pct 100 \
		--max-size 64K --ops 300 --readers 0 d
	expect 0 "$IOVER" verify --gen 1 --length 18M d
	expect 0 "$IOVER" verify --gen 1 --offset 23M d
	expect 1 "$IOVER" verify --gen 1 --offset 18M --length 4M d
	# No number in the file: no hot window, writes anywhere.
	echo none >pos
	expect 0 "$IOVER" fill d
	expect 0 "$IOVER" random --gen 1 --hot-follow pos --hot-pct 100 \
		--max-size 64K --ops 300 --readers 0 d
	expect 1 "$IOVER" verify --gen 1 --length 16M d
	expect 1 "$IOVER" verify --gen 1 --offset 24M d
}

t_misplaced() {
	mkfile d 16M
	expect 0 "$IOVER" fill --state s d
	dd if=d of=d bs=4096 skip=256 seek=512 count=1 conv=notrunc status=none
	expect 1 "$IOVER" verify --state s d
	grep_err "mismatch at byte 2097152 (sector 4096), 8 sectors: expected gen 1, found intact gen 1 of sector 2048 (misplaced) (first sector)"
	# Stale data: an old copy of a block written back.
	expect 0 "$IOVER" fill --state s d
	dd if=d of=old bs=4096 skip=1024 count=1 status=none
	expect 0 "$IOVER" random --state s --hot-start 4M --hot-len 4K \
		--hot-pct 100 --min-size 4K --max-size 4K --ops 5 --readers 0 d
	expect 0 "$IOVER" verify --state s d
	dd if=old of=d bs=4096 seek=1024 count=1 conv=notrunc status=none
	expect 1 "$IOVER" verify --state s d
	grep_err "(sector 8192), 8 sectors: expected gen [0-9]*, found intact gen 1 of sector 8192 (first sector)"
}

# A file system without O_DIRECT (tmpfs before Linux 6.6): skip.
mkfile probe 4K
if ! "$IOVER" fill probe >/dev/null 2>probe.err; then
	grep -q "O_DIRECT not supported" probe.err &&
		{ echo "SKIP ($T): no O_DIRECT in $W"; exit 77; }
	cat probe.err
	fail "iover cannot fill a 4K file"
fi
rm -f probe probe.err

case $T in
usage|fill-verify|wrong-seed|corrupt|state|random-direct|random-buffered|\
journal-kill|journal-kill-buffered|torn|extend|hot|misplaced)
	"t_${T//-/_}"
	;;
*)
	fail "no such test"
	;;
esac
echo "PASS ($T)"
