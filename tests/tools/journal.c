// SPDX-License-Identifier: GPL-2.0
/*
 * The journal: a model that survives a power cut at any instant.
 *
 * It lives on a raw device (or a preallocated file) outside the array under
 * test and is written with O_DIRECT|O_DSYNC in 4 KiB blocks:
 *
 *   block 0, 1        superblocks; the valid one with the higher epoch wins
 *   map slot 0, 1     the full generation map of a checkpoint (epoch % 2)
 *   log               blocks of records appended since that checkpoint
 *
 * Before a data write is issued, an INTENT(range, gen) record is made
 * durable; after the write completed (O_DIRECT completion, or the fsync
 * that follows buffered writes) an ACK(range, gen) is queued; it reaches the
 * disk with the next log block, and no later than the next INTENT, which is
 * all recovery needs.  A write that failed logs LOST(range, gen): those
 * sectors become unknown.
 *
 * Log blocks are written one at a time, in order (group commit: whoever
 * finds the log idle writes everything queued), each tagged with run id,
 * epoch and index and checksummed, so the log is a clean prefix: replay
 * stops at the first block that is torn, stale or from another run.
 *
 * A checkpoint (log nearly full, start and end of a run, after a verify
 * resolved a cut) writes the whole map to the idle slot, then the other
 * superblock with epoch + 1, which empties the log.  Writers are quiesced
 * by the caller meanwhile.
 *
 * Recovery (journal_replay): acked gen per sector from the map and ACKs;
 * every INTENT without ACK or LOST is pending, and its sectors may hold
 * either their acked gen or that of any pending write (see journal_cand).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "iover.h"
#include "journal.h"

#define JOURNAL_MAGIC	"IOVERJN1"
#define LOG_MAGIC	0x474f4c5245564f49ull	/* "IOVERLOG" */
#define MAP_CHUNK	(1u << 20)

struct log_hdr {
	uint64_t magic;
	uint64_t run_id;
	uint64_t epoch;
	uint64_t index;
	uint32_t nrec;
	uint32_t pad;
	uint64_t sum;		/* of the whole block with sum = 0 */
};

struct log_rec {
	uint64_t start;
	uint32_t nsect;
	uint32_t gen;
	uint32_t type;
	uint32_t pad;
};

#define REC_PER_BLOCK ((JBLOCK - sizeof(struct log_hdr)) / sizeof(struct log_rec))

static int jwrite(struct journal *j, const void *buf, size_t len,
		  uint64_t block)
{
	ssize_t n = pwrite_full(j->fd, buf, len, block * JBLOCK);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int jread(struct journal *j, void *buf, size_t len, uint64_t block)
{
	ssize_t n = pread_full(j->fd, buf, len, block * JBLOCK);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static void journal_init_locks(struct journal *j)
{
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	j->cur = 0;
	j->nrec = 0;
	j->next_block = 0;
	j->seq_next = 1;
	j->seq_durable = 1;
	j->writing = false;
	j->err = 0;
}

static int journal_open_fd(struct journal *j, const char *path)
{
	struct dev d;
	int ret;

	memset(j, 0, sizeof(*j));
	j->path = path;
	j->fd = -1;
	/* O_DSYNC with O_DIRECT: each block is durable when pwrite returns. */
	ret = dev_open(&d, path, true, true, O_DSYNC);
	if (ret)
		return ret;
	j->fd = d.fd;
	j->size = d.size;
	/* One iover per journal: a second one would interleave its log. */
	if (flock(j->fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto out_close;
	}
	j->buf[0] = buf_alloc(JBLOCK);
	j->buf[1] = buf_alloc(JBLOCK);
	j->bounce = buf_alloc(MAP_CHUNK);
	if (!j->buf[0] || !j->buf[1] || !j->bounce) {
		ret = -ENOMEM;
		goto out_close;
	}
	journal_init_locks(j);
	return 0;
out_close:
	journal_close(j);
	return ret;
}

void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->buf[0]);
	free(j->buf[1]);
	free(j->bounce);
	j->buf[0] = j->buf[1] = NULL;
	j->bounce = NULL;
}

static uint64_t map_blocks(uint64_t nsect)
{
	return (nsect * 4 + JBLOCK - 1) / JBLOCK;
}

static int write_super(struct journal *j, const struct disk_super *s)
{
	memset(j->bounce, 0, JBLOCK);
	memcpy(j->bounce, s, sizeof(*s));
	return jwrite(j, j->bounce, JBLOCK, s->epoch % 2);
}

/* Write the map in slot epoch % 2; returns its checksum in *sum. */
static int write_map(struct journal *j, const struct model *m, uint64_t epoch)
{
	size_t total = m->nsect * sizeof(*m->gen);
	uint64_t block = j->sb.map_start[epoch % 2];
	size_t done, len;
	int ret;

	for (done = 0; done < total; done += len) {
		len = total - done < MAP_CHUNK ? total - done : MAP_CHUNK;
		memset(j->bounce, 0, MAP_CHUNK);
		memcpy(j->bounce, (const char *)m->gen + done, len);
		ret = jwrite(j, j->bounce, (len + JBLOCK - 1) & ~(JBLOCK - 1),
			     block + done / JBLOCK);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_map(struct journal *j, struct model *m)
{
	size_t total = m->nsect * sizeof(*m->gen);
	uint64_t block = j->sb.map_start[j->sb.epoch % 2];
	size_t done, len;
	int ret;

	for (done = 0; done < total; done += len) {
		len = total - done < MAP_CHUNK ? total - done : MAP_CHUNK;
		ret = jread(j, j->bounce, (len + JBLOCK - 1) & ~(JBLOCK - 1),
			    block + done / JBLOCK);
		if (ret)
			return ret;
		memcpy((char *)m->gen + done, j->bounce, len);
	}
	return hash_words(m->gen, total) == j->sb.map_sum ? 0 : -EBADMSG;
}

static uint32_t uniform_gen(const struct model *m)
{
	uint64_t i;

	for (i = 1; i < m->nsect; i++)
		if (m->gen[i] != m->gen[0])
			return 0;
	return m->nsect ? m->gen[0] : 0;
}

/*
 * Record the model as the new checkpoint.  The caller has quiesced all
 * writers and made their data durable; queued records are dropped, the map
 * supersedes them.
 */
int journal_checkpoint(struct journal *j, const struct model *m,
		       uint32_t flags)
{
	struct disk_super s = j->sb;
	int ret;

	if (m->nsect > journal_capacity(j))
		return -ENOSPC;
	s.nsect = m->nsect;
	s.epoch++;
	s.flags = flags & ~SUPER_UNIFORM;
	s.uniform_gen = uniform_gen(m);
	s.map_sum = 0;
	if (s.uniform_gen) {
		s.flags |= SUPER_UNIFORM;
	} else {
		ret = write_map(j, m, s.epoch);
		if (ret)
			return ret;
		s.map_sum = hash_words(m->gen, m->nsect * sizeof(*m->gen));
	}
	super_seal(&s);
	ret = write_super(j, &s);
	if (ret)
		return ret;
	pthread_mutex_lock(&j->lock);
	j->sb = s;
	j->nrec = 0;
	j->next_block = 0;
	pthread_mutex_unlock(&j->lock);
	return 0;
}

static uint64_t new_run_id(void)
{
	uint64_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = mix64(now_ns() ^ ((uint64_t)getpid() << 32));
	return id;
}

/*
 * Map slot size: room for 4 times the region (so that random --extend can
 * follow a grown array) where that leaves half of the journal to the log,
 * else as much as leaves half, and never less than the region.
 */
static uint64_t slot_blocks(uint64_t nsect, uint64_t journal_blocks)
{
	uint64_t need = map_blocks(nsect), want = 4 * need;
	uint64_t half = journal_blocks / 4;	/* per slot */
	uint64_t spare = journal_blocks > 2 + JOURNAL_MIN_LOG ?
			 (journal_blocks - 2 - JOURNAL_MIN_LOG) / 2 : 0;

	if (want > half)
		want = half;
	if (want > spare)
		want = spare;
	return want > need ? want : need;
}

/* Sectors a map slot can describe. */
uint64_t journal_capacity(const struct journal *j)
{
	return (j->sb.map_start[1] - j->sb.map_start[0]) * (JBLOCK / 4);
}

int journal_create(struct journal *j, const char *path, const struct model *m,
		   uint32_t flags)
{
	struct disk_super *s = &j->sb;
	uint64_t mb;
	int ret;

	ret = journal_open_fd(j, path);
	if (ret)
		return ret;
	mb = slot_blocks(m->nsect, j->size / JBLOCK);
	memset(s, 0, sizeof(*s));
	memcpy(s->magic, JOURNAL_MAGIC, sizeof(s->magic));
	s->version = 1;
	s->seed = m->seed;
	s->offset = m->offset;
	s->nsect = m->nsect;
	s->run_id = new_run_id();
	s->epoch = 0;
	s->map_start[0] = 2;
	s->map_start[1] = 2 + mb;
	s->log_start = 2 + 2 * mb;
	if (j->size / JBLOCK < s->log_start + JOURNAL_MIN_LOG) {
		ret = -ENOSPC;
		goto out_close;
	}
	s->log_blocks = j->size / JBLOCK - s->log_start;
	/* Kill an older journal's superblocks before writing ours. */
	memset(j->bounce, 0, 2 * JBLOCK);
	ret = jwrite(j, j->bounce, 2 * JBLOCK, 0);
	if (!ret)
		ret = journal_checkpoint(j, m, flags);
	if (!ret)
		return 0;
out_close:
	journal_close(j);
	return ret;
}

int journal_open(struct journal *j, const char *path)
{
	struct disk_super s[2];
	int ret, i, best = -1;

	ret = journal_open_fd(j, path);
	if (ret)
		return ret;
	ret = -EBADMSG;
	if (j->size < 2 * JBLOCK)
		goto out_close;
	for (i = 0; i < 2; i++) {
		ret = jread(j, j->bounce, JBLOCK, i);
		if (ret)
			goto out_close;
		memcpy(&s[i], j->bounce, sizeof(s[i]));
		if (!super_valid(&s[i], JOURNAL_MAGIC) ||
		    s[i].epoch % 2 != (uint64_t)i)
			continue;
		if (best < 0 || s[i].epoch > s[best].epoch)
			best = i;
	}
	ret = -EBADMSG;
	if (best < 0)
		goto out_close;
	j->sb = s[best];
	if (j->sb.log_start + j->sb.log_blocks > j->size / JBLOCK ||
	    j->sb.map_start[1] <= j->sb.map_start[0] ||
	    j->sb.nsect > journal_capacity(j))
		goto out_close;
	return 0;
out_close:
	journal_close(j);
	return ret;
}

/* Write the current block; called with j->lock held, drops it meanwhile. */
static void journal_flush_locked(struct journal *j)
{
	unsigned char *blk = j->buf[j->cur];
	struct log_hdr *h = (struct log_hdr *)blk;
	uint64_t last = j->seq_next;
	uint64_t index = j->next_block++;
	uint64_t where;
	bool full;
	int ret;

	j->writing = true;
	h->magic = LOG_MAGIC;
	h->run_id = j->sb.run_id;
	h->epoch = j->sb.epoch;
	h->index = index;
	h->nrec = j->nrec;
	h->pad = 0;
	h->sum = 0;
	memset(blk + sizeof(*h) + j->nrec * sizeof(struct log_rec), 0,
	       JBLOCK - sizeof(*h) - j->nrec * sizeof(struct log_rec));
	h->sum = hash_words(blk, JBLOCK);
	j->cur ^= 1;
	j->nrec = 0;
	full = index >= j->sb.log_blocks;
	where = j->sb.log_start + index;
	pthread_mutex_unlock(&j->lock);

	ret = full ? -ENOSPC : jwrite(j, blk, JBLOCK, where);

	pthread_mutex_lock(&j->lock);
	j->writing = false;
	if (ret && !j->err)
		j->err = ret;
	if (!ret)
		j->seq_durable = last;
	pthread_cond_broadcast(&j->cond);
}

/* Write the queued block if the log is idle, else wait for the writer. */
static void journal_push_locked(struct journal *j)
{
	if (!j->writing && j->nrec)
		journal_flush_locked(j);
	else
		pthread_cond_wait(&j->cond, &j->lock);
}

/*
 * Queue a record; with wait, return once it is durable.  Returns 0 or the
 * first error the journal met (then every later call fails too).
 */
int journal_log(struct journal *j, enum rec_type type, uint64_t start,
		uint32_t nsect, uint32_t gen, bool wait)
{
	struct log_rec *r;
	uint64_t seq = 0;
	int ret;

	pthread_mutex_lock(&j->lock);
	while (!j->err && j->nrec == REC_PER_BLOCK)
		journal_push_locked(j);
	if (!j->err) {
		r = (struct log_rec *)(j->buf[j->cur] + sizeof(struct log_hdr));
		r += j->nrec++;
		r->start = start;
		r->nsect = nsect;
		r->gen = gen;
		r->type = type;
		r->pad = 0;
		seq = j->seq_next++;
	}
	while (wait && !j->err && j->seq_durable <= seq)
		journal_push_locked(j);
	ret = j->err;
	pthread_mutex_unlock(&j->lock);
	return ret;
}

/* Log blocks still free, to decide when to checkpoint. */
static uint64_t journal_room(struct journal *j)
{
	uint64_t used, room;

	pthread_mutex_lock(&j->lock);
	used = j->next_block + (j->nrec ? 1 : 0);
	room = used < j->sb.log_blocks ? j->sb.log_blocks - used : 0;
	pthread_mutex_unlock(&j->lock);
	return room;
}

/* Load the checkpoint's map into a fresh model. */
static int journal_load(struct journal *j, struct model *m)
{
	const struct disk_super *s = &j->sb;
	int ret;

	ret = model_init(m, s->seed, s->offset, s->nsect,
			 s->flags & SUPER_UNIFORM ? s->uniform_gen : 0);
	if (ret || (s->flags & SUPER_UNIFORM))
		return ret;
	ret = read_map(j, m);
	if (ret)
		model_free(m);
	return ret;
}

/* Read log block index; false at the end of the log. */
static bool read_log_block(struct journal *j, uint64_t index,
			   unsigned char *blk)
{
	struct log_hdr h;
	uint64_t sum;

	if (index >= j->sb.log_blocks ||
	    jread(j, blk, JBLOCK, j->sb.log_start + index))
		return false;
	memcpy(&h, blk, sizeof(h));
	if (h.magic != LOG_MAGIC || h.run_id != j->sb.run_id ||
	    h.epoch != j->sb.epoch || h.index != index ||
	    h.nrec > REC_PER_BLOCK)
		return false;
	sum = h.sum;
	((struct log_hdr *)blk)->sum = 0;
	return hash_words(blk, JBLOCK) == sum;
}

static int replay_rec(struct model *m, struct pending *p,
		      const struct log_rec *r)
{
	uint64_t i;

	if (r->start > m->nsect || r->nsect > m->nsect - r->start || !r->gen)
		return -EBADMSG;
	switch (r->type) {
	case REC_INTENT:
		return pending_add(p, r->start, r->nsect, r->gen);
	case REC_ACK:
		pending_drop(p, r->gen, r->start);
		for (i = r->start; i < r->start + r->nsect; i++)
			if (m->gen[i] < r->gen)
				m->gen[i] = r->gen;
		return 0;
	case REC_LOST:
		pending_drop(p, r->gen, r->start);
		for (i = r->start; i < r->start + r->nsect; i++)
			m->gen[i] = 0;
		return 0;
	}
	return -EBADMSG;
}

/*
 * Rebuild the model of acknowledged writes, and the set of pending ones,
 * from the checkpoint and the log.  Leaves the log position after the last
 * valid block, so the journal can be checkpointed (not appended to).
 */
int journal_replay(struct journal *j, struct model *m, struct pending *p,
		   uint64_t *records)
{
	unsigned char *blk = j->bounce;
	const struct log_rec *r;
	uint64_t index;
	unsigned int k, nrec;
	int ret;

	memset(p, 0, sizeof(*p));
	*records = 0;
	ret = journal_load(j, m);
	if (ret)
		return ret;
	for (index = 0; read_log_block(j, index, blk); index++) {
		nrec = ((struct log_hdr *)blk)->nrec;
		r = (const struct log_rec *)(blk + sizeof(struct log_hdr));
		for (k = 0; k < nrec; k++) {
			ret = replay_rec(m, p, &r[k]);
			if (ret)
				goto out_free;
		}
		*records += nrec;
	}
	ret = pending_finish(p);
	if (!ret)
		return 0;
out_free:
	pending_free(p);
	model_free(m);
	return ret;
}

/*---- Writers and checkpoints ----*/

static bool jgate_full(struct jgate *g)
{
	return g->j && journal_room(g->j) < g->margin;
}

void jgate_init(struct jgate *g, struct journal *j, const struct model *m,
		uint32_t flags, uint64_t margin, int (*settle)(void *arg),
		void *arg)
{
	pthread_rwlockattr_t attr;

	g->j = j;
	g->m = m;
	g->flags = flags;
	g->margin = margin;
	g->settle = settle;
	g->arg = arg;
	/* Writer preference, or a stream of writers starves a checkpoint. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&g->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
}

/* With no writer inside: settle the data, then checkpoint the model. */
static int jgate_checkpoint(struct jgate *g)
{
	int ret = 0;

	pthread_rwlock_wrlock(&g->lock);
	if (jgate_full(g)) {
		ret = g->settle ? g->settle(g->arg) : 0;
		if (!ret)
			ret = journal_checkpoint(g->j, g->m, g->flags);
	}
	pthread_rwlock_unlock(&g->lock);
	return ret;
}

/*
 * Bracket each write (from before its INTENT to after its ACK) with
 * jgate_enter() and jgate_leave().  Returns 0, or the error of a checkpoint
 * that was due (then the gate is not entered).
 */
int jgate_enter(struct jgate *g)
{
	int ret;

	if (jgate_full(g)) {
		ret = jgate_checkpoint(g);
		if (ret)
			return ret;
	}
	pthread_rwlock_rdlock(&g->lock);
	return 0;
}

void jgate_leave(struct jgate *g)
{
	pthread_rwlock_unlock(&g->lock);
}
