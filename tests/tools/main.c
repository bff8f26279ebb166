// SPDX-License-Identifier: GPL-2.0
/*
 * iover - write data with known content and verify it against a model.
 *
 *   iover fill   [options] DEVICE    write the region with gen --gen (1)
 *   iover verify [options] DEVICE    check the region against a model
 *   iover random [options] DEVICE    random writers + verifying readers
 *   iover --help | --version
 *
 * DEVICE is a block device or an existing regular file (never created).
 * The model says which gen every 512-byte sector holds; it comes from
 * --journal DEV (crash-safe), --state FILE (clean reboots), --gen G (the
 * whole region holds G), or, for random only, nothing (all unknown).
 *
 * Typical uses in guest tests:
 *
 *   iover fill --journal /dev/vdf /dev/md0
 *   iover random --journal /dev/vdf --seconds 60 --threads 2 --readers 1 \
 *       --hot-follow /sys/block/md0/md/reshape_position /dev/md0
 *   (power cut, reboot, assemble)
 *   iover verify --journal /dev/vdf /dev/md0
 *   (grow done, capacity larger)
 *   iover random --journal /dev/vdf --extend --seconds 30 /dev/md0
 *
 *   iover fill --state /root/s /dev/md0; ...; iover verify --state /root/s
 *   iover fill --seed 7 /dev/md0; ...; iover verify --seed 7 --gen 1 /dev/md0
 *
 * Output: one line "iover CMD: key=value ..." on stdout (written, read,
 * verified bytes; wops, rops; secs; write_MBps, read_MBps; mismatches
 * (sectors); ioerrors; unknown (sectors not checked); after a cut
 * pending_old, pending_new, torn; with --latency wlat_p50_us, wlat_p99_us,
 * wlat_max_us).  random --verify-end adds an "iover verify:" line.
 * Mismatches, errors and --progress lines go to stderr.
 *
 * Exit status: 0 all good, 1 data mismatch (wins over the others), 2 usage
 * or setup error (bad option, region, stale or busy model), 3 I/O error.
 * See usage() for every option and iover.h for the design.
 */
#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iover.h"

#define C_FILL		0x1
#define C_VERIFY	0x2
#define C_RANDOM	0x4
#define C_ALL		(C_FILL | C_VERIFY | C_RANDOM)

static const struct command {
	const char *name;
	int (*fn)(struct opts *o);
	unsigned int mask;
} commands[] = {
	{ "fill", cmd_fill, C_FILL },
	{ "random", cmd_random, C_RANDOM },
	{ "verify", cmd_verify, C_VERIFY },
};

enum {
	O_ALIGN = 256, O_BLOCK, O_BUFFERED, O_DIRECT, O_EXTEND, O_FSYNC_EVERY,
	O_HOT_FOLLOW, O_HOT_LEN, O_HOT_PCT, O_HOT_START, O_LATENCY,
	O_MAX_REPORT, O_MAX_SIZE, O_MIN_SIZE, O_OPS, O_PROGRESS, O_SECONDS,
	O_SHOW_PENDING, O_VERIFY_END, O_VERSION,
};

static const struct option longopts[] = {
	{ "align",	required_argument, NULL, O_ALIGN },
	{ "block",	required_argument, NULL, O_BLOCK },
	{ "buffered",	no_argument,	   NULL, O_BUFFERED },
	{ "direct",	no_argument,	   NULL, O_DIRECT },
	{ "extend",	no_argument,	   NULL, O_EXTEND },
	{ "fsync-every", required_argument, NULL, O_FSYNC_EVERY },
	{ "gen",	required_argument, NULL, 'g' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "hot-follow",	required_argument, NULL, O_HOT_FOLLOW },
	{ "hot-len",	required_argument, NULL, O_HOT_LEN },
	{ "hot-pct",	required_argument, NULL, O_HOT_PCT },
	{ "hot-start",	required_argument, NULL, O_HOT_START },
	{ "journal",	required_argument, NULL, 'j' },
	{ "latency",	no_argument,	   NULL, O_LATENCY },
	{ "length",	required_argument, NULL, 'l' },
	{ "max-report",	required_argument, NULL, O_MAX_REPORT },
	{ "max-size",	required_argument, NULL, O_MAX_SIZE },
	{ "min-size",	required_argument, NULL, O_MIN_SIZE },
	{ "offset",	required_argument, NULL, 'o' },
	{ "ops",	required_argument, NULL, O_OPS },
	{ "progress",	required_argument, NULL, O_PROGRESS },
	{ "readers",	required_argument, NULL, 'r' },
	{ "seconds",	required_argument, NULL, O_SECONDS },
	{ "seed",	required_argument, NULL, 's' },
	{ "show-pending", no_argument,	   NULL, O_SHOW_PENDING },
	{ "state",	required_argument, NULL, 'S' },
	{ "threads",	required_argument, NULL, 't' },
	{ "verify-end",	no_argument,	   NULL, O_VERIFY_END },
	{ "version",	no_argument,	   NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Which commands take which option (the rest take all three). */
static const struct {
	int opt;
	unsigned int mask;
} opt_cmds[] = {
	{ O_BLOCK, C_ALL }, { O_EXTEND, C_RANDOM }, { O_FSYNC_EVERY, C_RANDOM },
	{ O_HOT_FOLLOW, C_RANDOM }, { O_HOT_LEN, C_RANDOM },
	{ O_HOT_PCT, C_RANDOM }, { O_HOT_START, C_RANDOM },
	{ O_LATENCY, C_RANDOM }, { O_MAX_REPORT, C_VERIFY | C_RANDOM },
	{ O_MAX_SIZE, C_RANDOM }, { O_MIN_SIZE, C_RANDOM },
	{ O_OPS, C_RANDOM }, { 'r', C_RANDOM },
	{ O_SECONDS, C_RANDOM }, { O_SHOW_PENDING, C_VERIFY },
	{ O_VERIFY_END, C_RANDOM },
};

/* Pairs of options that cannot be given together. */
static const int conflicts[][2] = {
	{ 'j', 'S' },
	{ O_EXTEND, 'l' },
	{ O_BUFFERED, O_DIRECT },
	{ O_HOT_FOLLOW, O_HOT_START },
};

static void usage(void)
{
	fputs(
"Usage:\n"
" iover fill   [options] DEVICE   write the region with gen --gen (1)\n"
" iover verify [options] DEVICE   check the region against a model\n"
" iover random [options] DEVICE   random writers and verifying readers\n"
"\n"
"DEVICE is a block device or an existing regular file.  Every 512-byte\n"
"sector holds a function of (seed, sector, gen); the model says which gen\n"
"each sector must hold (gen 0: unknown, not checked).  BYTES take a K, M,\n"
"G or T suffix (powers of 1024).\n"
"\n"
"Model and region:\n"
" -s, --seed N          data seed (1)\n"
" -o, --offset BYTES    region start (0)\n"
" -l, --length BYTES    region length (to the end of DEVICE)\n"
" -g, --gen G           fill: gen to write (1); verify, random: the whole\n"
"                       region holds gen G (instead of a state or journal)\n"
" -S, --state FILE      model in FILE (or a spare block device, written in\n"
"                       place): fill and random save it at exit, verify\n"
"                       and random load it; survives clean reboots\n"
" -j, --journal DEV     model in a journal on DEV (a spare disk or a\n"
"                       preallocated file, not DEVICE): survives a power\n"
"                       cut at any instant.  fill creates it; verify\n"
"                       accepts old or new data where a write was cut\n"
"                       short, then records what it found\n"
"     --show-pending    verify --journal: list the writes cut short, up\n"
"                       to --max-report of them (stderr)\n"
"\n"
"I/O:\n"
"     --direct          O_DIRECT (the default)\n"
"     --buffered        page cache; writes split at random byte offsets,\n"
"                       fsync every --fsync-every writes; reads byte-granular\n"
"     --align BYTES     direct I/O unit, offsets and sizes (4096)\n"
"     --block BYTES     fill and verify I/O size (1M)\n"
" -t, --threads N       fill, verify: workers (1); random: writers (2;\n"
"                       0 for readers only, with --seconds)\n"
"\n"
"random:\n"
"     --seconds T       run for T seconds (or until SIGINT/SIGTERM)\n"
"     --ops N           stop after N writes\n"
" -r, --readers N       verifying reader threads (1)\n"
"     --min-size BYTES  smallest write (512)\n"
"     --max-size BYTES  largest write and read (1M); sizes are log-uniform\n"
"     --fsync-every N   buffered: fsync after N writes per writer (16)\n"
"     --hot-start BYTES aim --hot-pct % of the I/O at a window this far\n"
"     --hot-len BYTES   into the region, this long (1M; 4M with --hot-follow)\n"
"     --hot-pct P       (50)\n"
"     --hot-follow FILE centre the window on the device sector that is\n"
"                       the first number in FILE, read every 0.2 s (e.g.\n"
"                       md/reshape_position); no window while FILE does\n"
"                       not start with a number in the region\n"
"     --progress SECS   (all commands) a progress line on stderr every SECS\n"
"     --latency         add write latency p50/p99/max to the summary\n"
"     --verify-end      verify the whole region after the run\n"
"     --extend          DEVICE grew (e.g. an md grow): extend the saved\n"
"                       region to its end, the new sectors unknown\n"
"\n"
"Output: one summary line on stdout (key=value); mismatches on stderr,\n"
"the first --max-report N (10), each with what the data actually is.\n"
"\n"
"Exit status: 0 all good, 1 data mismatch (wins over 3), 2 usage or setup\n"
"error, 3 I/O error.\n", stdout);
	exit(EXIT_OK);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "iover: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'iover --help'.\n");
	exit(EXIT_USAGE);
}

static const char *opt_name(int val)
{
	const struct option *lo;

	for (lo = longopts; lo->name; lo++)
		if (lo->val == val)
			return lo->name;
	return "?";
}

static uint64_t arg_size(int opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse_size(arg, &v) || v < min || v > max)
		bad("--%s: '%s' is not a size from %llu to %llu bytes",
		    opt_name(opt), arg, (unsigned long long)min,
		    (unsigned long long)max);
	return v;
}

static uint64_t arg_uint(int opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse_uint(arg, max, &v) || v < min)
		bad("--%s: '%s' is not a number from %llu to %llu",
		    opt_name(opt), arg, (unsigned long long)min,
		    (unsigned long long)max);
	return v;
}

static double arg_secs(int opt, const char *arg)
{
	char *end;
	double v;

	v = strtod(arg, &end);
	if (end == arg || *end || !isfinite(v) || v <= 0 || v > 1e9)
		bad("--%s: '%s' is not a positive number of seconds",
		    opt_name(opt), arg);
	return v;
}

static void set_defaults(struct opts *o, unsigned int cmd)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->gen = cmd == C_FILL ? 1 : 0;
	o->threads = cmd == C_RANDOM ? 2 : 1;
	o->readers = 1;
	o->align = 4096;
	o->block = 1 << 20;
	o->min_size = SECTOR_SIZE;
	o->max_size = 1 << 20;
	o->fsync_every = 16;
	o->hot_pct = 50;
	o->hot_len = 1 << 20;
}

/* Options that take a value; false if opt is not one. */
static bool parse_value(struct opts *o, int opt, const char *arg)
{
	switch (opt) {
	case O_ALIGN:
		o->align = arg_size(opt, arg, 512, 1 << 20);
		if (o->align & (o->align - 1))
			bad("--align must be a power of two");
		break;
	case O_BLOCK:
		o->block = arg_size(opt, arg, 512, 64 << 20);
		break;
	case O_FSYNC_EVERY:
		o->fsync_every = arg_uint(opt, arg, 1, 1 << 20);
		break;
	case 'g':
		o->gen = arg_uint(opt, arg, 1, UINT32_MAX / 2);
		o->set |= OPT_GEN;
		break;
	case O_HOT_FOLLOW:
		o->hot_follow = arg;
		o->set |= OPT_HOT;
		break;
	case O_HOT_LEN:
		o->hot_len = arg_size(opt, arg, 512, UINT64_MAX);
		break;
	case O_HOT_PCT:
		o->hot_pct = arg_uint(opt, arg, 0, 100);
		break;
	case O_HOT_START:
		o->hot_start = arg_size(opt, arg, 0, UINT64_MAX);
		o->set |= OPT_HOT;
		break;
	case 'j':
		o->journal = arg;
		break;
	case 'l':
		o->length = arg_size(opt, arg, 512, UINT64_MAX);
		o->set |= OPT_LENGTH;
		break;
	case O_MAX_REPORT:
		report.max_report = arg_uint(opt, arg, 0, UINT32_MAX);
		break;
	case O_MAX_SIZE:
		o->max_size = arg_size(opt, arg, 512, 64 << 20);
		break;
	case O_MIN_SIZE:
		o->min_size = arg_size(opt, arg, 512, 64 << 20);
		break;
	case 'o':
		o->offset = arg_size(opt, arg, 0, UINT64_MAX);
		o->set |= OPT_OFFSET;
		break;
	case O_OPS:
		o->ops = arg_uint(opt, arg, 1, UINT64_MAX);
		break;
	case O_PROGRESS:
		o->progress = arg_secs(opt, arg);
		break;
	case 'r':
		o->readers = arg_uint(opt, arg, 0, 64);
		break;
	case O_SECONDS:
		o->seconds = arg_secs(opt, arg);
		break;
	case 's':
		o->seed = arg_uint(opt, arg, 0, UINT64_MAX);
		o->set |= OPT_SEED;
		break;
	case 'S':
		o->state = arg;
		break;
	case 't':
		o->threads = arg_uint(opt, arg, 0, 64);
		break;
	default:
		return false;
	}
	return true;
}

static bool parse_flag(struct opts *o, int opt)
{
	switch (opt) {
	case O_BUFFERED:
		o->buffered = true;
		break;
	case O_DIRECT:
		o->buffered = false;
		break;
	case O_EXTEND:
		o->extend = true;
		break;
	case O_LATENCY:
		o->latency = true;
		break;
	case O_SHOW_PENDING:
		o->show_pending = true;
		break;
	case O_VERIFY_END:
		o->verify_end = true;
		break;
	default:
		return false;
	}
	return true;
}

static unsigned int opt_mask(int opt)
{
	size_t i;

	for (i = 0; i < sizeof(opt_cmds) / sizeof(opt_cmds[0]); i++)
		if (opt_cmds[i].opt == opt)
			return opt_cmds[i].mask;
	return C_ALL;
}

static void check_conflicts(const bool *given)
{
	size_t i;

	for (i = 0; i < sizeof(conflicts) / sizeof(conflicts[0]); i++)
		if (given[conflicts[i][0]] && given[conflicts[i][1]])
			bad("--%s and --%s cannot be used together",
			    opt_name(conflicts[i][0]),
			    opt_name(conflicts[i][1]));
}

/* Cross-option checks that need all values. */
static void check_opts(struct opts *o, const struct command *c,
		       const bool *given)
{
	uint64_t unit = o->buffered ? SECTOR_SIZE : o->align;

	check_conflicts(given);
	if (o->block % unit)
		bad("--block must be a multiple of %llu",
		    (unsigned long long)unit);
	if (o->length % SECTOR_SIZE)
		bad("--length must be a multiple of 512");
	if (o->max_size % SECTOR_SIZE || o->min_size > o->max_size)
		bad("--max-size must be a multiple of 512 and not below --min-size");
	if (c->mask == C_RANDOM && !o->seconds && !o->ops)
		bad("random needs --seconds or --ops");
	if (!o->threads && (c->mask != C_RANDOM || !o->readers || !o->seconds))
		bad("--threads 0 only for random with --readers and --seconds");
	if (o->show_pending && !o->journal)
		bad("--show-pending needs --journal");
	if (o->hot_follow && !given[O_HOT_LEN])
		o->hot_len = 4 << 20;
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	static bool given[O_VERSION + 1];
	const struct command *c;
	struct opts o;
	int opt;

	if (argc < 2)
		bad("no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		usage();
	if (!strcmp(argv[1], "--version")) {
		printf("iover 1\n");
		return EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		bad("unknown command '%s'", argv[1]);
	set_defaults(&o, c->mask);
	argc--;
	argv++;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "g:hj:l:o:r:s:S:t:", longopts,
				  NULL)) != -1) {
		if (opt == 'h')
			usage();
		if (opt == '?')
			bad("bad option or missing value: '%s'",
			    argv[optind - 1]);
		if (!(opt_mask(opt) & c->mask))
			bad("--%s does not apply to %s", opt_name(opt),
			    c->name);
		if (opt == O_VERSION) {
			printf("iover 1\n");
			return EXIT_OK;
		}
		given[opt] = true;
		if (!parse_value(&o, opt, optarg) && !parse_flag(&o, opt))
			bad("unhandled option");
	}
	if (optind != argc - 1)
		bad("%s needs exactly one DEVICE", c->name);
	o.path = argv[optind];
	check_opts(&o, c, given);
	return c->fn(&o);
}
