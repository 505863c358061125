/* The run's shared helpers, below every other file of the run: they call
 * nothing of it.  The flags the run's signal handlers (run.c) set, UTC
 * times, an error noted with its errno. */
#include "run_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t run_stop, run_continued;

void run_utc_format(int64_t when, char *buf, size_t len, bool compact)
{
	time_t t = (time_t)when;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int run_note_errno(int err, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	if (err < 0)
		err = -err;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	fslab_note(FSLAB_NOTE_ERROR, "%s: %s", n < 0 ? fmt : text, strerror(err));
	free(text);
	return -err;
}
