/* Text tables through libsmartcols (lib/table.h). */
#include "table.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdarg.h>
#include <stdlib.h>

struct fslab_table {
	struct libscols_table *tb;
	struct libscols_line *line; /* the current row */
	int err;                    /* the first error met; 0: none */
};

struct fslab_table *fslab_table_new(void)
{
	struct fslab_table *t = calloc(1, sizeof(*t));

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
	int rc;

	if (t->err || !text)
		return;
	if (!t->line) {
		t->err = -EINVAL; /* a cell before the first row */
		return;
	}
	rc = scols_line_set_data(t->line, col, text);
	if (rc < 0)
		t->err = rc;
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
	rc = scols_table_set_stream(t->tb, out);
	if (rc == 0)
		rc = scols_print_table(t->tb);
	return rc < 0 ? rc : 0;
}
