/* Erasing signatures with libblkid: filesystems, RAID members, partition
 * tables (both GPT headers and the protective MBR). */
#include "prov_int.h"
#include "blkprobe.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int prov_wipe_signatures_range(const char *dev, uint64_t offset, uint64_t size, struct fslab_err *e)
{
	blkid_probe pr;
	int fd, r = 0, guard = 0;

	pr = prov_blkid_open(dev, O_RDWR, offset, size, &fd);
	if (!pr)
		return fslab_note_fail_errno(e, errno, "%s: cannot open to wipe signatures", dev);
	while (r == 0 && blkid_do_probe(pr) == 0 && guard++ < 64)
		if (blkid_do_wipe(pr, 0) != 0)
			r = fslab_note_fail_errno(e, errno ? errno : EIO, "%s: wiping a signature failed", dev);
	if (fsync(fd) < 0 && r == 0)
		r = fslab_note_fail_errno(e, errno, "%s: fsync after wipe", dev);
	blkid_free_probe(pr);
	close(fd);
	return r;
}

int prov_wipe_signatures(const char *dev, struct fslab_err *e)
{
	return prov_wipe_signatures_range(dev, 0, 0, e);
}
