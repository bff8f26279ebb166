/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iover: the data writer and verifier that every data test trusts.
 *
 * Content: every 512-byte sector written by iover holds a pure function of
 * (seed, sector, gen): word 0 is the sector number, word 1 holds the
 * generation and a tag of the seed, words 2..63 come from a counter-based
 * stream keyed by all three.  So a wrong sector can be decoded:
 * stale (an older gen of the same sector), misplaced (another sector's data)
 * or garbage.
 *
 * Model: one 32-bit generation per sector of the region.  Gen 0 means
 * "unknown" (never written by iover, or lost to an I/O error) and is not
 * checked.  Every write takes a fresh gen from one global counter, so a gen
 * names exactly one write.  Writers hold an exclusive range lock over the
 * sectors they write; readers a shared one, so the model is exact.
 *
 * Persistence: a state file (saved at exit, for clean reboots) or a journal
 * on a raw device (survives a power cut at any instant): see journal.c.
 */
#ifndef IOVER_H
#define IOVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SECTOR_SIZE	512u
#define SECTOR_SHIFT	9
#define SECTOR_WORDS	(SECTOR_SIZE / 8)
#define MAX_CAND	8	/* candidate gens for one sector after a cut */

/* Exit codes, listed in --help. */
enum {
	EXIT_OK = 0,
	EXIT_MISMATCH = 1,
	EXIT_USAGE = 2,
	EXIT_IOERR = 3,
};

/*---- pattern.c: content of a sector ----*/

uint64_t mix64(uint64_t x);
uint32_t seed_tag(uint64_t seed);
void pattern_fill(uint64_t seed, uint64_t sector, uint32_t gen, void *buf);
bool pattern_match(uint64_t seed, uint64_t sector, uint32_t gen,
		   const void *buf);
bool pattern_match_part(uint64_t seed, uint64_t sector, uint32_t gen,
			const void *buf, unsigned int from, unsigned int len);
void pattern_describe(uint64_t seed, uint64_t sector, uint32_t want,
		      const void *buf, char *out, size_t outlen);

/*---- model.c: generation map and its on-disk image ----*/

struct model {
	uint64_t seed;
	uint64_t offset;	/* region start in the device, bytes */
	uint64_t nsect;		/* region length in sectors */
	uint32_t *gen;		/* current gen per sector */
};

/* On-disk header shared by the state file and the journal superblock. */
struct disk_super {
	char magic[8];		/* "IOVERST1" or "IOVERJN1" */
	uint32_t version;
	uint32_t flags;		/* SUPER_* */
	uint64_t seed;
	uint64_t offset;
	uint64_t nsect;
	uint64_t run_id;	/* journal: tags every log block */
	uint64_t epoch;		/* journal: checkpoint number */
	uint32_t uniform_gen;	/* SUPER_UNIFORM: the whole map is this gen */
	uint32_t pad;
	uint64_t map_sum;	/* checksum of the map */
	uint64_t log_start;	/* journal: first log block */
	uint64_t log_blocks;	/* journal: number of log blocks */
	uint64_t map_start[2];	/* journal: block of each map slot */
	uint64_t sum;		/* checksum of this struct up to here */
};

#define SUPER_UNIFORM	0x1	/* map not stored, all sectors uniform_gen */
#define SUPER_DIRTY	0x2	/* state file: a run using it did not finish */
#define SUPER_TORN_OK	0x4	/* buffered writes: pending sectors may tear */

int model_init(struct model *m, uint64_t seed, uint64_t offset,
	       uint64_t nsect, uint32_t gen);
int model_extend(struct model *m, uint64_t nsect);
void model_free(struct model *m);
uint32_t model_max_gen(const struct model *m);
uint64_t hash_words(const void *buf, size_t len);
void super_seal(struct disk_super *s);
bool super_valid(const struct disk_super *s, const char *magic);
int state_load(const char *path, struct model *m, uint32_t *flags);
int state_save(const char *path, const struct model *m, uint32_t flags);
int state_mark(const char *path, uint32_t flags);

/*---- io.c ----*/

struct dev {
	int fd;
	const char *path;
	uint64_t size;		/* bytes */
	int lbs;		/* logical block size */
	bool direct;
	bool is_blk;
};

int dev_open(struct dev *d, const char *path, bool direct, bool writable,
	     int extra);
void dev_close(struct dev *d);
void *buf_alloc(size_t len);
ssize_t pread_full(int fd, void *buf, size_t len, uint64_t off);
ssize_t pwrite_full(int fd, const void *buf, size_t len, uint64_t off);
int parse_size(const char *s, uint64_t *out);
int parse_uint(const char *s, uint64_t max, uint64_t *out);
double now_sec(void);
uint64_t now_ns(void);

/*---- rangelock.c ----*/

#define RL_SLOTS 256

struct rangelock {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct {
		uint64_t start, end;	/* sectors, [start, end) */
		bool used, excl;
	} slot[RL_SLOTS];
};

void rl_init(struct rangelock *rl);
int rl_lock(struct rangelock *rl, uint64_t start, uint64_t end, bool excl);
void rl_unlock(struct rangelock *rl, int slot);

/*---- stats.c ----*/

#define HIST_SUB	16
#define HIST_BUCKETS	(64 * HIST_SUB)

struct hist {
	uint64_t count[HIST_BUCKETS];
	uint64_t max;
	uint64_t n;
};

struct stats {
	uint64_t written, read, verified;	/* bytes */
	uint64_t wops, rops;
	uint64_t mismatches;	/* sectors */
	uint64_t ioerrs;
	uint64_t unknown;	/* sectors skipped: gen 0 */
	uint64_t resolved_old, resolved_new, torn;
};

void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
uint64_t hist_pct(const struct hist *h, double pct);
void stats_add(struct stats *dst, const struct stats *src);
void stats_summary(const char *cmd, const struct stats *s, double secs,
		   const struct hist *lat);
int stats_exit(const struct stats *s);

/*---- check.c: verify a buffer against the model ----*/

/* What a sector may hold: an exact gen, or one of several after a cut. */
struct cand {
	uint32_t n;
	bool torn_ok;
	uint32_t gen[MAX_CAND];
};

struct reporter {
	pthread_mutex_t lock;
	uint64_t reported;
	uint64_t max_report;
};

extern struct reporter report;

bool check_sector(const struct model *m, uint64_t sector, const void *buf,
		  unsigned int from, unsigned int len, struct stats *st);
int check_cand(const struct model *m, uint64_t sector, const void *buf,
	       const struct cand *c, struct stats *st);
void report_mismatch(const struct model *m, uint64_t sector, const void *buf,
		     uint32_t want, const char *expect);
void report_flush(void);
void report_ioerr(const char *what, const char *path, uint64_t off,
		  size_t len, int err);

/*---- options (main.c) and commands (fill.c, verify.c, random.c) ----*/

struct opts {
	const char *path;
	uint64_t seed;
	uint64_t offset, length;	/* region, bytes; length 0: to end */
	uint32_t gen;			/* fill: gen to write; else: model */
	const char *state, *journal;
	unsigned int threads, readers;
	bool buffered;
	uint64_t align;			/* direct I/O granularity, bytes */
	uint64_t block;			/* fill/verify I/O size */
	uint64_t min_size, max_size;	/* random write sizes */
	double seconds;
	uint64_t ops;
	unsigned int fsync_every;
	uint64_t hot_start, hot_len;	/* bytes, in the region */
	unsigned int hot_pct;
	const char *hot_follow;
	double progress;
	bool latency;
	bool verify_end;
	bool show_pending;
	bool extend;			/* random: region to the end of DEVICE */
	unsigned int set;		/* OPT_* given on the command line */
};

#define OPT_SEED	0x01
#define OPT_OFFSET	0x02
#define OPT_LENGTH	0x04
#define OPT_GEN		0x08
#define OPT_HOT		0x10

int cmd_fill(struct opts *o);
int cmd_verify(struct opts *o);
int cmd_random(struct opts *o);
void verify_model(const struct opts *o, struct dev *d, struct model *m,
		  struct stats *st);

/* common.c: what every command needs before it starts */
int open_dev(const struct opts *o, struct dev *d, bool writable);
int region_from_opts(const struct opts *o, const struct dev *d,
		     uint64_t *offset, uint64_t *nsect);
int check_region(const struct opts *o, const struct model *m,
		 const struct dev *d);
int save_state(const char *path, const struct model *m, uint32_t flags);
void install_stop_handler(void);
bool stop_requested(void);

#endif /* IOVER_H */
