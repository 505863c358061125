/* IOzone auto-mode text report: parser over a memory buffer and writer.
 * See iozone.h for the accepted layout. */
#include "iozone.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define IZ_LINE_MAX 8192
#define IZ_TOKENS 80 /* a -R row: the file size and up to 64+ values */
#define IZ_VALUE_MAX 1e15

static void iz_err(char *err, size_t errlen, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void iz_err(char *err, size_t errlen, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!err || !errlen)
		return;
	if (line)
		n = snprintf(err, errlen, "line %lu: ", line);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

int fslab_iozone_add(struct fslab_iozone_report *rep, const struct fslab_iozone_cell *c)
{
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

static int iz_cmp(const void *a, const void *b)
{
	const struct fslab_iozone_cell *x = a, *y = b;

	if (x->file_kib != y->file_kib)
		return x->file_kib < y->file_kib ? -1 : 1;
	if (x->record_kib != y->record_kib)
		return x->record_kib < y->record_kib ? -1 : 1;
	if (x->test != y->test)
		return x->test < y->test ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
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
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return true;
	return false;
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
static int iz_dups(const struct fslab_iozone_report *p, const char *part, char *err, size_t errlen)
{
	for (size_t i = 1; i < p->n; i++) {
		const struct fslab_iozone_cell *a = &p->cells[i - 1], *b = &p->cells[i];
		if (a->file_kib == b->file_kib && a->record_kib == b->record_kib && a->test == b->test) {
			iz_err(err, errlen, b->line,
			       "%s repeats file %llu KiB, record %llu KiB, test %s (first on line %lu)",
			       part, (unsigned long long)b->file_kib, (unsigned long long)b->record_kib,
			       fslab_test_to_string(b->test), a->line);
			return -EINVAL;
		}
	}
	return 0;
}

static bool iz_find(const struct fslab_iozone_report *p, const struct fslab_iozone_cell *c)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct fslab_iozone_cell key = *c;
		int r;

		key.line = p->cells[mid].line;
		r = iz_cmp(&p->cells[mid], &key);
		if (r == 0)
			return true;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

int fslab_iozone_parse(const char *text, size_t len, struct fslab_iozone_report *rep, char *err,
		       size_t errlen)
{
	struct fslab_iozone_report xl = { 0 }, part = { 0 }; /* -R cells; cells of short table rows */
	struct iz_tok tok[IZ_TOKENS];
	uint64_t rec_hdr[IZ_TOKENS];
	size_t n_rec = 0, pos = 0;
	unsigned long lineno = 0;
	bool in_table = false, excel = false, want_header = false;
	int cur = FSLAB_TEST_INVALID, r = 0;

	memset(rep, 0, sizeof(*rep));
	if (err && errlen)
		err[0] = '\0';
	while (pos < len) {
		const char *line = text + pos;
		size_t n = 0;
		int nt;

		while (pos + n < len && text[pos + n] != '\n')
			n++;
		pos += n + (pos + n < len);
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		while (n && isspace((unsigned char)*line)) {
			line++;
			n--;
		}
		if (n == 0)
			continue;
		static const char cmd[] = "Command line used:";
		if (!excel && n > sizeof(cmd) && memcmp(line, cmd, sizeof(cmd) - 1) == 0) {
			size_t k = sizeof(cmd) - 1;
			while (k < n && line[k] == ' ')
				k++;
			snprintf(rep->command, sizeof(rep->command), "%.*s",
				 (int)(n - k < sizeof(rep->command) - 1 ? n - k : sizeof(rep->command) - 1),
				 line + k);
			for (char *c = rep->command; *c; c++)
				if ((unsigned char)*c < ' ')
					*c = ' ';
			continue;
		}
		if (iz_contains(line, n, "Excel output is below")) {
			excel = true;
			in_table = false;
			rep->has_excel = true;
			continue;
		}
		if (!excel) {
			if (iz_contains(line, n, "reclen") && iz_contains(line, n, "kB")) {
				in_table = rep->has_text = true;
				continue;
			}
			if (!in_table || !isdigit((unsigned char)line[0]))
				continue;
			if (n > IZ_LINE_MAX) {
				iz_err(err, errlen, lineno, "line too long for a report row");
				r = -EINVAL;
				goto fail;
			}
			nt = iz_split(line, n, tok, IZ_TOKENS);
			if (nt < 3 || nt > 2 + FSLAB_TEST_MAX) {
				iz_err(err, errlen, lineno,
				       "expected a row of file size (KiB), record size (KiB) and 1 to 13 throughputs; found %d fields",
				       nt < 0 ? 0 : nt);
				r = -EINVAL;
				goto fail;
			}
			struct fslab_iozone_cell c = { .line = lineno };
			if (iz_size(&tok[0], &c.file_kib) < 0 || iz_size(&tok[1], &c.record_kib) < 0) {
				iz_err(err, errlen, lineno, "file and record size must be positive whole numbers of KiB");
				r = -EINVAL;
				goto fail;
			}
			for (int i = 2; i < nt; i++) {
				if (tok[i].quoted || iz_number(tok[i].s, tok[i].n, true, &c.kib_s) < 0) {
					iz_err(err, errlen, lineno, "column %d ('%.*s') is not a throughput in KiB/s",
					       i + 1, (int)(tok[i].n > 40 ? 40 : tok[i].n), tok[i].s);
					r = -EINVAL;
					goto fail;
				}
				c.test = (enum fslab_test)(i - 2);
				/* a short row (iozone -i) has no column names to say
				 * which tests these are: kept apart, -R wins */
				if ((r = fslab_iozone_add(nt < 2 + FSLAB_TEST_MAX ? &part : rep, &c)) < 0) {
					iz_err(err, errlen, lineno, "too many cells");
					goto fail;
				}
			}
			continue;
		}
		/* the -R section */
		if (line[0] != '"')
			continue;
		if (n > IZ_LINE_MAX) {
			iz_err(err, errlen, lineno, "line too long for a report row");
			r = -EINVAL;
			goto fail;
		}
		nt = iz_split(line, n, tok, IZ_TOKENS);
		if (nt < 0) {
			iz_err(err, errlen, lineno, nt == -E2BIG ? "more than %d fields" : "unbalanced quote",
			       IZ_TOKENS);
			r = -EINVAL;
			goto fail;
		}
		if (nt >= 1 && tok[0].n && !isdigit((unsigned char)tok[0].s[0])) {
			cur = FSLAB_TEST_INVALID;
			for (int t = 0; t < FSLAB_TEST_MAX; t++) {
				const char *title = fslab_test_iozone_title(t);
				if (strlen(title) == tok[0].n && memcmp(title, tok[0].s, tok[0].n) == 0)
					cur = t;
			}
			if (cur == FSLAB_TEST_INVALID) {
				iz_err(err, errlen, lineno,
				       "unknown section \"%.*s\" (expected one of IOzone's 13 titles, e.g. \"Writer report\")",
				       (int)(tok[0].n > 40 ? 40 : tok[0].n), tok[0].s);
				r = -EINVAL;
				goto fail;
			}
			want_header = true;
			continue;
		}
		if (cur == FSLAB_TEST_INVALID) {
			iz_err(err, errlen, lineno, "a row before any section title (\"Writer report\", ...)");
			r = -EINVAL;
			goto fail;
		}
		if (want_header) {
			n_rec = 0;
			for (int i = 0; i < nt; i++) {
				if (!tok[i].quoted || iz_size(&tok[i], &rec_hdr[n_rec]) < 0) {
					iz_err(err, errlen, lineno,
					       "expected the section's header of quoted record sizes (\"4\" \"8\" ...)");
					r = -EINVAL;
					goto fail;
				}
				n_rec++;
			}
			want_header = false;
			continue;
		}
		struct fslab_iozone_cell c = { .line = lineno, .test = (enum fslab_test)cur };
		if (!tok[0].quoted || iz_size(&tok[0], &c.file_kib) < 0) {
			iz_err(err, errlen, lineno, "expected a quoted file size (KiB) at the start of the row");
			r = -EINVAL;
			goto fail;
		}
		if ((size_t)nt - 1 > n_rec) {
			iz_err(err, errlen, lineno, "%d values but the section's header has %zu record sizes",
			       nt - 1, n_rec);
			r = -EINVAL;
			goto fail;
		}
		for (int i = 1; i < nt; i++) {
			if (tok[i].quoted || iz_number(tok[i].s, tok[i].n, true, &c.kib_s) < 0) {
				iz_err(err, errlen, lineno, "value %d ('%.*s') is not a throughput in KiB/s", i,
				       (int)(tok[i].n > 40 ? 40 : tok[i].n), tok[i].s);
				r = -EINVAL;
				goto fail;
			}
			c.record_kib = rec_hdr[i - 1];
			if ((r = fslab_iozone_add(&xl, &c)) < 0) {
				iz_err(err, errlen, lineno, "too many cells");
				goto fail;
			}
		}
	}
	if (!rep->has_text && !rep->has_excel) {
		iz_err(err, errlen, 0,
		       "no IOzone auto-mode results: expected the table headed \"kB  reclen  write ...\" or the section after \"Excel output is below:\"");
		r = -EINVAL;
		goto fail;
	}
	fslab_iozone_sort(rep);
	fslab_iozone_sort(&xl);
	fslab_iozone_sort(&part);
	if ((r = iz_dups(rep, "the table", err, errlen)) < 0 ||
	    (r = iz_dups(&part, "the table", err, errlen)) < 0 ||
	    (r = iz_dups(&xl, "the -R section", err, errlen)) < 0)
		goto fail;
	size_t n_text = rep->n;
	struct fslab_iozone_report text_view = { .cells = rep->cells, .n = n_text };
	for (size_t i = 0; i < part.n; i++)
		if (iz_find(&text_view, &part.cells[i])) {
			iz_err(err, errlen, part.cells[i].line,
			       "the table repeats file %llu KiB, record %llu KiB",
			       (unsigned long long)part.cells[i].file_kib,
			       (unsigned long long)part.cells[i].record_kib);
			r = -EINVAL;
			goto fail;
		}
	/* full table rows first, then -R; short rows only without -R */
	for (size_t i = 0; i < xl.n; i++) {
		struct fslab_iozone_report view = { .cells = rep->cells, .n = n_text };
		if (iz_find(&view, &xl.cells[i]))
			continue;
		if ((r = fslab_iozone_add(rep, &xl.cells[i])) < 0) {
			iz_err(err, errlen, xl.cells[i].line, "too many cells");
			goto fail;
		}
	}
	for (size_t i = 0; i < part.n && !rep->has_excel; i++) {
		if ((r = fslab_iozone_add(rep, &part.cells[i])) < 0) {
			iz_err(err, errlen, part.cells[i].line, "too many cells");
			goto fail;
		}
	}
	fslab_iozone_sort(rep);
	size_t measured = 0;
	for (size_t i = 0; i < rep->n; i++)
		measured += rep->cells[i].kib_s > 0;
	if (measured == 0) {
		iz_err(err, errlen, 0,
		       rep->n ? "every value in the report is 0 (IOzone's \"not measured\"): nothing to import"
			      : "the report has no result rows");
		r = -EINVAL;
		goto fail;
	}
	fslab_iozone_report_free(&xl);
	fslab_iozone_report_free(&part);
	return 0;
fail:
	fslab_iozone_report_free(&xl);
	fslab_iozone_report_free(&part);
	fslab_iozone_report_free(rep);
	return r < 0 ? r : -EINVAL;
}

static const char iz_head1[] =
	"                                                              random    random     bkwd    record    stride                                    \n";
static const char iz_head2[] =
	"              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n";

static void iz_value(FILE *out, double v)
{
	fprintf(out, " %8lld", (long long)llround(v));
}

int fslab_iozone_write(FILE *out, const struct fslab_iozone_report *rep, bool excel)
{
	uint64_t recs[64];
	size_t nr = 0;

	fputs("\tIozone: Performance Test of File I/O\n"
	      "\t        (report layout of IOzone 3.508, written by fslab export iozone)\n\n"
	      "\tAuto Mode\n",
	      out);
	fprintf(out, "\tCommand line used: %s\n", rep->command[0] ? rep->command : "iozone -a");
	fputs("\tOutput is in kBytes/sec\n\n", out);
	fputs(iz_head1, out);
	fputs(iz_head2, out);
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
			for (int t = 0; t < FSLAB_TEST_MAX; t++)
				iz_value(out, v[t]);
			fputc('\n', out);
		}
		size_t k;
		for (k = 0; k < nr && recs[k] != c->record_kib; k++)
			;
		if (k == nr && nr < 64) {
			size_t m = nr++;
			while (m > 0 && recs[m - 1] > c->record_kib) {
				recs[m] = recs[m - 1];
				m--;
			}
			recs[m] = c->record_kib;
		}
		i = j;
	}
	fputs("\niozone test complete.\n", out);
	if (excel) {
		fputs("Excel output is below:\n", out);
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			bool any = false;

			for (size_t i = 0; i < rep->n && !any; i++)
				any = rep->cells[i].test == (enum fslab_test)t;
			if (!any)
				continue;
			fprintf(out, "\n\"%s\"\n        ", fslab_test_iozone_title(t));
			for (size_t k = 0; k < nr; k++)
				fprintf(out, "\"%llu\"  ", (unsigned long long)recs[k]);
			fputc('\n', out);
			for (size_t i = 0; i < rep->n;) {
				uint64_t f = rep->cells[i].file_kib;
				double v[64] = { 0 };
				int last = -1;
				size_t j = i;

				for (; j < rep->n && rep->cells[j].file_kib == f; j++) {
					const struct fslab_iozone_cell *c = &rep->cells[j];
					if (c->test != (enum fslab_test)t)
						continue;
					for (size_t k = 0; k < nr; k++)
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
				i = j;
			}
		}
	}
	return ferror(out) ? -EIO : 0;
}
