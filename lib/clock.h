/* The one monotonic clock of fslab (CLOCK_MONOTONIC): for deadlines, ETAs
 * and measured spans, never for dates; and the date now, in UTC. */
#ifndef FSLAB_CLOCK_H
#define FSLAB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds since an arbitrary point.  Inline: the benchmark's timed
 * loop may read it once per operation. */
static inline uint64_t fslab_now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC exists on every Linux fslab runs on; the call
	 * cannot fail with a valid clock id and pointer. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* The same clock in seconds (ns resolution): deadlines, rates, ETAs. */
double fslab_now(void);

/* The wall clock's time now in UTC, as strftime's fmt puts it; returns buf. */
char *fslab_utc_now(const char *fmt, char *buf, size_t len);

#endif
