/* Text tables through libsmartcols (lib/table.h). */
#include "table.h"
#include "termtext.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct fslab_table {
	struct libscols_table *tb;
	struct libscols_line *line; /* the current row */
	int err;                    /* the first error met; 0: none */
};

struct fslab_table *fslab_table_new(unsigned gap)
{
	struct fslab_table *t = calloc(1, sizeof(*t));
	char sep[9] = "        ";

	if (!t)
		return NULL;
	t->tb = scols_new_table();
	if (!t->tb) {
		free(t);
		return NULL;
	}
	/* laid out for no terminal: nothing cut or wrapped to fit one */
	if (scols_table_set_termforce(t->tb, SCOLS_TERMFORCE_NEVER) < 0)
		t->err = -EINVAL;
	sep[gap < 1 ? 1 : gap > 8 ? 8 : gap] = '\0';
	if (!t->err && scols_table_set_column_separator(t->tb, sep) < 0)
		t->err = -ENOMEM;
	/* cells come escaped by fslab_escape_ctrl (UTF-8 kept as it is);
	 * libsmartcols' own encoding would write \xNN for every non-ASCII
	 * byte in the C locale */
	if (!t->err && scols_table_enable_noencoding(t->tb, 1) < 0)
		t->err = -EINVAL;
	return t;
}

void fslab_table_free(struct fslab_table *t)
{
	if (!t)
		return;
	scols_unref_table(t->tb);
	free(t);
}

void fslab_table_column(struct fslab_table *t, const char *heading, enum fslab_table_align align)
{
	if (t->err)
		return;
	if (!scols_table_new_column(t->tb, heading, 0, align == FSLAB_TABLE_RIGHT ? SCOLS_FL_RIGHT : 0))
		t->err = -ENOMEM;
}

void fslab_table_row(struct fslab_table *t)
{
	if (t->err)
		return;
	t->line = scols_table_new_line(t->tb, NULL);
	if (!t->line)
		t->err = -ENOMEM;
}

void fslab_table_cell(struct fslab_table *t, size_t col, const char *text)
{
	size_t len;
	char *esc;
	int rc;

	if (t->err || !text)
		return;
	if (!t->line) {
		t->err = -EINVAL; /* a cell before the first row */
		return;
	}
	len = strlen(text);
	esc = malloc(FSLAB_ESCAPE_SIZE(len));
	if (!esc) {
		t->err = -ENOMEM;
		return;
	}
	fslab_escape_ctrl(text, esc, FSLAB_ESCAPE_SIZE(len));
	rc = scols_line_refer_data(t->line, col, esc); /* the line frees it */
	if (rc < 0) {
		free(esc);
		t->err = rc;
	}
}

void fslab_table_cellf(struct fslab_table *t, size_t col, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	if (t->err)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->err = -ENOMEM;
		return;
	}
	fslab_table_cell(t, col, s);
	free(s);
}

int fslab_table_print(struct fslab_table *t, FILE *out)
{
	int rc;

	if (t->err)
		return t->err;
	char *text = NULL, *p;

	rc = scols_print_table_to_string(t->tb, &text);
	if (rc < 0 || !text) {
		free(text);
		return rc < 0 ? rc : -ENOMEM;
	}
	/* each line without the padding of empty cells at its end */
	for (p = text; *p;) {
		size_t n = strcspn(p, "\n"), k = n;

		while (k && p[k - 1] == ' ')
			k--;
		fprintf(out, "%.*s\n", (int)k, p);
		p += n + (p[n] == '\n');
	}
	free(text);
	return 0;
}
