/* IOzone auto-mode text report: parser over a memory buffer and writer.
 * See iozone.h for the accepted layout. */
#include "iozone.h"
#include "err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define IZ_LINE_MAX 8192
#define IZ_TOKENS 80 /* a -R row: the file size and up to 64+ values */
#define IZ_VALUE_MAX 1e15

/* e's message "line N: what" (N 0: no line), its code -EINVAL; returns it. */
static int __attribute__((format(printf, 3, 4)))
iz_err(struct fslab_err *e, unsigned long line, const char *fmt, ...)
{
	char msg[FSLAB_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return line ? fslab_err_set(e, EINVAL, "line %lu: %s", line, msg) : fslab_err_set(e, EINVAL, "%s", msg);
}

int fslab_iozone_add(struct fslab_iozone_report *rep, const struct fslab_iozone_cell *c)
{
	/* IOzone's layout has a column for each of its 13 tests and none
	 * for the queued and many-files families: their cells are left out */
	if ((int)c->test < 0 || c->test >= FSLAB_TEST_IOZONE_COUNT)
		return 0;
	if (rep->n == rep->cap) {
		size_t nc = rep->cap ? rep->cap * 2 : 256;
		struct fslab_iozone_cell *p;

		if (rep->n >= FSLAB_IOZONE_MAX_CELLS)
			return -E2BIG;
		p = realloc(rep->cells, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		rep->cells = p;
		rep->cap = nc;
	}
	rep->cells[rep->n++] = *c;
	return 0;
}

/* fslab_iozone_add, the error "too many cells" on c's line. */
static int iz_add_cell(struct fslab_iozone_report *rep, const struct fslab_iozone_cell *c, struct fslab_err *e)
{
	int r = fslab_iozone_add(rep, c);

	if (r < 0)
		iz_err(e, c->line, "too many cells");
	return r;
}

/* By file, record, test (a cell); iz_cmp then by line. */
static int iz_cmp_cell(const void *a, const void *b)
{
	const struct fslab_iozone_cell *x = a, *y = b;

	if (x->file_kib != y->file_kib)
		return x->file_kib < y->file_kib ? -1 : 1;
	if (x->record_kib != y->record_kib)
		return x->record_kib < y->record_kib ? -1 : 1;
	return (x->test > y->test) - (x->test < y->test);
}

static int iz_cmp(const void *a, const void *b)
{
	const struct fslab_iozone_cell *x = a, *y = b;

	return iz_cmp_cell(a, b) ? iz_cmp_cell(a, b) : (x->line > y->line) - (x->line < y->line);
}

void fslab_iozone_sort(struct fslab_iozone_report *rep)
{
	if (rep->n)
		qsort(rep->cells, rep->n, sizeof(*rep->cells), iz_cmp);
}

void fslab_iozone_report_free(struct fslab_iozone_report *rep)
{
	free(rep->cells);
	memset(rep, 0, sizeof(*rep));
}

/* A whole number of KiB (digits only) or, with frac, a throughput with an
 * optional fraction.  Returns 0 or -EINVAL. */
static int iz_number(const char *s, size_t n, bool frac, double *v)
{
	double x = 0, scale = 0;
	size_t i = 0, digits = 0;

	for (; i < n && isdigit((unsigned char)s[i]); i++, digits++)
		x = x * 10 + (s[i] - '0');
	if (i < n && s[i] == '.' && frac) {
		scale = 0.1;
		for (i++; i < n && isdigit((unsigned char)s[i]); i++, digits++) {
			x += (s[i] - '0') * scale;
			scale /= 10;
		}
	}
	if (i != n || digits == 0 || digits > 18 || !(x < IZ_VALUE_MAX))
		return -EINVAL;
	/* IOzone's figures are whole KiB/s (it truncates); a fraction is kept
	 * to that, so what export writes back reads back the same (".09"
	 * is 0, IOzone's "not measured"). */
	*v = floor(x);
	return 0;
}

struct iz_tok {
	const char *s;
	size_t n;
	bool quoted;
};

/* Splits a line on blanks; a token in double quotes has quoted set and its
 * quotes removed (quoted tokens may hold blanks). */
static int iz_split(const char *line, size_t len, struct iz_tok *t, size_t max)
{
	size_t i = 0, n = 0;

	while (i < len) {
		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i >= len)
			break;
		if (n >= max)
			return -E2BIG;
		if (line[i] == '"') {
			size_t s = ++i;
			while (i < len && line[i] != '"')
				i++;
			if (i >= len)
				return -EINVAL;
			t[n++] = (struct iz_tok){ line + s, i - s, true };
			i++;
		} else {
			size_t s = i;
			while (i < len && !isspace((unsigned char)line[i]) && line[i] != '"')
				i++;
			t[n++] = (struct iz_tok){ line + s, i - s, false };
		}
	}
	return (int)n;
}

static bool iz_contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

static int iz_size(const struct iz_tok *t, uint64_t *kib)
{
	double v;

	if (iz_number(t->s, t->n, false, &v) < 0 || v < 1)
		return -EINVAL;
	*kib = (uint64_t)v;
	return 0;
}

/* Checks for a repeated cell within one part (cells sorted). */
static int iz_dups(const struct fslab_iozone_report *p, const char *part, struct fslab_err *e)
{
	for (size_t i = 1; i < p->n; i++) {
		const struct fslab_iozone_cell *a = &p->cells[i - 1], *b = &p->cells[i];
		if (iz_cmp_cell(a, b) == 0)
			return iz_err(e, b->line,
				      "%s repeats file %llu KiB, record %llu KiB, test %s (first on line %lu)",
				      part, (unsigned long long)b->file_kib, (unsigned long long)b->record_kib,
				      fslab_test_to_string(b->test), a->line);
	}
	return 0;
}

static bool iz_find(const struct fslab_iozone_report *p, const struct fslab_iozone_cell *c)
{
	return p->n && bsearch(c, p->cells, p->n, sizeof(*p->cells), iz_cmp_cell);
}

/* The parser's state between lines. */
struct iz_parse {
	struct fslab_iozone_report *rep; /* full table rows (13 values) */
	struct fslab_iozone_report xl;   /* the -R section's cells */
	struct fslab_iozone_report part; /* cells of short table rows (iozone -i) */
	struct iz_tok tok[IZ_TOKENS];
	uint64_t rec_hdr[IZ_TOKENS]; /* the current -R section's record sizes */
	size_t n_rec;
	unsigned long lineno;
	bool in_table, excel, want_header;
	int cur; /* the current -R section's test, or FSLAB_TEST_INVALID */
	struct fslab_err *e;
};

/* The next line from *pos, without its newline (or \r\n) and its leading
 * blanks; false at the end of the text. */
static bool iz_next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
	const char *l = text + *pos;
	size_t k = 0;

	if (*pos >= len)
		return false;
	while (*pos + k < len && text[*pos + k] != '\n')
		k++;
	*pos += k + (*pos + k < len);
	if (k && l[k - 1] == '\r')
		k--;
	while (k && isspace((unsigned char)*l)) {
		l++;
		k--;
	}
	*line = l;
	*n = k;
	return true;
}

/* "Command line used: ..." into rep->command (control bytes as blanks);
 * false when line is not that line. */
static bool iz_command(struct fslab_iozone_report *rep, const char *line, size_t n)
{
	static const char cmd[] = "Command line used:";
	size_t k = sizeof(cmd) - 1;

	if (n <= sizeof(cmd) || memcmp(line, cmd, k) != 0)
		return false;
	while (k < n && line[k] == ' ')
		k++;
	snprintf(rep->command, sizeof(rep->command), "%.*s",
		 (int)(n - k < sizeof(rep->command) - 1 ? n - k : sizeof(rep->command) - 1), line + k);
	for (char *c = rep->command; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
	return true;
}

/* Splits a row of either part into ps->tok: 0 with the number of tokens
 * (or split's negative errno) in *nt, or -EINVAL for a line too long. */
static int iz_row_tokens(struct iz_parse *ps, const char *line, size_t n, int *nt)
{
	if (n > IZ_LINE_MAX)
		return iz_err(ps->e, ps->lineno, "line too long for a report row");
	*nt = iz_split(line, n, ps->tok, IZ_TOKENS);
	return 0;
}

/* Token i as a throughput into *v; else the error, named "what N". */
static int iz_value_tok(struct iz_parse *ps, int i, int shown, const char *what, double *v)
{
	const struct iz_tok *t = &ps->tok[i];

	if (!t->quoted && iz_number(t->s, t->n, true, v) == 0)
		return 0;
	return iz_err(ps->e, ps->lineno, "%s %d ('%.*s') is not a throughput in KiB/s", what,
		      shown, (int)(t->n > 40 ? 40 : t->n), t->s);
}

/* One row of the text table: "FILE RECORD V1 .. Vn". */
static int iz_table_row(struct iz_parse *ps, const char *line, size_t n)
{
	struct fslab_iozone_cell c = { .line = ps->lineno };
	int nt = 0, r;

	if ((r = iz_row_tokens(ps, line, n, &nt)) < 0)
		return r;
	if (nt < 3 || nt > 2 + FSLAB_TEST_IOZONE_COUNT)
		return iz_err(ps->e, ps->lineno,
			      "expected a row of file size (KiB), record size (KiB) and 1 to 13 throughputs; found %d fields",
			      nt < 0 ? 0 : nt);
	if (iz_size(&ps->tok[0], &c.file_kib) < 0 || iz_size(&ps->tok[1], &c.record_kib) < 0)
		return iz_err(ps->e, ps->lineno,
			      "file and record size must be positive whole numbers of KiB");
	for (int i = 2; i < nt; i++) {
		if ((r = iz_value_tok(ps, i, i + 1, "column", &c.kib_s)) < 0)
			return r;
		c.test = (enum fslab_test)(i - 2);
		/* a short row (iozone -i) has no column names to say which
		 * tests these are: kept apart, -R wins */
		if ((r = iz_add_cell(nt < 2 + FSLAB_TEST_IOZONE_COUNT ? &ps->part : ps->rep, &c, ps->e)) < 0)
			return r;
	}
	return 0;
}

/* A -R section's title ("Writer report"): the test of the rows below. */
static int iz_excel_title(struct iz_parse *ps)
{
	const struct iz_tok *t = &ps->tok[0];

	ps->cur = FSLAB_TEST_INVALID;
	for (int k = 0; k < FSLAB_TEST_IOZONE_COUNT; k++) {
		const char *title = fslab_test_iozone_title(k);
		if (strlen(title) == t->n && memcmp(title, t->s, t->n) == 0)
			ps->cur = k;
	}
	if (ps->cur == FSLAB_TEST_INVALID)
		return iz_err(ps->e, ps->lineno,
			      "unknown section \"%.*s\" (expected one of IOzone's 13 titles, e.g. \"Writer report\")",
			      (int)(t->n > 40 ? 40 : t->n), t->s);
	ps->want_header = true;
	return 0;
}

/* The row of quoted record sizes under a -R section's title. */
static int iz_excel_header(struct iz_parse *ps, int nt)
{
	ps->n_rec = 0;
	for (int i = 0; i < nt; i++) {
		if (!ps->tok[i].quoted || iz_size(&ps->tok[i], &ps->rec_hdr[ps->n_rec]) < 0)
			return iz_err(ps->e, ps->lineno,
				      "expected the section's header of quoted record sizes (\"4\" \"8\" ...)");
		ps->n_rec++;
	}
	ps->want_header = false;
	return 0;
}

/* A -R row: "\"FILE\" V1 V2 ..." in the header's record order. */
static int iz_excel_row(struct iz_parse *ps, int nt)
{
	struct fslab_iozone_cell c = { .line = ps->lineno, .test = (enum fslab_test)ps->cur };
	int r;

	if (!ps->tok[0].quoted || iz_size(&ps->tok[0], &c.file_kib) < 0)
		return iz_err(ps->e, ps->lineno,
			      "expected a quoted file size (KiB) at the start of the row");
	if ((size_t)nt - 1 > ps->n_rec)
		return iz_err(ps->e, ps->lineno, "%d values but the section's header has %zu record sizes",
			      nt - 1, ps->n_rec);
	for (int i = 1; i < nt; i++) {
		if ((r = iz_value_tok(ps, i, i, "value", &c.kib_s)) < 0)
			return r;
		c.record_kib = ps->rec_hdr[i - 1];
		if ((r = iz_add_cell(&ps->xl, &c, ps->e)) < 0)
			return r;
	}
	return 0;
}

/* A line of the -R section: a title, a header or a row (others skipped). */
static int iz_excel_line(struct iz_parse *ps, const char *line, size_t n)
{
	int nt = 0, r;

	if (line[0] != '"')
		return 0;
	if ((r = iz_row_tokens(ps, line, n, &nt)) < 0)
		return r;
	if (nt < 0)
		return iz_err(ps->e, ps->lineno,
			      nt == -E2BIG ? "more than %d fields" : "unbalanced quote", IZ_TOKENS);
	if (nt >= 1 && ps->tok[0].n && !isdigit((unsigned char)ps->tok[0].s[0]))
		return iz_excel_title(ps);
	if (ps->cur == FSLAB_TEST_INVALID)
		return iz_err(ps->e, ps->lineno,
			      "a row before any section title (\"Writer report\", ...)");
	if (ps->want_header)
		return iz_excel_header(ps, nt);
	return iz_excel_row(ps, nt);
}

/* One non-blank line of the report, in whichever part it is. */
static int iz_line(struct iz_parse *ps, const char *line, size_t n)
{
	if (!ps->excel && iz_command(ps->rep, line, n))
		return 0;
	if (iz_contains(line, n, "Excel output is below")) {
		ps->excel = true;
		ps->in_table = false;
		ps->rep->has_excel = true;
		return 0;
	}
	if (ps->excel)
		return iz_excel_line(ps, line, n);
	if (iz_contains(line, n, "reclen") && iz_contains(line, n, "kB")) {
		ps->in_table = ps->rep->has_text = true;
		return 0;
	}
	if (!ps->in_table || !isdigit((unsigned char)line[0]))
		return 0;
	return iz_table_row(ps, line, n);
}

/* Checks the parts and merges them into ps->rep: full table rows first,
 * then the -R section's cells they lack; short rows only without -R. */
static int iz_merge(struct iz_parse *ps)
{
	struct fslab_iozone_report *rep = ps->rep;
	size_t n_text;
	int r;

	fslab_iozone_sort(rep);
	fslab_iozone_sort(&ps->xl);
	fslab_iozone_sort(&ps->part);
	if ((r = iz_dups(rep, "the table", ps->e)) < 0 ||
	    (r = iz_dups(&ps->part, "the table", ps->e)) < 0 ||
	    (r = iz_dups(&ps->xl, "the -R section", ps->e)) < 0)
		return r;
	n_text = rep->n;
	for (size_t i = 0; i < ps->part.n; i++) {
		const struct fslab_iozone_cell *c = &ps->part.cells[i];
		struct fslab_iozone_report text_view = { .cells = rep->cells, .n = n_text };

		if (iz_find(&text_view, c))
			return iz_err(ps->e, c->line, "the table repeats file %llu KiB, record %llu KiB",
				      (unsigned long long)c->file_kib, (unsigned long long)c->record_kib);
	}
	for (size_t i = 0; i < ps->xl.n; i++) {
		struct fslab_iozone_report text_view = { .cells = rep->cells, .n = n_text };

		if (!iz_find(&text_view, &ps->xl.cells[i]) && (r = iz_add_cell(rep, &ps->xl.cells[i], ps->e)) < 0)
			return r;
	}
	for (size_t i = 0; i < ps->part.n && !rep->has_excel; i++)
		if ((r = iz_add_cell(rep, &ps->part.cells[i], ps->e)) < 0)
			return r;
	fslab_iozone_sort(rep);
	return 0;
}

int fslab_iozone_parse(const char *text, size_t len, struct fslab_iozone_report *rep,
		       struct fslab_err *e)
{
	struct iz_parse ps = { .rep = rep, .cur = FSLAB_TEST_INVALID, .e = e };
	const char *line;
	size_t pos = 0, n, measured = 0;
	int r = 0;

	memset(rep, 0, sizeof(*rep));
	fslab_err_clear(e);
	while (iz_next_line(text, len, &pos, &line, &n)) {
		ps.lineno++;
		if (n && (r = iz_line(&ps, line, n)) < 0)
			goto out;
	}
	if (!rep->has_text && !rep->has_excel) {
		r = iz_err(e, 0,
			   "no IOzone auto-mode results: expected the table headed \"kB  reclen  write ...\" or the section after \"Excel output is below:\"");
		goto out;
	}
	if ((r = iz_merge(&ps)) < 0)
		goto out;
	for (size_t i = 0; i < rep->n; i++)
		measured += rep->cells[i].kib_s > 0;
	if (measured == 0) {
		r = iz_err(e, 0,
			   rep->n ? "every value in the report is 0 (IOzone's \"not measured\"): nothing to import"
				  : "the report has no result rows");
		goto out;
	}
out:
	fslab_iozone_report_free(&ps.xl);
	fslab_iozone_report_free(&ps.part);
	if (r < 0)
		fslab_iozone_report_free(rep);
	return r;
}

static const char iz_head1[] =
	"                                                              random    random     bkwd    record    stride                                    \n";
static const char iz_head2[] =
	"              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n";

static void iz_value(FILE *out, double v)
{
	fprintf(out, " %8lld", (long long)llround(v));
}

/* Adds v to the sorted set recs (at most 64). */
static void iz_add_record(uint64_t *recs, size_t *nr, uint64_t v)
{
	size_t k = 0;

	while (k < *nr && recs[k] < v)
		k++;
	if ((k < *nr && recs[k] == v) || *nr >= 64)
		return;
	memmove(recs + k + 1, recs + k, ((*nr)++ - k) * sizeof(*recs));
	recs[k] = v;
}

/* The text table: a row per file and record size with every test's value
 * (0 where missing; rows of nothing but 0 left out, as IOzone does).  The
 * record sizes seen go into recs for the -R section. */
static void iz_write_table(FILE *out, const struct fslab_iozone_report *rep, uint64_t *recs,
			   size_t *nr)
{
	for (size_t i = 0; i < rep->n;) {
		const struct fslab_iozone_cell *c = &rep->cells[i];
		double v[FSLAB_TEST_MAX] = { 0 };
		bool any = false;
		size_t j = i;

		for (; j < rep->n && rep->cells[j].file_kib == c->file_kib &&
		       rep->cells[j].record_kib == c->record_kib;
		     j++) {
			v[rep->cells[j].test] = rep->cells[j].kib_s;
			any |= rep->cells[j].kib_s > 0;
		}
		if (any) {
			fprintf(out, "%16llu %7llu", (unsigned long long)c->file_kib,
				(unsigned long long)c->record_kib);
			for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
				iz_value(out, v[t]);
			fputc('\n', out);
		}
		iz_add_record(recs, nr, c->record_kib);
		i = j;
	}
}

/* The -R row of file size rep->cells[*i].file_kib in test t, up to its
 * last measured record size; *i moves past that file size. */
static void iz_write_excel_row(FILE *out, const struct fslab_iozone_report *rep, size_t *i,
			       enum fslab_test t, const uint64_t *recs, size_t nr)
{
	uint64_t f = rep->cells[*i].file_kib;
	double v[64] = { 0 };
	int last = -1;
	size_t j = *i;

	for (; j < rep->n && rep->cells[j].file_kib == f; j++) {
		const struct fslab_iozone_cell *c = &rep->cells[j];

		for (size_t k = 0; k < nr && c->test == t; k++)
			if (recs[k] == c->record_kib) {
				v[k] = c->kib_s;
				if ((int)k > last)
					last = (int)k;
			}
	}
	if (last >= 0) {
		fprintf(out, "\"%llu\"  ", (unsigned long long)f);
		for (int k = 0; k <= last; k++)
			iz_value(out, v[k]);
		fputc('\n', out);
	}
	*i = j;
}

/* The -R section: per test with cells its title, the record sizes, then
 * a row per file size. */
static void iz_write_excel(FILE *out, const struct fslab_iozone_report *rep, const uint64_t *recs,
			   size_t nr)
{
	fputs("Excel output is below:\n", out);
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++) {
		bool any = false;

		for (size_t i = 0; i < rep->n && !any; i++)
			any = rep->cells[i].test == (enum fslab_test)t;
		if (!any)
			continue;
		fprintf(out, "\n\"%s\"\n        ", fslab_test_iozone_title(t));
		for (size_t k = 0; k < nr; k++)
			fprintf(out, "\"%llu\"  ", (unsigned long long)recs[k]);
		fputc('\n', out);
		for (size_t i = 0; i < rep->n;)
			iz_write_excel_row(out, rep, &i, (enum fslab_test)t, recs, nr);
	}
}

int fslab_iozone_write(FILE *out, const struct fslab_iozone_report *rep, bool excel)
{
	uint64_t recs[64];
	size_t nr = 0;

	fprintf(out, "\tIozone: Performance Test of File I/O\n"
		     "\t        (report layout of IOzone 3.508, written by fslab export iozone)\n\n"
		     "\tAuto Mode\n\tCommand line used: %s\n\tOutput is in kBytes/sec\n\n%s%s",
		rep->command[0] ? rep->command : "iozone -a", iz_head1, iz_head2);
	iz_write_table(out, rep, recs, &nr);
	fputs("\niozone test complete.\n", out);
	if (excel)
		iz_write_excel(out, rep, recs, nr);
	return ferror(out) ? -EIO : 0;
}
