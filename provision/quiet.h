/* After mount: wait, bounded, until a filesystem's own background work
 * is done, so that the first test does not share the disk with it.
 *
 * Quiet means, for one second: the partition's block-layer counters
 * (/sys/class/block/PART/stat) show no sector written, no discard
 * completed and no request in flight; and per filesystem
 *   - ext4, ext2: no ext4lazyinit kernel thread (it zeroes inode tables
 *     and, since Linux 5.8, prefetches block bitmaps after mount; one
 *     thread serves every ext4 filesystem of the machine);
 *   - btrfs: /sys/fs/btrfs/FSID/exclusive_operation is "none" (no
 *     balance, device add/remove/replace, resize) and
 *     discard/discardable_extents is 0 (the async discard queue is
 *     empty);
 *   - xfs, FAT32: the counters alone (see docs/ssd.md). */
#ifndef FSLAB_QUIET_H
#define FSLAB_QUIET_H

#include <signal.h>

#include "state.h"

#define FSLAB_QUIET_TIMEOUT_S 30.0
#define FSLAB_QUIET_WINDOW_S 1.0

/* Waits up to timeout_s for the n mounted filesystems parts[] (watched
 * together) to be quiet; records each one's result in sp->quiet ("quiet" or "timeout"), quiet_note and quiet_wait_s, and
 * warns when it timed out.  A signal (*stop) ends the wait early, as a
 * timeout.  Never fails: a counter that cannot be read
 * is left out of the test, and the note says so. */
void fslab_quiet_wait(struct fslab_state_partition *parts, size_t n, double timeout_s,
		      volatile sig_atomic_t *stop);

#endif
