/* NVMe Format NVM with Secure Erase for --purge secure-erase (nvme_erase.h). */
#include "nvme_erase.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_ADMIN_FORMAT_NVM 0x80
#define NVME_CNS_NAMESPACE 0x00
#define NVME_CNS_CONTROLLER 0x01
#define NVME_CNS_ACTIVE_NSIDS 0x02
/* Identify Controller: OACS (bit 1: Format NVM), NN, FNA. */
#define ID_CTRL_OACS 256
#define ID_CTRL_NN 516
#define ID_CTRL_FNA 524
/* Identify Namespace: NLBAF, FLBAS, DPS. */
#define ID_NS_NLBAF 25
#define ID_NS_FLBAS 26
#define ID_NS_DPS 29
#define NVME_SES_USER_DATA_ERASE 1u
/* A user data erase of a large drive takes minutes; the kernel's default
 * admin timeout (60 s) would abort it. */
#define NVME_FORMAT_TIMEOUT_MS (4u * 3600u * 1000u)

/* One Identify into buf through the admin passthrough of the open
 * namespace *ctx (an int fd): fslab_nvme_ask's identify. */
static int nvme_identify_fd(void *ctx, unsigned cns, unsigned nsid, void *buf)
{
	int fd = *(const int *)ctx;
	struct nvme_admin_cmd cmd = { .opcode = NVME_ADMIN_IDENTIFY, .nsid = nsid, .addr = (uint64_t)(uintptr_t)buf,
				      .data_len = FSLAB_NVME_IDENTIFY_BYTES, .cdw10 = cns };

	memset(buf, 0, FSLAB_NVME_IDENTIFY_BYTES);
	int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
	return r < 0 ? -errno : r;
}

static int nvme_nsid_fd(void *ctx)
{
	int r = ioctl(*(const int *)ctx, NVME_IOCTL_ID);

	return r < 0 ? -errno : r;
}

static uint32_t le32_at(const unsigned char *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
	       (uint32_t)b[off + 3] << 24;
}

int fslab_nvme_erase_plan(const struct fslab_nvme_ask *a, const char *disk, struct fslab_nvme_erase_plan *p,
			  struct fslab_err *e)
{
	unsigned char *id = NULL;
	int r, nsid;

	memset(p, 0, sizeof(*p));
	nsid = a->nsid(a->ctx);
	if (nsid <= 0)
		return fslab_err_set(e, nsid < 0 ? nsid : -ENOTTY, "%s is no NVMe namespace (NVME_IOCTL_ID: %s)", disk,
			 nsid < 0 ? strerror(-nsid) : "no namespace id");
	p->nsid = (unsigned)nsid;
	if (posix_memalign((void **)&id, 4096, FSLAB_NVME_IDENTIFY_BYTES))
		return fslab_err_set(e, -ENOMEM, "out of memory");
	r = a->identify(a->ctx, NVME_CNS_CONTROLLER, 0, id);
	if (r != 0) {
		r = fslab_err_set(e, r < 0 ? r : -EIO, "%s: Identify Controller failed (%s)", disk,
			 r < 0 ? strerror(-r) : "the drive returned an error status");
		goto out;
	}
	unsigned oacs = (unsigned)id[ID_CTRL_OACS] | (unsigned)id[ID_CTRL_OACS + 1] << 8;
	unsigned fna = id[ID_CTRL_FNA];
	uint32_t nn = le32_at(id, ID_CTRL_NN);

	if (!(oacs & 0x2)) {
		r = fslab_err_set(e, -EOPNOTSUPP, "%s: its controller does not support Format NVM (Identify Controller OACS bit 1 is clear)",
			 disk);
		goto out;
	}
	p->together = (fna & 0x3) != 0;
	if (p->together && nn > 1) {
		/* Which other namespaces are active: the format would erase them. */
		r = a->identify(a->ctx, NVME_CNS_ACTIVE_NSIDS, 0, id);
		if (r != 0) {
			r = fslab_err_set(e, r < 0 ? r : -EIO, "%s: its controller formats all its namespaces together and the list of active ones cannot be read (%s)",
				 disk, r < 0 ? strerror(-r) : "an error status");
			goto out;
		}
		for (size_t k = 0; k < FSLAB_NVME_IDENTIFY_BYTES / 4; k++) {
			uint32_t other = le32_at(id, k * 4);

			if (!other)
				break;
			if (other != p->nsid) {
				r = fslab_err_set(e, -EBUSY, "%s: its controller formats all its namespaces together (Identify Controller FNA %#x) and it has namespace %u besides this one (%u), which no safety check looked at",
					 disk, fna, other, p->nsid);
				goto out;
			}
		}
	}
	r = a->identify(a->ctx, NVME_CNS_NAMESPACE, p->nsid, id);
	if (r != 0) {
		r = fslab_err_set(e, r < 0 ? r : -EIO, "%s: Identify Namespace %u failed (%s)", disk, p->nsid,
			 r < 0 ? strerror(-r) : "an error status");
		goto out;
	}
	unsigned flbas = id[ID_NS_FLBAS], dps = id[ID_NS_DPS];

	p->lbaf = (flbas & 0xf) | ((id[ID_NS_NLBAF] >= 16 ? (flbas >> 5) & 0x3 : 0) << 4);
	/* the current format, metadata placement and protection kept; SES 1 */
	p->cdw10 = (p->lbaf & 0xf) | ((flbas >> 4) & 1u) << 4 | (dps & 0x7u) << 5 | ((dps >> 3) & 1u) << 8 |
		   NVME_SES_USER_DATA_ERASE << 9 | ((p->lbaf >> 4) & 0x3u) << 12;
	r = 0;
out:
	free(id);
	return r;
}

/* The plan from the drive's own answers on fd (an open namespace). */
static int nvme_plan_fd(int fd, const char *disk, struct fslab_nvme_erase_plan *p, struct fslab_err *e)
{
	const struct fslab_nvme_ask a = { nvme_nsid_fd, nvme_identify_fd, &fd };

	return fslab_nvme_erase_plan(&a, disk, p, e);
}

int fslab_nvme_erase_check(const char *disk, struct fslab_nvme_erase_plan *p, struct fslab_err *e)
{
	int fd = open(disk, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), r;
	struct stat st;

	if (fd < 0)
		return fslab_err_set(e, -errno, "cannot open %s to ask it (%s)", disk, strerror(errno));
	/* admin commands go only to a block device, whatever the name is now */
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		return fslab_err_set(e, -ENOTBLK, "%s is not a block device: nothing is asked of it", disk);
	}
	r = nvme_plan_fd(fd, disk, p, e);
	close(fd);
	return r;
}

int fslab_nvme_erase_run(const char *disk, dev_t devno, uint64_t capacity,
			 const struct fslab_nvme_erase_plan *p, struct fslab_err *e)
{
	struct fslab_nvme_erase_plan now;
	struct nvme_admin_cmd cmd;
	struct stat st;
	uint64_t bytes = 0;
	struct fslab_err why = FSLAB_ERR_INIT;
	int fd, r;

	/* O_EXCL: nothing opened the disk since the safety checks; the same
	 * device they passed, not what the name points at now. */
	fd = open(disk, O_RDWR | O_EXCL | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return fslab_note_fail_errno(e, errno, "%s: cannot open it for the secure erase (exclusive); nothing was erased",
					 disk);
	cmd = (struct nvme_admin_cmd){ .opcode = NVME_ADMIN_FORMAT_NVM, .nsid = p->nsid, .cdw10 = p->cdw10,
				       .timeout_ms = NVME_FORMAT_TIMEOUT_MS };
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != devno)
		r = fslab_note_fail(e, -ESTALE, "refused: %s is no longer the disk the safety checks passed (another device node under that name); nothing was erased",
				    disk);
	else if ((r = nvme_plan_fd(fd, disk, &now, &why)) < 0 || now.nsid != p->nsid || now.cdw10 != p->cdw10)
		r = fslab_note_fail(e, r < 0 ? r : -ESTALE, "refused: %s; nothing was erased", r < 0 ? fslab_err_msg(&why) : "the namespace changed since setup checked it");
	else if ((r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd)) > 0)
		r = fslab_note_fail(e, -EIO, "%s: the drive refused Format NVM with Secure Erase (NVMe status %#x); nothing was partitioned: use --purge trim",
				    disk, (unsigned)r);
	else if (r < 0)
		r = fslab_note_fail(e, -errno, "%s: Format NVM with Secure Erase failed: %s; nothing was partitioned: use --purge trim",
				    disk, strerror(errno));
	else if (ioctl(fd, BLKGETSIZE64, &bytes) < 0 || bytes != capacity)
		r = fslab_note_fail(e, -EIO, "%s: after the secure erase its capacity is %llu bytes, not %llu; nothing was partitioned",
				    disk, (unsigned long long)bytes, (unsigned long long)capacity);
	close(fd);
	return r;
}
