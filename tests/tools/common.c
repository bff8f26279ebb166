// SPDX-License-Identifier: GPL-2.0
/*
 * What every command checks before it starts: the device, the region, and
 * that a saved model belongs to what is asked for.  Each returns an exit
 * code, having said why.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "journal.h"

static volatile sig_atomic_t stop_flag;

int open_dev(const struct opts *o, struct dev *d, bool writable)
{
	int ret = dev_open(d, o->path, !o->buffered, writable, 0);

	if (!ret)
		return EXIT_OK;
	if (ret == -ENOTBLK) {
		warnx("%s: not a block device or regular file", o->path);
		return EXIT_USAGE;
	}
	if (ret == -EINVAL && !o->buffered) {
		warnx("%s: O_DIRECT not supported here, try --buffered",
		      o->path);
		return EXIT_USAGE;
	}
	warnx("cannot open %s: %s", o->path, strerror(-ret));
	return ret == -ENOENT ? EXIT_USAGE : EXIT_IOERR;
}

static int check_align(const struct opts *o, const struct dev *d,
		       uint64_t offset, uint64_t len)
{
	uint64_t align = o->buffered ? SECTOR_SIZE : o->align;

	if (!o->buffered && o->align < (uint64_t)d->lbs) {
		warnx("%s: --align %llu is below its logical block size %d",
		      o->path, (unsigned long long)o->align, d->lbs);
		return EXIT_USAGE;
	}
	if (offset % align) {
		warnx("region offset %llu is not a multiple of %llu",
		      (unsigned long long)offset, (unsigned long long)align);
		return EXIT_USAGE;
	}
	if (!len || len % SECTOR_SIZE) {
		warnx("region length %llu is not a positive multiple of 512",
		      (unsigned long long)len);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int region_from_opts(const struct opts *o, const struct dev *d,
		     uint64_t *offset, uint64_t *nsect)
{
	uint64_t len = o->length;
	int ret;

	if (o->offset > d->size) {
		warnx("offset %llu is beyond the end of %s (%llu bytes)",
		      (unsigned long long)o->offset, o->path,
		      (unsigned long long)d->size);
		return EXIT_USAGE;
	}
	if (!len)
		len = (d->size - o->offset) & ~(uint64_t)(SECTOR_SIZE - 1);
	if (len > d->size - o->offset) {
		warnx("region of %llu bytes at %llu does not fit in %s (%llu bytes)",
		      (unsigned long long)len, (unsigned long long)o->offset,
		      o->path, (unsigned long long)d->size);
		return EXIT_USAGE;
	}
	ret = check_align(o, d, o->offset, len);
	if (ret)
		return ret;
	*offset = o->offset;
	*nsect = len >> SECTOR_SHIFT;
	return EXIT_OK;
}

/* A model loaded from a state file or journal against the options. */
int check_region(const struct opts *o, const struct model *m,
		 const struct dev *d)
{
	uint64_t len = m->nsect << SECTOR_SHIFT;

	if ((o->set & OPT_SEED) && o->seed != m->seed) {
		warnx("--seed %llu differs from the saved model's seed %llu",
		      (unsigned long long)o->seed,
		      (unsigned long long)m->seed);
		return EXIT_USAGE;
	}
	if (((o->set & OPT_OFFSET) && o->offset != m->offset) ||
	    ((o->set & OPT_LENGTH) && o->length != len)) {
		warnx("--offset/--length differ from the saved model's region (%llu bytes at %llu)",
		      (unsigned long long)len,
		      (unsigned long long)m->offset);
		return EXIT_USAGE;
	}
	if (m->offset > d->size || len > d->size - m->offset) {
		warnx("the saved model's region (%llu bytes at %llu) does not fit in %s (%llu bytes)",
		      (unsigned long long)len, (unsigned long long)m->offset,
		      o->path, (unsigned long long)d->size);
		return EXIT_USAGE;
	}
	return check_align(o, d, m->offset, len);
}

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void install_stop_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool stop_requested(void)
{
	return stop_flag;
}

bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return false;
	if (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode))
		return sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Say why a journal could not be used; returns the exit code. */
int journal_error(const char *path, const char *what, int err)
{
	switch (err) {
	case -EBUSY:
		warnx("%s: journal in use by another iover", path);
		return EXIT_USAGE;
	case -EBADMSG:
		warnx("%s: no valid iover journal", path);
		return EXIT_USAGE;
	case -ENOENT:
	case -ENOTBLK:
		warnx("%s: %s", path, err == -ENOENT ? strerror(ENOENT) :
		      "not a block device or regular file");
		return EXIT_USAGE;
	}
	warnx("%s: cannot %s journal: %s", path, what, strerror(-err));
	return EXIT_IOERR;
}

/*
 * The model a command starts from: the journal's (with its pending writes),
 * the state file's, or --gen over the region; with none of them, every
 * sector is unknown, unless need says that is an error.  Fills *flags with
 * the saved flags.
 */
int load_model(const struct opts *o, const struct dev *d, struct model *m,
	       struct journal *j, struct pending *p, uint32_t *flags,
	       bool need)
{
	uint64_t offset, nsect, records;
	int ret;

	*flags = 0;
	if (o->journal) {
		if (same_file(o->journal, o->path)) {
			warnx("the journal must not be the device under test");
			return EXIT_USAGE;
		}
		ret = journal_open(j, o->journal);
		if (ret)
			return journal_error(o->journal, "open", ret);
		ret = journal_replay(j, m, p, &records);
		if (ret) {
			journal_close(j);
			return journal_error(o->journal, "replay", ret);
		}
		*flags = j->sb.flags;
	} else if (o->state) {
		ret = state_load(o->state, m, flags);
		if (ret == -ENOENT && !need)
			goto from_opts;
		if (ret) {
			warnx("%s: cannot load state: %s", o->state,
			      ret == -EINVAL ? "not a valid iover state file" :
			      strerror(-ret));
			return ret == -EINVAL || ret == -ENOENT ? EXIT_USAGE :
			       EXIT_IOERR;
		}
		if (*flags & SUPER_DIRTY) {
			warnx("%s: state of a run that did not finish (killed?): the model is stale; use --journal for runs that may be cut",
			      o->state);
			model_free(m);
			return EXIT_USAGE;
		}
	} else if (need && !(o->set & OPT_GEN)) {
		warnx("nothing to verify against: give --journal, --state or --gen");
		return EXIT_USAGE;
	} else {
		goto from_opts;
	}
	ret = check_region(o, m, d);
	if (ret) {
		model_free(m);
		if (o->journal) {
			pending_free(p);
			journal_close(j);
		}
	}
	return ret;
from_opts:
	ret = region_from_opts(o, d, &offset, &nsect);
	if (ret)
		return ret;
	if (model_init(m, o->seed, offset, nsect, o->gen))
		err(EXIT_IOERR, "cannot allocate the model");
	return EXIT_OK;
}

/* Save the model to --state, saying why it failed; returns an exit code. */
int save_state(const char *path, const struct model *m, uint32_t flags)
{
	int ret = state_save(path, m, flags);

	if (!ret)
		return EXIT_OK;
	warnx("%s: cannot write state: %s", path, strerror(-ret));
	return EXIT_IOERR;
}
