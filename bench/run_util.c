/* The run's shared helpers, below every other file of the run: they call
 * nothing of it.  The flags the run's signal handlers (run.c) set, a
 * user's string escaped for a terminal, UTC times. */
#include "run_int.h"

#include "termtext.h"

#include <limits.h>
#include <time.h>

volatile sig_atomic_t run_stop, run_continued;

/* A user's path or name as it may reach a terminal: control bytes shown
 * as \xNN.  Four rotating buffers, so one message can hold several. */
void run_utc_now(char *buf, size_t len, bool compact)
{
	run_utc_format((int64_t)time(NULL), buf, len, compact);
}

void run_utc_format(int64_t when, char *buf, size_t len, bool compact)
{
	time_t t = (time_t)when;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}
