// SPDX-License-Identifier: GPL-2.0
/* status: every md array, or one. */
#include <err.h>
#include <stdlib.h>

#include "cmds.h"
#include "mddev.h"
#include "show.h"

static int status_one(const struct rc_ctx *ctx, struct printer *p,
		      const struct mounts *mnt, const char *arg, bool blank)
{
	struct md_info *info;
	int r = array_open(ctx, arg, &info);

	if (r)
		return r;
	if (blank)
		pr_text(p, "\n");
	show_status(p, ctx, info, mnt);
	free(info);
	return RC_OK;
}

static int status_all(const struct rc_ctx *ctx, struct printer *p,
		      const struct mounts *mnt)
{
	char (*names)[RC_NAME_MAX] = calloc(MD_ARRAYS_MAX, RC_NAME_MAX);
	int i, n, shown = 0, r = RC_OK;

	if (!names)
		err(RC_FAIL, "cannot allocate memory");
	n = md_list(ctx, names, MD_ARRAYS_MAX);
	if (n < 0) {
		warnx("cannot list md arrays");
		r = RC_FAIL;
	}
	if (n == 0)
		pr_text(p, "no md arrays\n");
	for (i = 0; i < n; i++) {
		int one = status_one(ctx, p, mnt, names[i], shown > 0);

		if (one)
			r = one;	/* go on with the others */
		else
			shown++;
	}
	free(names);
	return r;
}

static void print_status(const struct rc_ctx *ctx, const struct md_info *one,
			 bool json, int *r)
{
	struct printer p;
	struct mounts mnt;

	mounts_load(ctx, &mnt);	/* without mounts, status still works */
	pr_init(&p, stdout, json);
	pr_begin(&p);
	pr_open_array(&p, "arrays");
	if (one)
		show_status(&p, ctx, one, &mnt);
	else
		*r = status_all(ctx, &p, &mnt);
	pr_close_array(&p);
	pr_end(&p);
	mounts_free(&mnt);
}

int cmd_status(struct rc_ctx *ctx, const struct rc_args *a)
{
	struct md_info *info = NULL;
	int r = RC_OK;

	/* One ARRAY is read first: if that fails, only the error is printed. */
	if (a->array)
		r = array_open(ctx, a->array, &info);
	if (!r)
		print_status(ctx, info, a->json, &r);
	free(info);
	return r;
}
