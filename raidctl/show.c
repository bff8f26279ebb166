// SPDX-License-Identifier: GPL-2.0
/* What progress and status print, through the one printer. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mddev.h"
#include "show.h"
#include "util.h"

/*---- progress ----*/

static void show_rate(struct printer *p, const struct progress *pg)
{
	if (pg->has_rate)
		pr_size(p, PR_ANY, "rate_bytes_per_second", " at %s/s",
			pg->rate_bytes);
	else
		pr_null(p, PR_ANY, "rate_bytes_per_second", "");
}

static void show_eta(struct printer *p, const struct progress *pg)
{
	char buf[48];

	if (pg->state == RS_PAUSED) {
		pr_null(p, PR_ANY, "eta_seconds", ", paused");
		return;
	}
	if (!pg->has_eta) {
		pr_null(p, PR_ANY, "eta_seconds", ", no estimated completion time");
		return;
	}
	pr_u64(p, PR_JSON, "eta_seconds", NULL, pg->eta_secs);
	format_duration(pg->eta_secs, buf, sizeof(buf));
	pr_string(p, PR_TEXT, NULL, ", %s to go", buf);
}

/* Every position field as JSON null: nothing moves or nothing is known. */
static void show_no_position(struct printer *p)
{
	static const char *const keys[] = {
		"reshaped_bytes", "total_bytes", "rate_bytes_per_second",
		"percent", "eta_seconds",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		pr_null(p, PR_JSON, keys[i], NULL);
}

static void show_position(struct printer *p, const struct progress *pg)
{
	if (!pg->has_position) {
		show_no_position(p);
		pr_text(p, "  position not reported yet\n");
		return;
	}
	pr_size(p, PR_ANY, "reshaped_bytes", "  %s", pg->done_bytes);
	pr_size(p, PR_ANY, "total_bytes", " / %s reshaped", pg->total_bytes);
	show_rate(p, pg);
	pr_float(p, PR_ANY, "percent", ", %.2f%% done", pg->percent);
	show_eta(p, pg);
	pr_text(p, "\n");
}

void show_progress(struct printer *p, const struct md_info *info,
		   const struct progress *pg)
{
	bool moving = pg->state == RS_RUNNING || pg->state == RS_PAUSED;

	pr_string(p, PR_ANY, "array", "%s: ", info->name);
	pr_string(p, PR_JSON, "state", NULL, reshape_state_name(pg->state));
	pr_text(p, pg->state == RS_NONE ? "no reshape" : "reshape ");
	if (pg->state != RS_NONE)
		pr_text(p, reshape_state_name(pg->state));
	if (moving)
		pr_u64(p, PR_ANY, "from_devices", ", %" PRIu64 " -> ",
		       pg->from_disks);
	else
		pr_u64(p, PR_JSON, "from_devices", NULL, pg->to_disks);
	pr_u64(p, PR_ANY, "to_devices",
	       moving ? "%" PRIu64 " devices\n" : ", %" PRIu64 " devices\n",
	       pg->to_disks);
	if (pg->has_cursor)
		pr_u64(p, PR_JSON, "reshape_position", NULL, pg->cursor_sector);
	else
		pr_null(p, PR_JSON, "reshape_position", NULL);
	if (moving)
		show_position(p, pg);
	else
		show_no_position(p);
}

void show_progress_bar(FILE *out, const struct md_info *info,
		       const struct progress *pg, unsigned int width)
{
	char done[32], total[32], rate[32], eta[48];
	unsigned int i, fill = (unsigned int)(pg->percent / 100.0 * width);

	format_size(pg->done_bytes, done, sizeof(done));
	format_size(pg->total_bytes, total, sizeof(total));
	format_size(pg->rate_bytes, rate, sizeof(rate));
	if (pg->state == RS_PAUSED)
		copy_str(eta, sizeof(eta), "paused");
	else if (pg->has_eta)
		format_duration(pg->eta_secs, eta, sizeof(eta));
	else
		copy_str(eta, sizeof(eta), "--:--:--");
	fprintf(out, "\r%s [", info->name);
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : ' ', out);
	fprintf(out, "] %6.2f%% %s / %s %s/s %s\033[K", pg->percent, done,
		total, rate, eta);
	fflush(out);
}

/*---- status ----*/

static void show_geometry(struct printer *p, const struct md_info *info)
{
	const char *layout = raid5_layout_name(info->layout);

	pr_string_opt(p, PR_ANY, "level", "  level:         %s\n", info->level);
	if (info->has_layout && md_is_raid5(info) && layout)
		pr_string(p, PR_ANY, "layout", "  layout:        %s\n", layout);
	else if (info->has_layout)
		pr_u64(p, PR_ANY, "layout", "  layout:        %" PRIu64 "\n",
		       info->layout);
	else
		pr_null(p, PR_JSON, "layout", NULL);
	pr_size(p, PR_ANY, "chunk_bytes", "  chunk:         %s\n",
		info->chunk_bytes);
	pr_u64(p, PR_ANY, "devices", "  devices:       %" PRIu64,
	       info->raid_disks);
	if (info->old_disks != info->raid_disks)
		pr_u64(p, PR_ANY, "previous_devices",
		       " (was %" PRIu64 ")", info->old_disks);
	else
		pr_null(p, PR_JSON, "previous_devices", NULL);
	pr_text(p, "\n");
	pr_size(p, PR_ANY, "size_bytes", "  size:          %s",
		info->size_sectors * 512);
	pr_size(p, PR_ANY, "component_size_bytes", " (%s per device)\n",
		info->component_kib * 1024);
}

static void show_sync(struct printer *p, const struct md_info *info)
{
	struct progress pg;

	progress_compute(info, &pg);
	pr_string(p, PR_ANY, "array_state", "  array state:   %s\n",
		  info->array_state);
	pr_string_opt(p, PR_ANY, "metadata", "  metadata:      %s\n",
		      info->metadata);
	pr_u64(p, PR_ANY, "degraded", "  degraded:      %" PRIu64 "\n",
	       info->degraded);
	pr_string_opt(p, PR_ANY, "sync_action", "  sync action:   %s\n",
		      md_action_text(info));
	pr_string(p, PR_ANY, "reshape", "  reshape:       %s",
		  reshape_state_name(pg.state));
	if (pg.has_cursor)
		pr_u64(p, PR_ANY, "reshape_position",
		       " at sector %" PRIu64, pg.cursor_sector);
	else
		pr_null(p, PR_JSON, "reshape_position", NULL);
	if (pg.has_position)
		pr_float(p, PR_ANY, "percent", ", %.2f%% done", pg.percent);
	else
		pr_null(p, PR_JSON, "percent", NULL);
	pr_text(p, "\n");
	if (info->has_stripe_cache)
		pr_u64(p, PR_ANY, "stripe_cache_size",
		       "  stripe cache:  %" PRIu64 "\n", info->stripe_cache);
	else
		pr_null(p, PR_JSON, "stripe_cache_size", NULL);
}

static void show_mounts(struct printer *p, const struct md_info *info,
			const struct mounts *mnt)
{
	const char *target, *fstype;
	int i;

	pr_open_array(p, "mounts");
	for (i = 0; !mounts_find(mnt, info->dev_major, info->dev_minor, i,
				 &target, &fstype); i++) {
		pr_open_object(p, NULL);
		pr_string(p, PR_ANY, "target", "  mounted on:    %s", target);
		pr_string(p, PR_ANY, "fstype", " (%s)\n", fstype);
		pr_close_object(p);
	}
	if (i == 0)
		pr_text(p, "  mounted on:    -\n");
	pr_close_array(p);
}

static void show_member(struct printer *p, const struct rc_ctx *ctx,
			const struct md_member *m)
{
	char node[RC_PATH_MAX];

	blk_devnode(ctx, m->name, node, sizeof(node));
	pr_open_object(p, NULL);
	pr_string(p, PR_ANY, "device", "    %-12s", node);
	if (m->has_slot)
		pr_u64(p, PR_ANY, "slot", " slot %-3" PRIu64, m->slot);
	else
		pr_null(p, PR_ANY, "slot", " slot -  ");
	pr_string(p, PR_ANY, "state", " %s\n", m->state);
	pr_close_object(p);
}

void show_status(struct printer *p, const struct rc_ctx *ctx,
		 const struct md_info *info, const struct mounts *mnt)
{
	char node[RC_PATH_MAX];
	unsigned int i;

	blk_devnode(ctx, info->name, node, sizeof(node));
	pr_open_object(p, NULL);
	pr_string(p, PR_ANY, "name", "%s", info->name);
	pr_string(p, PR_ANY, "device", " (%s)\n", node);
	show_geometry(p, info);
	show_sync(p, info);
	show_mounts(p, info, mnt);
	pr_text(p, "  members:\n");
	pr_open_array(p, "members");
	for (i = 0; i < info->nmembers; i++)
		show_member(p, ctx, &info->members[i]);
	pr_close_array(p);
	pr_close_object(p);
}
