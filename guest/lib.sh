# shellcheck shell=sh disable=SC2034
# Shared settings for the guest scripts. Source it; it defines no commands
# that run by themselves.
#
# RAIDCTL_CACHE  where the kernel tree, build outputs and disk images live
#                (default ${XDG_CACHE_HOME:-$HOME/.cache}/raidctl)

# A script outside guest/ sets TOP_DIR before it sources this file.
TOP_DIR=${TOP_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
GUEST_DIR=$TOP_DIR/guest
CACHE=${RAIDCTL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/raidctl}
KSRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
JOBS=$(nproc 2>/dev/null || echo 2)

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# Flavour name check: debug or perf.
check_flavour() {
	case "$1" in
	debug | perf) ;;
	*) die "unknown flavour '$1' (debug or perf)" ;;
	esac
}

# Directory of the finished artifacts of one flavour.
out_dir() {
	echo "$CACHE/out/$1"
}
