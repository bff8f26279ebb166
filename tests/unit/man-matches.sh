#!/bin/sh
# The man page matches the tool: every command of "raidctl --help" has a
# section, and every exit code and option the tool knows is described.
#   man-matches.sh RAIDCTL MANPAGE
set -eu
raidctl=$1
page=$2
fail=0
commands=$("$raidctl" --help | sed -n 's/^ raidctl \([a-z]*\) .*/\1/p')
[ -n "$commands" ] || { echo "no commands in raidctl --help"; exit 1; }
for c in $commands; do
	grep -q "^\.SS $c\$" "$page" || { echo "no .SS $c"; fail=1; }
	for o in $("$raidctl" "$c" --help | grep -o -- '--[a-z]*' | sort -u); do
		grep -q -- "\\\\-\\\\-${o#--}" "$page" || { echo "$c: $o undocumented"; fail=1; }
	done
done
for code in 0 1 2 3 4 130; do
	grep -q "^\.IP $code\$" "$page" || { echo "exit code $code undocumented"; fail=1; }
done
grep -q RAIDCTL_SYSFS_ROOT "$page" || { echo "RAIDCTL_SYSFS_ROOT undocumented"; fail=1; }
exit "$fail"
