// SPDX-License-Identifier: GPL-2.0
/*
 * random: writer threads doing random-offset, random-size writes (sizes
 * log-uniform between --min-size and --max-size, so mostly small), reader
 * threads verifying random ranges meanwhile, optionally aimed at a hot
 * window (fixed, or following a sector number read from a file such as
 * md's reshape_position).
 *
 * Each writer: pick a range; pass the journal gate (see struct jgate),
 * take the range exclusive; take a fresh gen; log
 * INTENT and wait for it; write; update the model; queue ACK (direct I/O),
 * or remember the write until the fsync that follows every --fsync-every
 * buffered writes, then ACK.  Buffered writes are issued as several pwrite()
 * calls split at random byte offsets, so the page cache sees byte-granular
 * offsets and lengths while the model stays per sector.
 *
 * Each reader: pick a range (byte-granular when buffered), take it shared,
 * read and check it against the model before letting go.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"

struct unacked {
	uint64_t start;
	uint32_t nsect, gen;
};

struct rnd;

struct worker {
	struct rnd *r;
	pthread_t tid;
	bool writer;
	uint64_t rng;
	void *buf;
	struct stats st;
	struct hist lat;
	struct unacked *ua;	/* buffered writes not yet fsynced */
	unsigned int nua;
};

struct rnd {
	const struct opts *o;
	struct dev d;
	struct model m;
	struct journal j;
	bool use_journal;
	uint32_t jflags;
	struct jgate gate;	/* writers vs journal checkpoints */
	struct rangelock rl;
	uint32_t unit;		/* sectors per I/O unit */
	uint64_t units;		/* units in the region */
	uint64_t min_units, max_units;
	atomic_uint_fast32_t next_gen;
	atomic_uint_fast64_t ops_started;
	atomic_int live_writers;
	atomic_bool stop;
	atomic_int fatal;	/* exit code of an error that stopped the run */
	atomic_bool hot_on;
	atomic_uint_fast64_t hot_start;	/* units */
	uint64_t hot_len;		/* units */
	struct worker *w;
	unsigned int nw;
};

static uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

static void set_fatal(struct rnd *r, int code)
{
	int none = 0;

	atomic_compare_exchange_strong(&r->fatal, &none, code);
	atomic_store(&r->stop, true);
}

/*---- choosing ranges ----*/

static unsigned int log2u(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/* Log-uniform: every power of two as likely, so most writes are small. */
static uint64_t pick_len(struct rnd *r, uint64_t *rng)
{
	unsigned int lo = log2u(r->min_units), hi = log2u(r->max_units);
	unsigned int b = lo + rng_below(rng, hi - lo + 1);
	uint64_t a = (uint64_t)1 << b, z = ((uint64_t)2 << b) - 1;

	if (a < r->min_units)
		a = r->min_units;
	if (z > r->max_units)
		z = r->max_units;
	return a + rng_below(rng, z - a + 1);
}

/* A range in units, inside the region; in the hot window --hot-pct %. */
static void pick_range(struct rnd *r, uint64_t *rng, uint64_t *start,
		       uint64_t *len)
{
	uint64_t n = pick_len(r, rng), s;

	if (n > r->units)
		n = r->units;
	if (atomic_load(&r->hot_on) && rng_below(rng, 100) < r->o->hot_pct) {
		s = atomic_load(&r->hot_start) + rng_below(rng, r->hot_len);
		if (s > r->units - n)
			s = r->units - n;
	} else {
		s = rng_below(rng, r->units - n + 1);
	}
	*start = s;
	*len = n;
}

/*---- writers ----*/

static void model_set(struct rnd *r, uint64_t start, uint64_t nsect,
		      uint32_t gen)
{
	uint64_t i;

	for (i = start; i < start + nsect; i++)
		r->m.gen[i] = gen;
}

static void jlog(struct rnd *r, enum rec_type type, uint64_t start,
		 uint32_t nsect, uint32_t gen, bool wait)
{
	if (!r->use_journal || !journal_log(&r->j, type, start, nsect, gen,
					    wait))
		return;
	warnx("%s: journal write failed, stopping", r->o->journal);
	set_fatal(r, EXIT_IOERR);
}

/* fsync, then ack every buffered write made before it. */
static void writer_sync(struct worker *w)
{
	struct rnd *r = w->r;
	struct unacked *u;
	int slot;

	if (!w->nua)
		return;
	if (!fsync(r->d.fd)) {
		for (u = w->ua; u < w->ua + w->nua; u++)
			jlog(r, REC_ACK, u->start, u->nsect, u->gen, false);
		w->nua = 0;
		return;
	}
	warn("fsync %s", r->o->path);
	w->st.ioerrs++;
	for (u = w->ua; u < w->ua + w->nua; u++) {
		slot = rl_lock(&r->rl, u->start, u->start + u->nsect, true);
		model_set(r, u->start, u->nsect, 0);
		rl_unlock(&r->rl, slot);
		jlog(r, REC_LOST, u->start, u->nsect, u->gen, false);
	}
	w->nua = 0;
	set_fatal(r, EXIT_IOERR);
}

/* Buffered: several pwrite() calls split at random byte offsets. */
static ssize_t write_pieces(struct worker *w, const char *buf, size_t len,
			    uint64_t off)
{
	unsigned int left = 1 + rng_below(&w->rng, 4);
	size_t done = 0, piece;

	while (done < len) {
		piece = len - done;
		if (--left)
			piece = 1 + rng_below(&w->rng, piece);
		if (pwrite_full(w->r->d.fd, buf + done, piece, off + done) < 0)
			return -1;
		done += piece;
	}
	return len;
}

static void fill_buf(struct rnd *r, void *buf, uint64_t start,
		     uint64_t nsect, uint32_t gen)
{
	uint64_t abs = (r->m.offset >> SECTOR_SHIFT) + start, i;

	for (i = 0; i < nsect; i++)
		pattern_fill(r->m.seed, abs + i, gen,
			     (char *)buf + (i << SECTOR_SHIFT));
}

/* Before a checkpoint, with no writer inside: buffered data made durable. */
static int rnd_settle(void *arg)
{
	struct rnd *r = arg;
	unsigned int i;

	if (r->o->buffered && fsync(r->d.fd)) {
		warn("fsync %s", r->o->path);
		return -EIO;
	}
	for (i = 0; i < r->nw; i++)
		r->w[i].nua = 0;
	return 0;
}

static void write_one(struct worker *w, uint64_t start, uint64_t nsect)
{
	struct rnd *r = w->r;
	size_t len = nsect << SECTOR_SHIFT;
	uint64_t off = r->m.offset + (start << SECTOR_SHIFT), t;
	uint32_t gen;
	ssize_t n;
	int slot;

	slot = rl_lock(&r->rl, start, start + nsect, true);
	gen = atomic_fetch_add(&r->next_gen, 1);
	fill_buf(r, w->buf, start, nsect, gen);
	jlog(r, REC_INTENT, start, nsect, gen, true);
	if (atomic_load(&r->fatal))
		goto out_unlock;
	t = now_ns();
	if (r->o->buffered)
		n = write_pieces(w, w->buf, len, off);
	else
		n = pwrite_full(r->d.fd, w->buf, len, off);
	hist_add(&w->lat, now_ns() - t);
	w->st.wops++;
	if (n != (ssize_t)len) {
		report_ioerr("write to", r->o->path, off, len,
			     n < 0 ? errno : EIO);
		w->st.ioerrs++;
		model_set(r, start, nsect, 0);
		jlog(r, REC_LOST, start, nsect, gen, false);
		set_fatal(r, EXIT_IOERR);
		goto out_unlock;
	}
	model_set(r, start, nsect, gen);
	w->st.written += len;
	if (!r->o->buffered)
		jlog(r, REC_ACK, start, nsect, gen, false);
	else
		w->ua[w->nua++] = (struct unacked){ start, nsect, gen };
out_unlock:
	rl_unlock(&r->rl, slot);
}

static void *writer_main(void *arg)
{
	struct worker *w = arg;
	struct rnd *r = w->r;
	uint64_t start, len;

	while (!atomic_load(&r->stop)) {
		if (r->o->ops && atomic_fetch_add(&r->ops_started, 1) >= r->o->ops)
			break;
		pick_range(r, &w->rng, &start, &len);
		if (jgate_enter(&r->gate)) {
			warnx("%s: checkpoint failed, stopping", r->o->journal);
			set_fatal(r, EXIT_IOERR);
			break;
		}
		write_one(w, start * r->unit, len * r->unit);
		if (w->nua >= r->o->fsync_every)
			writer_sync(w);
		jgate_leave(&r->gate);
	}
	/* Whatever ended the run, this writer's buffered writes get synced. */
	if (!jgate_enter(&r->gate)) {
		writer_sync(w);
		jgate_leave(&r->gate);
	}
	atomic_fetch_sub(&r->live_writers, 1);
	return NULL;
}

/*---- readers ----*/

/* Check bytes [off, off + len) of the region, held in buf. */
static void check_bytes(struct worker *w, const char *buf, uint64_t off,
			uint64_t len)
{
	const struct model *m = &w->r->m;
	uint64_t pos = off, end = off + len, s;
	unsigned int from, n;

	while (pos < end) {
		s = pos >> SECTOR_SHIFT;
		from = pos & (SECTOR_SIZE - 1);
		n = SECTOR_SIZE - from;
		if (n > end - pos)
			n = end - pos;
		if (check_sector(m, s, buf + (pos - off), from, n, &w->st) &&
		    m->gen[s])
			w->st.verified += n;
		pos += n;
	}
}

static void read_one(struct worker *w)
{
	struct rnd *r = w->r;
	uint64_t start, len, off, bytes = r->m.nsect << SECTOR_SHIFT;
	ssize_t n;
	int slot;

	if (r->o->buffered) {
		off = rng_below(&w->rng, bytes);
		len = 1 + rng_below(&w->rng, r->o->max_size);
		if (len > bytes - off)
			len = bytes - off;
	} else {
		pick_range(r, &w->rng, &start, &len);
		off = start * r->unit << SECTOR_SHIFT;
		len = len * r->unit << SECTOR_SHIFT;
	}
	slot = rl_lock(&r->rl, off >> SECTOR_SHIFT,
		       (off + len + SECTOR_SIZE - 1) >> SECTOR_SHIFT, false);
	n = pread_full(r->d.fd, w->buf, len, r->m.offset + off);
	w->st.rops++;
	if (n == (ssize_t)len) {
		w->st.read += len;
		check_bytes(w, w->buf, off, len);
		report_flush();
	} else {
		report_ioerr("read from", r->o->path, r->m.offset + off, len,
			     n < 0 ? errno : EIO);
		w->st.ioerrs++;
	}
	rl_unlock(&r->rl, slot);
}

static void *reader_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&w->r->stop))
		read_one(w);
	return NULL;
}

/*---- the run ----*/

static void sum_workers(struct rnd *r, struct stats *st, struct hist *lat)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	if (lat)
		memset(lat, 0, sizeof(*lat));
	for (i = 0; i < r->nw; i++) {
		stats_add(st, &r->w[i].st);
		if (lat)
			hist_merge(lat, &r->w[i].lat);
	}
}

/* --hot-follow: the first number in the file is a device sector. */
static void hot_follow(struct rnd *r)
{
	uint64_t v, centre, first = r->m.offset >> SECTOR_SHIFT;
	char text[64], *p;
	ssize_t n;
	int fd;

	fd = open(r->o->hot_follow, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	p = text + strspn(text, " \t");
	v = isdigit((unsigned char)*p) ? strtoull(p, NULL, 10) : 0;
	if (!isdigit((unsigned char)*p) || v < first ||
	    v - first >= r->m.nsect) {
		atomic_store(&r->hot_on, false);
		return;
	}
	centre = (v - first) / r->unit;
	atomic_store(&r->hot_start,
		     centre > r->hot_len / 2 ? centre - r->hot_len / 2 : 0);
	atomic_store(&r->hot_on, true);
}

/* Reads the workers' counters unlocked: a progress line may be a bit off. */
static void progress(struct rnd *r, double secs)
{
	struct stats st;

	sum_workers(r, &st, NULL);
	fprintf(stderr,
		"iover: %.1f s written=%.1f MB (%.1f MB/s) read=%.1f MB (%.1f MB/s) mismatches=%llu ioerrors=%llu gen=%u\n",
		secs, st.written / 1e6, st.written / 1e6 / secs,
		st.read / 1e6, st.read / 1e6 / secs,
		(unsigned long long)st.mismatches,
		(unsigned long long)st.ioerrs,
		(unsigned int)atomic_load(&r->next_gen));
}

static void monitor(struct rnd *r, double t0)
{
	double next_prog = t0 + r->o->progress, next_hot = t0, t;

	for (;;) {
		t = now_sec();
		if (stop_requested() ||
		    (r->o->seconds && t - t0 >= r->o->seconds) ||
		    (r->o->threads && !atomic_load(&r->live_writers)))
			atomic_store(&r->stop, true);
		if (atomic_load(&r->stop))
			break;
		if (r->o->hot_follow && t >= next_hot) {
			hot_follow(r);
			next_hot = t + 0.2;
		}
		if (r->o->progress && t >= next_prog) {
			progress(r, t - t0);
			next_prog += r->o->progress;
		}
		usleep(20000);
	}
}

static void start_workers(struct rnd *r)
{
	const struct opts *o = r->o;
	struct worker *w;
	unsigned int i;

	r->nw = o->threads + o->readers;
	r->w = calloc(r->nw, sizeof(*r->w));
	if (!r->w)
		err(EXIT_IOERR, "cannot allocate workers");
	atomic_init(&r->live_writers, o->threads);
	for (i = 0; i < r->nw; i++) {
		w = &r->w[i];
		w->r = r;
		w->writer = i < o->threads;
		w->rng = mix64(o->seed ^ mix64(i + 1) ^ now_ns());
		w->buf = buf_alloc(o->max_size);
		w->ua = calloc(o->fsync_every + 1, sizeof(*w->ua));
		if (!w->buf || !w->ua)
			err(EXIT_IOERR, "cannot allocate buffers");
		if (pthread_create(&w->tid, NULL,
				   w->writer ? writer_main : reader_main, w))
			errx(EXIT_IOERR, "cannot start a thread");
	}
}

static void stop_workers(struct rnd *r)
{
	unsigned int i;

	for (i = 0; i < r->nw; i++) {
		pthread_join(r->w[i].tid, NULL);
		free(r->w[i].buf);
		free(r->w[i].ua);
	}
}

/* Sizes and the hot window in I/O units; 0 or an exit code. */
static int setup_geometry(struct rnd *r)
{
	const struct opts *o = r->o;
	uint64_t ubytes;

	r->unit = o->buffered ? 1 : o->align >> SECTOR_SHIFT;
	ubytes = (uint64_t)r->unit << SECTOR_SHIFT;
	r->units = r->m.nsect / r->unit;
	r->min_units = o->min_size / ubytes ?: 1;
	r->max_units = o->max_size / ubytes;
	if (!r->units || r->max_units < r->min_units) {
		warnx("region too small, or --max-size below --min-size or the I/O unit (%llu bytes)",
		      (unsigned long long)ubytes);
		return EXIT_USAGE;
	}
	r->hot_len = o->hot_len / ubytes ?: 1;
	if (o->set & OPT_HOT) {
		if (o->hot_start >= r->m.nsect << SECTOR_SHIFT) {
			warnx("--hot-start is beyond the region");
			return EXIT_USAGE;
		}
		atomic_init(&r->hot_start, o->hot_start / ubytes);
		atomic_init(&r->hot_on, !o->hot_follow);
	}
	return EXIT_OK;
}

/* --extend: the region grows to the end of the (grown) device. */
static int extend_region(struct rnd *r)
{
	uint64_t nsect = (r->d.size - r->m.offset) >> SECTOR_SHIFT;

	if (r->o->journal && nsect > journal_capacity(&r->j)) {
		warnx("%s: journal map holds %llu sectors, not %llu: fill again with a larger journal",
		      r->o->journal,
		      (unsigned long long)journal_capacity(&r->j),
		      (unsigned long long)nsect);
		return EXIT_USAGE;
	}
	if (model_extend(&r->m, nsect))
		err(EXIT_IOERR, "cannot allocate the model");
	return EXIT_OK;
}

/* Journal: no unresolved cut, then a checkpoint that empties the log. */
static int setup_journal(struct rnd *r, struct pending *p)
{
	const struct opts *o = r->o;
	int ret;

	if (p->n) {
		warnx("%s: %zu writes were cut short; run 'iover verify --journal %s %s' first",
		      o->journal, p->n, o->journal, o->path);
		return EXIT_USAGE;
	}
	r->use_journal = true;
	r->jflags = o->buffered ? SUPER_TORN_OK : 0;
	/* An INTENT and a few ACK blocks per writer (168 records a block). */
	r->gate.margin = 64 + o->threads * (4 + o->fsync_every / 128);
	if (2 * r->gate.margin > r->j.sb.log_blocks) {
		warnx("%s: journal too small for %u writers", o->journal,
		      o->threads);
		return EXIT_USAGE;
	}
	ret = journal_checkpoint(&r->j, &r->m, r->jflags);
	if (ret) {
		warnx("%s: cannot write journal: %s", o->journal,
		      strerror(-ret));
		return EXIT_IOERR;
	}
	return EXIT_OK;
}

static int setup_state(struct rnd *r, bool existed)
{
	const char *path = r->o->state;
	int ret;

	if (!path)
		return EXIT_OK;
	if (!existed)
		return save_state(path, &r->m, SUPER_DIRTY);
	ret = state_mark(path, SUPER_DIRTY);
	if (ret)
		warnx("%s: cannot mark state: %s", path, strerror(-ret));
	return ret ? EXIT_IOERR : EXIT_OK;
}

static int setup(struct rnd *r, struct opts *o)
{
	struct pending p = { 0 };
	bool existed = o->state && !access(o->state, F_OK);
	uint32_t flags;
	int ret;

	r->o = o;
	ret = open_dev(o, &r->d, true);
	if (ret)
		return ret;
	ret = load_model(o, &r->d, &r->m, &r->j, &p, &flags, false);
	if (ret)
		goto out_close_dev;
	ret = o->extend ? extend_region(r) : EXIT_OK;
	if (!ret)
		ret = setup_geometry(r);
	if (!ret && o->journal)
		ret = setup_journal(r, &p);
	if (o->journal)
		pending_free(&p);
	if (!ret)
		ret = setup_state(r, existed);
	if (ret)
		goto out_free_model;
	atomic_init(&r->next_gen, model_max_gen(&r->m) + 1);
	if (atomic_load(&r->next_gen) <= o->gen)
		atomic_init(&r->next_gen, o->gen + 1);
	rl_init(&r->rl);
	return EXIT_OK;
out_free_model:
	model_free(&r->m);
	if (o->journal)
		journal_close(&r->j);
out_close_dev:
	dev_close(&r->d);
	return ret;
}

static int finish(struct rnd *r)
{
	const struct opts *o = r->o;
	int ret = atomic_load(&r->fatal);
	int err2;

	if (fsync(r->d.fd)) {
		warn("fsync %s", o->path);
		ret = EXIT_IOERR;
	}
	if (r->use_journal) {
		err2 = journal_checkpoint(&r->j, &r->m, r->jflags);
		if (err2) {
			warnx("%s: final checkpoint failed: %s", o->journal,
			      strerror(-err2));
			ret = EXIT_IOERR;
		}
		journal_close(&r->j);
	}
	if (o->state && save_state(o->state, &r->m, 0))
		ret = EXIT_IOERR;
	return ret;
}

int cmd_random(struct opts *o)
{
	struct rnd r = { 0 };
	struct stats st, vst;
	struct hist *lat;
	double t0, secs;
	int ret;

	ret = setup(&r, o);
	if (ret)
		return ret;
	jgate_init(&r.gate, r.use_journal ? &r.j : NULL, &r.m, r.jflags,
		   r.gate.margin, rnd_settle, &r);
	install_stop_handler();

	if (o->hot_follow)
		hot_follow(&r);
	t0 = now_sec();
	start_workers(&r);
	monitor(&r, t0);
	stop_workers(&r);
	secs = now_sec() - t0;

	lat = calloc(1, sizeof(*lat));
	if (!lat)
		err(EXIT_IOERR, "cannot allocate");
	sum_workers(&r, &st, lat);
	stats_summary("random", &st, secs, o->latency ? lat : NULL);
	if (o->verify_end) {
		t0 = now_sec();
		verify_model(o, &r.d, &r.m, &vst);
		stats_summary("verify", &vst, now_sec() - t0, NULL);
		stats_add(&st, &vst);
	}
	ret = finish(&r);
	free(lat);
	free(r.w);
	dev_close(&r.d);
	model_free(&r.m);
	return stats_exit(&st) ?: ret;
}
