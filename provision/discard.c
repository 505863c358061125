/* BLKDISCARD of a whole block device (see discard.h). */
#include "discard.h"
#include "device_identity.h"
#include "size.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

int fslab_discard_device(const char *dev, bool enabled, enum fslab_discard_result *result, struct fslab_err *e)
{
	struct fslab_devinfo di;
	struct fslab_err err = FSLAB_ERR_INIT;
	uint64_t range[2] = { 0, 0 };
	int fd, r;

	*result = FSLAB_DISCARD_SKIPPED;
	if (!enabled)
		return 0;
	r = fslab_devinfo_read(dev, &di, &err);
	if (r < 0)
		return fslab_note_fail(e, r, "cannot discard: %s", err.msg);
	*result = FSLAB_DISCARD_UNSUPPORTED;
	if (!di.discard_max_bytes)
		return 0;
	/* Not O_EXCL: the caller may hold the whole disk exclusively. */
	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fslab_note_fail_errno(e, errno, "%s: cannot open it to discard", dev);
	r = 0;
	if (ioctl(fd, BLKGETSIZE64, &range[1]) < 0)
		r = fslab_note_fail_errno(e, errno, "%s: cannot read its size (BLKGETSIZE64)", dev);
	else if (ioctl(fd, BLKDISCARD, range) == 0)
		*result = FSLAB_DISCARD_DONE;
	/* EOPNOTSUPP: sysfs said yes, the driver says no (some USB bridges) */
	else if (errno != EOPNOTSUPP)
		r = fslab_note_fail_errno(e, errno, "%s: BLKDISCARD of %llu bytes failed; --no-discard skips it",
					  dev, (unsigned long long)range[1]);
	close(fd);
	return r;
}

void fslab_discard_plan_line(const char *disk, bool enabled, char *buf, size_t len)
{
	struct fslab_devinfo di;
	char g[32], m[32];

	if (!enabled)
		snprintf(buf, len, "discard: skipped (--no-discard)");
	else if (!disk || !disk[0])
		snprintf(buf, len, "discard: each partition before mkfs, if the loop device takes it");
	else if (fslab_devinfo_read(disk, &di, NULL) < 0 || !di.discard_max_bytes)
		snprintf(buf, len, "discard: no (%s takes no discard requests)", disk);
	else
		snprintf(buf, len, "discard: each partition before mkfs (BLKDISCARD; %s granularity, up to %s a "
			 "request)", fslab_size_human(di.discard_granularity, g, sizeof(g)),
			 fslab_size_human(di.discard_max_bytes, m, sizeof(m)));
}

int fslab_discard_wiped_disk(const char *disk, struct fslab_err *e)
{
	enum fslab_discard_result res;
	int r;

	fslab_note_line("discarding all of %s (BLKDISCARD)", disk);
	r = fslab_discard_device(disk, true, &res, e);
	if (r < 0)
		return r;
	if (res == FSLAB_DISCARD_UNSUPPORTED)
		fslab_note_line("%s takes no discard requests: not discarded (the wipe stands)", disk);
	return 0;
}
