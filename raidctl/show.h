/* SPDX-License-Identifier: GPL-2.0 */
/* What progress and status print, through the one printer. */
#ifndef RAIDCTL_SHOW_H
#define RAIDCTL_SHOW_H

#include <stdio.h>

#include "mdinfo.h"
#include "mounts.h"
#include "printer.h"
#include "progress.h"

/* One progress report: two lines of text, or one JSON object's fields. */
void show_progress(struct printer *p, const struct md_info *info,
		   const struct progress *pg);
/* One line for a terminal, redrawn in place: "[#####     ] 40.00% ..." */
void show_progress_bar(FILE *out, const struct md_info *info,
		       const struct progress *pg, unsigned int width);
/* Everything status shows about one array. */
void show_status(struct printer *p, const struct rc_ctx *ctx,
		 const struct md_info *info, const struct mounts *mnt);

#endif
