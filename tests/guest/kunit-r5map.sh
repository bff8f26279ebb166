#!/bin/sh
# DESC: KUnit: r5map.c geometry (layouts, 64-bit sectors, grow periods, step bounds) against tables written out from md(4)
# RUN: --personality ours --disks 0 --timeout 600
# shellcheck source=tests/guest/lib.sh
. /lib/raidtest.sh

say "load the KUnit module of r5map.c; its cases run at load"
must modprobe r5map_kunit
out=/tmp/ktap
dmesg | sed -E 's/^(\[[^]]*\])+ //' |
	grep -E '^ *(# |ok |not ok |KTAP|1\.\.)' >"$out"
cat "$out"
grep -qE '^ *# Subtest: r5map$' "$out" || fail "the r5map suite did not run"
if grep -qE '^ *not ok ' "$out"; then
	fail "KUnit cases failed: $(grep -E '^ *not ok ' "$out" | tr '\n' ' ')"
fi
grep -qE '^ok [0-9]+ (- )?r5map$' "$out" || fail "no result line for the r5map suite"
cases=$(grep -cE '^ *ok [0-9]+ (- )?r5t_' "$out")
[ "$cases" -ge 7 ] || fail "only $cases of 7 cases passed"
say "r5map: $cases cases passed"
