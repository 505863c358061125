/* --purge secure-erase on an NVMe namespace: Format NVM with Secure Erase
 * Settings 1 (user data erase), what SNIA's PTS calls a purge, through the
 * kernel's NVMe admin passthrough (NVME_IOCTL_ADMIN_CMD).
 *
 * The check is read-only (Identify Controller, Identify Namespace, the
 * active namespace list) and refuses, naming the reason:
 *   - a disk that is no NVMe namespace (an ATA or SCSI disk: fslab does no
 *     ATA SECURITY ERASE UNIT, see fslab_precond_secure_erase_refusal);
 *   - a controller whose Identify says Format NVM is not supported (OACS
 *     bit 1 clear);
 *   - a controller that formats or erases all its namespaces together
 *     (FNA bits 0 or 1) while it has another active namespace: the
 *     safety checks passed only this one.
 * The format keeps the namespace's LBA format, metadata and protection
 * settings, so its size and sector size do not change (checked after). */
#ifndef FSLAB_NVME_ERASE_H
#define FSLAB_NVME_ERASE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

struct fslab_nvme_erase_plan {
	unsigned nsid;   /* the namespace of the disk */
	uint32_t cdw10;  /* Format NVM's command dword 10: its current format, SES 1 */
	bool together;   /* FNA: the controller formats all namespaces at once */
	unsigned lbaf;   /* the LBA format kept */
};

/* How the plan asks the drive: its namespace id (or -errno), and one
 * Identify of cns (and nsid) into buf of FSLAB_NVME_IDENTIFY_BYTES: 0,
 * -errno, or a positive NVMe status.  fslab_nvme_erase_check asks through
 * the kernel's admin passthrough; a test answers with fixed pages. */
#define FSLAB_NVME_IDENTIFY_BYTES 4096
struct fslab_nvme_ask {
	int (*nsid)(void *ctx);
	int (*identify)(void *ctx, unsigned cns, unsigned nsid, void *buf);
	void *ctx;
};

/* The plan from the drive's answers (the refusals above), into *p: 0, or
 * -EOPNOTSUPP / -EBUSY / -ENOTTY / -EIO / -errno with why in e. */
int fslab_nvme_erase_plan(const struct fslab_nvme_ask *a, const char *disk, struct fslab_nvme_erase_plan *p,
			  struct fslab_err *e);

/* Reads what a secure erase of disk (a /dev path) would be into *p.  0, or
 * -EOPNOTSUPP / -ENOTTY / -errno with why in e (a sentence that names the
 * disk; the caller adds the way out). */
int fslab_nvme_erase_check(const char *disk, struct fslab_nvme_erase_plan *p, struct fslab_err *e);

/* Formats disk as p says, after checking again on an exclusive open that
 * it is still device devno and the plan still holds, then that its
 * capacity is still capacity bytes.  Blocks until the drive is done (a
 * large drive takes minutes).  0 or -errno, reported (fslab_error). */
int fslab_nvme_erase_run(const char *disk, dev_t devno, uint64_t capacity,
			 const struct fslab_nvme_erase_plan *p, struct fslab_err *e);

#endif
