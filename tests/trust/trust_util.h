/* Helpers shared by the trust tests (tests/trust/): the per-test
 * directories, reading a victim back, running fslab or a tool and checking
 * its refusal, the tests' own loop devices. Each asserts (Check) instead
 * of returning an error. */
#ifndef FSLAB_TRUST_UTIL_H
#define FSLAB_TRUST_UTIL_H

#include "testutil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TU_NOBODY 65534

/* The per-test directories: tu_dir_fixtures(tc, prefix) makes a top
 * directory for the whole TCase (unchecked: removed with everything below
 * it, mounts and loop devices included, even after a failed test; mode
 * 0755 so another user can reach what is below it; FSLAB_STATE unset) and
 * for each test its own directory tu_tmp below it (tXXXXXX, mode 0755). */
extern char *tu_tmp;
void tu_dir_fixtures(TCase *tc, const char *prefix);
/* tu_tmp/name, allocated. */
char *tu_tpath(const char *name);

/* dir/name, allocated. */
char *tu_join(const char *dir, const char *name);
/* A whole file, NUL-terminated (never blocks on a FIFO). */
char *tu_slurp(const char *path);
char *tu_slurp_len(const char *path, size_t *len);
/* FNV-1a over the whole file: the victim's bytes. */
uint64_t tu_file_sum(const char *path);
/* Is there anything at path (not following a symbolic link)? */
bool tu_exists(const char *path);

/* Asserts text holds what. */
void tu_has(const char *text, const char *what);
/* fslab (or a tool) refused: exit status non-zero, stderr holds text. */
void tu_assert_refused(const struct ft_output *o, const char *text);

/* `fslab export iozone csv --out out` (with --force if force) exits 1
 * naming want. */
void tu_export_refused(const char *csv, const char *out, bool force, const char *want);
/* Writes p as the state file of a mounted lab on /dev/loop99 (mount root
 * /nonexistent/fslab). */
void tu_write_mounted_state(const char *p);

/* Runs argv, asserts exit 0; its stdout's first line into out (if out). */
void tu_run_ok(const char *const argv[], char *out, size_t len);
/* A finished tiny `fslab run` of the directory dir (filesystem s) into
 * out with the sweep file sweep. */
void tu_finished_run(const char *dir, const char *out, const char *sweep);

/* losetup -d dev (the test's own), quietly. */
void tu_loop_detach(const char *dev);
/* Is dev still a loop device backed by something? */
bool tu_loop_attached(const char *dev);

#endif
