// SPDX-License-Identifier: GPL-2.0
/* One printer for text and JSON. */
#include <inttypes.h>

#include "printer.h"
#include "util.h"

/* Text formats come from the callers, as in iproute2's json_print.c. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void pr_init(struct printer *p, FILE *out, bool json)
{
	p->out = out;
	p->json = json;
	p->depth = 0;
	p->need_comma[0] = false;
}

static bool wants(const struct printer *p, enum pr_kind k)
{
	return p->json ? (k & PR_JSON) : (k & PR_TEXT);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Comma, then the key (none inside an array or at the top). */
static void json_key(struct printer *p, const char *key)
{
	if (p->need_comma[p->depth])
		fputc(',', p->out);
	p->need_comma[p->depth] = true;
	if (key) {
		json_string(p->out, key);
		fputc(':', p->out);
	}
}

static void json_open(struct printer *p, const char *key, char c)
{
	json_key(p, key);
	fputc(c, p->out);
	if (p->depth + 1 < PR_DEPTH_MAX)
		p->depth++;
	p->need_comma[p->depth] = false;
}

static void json_close(struct printer *p, char c)
{
	fputc(c, p->out);
	if (p->depth > 0)
		p->depth--;
}

void pr_begin(struct printer *p)
{
	if (p->json)
		json_open(p, NULL, '{');
}

void pr_end(struct printer *p)
{
	if (p->json) {
		json_close(p, '}');
		fputc('\n', p->out);
		p->need_comma[0] = false;
	}
	fflush(p->out);
}

void pr_open_object(struct printer *p, const char *key)
{
	if (p->json)
		json_open(p, key, '{');
}

void pr_close_object(struct printer *p)
{
	if (p->json)
		json_close(p, '}');
}

void pr_open_array(struct printer *p, const char *key)
{
	if (p->json)
		json_open(p, key, '[');
}

void pr_close_array(struct printer *p)
{
	if (p->json)
		json_close(p, ']');
}

void pr_string(struct printer *p, enum pr_kind k, const char *key,
	       const char *fmt, const char *value)
{
	if (!wants(p, k))
		return;
	if (p->json) {
		json_key(p, key);
		json_string(p->out, value);
	} else {
		fprintf(p->out, fmt, value);
	}
}

void pr_string_opt(struct printer *p, enum pr_kind k, const char *key,
		   const char *fmt, const char *value)
{
	if (*value || !p->json)
		pr_string(p, k, key, fmt, *value ? value : "-");
	else
		pr_null(p, k, key, NULL);
}

/* JSON: "key": json, formatted already; true when text is wanted instead. */
static bool json_or_text(struct printer *p, enum pr_kind k, const char *key,
			 const char *json)
{
	if (!wants(p, k))
		return false;
	if (!p->json)
		return true;
	json_key(p, key);
	fputs(json, p->out);
	return false;
}

void pr_u64(struct printer *p, enum pr_kind k, const char *key,
	    const char *fmt, uint64_t value)
{
	char json[32];

	snprintf(json, sizeof(json), "%" PRIu64, value);
	if (json_or_text(p, k, key, json))
		fprintf(p->out, fmt, value);
}

void pr_float(struct printer *p, enum pr_kind k, const char *key,
	      const char *fmt, double value)
{
	char json[64];

	snprintf(json, sizeof(json), "%.2f", value);
	if (json_or_text(p, k, key, json))
		fprintf(p->out, fmt, value);
}

void pr_bool(struct printer *p, enum pr_kind k, const char *key,
	     const char *fmt, bool value)
{
	if (json_or_text(p, k, key, value ? "true" : "false"))
		fprintf(p->out, fmt, value ? "yes" : "no");
}

void pr_size(struct printer *p, enum pr_kind k, const char *key,
	     const char *fmt, uint64_t bytes)
{
	char buf[32];

	if (p->json) {
		pr_u64(p, k, key, fmt, bytes);
		return;
	}
	format_size(bytes, buf, sizeof(buf));
	pr_string(p, k, key, fmt, buf);
}

void pr_null(struct printer *p, enum pr_kind k, const char *key,
	     const char *fmt)
{
	if (json_or_text(p, k, key, "null") && fmt)
		fputs(fmt, p->out);
}

void pr_text(struct printer *p, const char *s)
{
	if (!p->json)
		fputs(s, p->out);
}
