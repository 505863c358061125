/* Text tables through libsmartcols (util-linux's table library, the one
 * lsblk and losetup print with).
 *
 * Every column is as wide as its widest cell or heading, whatever the
 * terminal's width: a name is never cut and a row never wraps, so the
 * output is the same on a terminal, in a pipe and in a file.  Cells are
 * printed with their control bytes escaped (fslab_escape_ctrl: "\x1b";
 * UTF-8 kept), columns are gap blanks apart and no line ends in blanks.
 *
 * Errors are kept: the first one a call meets is returned by
 * fslab_table_print (and the table prints nothing), so a caller builds the
 * table without checking each cell and checks once. */
#ifndef FSLAB_TABLE_H
#define FSLAB_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct fslab_table;

enum fslab_table_align { FSLAB_TABLE_LEFT, FSLAB_TABLE_RIGHT };

/* An empty table, its columns gap blanks apart (1 to 8); NULL when out
 * of memory. */
struct fslab_table *fslab_table_new(unsigned gap);
void fslab_table_free(struct fslab_table *t);

/* Appends a column headed heading. */
void fslab_table_column(struct fslab_table *t, const char *heading, enum fslab_table_align align);

/* Starts a row; the cells that follow fill it. */
void fslab_table_row(struct fslab_table *t);

/* Column col of the current row (copied; NULL leaves it empty). */
void fslab_table_cell(struct fslab_table *t, size_t col, const char *text);
__attribute__((format(printf, 3, 4)))
void fslab_table_cellf(struct fslab_table *t, size_t col, const char *fmt, ...);

/* Prints the headings and the rows to out.  0, or the first -errno the
 * table met (nothing printed then). */
int fslab_table_print(struct fslab_table *t, FILE *out);

#endif
