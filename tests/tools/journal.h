/* SPDX-License-Identifier: GPL-2.0 */
/* The crash-safe journal (journal.c) and its recovery (recover.c). */
#ifndef IOVER_JOURNAL_H
#define IOVER_JOURNAL_H

#include "iover.h"

#define JBLOCK		4096u
#define JOURNAL_MIN_LOG	256u	/* log blocks: 1 MiB at least */

enum rec_type {
	REC_INTENT = 1,
	REC_ACK = 2,
	REC_LOST = 3,
};

struct journal {
	int fd;
	const char *path;
	uint64_t size;
	struct disk_super sb;	/* current checkpoint */
	unsigned char *bounce;	/* aligned, for map and superblock I/O */

	pthread_mutex_t lock;	/* protects what follows */
	pthread_cond_t cond;
	unsigned char *buf[2];	/* log block being filled / being written */
	int cur;
	unsigned int nrec;	/* records in buf[cur] */
	uint64_t next_block;	/* log index of buf[cur] */
	uint64_t seq_next;	/* sequence number of the next record */
	uint64_t seq_durable;	/* records below this are on disk */
	bool writing;
	int err;
};

int journal_create(struct journal *j, const char *path, const struct model *m,
		   uint32_t flags);
int journal_open(struct journal *j, const char *path);
void journal_close(struct journal *j);
int journal_checkpoint(struct journal *j, const struct model *m,
		       uint32_t flags);
uint64_t journal_capacity(const struct journal *j);
int journal_log(struct journal *j, enum rec_type type, uint64_t start,
		uint32_t nsect, uint32_t gen, bool wait);

/*
 * The gate between writers and checkpoints: writers pass it shared; when
 * the log is nearly full, one of them takes it exclusive, calls settle() to
 * make written data durable (fsync after buffered writes), and checkpoints
 * the model.  margin: log blocks the writers inside may still need.
 */
struct jgate {
	struct journal *j;	/* NULL: no journal, nothing to checkpoint */
	pthread_rwlock_t lock;
	uint64_t margin;
	const struct model *m;
	uint32_t flags;
	int (*settle)(void *arg);
	void *arg;
};

void jgate_init(struct jgate *g, struct journal *j, const struct model *m,
		uint32_t flags, uint64_t margin, int (*settle)(void *arg),
		void *arg);
int jgate_enter(struct jgate *g);
void jgate_leave(struct jgate *g);

/* Writes that were issued but never acknowledged: the unknowns of a cut. */
struct pend {
	uint64_t start;
	uint32_t nsect;
	uint32_t gen;		/* 0 once acked or lost */
};

struct pending {
	struct pend *e;
	size_t n, cap;
	uint32_t *tab;		/* hash gen -> index + 1 in e[] */
	size_t tabsz;
	uint32_t max_len;	/* longest pending write, sectors */
};

int journal_replay(struct journal *j, struct model *m, struct pending *p,
		   uint64_t *records);
int pending_add(struct pending *p, uint64_t start, uint32_t nsect,
		uint32_t gen);
void pending_drop(struct pending *p, uint32_t gen, uint64_t start);
int pending_finish(struct pending *p);
void pending_free(struct pending *p);
void journal_cand(const struct model *m, const struct pending *p,
		  uint64_t sector, bool torn_ok, struct cand *c);

bool same_file(const char *a, const char *b);
int journal_error(const char *path, const char *what, int err);
int load_model(const struct opts *o, const struct dev *d, struct model *m,
	       struct journal *j, struct pending *p, uint32_t *flags,
	       bool need);

#endif /* IOVER_JOURNAL_H */
