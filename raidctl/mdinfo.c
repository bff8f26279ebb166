// SPDX-License-Identifier: GPL-2.0
/* One md array as its sysfs attributes describe it. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdinfo.h"
#include "util.h"

typedef int (*attr_parser)(const char *value, void *out);

/*
 * Reads one attribute and hands it to a parser.  optional: a missing
 * attribute reads as "" (levels without redundancy have no sync_action).
 */
static int read_attr(const struct rc_ctx *ctx, const char *array,
		     const char *attr, bool optional, attr_parser parse,
		     void *out, struct md_err *e)
{
	char buf[SYSFS_VALUE_MAX];
	int r;

	r = optional ? sysfs_read_opt(ctx, array, attr, buf, sizeof(buf), &e->sys)
		     : sysfs_read(ctx, array, attr, buf, sizeof(buf), &e->sys);
	if (r)
		return r;
	if (parse(buf, out)) {
		copy_str(e->sys.attr, sizeof(e->sys.attr), attr);
		copy_str(e->value, sizeof(e->value), buf);
		e->parse = true;
		return -EINVAL;
	}
	return 0;
}

static int p_string32(const char *v, void *out)
{
	return copy_str(out, 32, v) ? 0 : -EINVAL;
}

static int p_string64(const char *v, void *out)
{
	return copy_str(out, 64, v) ? 0 : -EINVAL;
}

static int p_u64_or_empty(const char *v, void *out)
{
	if (!*v) {
		*(uint64_t *)out = 0;
		return 0;
	}
	return parse_u64(v, out);
}

static int p_uint_or_empty(const char *v, void *out)
{
	if (!*v) {
		*(unsigned int *)out = 0;
		return 0;
	}
	return parse_uint(v, out);
}

static int p_raid_disks(const char *v, void *out)
{
	struct md_info *info = out;

	return parse_raid_disks(v, &info->raid_disks, &info->old_disks);
}

/* An attribute that some levels leave empty: "" is "not there". */
static int opt_uint(const char *v, bool *has, unsigned int *out)
{
	*has = *v != '\0';
	return *has ? parse_uint(v, out) : 0;
}

static int p_layout(const char *v, void *out)
{
	struct md_info *info = out;

	return opt_uint(v, &info->has_layout, &info->layout);
}

static int p_dev(const char *v, void *out)
{
	struct md_info *info = out;

	if (sscanf(v, "%u:%u", &info->dev_major, &info->dev_minor) != 2)
		return -EINVAL;
	return 0;
}

/*
 * A word a newer kernel adds to sync_action is kept as it is (SA_UNKNOWN):
 * the array is still shown, and nothing that needs to know the action
 * goes ahead.  Only text that is no word at all is an error.
 */
static int p_action(const char *v, void *out)
{
	struct md_info *info = out;

	info->has_sync = *v != '\0';
	if (!copy_str(info->action_word, sizeof(info->action_word), v) ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyz_-") != strlen(v))
		return -EINVAL;
	if (parse_sync_action(v, &info->action))
		info->action = SA_UNKNOWN;
	return 0;
}

const char *md_action_text(const struct md_info *info)
{
	if (!info->has_sync)
		return "";
	return info->action == SA_UNKNOWN ? info->action_word
					  : sync_action_name(info->action);
}

static int p_completed(const char *v, void *out)
{
	return parse_sync_completed(v, out);
}

static int p_reshape(const char *v, void *out)
{
	struct md_info *info = out;

	return parse_reshape_position(v, &info->reshape_active,
				      &info->reshape_sector);
}

static int p_speed(const char *v, void *out)
{
	struct md_info *info = out;

	return parse_u64_or_none(v, &info->speed_known, &info->speed_kib);
}

static int p_stripe_cache(const char *v, void *out)
{
	struct md_info *info = out;

	return opt_uint(v, &info->has_stripe_cache, &info->stripe_cache);
}

static const struct md_attr_desc {
	const char *attr;
	bool optional;
	attr_parser parse;
	size_t offset;		/* where in struct md_info; 0 = the whole */
} md_attrs[] = {
	{ "dev", false, p_dev, 0 },
	{ "size", false, p_u64_or_empty, offsetof(struct md_info, size_sectors) },
	{ "md/level", false, p_string32, offsetof(struct md_info, level) },
	{ "md/raid_disks", false, p_raid_disks, 0 },
	{ "md/array_state", false, p_string32, offsetof(struct md_info, array_state) },
	{ "md/metadata_version", true, p_string64, offsetof(struct md_info, metadata) },
	{ "md/layout", true, p_layout, 0 },
	{ "md/chunk_size", true, p_u64_or_empty, offsetof(struct md_info, chunk_bytes) },
	{ "md/component_size", true, p_u64_or_empty, offsetof(struct md_info, component_kib) },
	{ "md/degraded", true, p_uint_or_empty, offsetof(struct md_info, degraded) },
	{ "md/sync_action", true, p_action, 0 },
	{ "md/last_sync_action", true, p_string32, offsetof(struct md_info, last_action) },
	{ "md/sync_completed", true, p_completed, offsetof(struct md_info, completed) },
	{ "md/reshape_position", true, p_reshape, 0 },
	{ "md/sync_speed", true, p_speed, 0 },
	{ "md/stripe_cache_size", true, p_stripe_cache, 0 },
};

static int p_member_state(const char *v, void *out)
{
	struct md_member *m = out;

	if (!copy_str(m->state, sizeof(m->state), v))
		return -EINVAL;
	return parse_dev_state(v, &m->flags);
}

static int p_slot(const char *v, void *out)
{
	struct md_member *m = out;
	uint64_t slot;

	if (parse_u64_or_none(v, &m->has_slot, &slot) || slot > 4096)
		return -EINVAL;
	m->slot = (unsigned int)slot;
	return 0;
}

static int read_member(const struct rc_ctx *ctx, const char *array,
		       const char *dir, struct md_member *m, struct md_err *e)
{
	char attr[RC_PATH_MAX / 8];
	int r;

	copy_str(m->name, sizeof(m->name), dir + strlen("dev-"));
	snprintf(attr, sizeof(attr), "md/%s/state", dir);
	r = read_attr(ctx, array, attr, false, p_member_state, m, e);
	if (r)
		return r;
	snprintf(attr, sizeof(attr), "md/%s/slot", dir);
	return read_attr(ctx, array, attr, true, p_slot, m, e);
}

/* Slot order, then the members without a slot (spares) by name. */
static int by_slot(const void *a, const void *b)
{
	const struct md_member *x = a, *y = b;

	if (x->has_slot != y->has_slot)
		return x->has_slot ? -1 : 1;
	if (x->has_slot && x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The members are the md/dev-* directories, as mdadm's sysfs.c reads them. */
static int read_members(const struct rc_ctx *ctx, struct md_info *info,
			struct md_err *e)
{
	char path[RC_PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int r = 0;

	sysfs_path(ctx, info->name, "md", path, sizeof(path));
	dir = opendir(path);
	if (!dir) {
		copy_str(e->sys.attr, sizeof(e->sys.attr), "md");
		e->sys.errnum = errno;
		return -errno;
	}
	while (!r && (d = readdir(dir))) {
		if (strncmp(d->d_name, "dev-", 4))
			continue;
		if (info->nmembers == MD_MEMBERS_MAX) {
			r = -E2BIG;
			break;
		}
		r = read_member(ctx, info->name, d->d_name,
				&info->members[info->nmembers++], e);
	}
	closedir(dir);
	qsort(info->members, info->nmembers, sizeof(info->members[0]), by_slot);
	return r;
}

int md_info_read(const struct rc_ctx *ctx, const char *name,
		 struct md_info *info, struct md_err *e)
{
	size_t i;
	int r;

	memset(info, 0, sizeof(*info));
	memset(e, 0, sizeof(*e));
	copy_str(info->name, sizeof(info->name), name);
	for (i = 0; i < sizeof(md_attrs) / sizeof(md_attrs[0]); i++) {
		const struct md_attr_desc *a = &md_attrs[i];

		r = read_attr(ctx, name, a->attr, a->optional, a->parse,
			      (char *)info + a->offset, e);
		if (r)
			return r;
	}
	return read_members(ctx, info, e);
}

void md_err_describe(const struct md_err *e, char *buf, size_t len)
{
	if (e->parse)
		snprintf(buf, len, "%s: unexpected value '%s'", e->sys.attr,
			 e->value);
	else
		sysfs_describe(&e->sys, buf, len);
}

bool md_is_raid5(const struct md_info *info)
{
	return !strcmp(info->level, "raid5");
}

unsigned int md_spare_count(const struct md_info *info)
{
	unsigned int i, n = 0;

	for (i = 0; i < info->nmembers; i++) {
		const struct md_member *m = &info->members[i];

		if (!m->has_slot && !(m->flags & (DEV_FAULTY | DEV_JOURNAL)))
			n++;
	}
	return n;
}

int md_member_index(const struct md_info *info, const char *name)
{
	unsigned int i;

	for (i = 0; i < info->nmembers; i++)
		if (!strcmp(info->members[i].name, name))
			return (int)i;
	return -1;
}
