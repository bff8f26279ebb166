// SPDX-License-Identifier: GPL-2.0
/* The one printer: the same calls give text and valid JSON. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>

#include "check.h"
#include "printer.h"

static void emit(struct printer *p)
{
	pr_begin(p);
	pr_string(p, PR_ANY, "name", "%s:", "md\"0\\\n\t\x01");
	pr_u64(p, PR_ANY, "n", " %" PRIu64, 18446744073709551615ULL);
	pr_float(p, PR_ANY, "pct", " %.1f%%", 12.3);
	pr_size(p, PR_ANY, "size", " %s", 1536);
	pr_bool(p, PR_ANY, "ok", " ok=%s", true);
	pr_null(p, PR_ANY, "eta", " no estimate");
	pr_string(p, PR_JSON, "only_json", NULL, "j");
	pr_text(p, "\n");
	pr_open_array(p, "list");
	pr_open_object(p, NULL);
	pr_u64(p, PR_ANY, "a", " a=%" PRIu64, 1);
	pr_close_object(p);
	pr_open_object(p, NULL);
	pr_u64(p, PR_ANY, "a", " a=%" PRIu64, 2);
	pr_open_array(p, "empty");
	pr_close_array(p);
	pr_close_object(p);
	pr_close_array(p);
	pr_end(p);
}

static char *render(bool json)
{
	struct printer p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pr_init(&p, f, json);
	emit(&p);
	fclose(f);
	return buf;
}

int main(void)
{
	char *text = render(false), *json = render(true);

	CHECK_STR(text, "md\"0\\\n\t\x01: 18446744073709551615 12.3% 1.50K "
		  "ok=yes no estimate\n a=1 a=2");
	CHECK_STR(json, "{\"name\":\"md\\\"0\\\\\\n\\t\\u0001\","
		  "\"n\":18446744073709551615,\"pct\":12.30,\"size\":1536,"
		  "\"ok\":true,\"eta\":null,\"only_json\":\"j\","
		  "\"list\":[{\"a\":1},{\"a\":2,\"empty\":[]}]}\n");
	free(text);
	free(json);
	CHECK_DONE();
}
