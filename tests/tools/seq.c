// SPDX-License-Identifier: GPL-2.0
/*
 * fill and verify: the region in large chunks, handed out in order to
 * --threads workers.
 */
#include <err.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"

struct seqjob;
typedef void (*chunk_fn)(struct seqjob *job, void *buf, uint64_t sector,
			 uint32_t nsect, struct stats *st);

struct seqjob {
	const struct opts *o;
	struct dev *d;
	struct model *m;
	struct journal *j;	/* NULL without --journal */
	struct jgate gate;	/* fill: writers vs checkpoints */
	struct pending *p;	/* verify --journal: writes cut short */
	struct model *resolved;	/* verify --journal: what was found */
	bool torn_ok;
	uint32_t gen;		/* fill */
	chunk_fn chunk;
	atomic_uint_fast64_t next;	/* next sector to hand out */
	atomic_int running;		/* workers not done */
	struct stats *st;	/* one per worker */
};

struct seqworker {
	struct seqjob *job;
	struct stats *st;
};

static void *seq_worker(void *arg)
{
	struct seqworker *w = arg;
	struct seqjob *job = w->job;
	uint32_t step = job->o->block >> SECTOR_SHIFT;
	uint64_t sector;
	void *buf;

	buf = buf_alloc(job->o->block);
	if (!buf)
		err(EXIT_IOERR, "cannot allocate an I/O buffer");
	for (;;) {
		sector = atomic_fetch_add(&job->next, step);
		if (sector >= job->m->nsect)
			break;
		job->chunk(job, buf, sector,
			   job->m->nsect - sector < step ?
			   job->m->nsect - sector : step, w->st);
	}
	free(buf);
	atomic_fetch_sub(&job->running, 1);
	return NULL;
}

/* --progress: how far the chunks handed out reach, every few seconds. */
static void seq_progress(struct seqjob *job)
{
	double t0 = now_sec(), next = t0 + job->o->progress, t;
	uint64_t done, total = job->m->nsect << SECTOR_SHIFT;

	while (atomic_load(&job->running)) {
		usleep(50000);
		t = now_sec();
		if (t < next)
			continue;
		next += job->o->progress;
		done = atomic_load(&job->next) << SECTOR_SHIFT;
		if (done > total)
			done = total;
		fprintf(stderr,
			"iover: %.1f s: %.1f / %.1f MB at %.1f MB/s, %.0f%% done\n",
			t - t0, done / 1e6, total / 1e6, done / 1e6 / (t - t0),
			100.0 * done / total);
	}
}

/* Run job->chunk over the whole region; returns the summed stats. */
static void seq_run(struct seqjob *job, struct stats *total)
{
	unsigned int i, n = job->o->threads;
	struct seqworker *w = calloc(n, sizeof(*w));
	pthread_t *tid = calloc(n, sizeof(*tid));
	struct stats *st = calloc(n, sizeof(*st));

	if (!w || !tid || !st)
		err(EXIT_IOERR, "cannot allocate workers");
	atomic_init(&job->next, 0);
	atomic_init(&job->running, n);
	for (i = 0; i < n; i++) {
		w[i].job = job;
		w[i].st = &st[i];
		if (pthread_create(&tid[i], NULL, seq_worker, &w[i]))
			errx(EXIT_IOERR, "cannot start a thread");
	}
	if (job->o->progress)
		seq_progress(job);
	memset(total, 0, sizeof(*total));
	for (i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		stats_add(total, &st[i]);
	}
	free(w);
	free(tid);
	free(st);
}

static uint64_t dev_off(const struct model *m, uint64_t sector)
{
	return m->offset + (sector << SECTOR_SHIFT);
}

/*---- fill ----*/

static void fill_chunk(struct seqjob *job, void *buf, uint64_t sector,
		       uint32_t nsect, struct stats *st)
{
	struct model *m = job->m;
	size_t len = (size_t)nsect << SECTOR_SHIFT;
	uint32_t i;
	ssize_t n;

	for (i = 0; i < nsect; i++)
		pattern_fill(m->seed, (m->offset >> SECTOR_SHIFT) + sector + i,
			     job->gen, (char *)buf + ((size_t)i << SECTOR_SHIFT));
	if (jgate_enter(&job->gate) ||
	    (job->j && journal_log(job->j, REC_INTENT, sector, nsect, job->gen,
				   true)))
		errx(EXIT_IOERR, "%s: journal write failed", job->o->journal);
	n = pwrite_full(job->d->fd, buf, len, dev_off(m, sector));
	if (n == (ssize_t)len) {
		for (i = 0; i < nsect; i++)
			m->gen[sector + i] = job->gen;
		st->written += len;
		st->wops++;
	} else {
		report_ioerr("write to", job->o->path, dev_off(m, sector), len,
			     n < 0 ? errno : EIO);
		st->ioerrs++;
	}
	if (job->j)
		journal_log(job->j, n == (ssize_t)len ? REC_ACK : REC_LOST,
			    sector, nsect, job->gen, false);
	jgate_leave(&job->gate);
}

/* Before a checkpoint: buffered fill data made durable. */
static int fill_settle(void *arg)
{
	struct seqjob *job = arg;

	if (job->o->buffered && fsync(job->d->fd)) {
		warn("fsync %s", job->o->path);
		return -EIO;
	}
	return 0;
}

/* Where the model goes: saved as "unknown, dirty" before the first write. */
static int fill_persist_start(struct seqjob *job, uint32_t flags)
{
	const struct opts *o = job->o;
	int ret;

	if (o->journal) {
		if (same_file(o->journal, o->path)) {
			warnx("the journal must not be the device under test");
			return EXIT_USAGE;
		}
		ret = journal_create(job->j, o->journal, job->m, flags);
		if (ret == -ENOSPC) {
			warnx("%s: too small for a journal of this region (needs %llu KiB)",
			      o->journal,
			      (unsigned long long)(((job->m->nsect * 8 + 4095) / 4096 +
				2 + JOURNAL_MIN_LOG) * 4));
			return EXIT_USAGE;
		}
		if (ret)
			return journal_error(o->journal, "create", ret);
	}
	ret = o->state ? save_state(o->state, job->m, SUPER_DIRTY) : EXIT_OK;
	if (ret && o->journal)
		journal_close(job->j);
	return ret;
}

static int fill_persist_end(struct seqjob *job, uint32_t flags)
{
	const struct opts *o = job->o;
	int ret;

	if (o->journal) {
		ret = journal_checkpoint(job->j, job->m, flags);
		journal_close(job->j);
		if (ret) {
			warnx("%s: cannot checkpoint journal: %s", o->journal,
			      strerror(-ret));
			return EXIT_IOERR;
		}
	}
	return o->state ? save_state(o->state, job->m, 0) : EXIT_OK;
}

int cmd_fill(struct opts *o)
{
	struct seqjob job = { .o = o, .chunk = fill_chunk, .gen = o->gen };
	uint32_t flags = o->buffered ? SUPER_TORN_OK : 0;
	uint64_t offset, nsect, i;
	struct journal j;
	struct stats st;
	struct model m;
	struct dev d;
	double t0;
	int ret;

	ret = open_dev(o, &d, true);
	if (ret)
		return ret;
	ret = region_from_opts(o, &d, &offset, &nsect);
	if (ret)
		goto out_close_dev;
	if (model_init(&m, o->seed, offset, nsect, 0))
		err(EXIT_IOERR, "cannot allocate the model");
	job.d = &d;
	job.m = &m;
	job.j = o->journal ? &j : NULL;
	ret = fill_persist_start(&job, flags);
	if (ret)
		goto out_free_model;
	jgate_init(&job.gate, job.j, &m, flags, 64 + 8 * o->threads,
		   fill_settle, &job);

	t0 = now_sec();
	seq_run(&job, &st);
	/* Direct too: a flush, so that exit 0 means the data is durable. */
	if (fsync(d.fd)) {
		warn("fsync %s", o->path);
		st.ioerrs++;
		for (i = 0; o->buffered && i < nsect; i++)
			m.gen[i] = 0;
	}
	ret = fill_persist_end(&job, flags);
	stats_summary("fill", &st, now_sec() - t0, NULL);
	ret = ret ?: stats_exit(&st);
out_free_model:
	model_free(&m);
out_close_dev:
	dev_close(&d);
	return ret;
}

/*---- verify ----*/

static void verify_sector_journal(struct seqjob *job, uint64_t sector,
				  const void *buf, struct stats *st)
{
	struct cand c;
	int k;

	journal_cand(job->m, job->p, sector, job->torn_ok, &c);
	k = check_cand(job->m, sector, buf, &c, st);
	if (k >= 0) {
		job->resolved->gen[sector] = c.gen[k];
		if (c.gen[k])
			st->verified += SECTOR_SIZE;
	} else {
		job->resolved->gen[sector] = 0;
	}
	if (c.n > 1 && k >= 0)
		*(k ? &st->resolved_new : &st->resolved_old) += 1;
}

static void verify_sectors(struct seqjob *job, const char *p, uint64_t sector,
			   uint32_t nsect, struct stats *st)
{
	uint32_t i;

	for (i = 0; i < nsect; i++, p += SECTOR_SIZE) {
		if (job->p) {
			verify_sector_journal(job, sector + i, p, st);
		} else if (check_sector(job->m, sector + i, p, 0, SECTOR_SIZE,
					st) && job->m->gen[sector + i]) {
			st->verified += SECTOR_SIZE;
		}
	}
	report_flush();
}

/*
 * A chunk that fails to read is read again one I/O unit at a time, so one
 * bad sector costs only its unit: the rest is still checked.
 */
static void verify_units(struct seqjob *job, char *buf, uint64_t sector,
			 uint32_t nsect, struct stats *st)
{
	uint32_t unit = job->o->buffered ? 1 : job->o->align >> SECTOR_SHIFT;
	uint64_t off;
	uint32_t done, n;
	ssize_t got;

	for (done = 0; done < nsect; done += n) {
		n = nsect - done < unit ? nsect - done : unit;
		off = dev_off(job->m, sector + done);
		got = pread_full(job->d->fd, buf, (size_t)n << SECTOR_SHIFT,
				 off);
		if (got != (ssize_t)n << SECTOR_SHIFT) {
			report_ioerr("read from", job->o->path, off,
				     (size_t)n << SECTOR_SHIFT,
				     got < 0 ? errno : EIO);
			st->ioerrs++;
			continue;
		}
		st->read += (uint64_t)n << SECTOR_SHIFT;
		verify_sectors(job, buf, sector + done, n, st);
	}
}

static void verify_chunk(struct seqjob *job, void *buf, uint64_t sector,
			 uint32_t nsect, struct stats *st)
{
	size_t len = (size_t)nsect << SECTOR_SHIFT;
	ssize_t n;

	st->rops++;
	n = pread_full(job->d->fd, buf, len, dev_off(job->m, sector));
	if (n != (ssize_t)len) {
		verify_units(job, buf, sector, nsect, st);
		return;
	}
	st->read += len;
	verify_sectors(job, buf, sector, nsect, st);
}

/* Check the whole region against an in-memory model (random --verify-end). */
void verify_model(const struct opts *o, struct dev *d, struct model *m,
		  struct stats *st)
{
	struct seqjob job = { .o = o, .d = d, .m = m, .chunk = verify_chunk };

	seq_run(&job, st);
}

/* After a clean verify, the journal's model is what was found. */
static int verify_resolve(struct seqjob *job, const struct stats *st)
{
	int ret;

	if (st->mismatches || st->ioerrs)
		return EXIT_OK;
	ret = journal_checkpoint(job->j, job->resolved, job->j->sb.flags);
	if (ret) {
		warnx("%s: cannot checkpoint journal: %s", job->o->journal,
		      strerror(-ret));
		return EXIT_IOERR;
	}
	return EXIT_OK;
}

/* The writes cut short, up to --max-report lines. */
static void show_pending(const struct model *m, const struct pending *p)
{
	size_t i;

	fprintf(stderr, "iover: %zu writes were cut short\n", p->n);
	for (i = 0; i < p->n && i < report.max_report; i++)
		fprintf(stderr,
			"iover: pending write: sector %llu, %u sectors, gen %u, first sector acked gen %u\n",
			(unsigned long long)((m->offset >> SECTOR_SHIFT) +
					     p->e[i].start),
			p->e[i].nsect, p->e[i].gen, m->gen[p->e[i].start]);
}

int cmd_verify(struct opts *o)
{
	struct seqjob job = { .o = o, .chunk = verify_chunk };
	struct model m, resolved;
	struct pending p;
	struct journal j;
	struct stats st;
	uint32_t flags;
	struct dev d;
	double t0;
	int ret;

	ret = open_dev(o, &d, false);
	if (ret)
		return ret;
	ret = load_model(o, &d, &m, &j, &p, &flags, true);
	if (ret) {
		dev_close(&d);
		return ret;
	}
	job.d = &d;
	job.m = &m;
	if (o->journal) {
		job.j = &j;
		job.p = &p;
		job.torn_ok = flags & SUPER_TORN_OK;
		job.resolved = &resolved;
		if (model_init(&resolved, m.seed, m.offset, m.nsect, 0))
			err(EXIT_IOERR, "cannot allocate the model");
		if (o->show_pending)
			show_pending(&m, &p);
	}
	t0 = now_sec();
	seq_run(&job, &st);
	if (o->journal) {
		ret = verify_resolve(&job, &st);
		model_free(&resolved);
		pending_free(&p);
		journal_close(&j);
	}
	stats_summary("verify", &st, now_sec() - t0, NULL);
	if (!st.verified && !st.mismatches)
		warnx("nothing verified: the model knows no sector");
	dev_close(&d);
	model_free(&m);
	return stats_exit(&st) ?: ret;
}
