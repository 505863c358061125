/* Writing the report's, import's and export's outputs safely (outputs.c,
 * tmpdir.c). */
#ifndef FSLAB_REPORT_OUTPUTS_H
#define FSLAB_REPORT_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

struct fslab_err;

/* Removes what killed reports left in pfd (parent: its path, for the
 * message), then makes, locks and marks a new temporary directory: its fd
 * (the lock held until closed) and name, or -errno. */
int rp_tmpdir_make(int pfd, const char *parent, char *name, size_t len);
/* Removes the mark, just before the directory is renamed into place. */
int rp_tmpdir_unmark(int tfd);
/* May the output file name in dfd (shown to the user as shown) be written?
 * Never in the lab lock directory /run/fslab; else 0 when nothing is
 * there, or when something is and force is set and it is not a lab's lock,
 * lease or log file, not input, not the state file (default path,
 * $FSLAB_STATE) and not a file the state loader accepts.  Else -EEXIST
 * (or another negative errno) with why in e. */
int rp_output_check(int dfd, const char *name, const char *shown, const char *input, bool force,
		    struct fslab_err *e);
/* "a/b/c" -> "a/b" + "c"; "c" -> "." + "c".  -EISDIR when the last
 * component is empty, "." or "..". */
int rp_split_path(const char *path, char *dir, size_t dirlen, char *base, size_t baselen);

#endif
