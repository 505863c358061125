/* Messages.  Errors and warnings go to stderr prefixed "fslab: " (or
 * "fslab <command>: " once the command is known); debug output is switched on
 * per subsystem by FSLAB_DEBUG=all or FSLAB_DEBUG=provision,bench,... */
#ifndef FSLAB_LOG_H
#define FSLAB_LOG_H

#include <stdarg.h>

/* Exit statuses of every fslab command. */
enum {
	FSLAB_EXIT_OK = 0,
	FSLAB_EXIT_FAILURE = 1, /* the work failed, or was refused */
	FSLAB_EXIT_USAGE = 2,   /* bad command line or bad input file */
};

enum fslab_debug_cat {
	FSLAB_DBG_PROVISION = 1 << 0,
	FSLAB_DBG_BENCH = 1 << 1,
	FSLAB_DBG_REPORT = 1 << 2,
	FSLAB_DBG_EXEC = 1 << 3,
	FSLAB_DBG_SPEC = 1 << 4,
};

/* Sets the prefix, e.g. "fslab setup". */
void fslab_log_set_prefix(const char *prefix);
const char *fslab_log_prefix(void);

void fslab_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fslab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fslab_error, then ret: the command layer's `return fslab_fail(FSLAB_EXIT_USAGE, "...")`. */
#define fslab_fail(ret, ...) (fslab_error(__VA_ARGS__), (ret))
/* The command layer's end of a library call: prints e's error (lib/err.h)
 * when one is set, as fslab_error does, and returns ret. */
struct fslab_err;
int fslab_error_said(int ret, const struct fslab_err *e);

int fslab_debug_enabled(enum fslab_debug_cat cat);
void fslab_debug(enum fslab_debug_cat cat, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
