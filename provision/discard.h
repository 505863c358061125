/* SSD hygiene: BLKDISCARD (TRIM / UNMAP / Deallocate) of a partition
 * before mkfs and of the whole disk after teardown's wipe, where the
 * device takes discard requests.  Discarding destroys the data in the
 * range: callers discard only what they are about to format or have just
 * wiped. */
#ifndef FSLAB_DISCARD_H
#define FSLAB_DISCARD_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum fslab_discard_result {
	FSLAB_DISCARD_DONE,        /* the whole device range was discarded */
	FSLAB_DISCARD_UNSUPPORTED, /* the device takes no discard requests */
	FSLAB_DISCARD_SKIPPED,     /* the caller said not to (--no-discard) */
};

/* Discards all of dev (a partition or a whole disk) with BLKDISCARD when
 * enabled and the device supports it; *result says which.  Returns 0, or
 * -errno with the problem reported (fslab_error) when the device said yes
 * to discard but the request failed. */
int fslab_discard_device(const char *dev, bool enabled, enum fslab_discard_result *result, struct fslab_err *e);

/* The plan's line about discard on disk: "discard: each partition before
 * mkfs (...)", "... skipped (--no-discard)" or "... not supported".  disk
 * NULL or "": not known yet (a loop device setup has still to attach). */
void fslab_discard_plan_line(const char *disk, bool enabled, char *buf, size_t len);

/* teardown --discard: discards all of the (just wiped) disk and says what
 * it did on stdout.  0 or -errno (the reason in e). */
int fslab_discard_wiped_disk(const char *disk, struct fslab_err *e);

#endif
