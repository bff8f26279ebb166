/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One printer for text and JSON, in the manner of iproute2's print_*().
 *
 * Each field is printed by one call that names its JSON key and its text
 * format; the printer's mode picks which of the two comes out.  A call
 * marked PR_TEXT or PR_JSON only prints in that mode (labels, line breaks,
 * fields that only make sense in one of them).
 */
#ifndef RAIDCTL_PRINTER_H
#define RAIDCTL_PRINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum pr_kind { PR_TEXT = 1, PR_JSON = 2, PR_ANY = 3 };

#define PR_DEPTH_MAX 8

struct printer {
	FILE *out;
	bool json;
	int depth;
	bool need_comma[PR_DEPTH_MAX];
};

void pr_init(struct printer *p, FILE *out, bool json);
/* The top-level JSON object: pr_begin() ... pr_end() prints "{...}\n". */
void pr_begin(struct printer *p);
void pr_end(struct printer *p);
void pr_open_object(struct printer *p, const char *key);
void pr_close_object(struct printer *p);
void pr_open_array(struct printer *p, const char *key);
void pr_close_array(struct printer *p);

/* Text: fmt with one %s (or %PRIu64, %.2f); JSON: "key": value. */
void pr_string(struct printer *p, enum pr_kind k, const char *key,
	       const char *fmt, const char *value);
void pr_u64(struct printer *p, enum pr_kind k, const char *key,
	    const char *fmt, uint64_t value);
void pr_float(struct printer *p, enum pr_kind k, const char *key,
	      const char *fmt, double value);
void pr_bool(struct printer *p, enum pr_kind k, const char *key,
	     const char *fmt, bool value);
/* JSON: the number of bytes; text: fmt with one %s given "1.50G". */
void pr_size(struct printer *p, enum pr_kind k, const char *key,
	     const char *fmt, uint64_t bytes);
/* Like pr_string, but "" is JSON null and "-" in text. */
void pr_string_opt(struct printer *p, enum pr_kind k, const char *key,
		   const char *fmt, const char *value);
/* JSON null; text: fmt printed as it is. */
void pr_null(struct printer *p, enum pr_kind k, const char *key,
	     const char *fmt);
/* Text only, printed as it is. */
void pr_text(struct printer *p, const char *s);

#endif
