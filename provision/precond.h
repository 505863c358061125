/* setup's purge and preconditioning of a drive (setup --precondition,
 * --purge), after every safety rule passed and before the disk is
 * partitioned.  What SNIA's SSD Performance Test Specification (PTS 2.0)
 * asks before measuring, in part: purge, then write twice the user
 * capacity as 128 KiB sequential writes, so that the flash is in a known,
 * used state instead of a fresh or a random one.
 *
 * The purge fslab does is BLKDISCARD of the whole disk: a TRIM purge, not
 * a PTS purge (a drive may keep data and mapping state after a discard;
 * PTS asks for a security erase, sanitize or format).  --purge
 * secure-erase is that PTS purge on an NVMe namespace whose controller
 * supports Format NVM (nvme_erase.h); elsewhere it is refused. */
#ifndef FSLAB_PRECOND_H
#define FSLAB_PRECOND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvme_erase.h"
#include "fslab/provision.h"
#include "state.h"

#define FSLAB_PRECOND_BLOCK (128u * 1024u) /* bytes of each write */
#define FSLAB_PRECOND_PASSES 2             /* times the capacity is written */
/* The rate the plan's estimate uses (a SATA SSD's sequential write):
 * the progress line replaces it with the measured one. */
#define FSLAB_PRECOND_PLAN_MIB_S 500.0

/* What setup will do, decided from the options and the disk alone. */
struct fslab_precond_decision {
	bool write;                /* the 2x-capacity writes */
	enum fslab_purge purge;    /* before them (or alone) */
	const char *status;        /* for the state when nothing is written: "off", "skipped" */
	char note[160];            /* why skipped ("" otherwise) */
	struct fslab_nvme_erase_plan nvme; /* purge secure-erase: checked by the caller */
};

/* is_drive: false for an image's loop device and for a --device that is a
 * loop device.  rotational: 1, 0 or -1 (unknown, treated as a drive). */
void fslab_precond_decide(enum fslab_precondition_when when, bool purge_given,
			  enum fslab_purge purge, bool is_drive, int rotational,
			  struct fslab_precond_decision *d);

/* Bytes the preconditioning writes on a disk of capacity bytes. */
uint64_t fslab_precond_target(uint64_t capacity);

/* The write number i (0-based) of the preconditioning: its offset on the
 * disk and its length (FSLAB_PRECOND_BLOCK, less at the end of each pass
 * when the capacity is no multiple of it).  False when i is past the
 * end.  capacity must be a multiple of the disk's logical sector. */
bool fslab_precond_write_at(uint64_t capacity, uint64_t i, uint64_t *off, uint64_t *len);

/* The plan's and the confirmation's line: what will be purged and
 * written, the wear in drive-writes and how long that takes at
 * FSLAB_PRECOND_PLAN_MIB_S. */
void fslab_precond_plan_line(const struct fslab_precond_decision *d, const char *disk,
			     uint64_t capacity, char *buf, size_t len);

/* --purge secure-erase on disk where fslab does not do it (anything but
 * an NVMe namespace: an ATA/SCSI disk, an image's loop device): why, and
 * the way out (--purge trim), into err; always -EOPNOTSUPP. */
int fslab_precond_secure_erase_refusal(const char *disk, struct fslab_err *e);

struct fslab_precond_run {
	const char *disk;          /* the whole disk (or the image's loop device) */
	dev_t devno;               /* its device number, as the safety checks saw it */
	uint64_t capacity;         /* its bytes */
	const struct fslab_precond_decision *d;
	volatile sig_atomic_t *stop; /* a signal arrived: stop after this write */
	/* Saves the state (rec is in it): before the first write (durable),
	 * every few seconds and at the end.  0 or -errno (the reason in e). */
	int (*save)(void *ctx, bool durable);
	void *ctx;
	struct fslab_state_precondition *rec;
	struct fslab_err *e;       /* what stopped it */
};

/* Purges and writes as d says, recording each step in rec.  0 (done, or
 * a purge the disk does not support: said so), -EINTR when stopped by a
 * signal (rec->status "interrupted", nothing partitioned), or -errno
 * (the reason in r->e). */
int fslab_precond_run(const struct fslab_precond_run *r);

#endif
