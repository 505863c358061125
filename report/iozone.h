/* IOzone's auto-mode text report (its tests: docs/tests.md): parsed from a
 * memory buffer and written back.  No global state, no exit(): the parser is a
 * fuzz target.
 *
 * Parsing reads both parts of `iozone -a [-R]` output:
 *  - the text table: after the header line holding "kB" and "reclen", rows
 *    "FILE_KIB RECORD_KIB V1 .. V13" (whitespace-separated);
 *  - the -R section (after "Excel output is below:"): per test a quoted
 *    title ("Writer report", ...), a row of quoted record sizes, then rows
 *    "\"FILE_KIB\" V1 V2 ..." in the header's record order.
 * A value of 0 is IOzone's "not measured" (e.g. records < 64K on files
 * > 16M); it is kept as a cell with kib_s == 0.  A cell in both parts takes
 * the value of a full (13-value) table row, else the -R section's.  A
 * short row (iozone -i) cannot say which tests its values belong to: with a
 * -R section (titled, so unambiguous) it is ignored, without one its values
 * fill the first tests in IOzone's order.  A report of nothing but 0 is
 * refused.  Values are KiB/s, integers in IOzone's output
 * (a fraction is accepted). */
#ifndef FSLAB_IOZONE_H
#define FSLAB_IOZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "names.h"

/* Refuse reports with more cells than this (a full -g 2G sweep has 1872). */
#define FSLAB_IOZONE_MAX_CELLS 1000000

struct fslab_iozone_cell {
	uint64_t file_kib, record_kib;
	enum fslab_test test;
	double kib_s;        /* 0: IOzone reported 0 (not measured) */
	unsigned long line;  /* 1-based line it came from (0: not parsed) */
};

struct fslab_iozone_report {
	struct fslab_iozone_cell *cells; /* sorted by file, record, test */
	size_t n, cap;
	bool has_text;       /* the text table was found */
	bool has_excel;      /* the -R section was found */
	char command[256];   /* "Command line used: ..." (may be empty) */
};

/* Parses len bytes of text (need not be NUL-terminated).  Returns 0, or
 * -EINVAL with "line N: what is wrong" in e's message (-ENOMEM, -E2BIG too).  On
 * error rep holds nothing (no need to free); on success free it with
 * fslab_iozone_report_free. */
int fslab_iozone_parse(const char *text, size_t len, struct fslab_iozone_report *rep,
		       struct fslab_err *e);
void fslab_iozone_report_free(struct fslab_iozone_report *rep);

/* Adds (or replaces) one cell; keeps no order until fslab_iozone_sort.
 * Returns 0 or -ENOMEM/-E2BIG. */
int fslab_iozone_add(struct fslab_iozone_report *rep, const struct fslab_iozone_cell *c);
void fslab_iozone_sort(struct fslab_iozone_report *rep);

/* Writes IOzone's text report layout (header, table, "iozone test
 * complete.") and, with excel, the -R section.  Cells missing inside a row
 * are written as 0, as IOzone does.  Returns 0 or -EIO. */
int fslab_iozone_write(FILE *out, const struct fslab_iozone_report *rep, bool excel);

#endif
