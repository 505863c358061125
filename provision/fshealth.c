/* Cheap read-only signs of a damaged filesystem (fshealth.h). */
#include "fshealth.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FAT32's FSInfo sector (Microsoft's FAT specification): its three
 * signatures, where they are, and its two hints. */
#define FAT_FSI_LEAD_SIG 0x41615252u
#define FAT_FSI_STRUC_OFF 484
#define FAT_FSI_STRUC_SIG 0x61417272u
#define FAT_FSI_FREE_OFF 488     /* free cluster count; 0xffffffff: not known */
#define FAT_FSI_NXT_FREE_OFF 492 /* where to look for a free cluster first */
#define FAT_FSI_TRAIL_OFF 508
#define FAT_FSI_TRAIL_SIG 0xaa550000u
/* The first data cluster: the next-free hint fslab writes before fusefat
 * mounts (what mkfs.fat writes; fusefat 0.1a calls 0xffffffff, the
 * specification's "no hint", invalid). */
#define FAT_FIRST_CLUSTER 2u

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Exactly len bytes at off, or -errno (-EIO when the device is shorter). */
static int hl_read(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		got += (size_t)n;
	}
	return 0;
}

/* Appends "; text" (the first without "; ") to what. */
static void hl_add(char *what, size_t len, const char *text)
{
	size_t l = strlen(what);

	if (l + 3 < len)
		snprintf(what + l, len - l, "%s%s", l ? "; " : "", text);
}

/* The FAT32 boot sector's numbers. */
struct hl_bpb {
	uint32_t bps, spc, reserved, nfats, fat_sectors, total, fsinfo, clusters;
};

static int hl_fat_bpb(const unsigned char *b, struct hl_bpb *p)
{
	p->bps = le16(b + 0x0b);
	p->spc = b[0x0d];
	p->reserved = le16(b + 0x0e);
	p->nfats = b[0x10];
	p->total = le16(b + 0x13) ? le16(b + 0x13) : le32(b + 0x20);
	p->fat_sectors = le32(b + 0x24);
	p->fsinfo = le16(b + 0x30);
	if (b[0x1fe] != 0x55 || b[0x1ff] != 0xaa || le16(b + 0x16) != 0 || p->fat_sectors == 0 ||
	    (p->bps != 512 && p->bps != 1024 && p->bps != 2048 && p->bps != 4096) || p->spc == 0 ||
	    p->nfats == 0 || p->reserved == 0)
		return -EINVAL;
	uint64_t meta = p->reserved + (uint64_t)p->nfats * p->fat_sectors;
	if (meta >= p->total)
		return -EINVAL;
	p->clusters = (uint32_t)((p->total - meta) / p->spc);
	/* the first FAT must hold an entry for every cluster */
	if ((uint64_t)(p->clusters + 2) * 4 > (uint64_t)p->fat_sectors * p->bps)
		return -EINVAL;
	return 0;
}

/* Free entries of the first FAT (the clusters 2 .. clusters + 1), or
 * -errno. */
static int64_t hl_fat_free(int fd, const struct hl_bpb *p)
{
	enum { CHUNK = 1 << 16 }; /* entries a read */
	uint32_t *v = malloc(CHUNK * sizeof(*v));
	uint64_t off = (uint64_t)p->reserved * p->bps + 8;
	int64_t free_n = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t done = 0; done < p->clusters;) {
		uint32_t n = p->clusters - done < CHUNK ? p->clusters - done : CHUNK;
		int r = hl_read(fd, v, (size_t)n * 4, off + (uint64_t)done * 4);

		if (r < 0) {
			free(v);
			return r;
		}
		for (uint32_t i = 0; i < n; i++)
			free_n += (le32((const unsigned char *)&v[i]) & 0x0fffffff) == 0;
		done += n;
	}
	free(v);
	return free_n;
}

/* The boot sector's numbers of the FAT32 volume on fd, or -errno;
 * -EINVAL said in what when it holds no FAT32 boot sector. */
static int hl_fat_boot(int fd, unsigned char *b, struct hl_bpb *p, char *what, size_t len)
{
	int r = hl_read(fd, b, 512, 0);

	if (r < 0)
		return r;
	if (hl_fat_bpb(b, p) < 0) {
		snprintf(what, len, "its boot sector is not a FAT32 one");
		return -EINVAL;
	}
	return 0;
}

/* Does the boot sector name an FSInfo sector inside the reserved area? */
static bool hl_fsinfo_named(const struct hl_bpb *p)
{
	return p->fsinfo != 0 && p->fsinfo != 0xffff && p->fsinfo < p->reserved;
}

/* Reads the FSInfo sector (512 bytes at fsi) the boot sector names; 0, or
 * -errno, or -EINVAL when its signatures are not FSInfo's. */
static int hl_fsinfo_read(int fd, const struct hl_bpb *p, unsigned char *fsi)
{
	int r = hl_read(fd, fsi, 512, (uint64_t)p->fsinfo * p->bps);

	if (r < 0)
		return r;
	if (le32(fsi) != FAT_FSI_LEAD_SIG || le32(fsi + FAT_FSI_STRUC_OFF) != FAT_FSI_STRUC_SIG ||
	    le32(fsi + FAT_FSI_TRAIL_OFF) != FAT_FSI_TRAIL_SIG)
		return -EINVAL;
	return 0;
}

static int hl_fat32(int fd, const struct fslab_health_ctx *ctx, char *what, size_t len)
{
	unsigned char b[512], fsi[512] = { 0 }, e1[4];
	struct hl_bpb p;
	char line[160];
	int r;

	if ((r = hl_fat_boot(fd, b, &p, what, len)) < 0)
		return r;
	if ((r = hl_read(fd, e1, sizeof(e1), (uint64_t)p.reserved * p.bps + 4)) < 0)
		return r;
	uint32_t fat1 = le32(e1);
	/* the kernel's vfat sets the boot sector's flag while mounted,
	 * fusefat clears the FAT's clean bit */
	if (!ctx->kernel_mounted && (b[0x41] & 1))
		hl_add(what, len, "dirty bit set in the boot sector: not cleanly unmounted");
	if (!ctx->fuse_mounted && !(fat1 & 0x08000000))
		hl_add(what, len, "dirty bit set in the FAT: not cleanly unmounted");
	if (!(fat1 & 0x04000000))
		hl_add(what, len, "the FAT records disk errors");
	r = hl_fsinfo_named(&p) ? hl_fsinfo_read(fd, &p, fsi) : -ENOENT;
	if (r == -EINVAL)
		hl_add(what, len, "its FSInfo sector is not one");
	uint32_t said = le32(fsi + FAT_FSI_FREE_OFF);
	/* FSInfo's free count is a hint the driver writes as it unmounts or
	 * syncs: true only on a volume that nothing mounts, cleanly unmounted
	 * (0xffffffff: not known, nothing said) */
	if (r == 0 && !what[0] && !ctx->kernel_mounted && !ctx->fuse_mounted && said != 0xffffffff) {
		int64_t real = hl_fat_free(fd, &p);

		if (real < 0)
			return (int)real;
		if (real != (int64_t)said) {
			snprintf(line, sizeof(line),
				 "free cluster count wrong (FSInfo says %u, the FAT has %lld free)",
				 said, (long long)real);
			hl_add(what, len, line);
		}
	}
	return what[0] ? FSLAB_HEALTH_DAMAGED : r < 0 && r != -EINVAL && r != -ENOENT ? r : FSLAB_HEALTH_CLEAN;
}

static int hl_ext(int fd, const struct fslab_health_ctx *ctx, char *what, size_t len)
{
	unsigned char sb[1024];
	char line[160];
	int r;

	if ((r = hl_read(fd, sb, sizeof(sb), 1024)) < 0)
		return r;
	if (le16(sb + 0x38) != 0xef53) {
		snprintf(what, len, "no ext2/ext4 superblock");
		return -EINVAL;
	}
	uint16_t state = le16(sb + 0x3a);
	uint32_t errors = le32(sb + 0x194);
	if (state & 2)
		hl_add(what, len, "the superblock says it has errors");
	if (errors) {
		snprintf(line, sizeof(line), "the kernel met %u error%s in it (superblock error count)",
			 errors, errors == 1 ? "" : "s");
		hl_add(what, len, line);
	}
	/* a mounted ext2 (or ext4 without a journal) clears the valid bit */
	if (!ctx->kernel_mounted && !(state & 1))
		hl_add(what, len, "not cleanly unmounted (the superblock's valid bit is clear)");
	return what[0] ? FSLAB_HEALTH_DAMAGED : FSLAB_HEALTH_CLEAN;
}

int fslab_fs_health(const char *device, enum fslab_fs_type type, const struct fslab_health_ctx *ctx,
		    char *what, size_t len)
{
	struct stat st;
	int fd, r;

	what[0] = '\0';
	if (type != FSLAB_FS_FAT32 && type != FSLAB_FS_EXT4 && type != FSLAB_FS_EXT2)
		return FSLAB_HEALTH_UNCHECKED;
	fd = open(device, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		snprintf(what, len, "cannot open %s to check its filesystem: %s", device, strerror(-r));
		return r;
	}
	/* only a block device is read as a filesystem (a state file may name
	 * anything: never interpret a regular file or a FIFO as one) */
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		snprintf(what, len, "%s is not a block device: its filesystem is not checked", device);
		return -ENOTBLK;
	}
	r = type == FSLAB_FS_FAT32 ? hl_fat32(fd, ctx, what, len) : hl_ext(fd, ctx, what, len);
	close(fd);
	if (r < 0 && !what[0])
		snprintf(what, len, "cannot read %s to check its filesystem: %s", device, strerror(-r));
	return r;
}

const char *fslab_health_word(enum fslab_health h)
{
	return h == FSLAB_HEALTH_CLEAN ? "clean" : h == FSLAB_HEALTH_DAMAGED ? "damaged" : "not checked";
}

/* Writes v as the 4 little-endian bytes at off and syncs them. */
static int hl_write32(int fd, uint32_t v, uint64_t off)
{
	unsigned char b[4] = { v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 & 0xff };
	ssize_t n;

	do
		n = pwrite(fd, b, sizeof(b), (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(b))
		return -EIO;
	return fsync(fd) < 0 ? -errno : 0;
}

static int hl_rewind(int fd, const char *device, char *what, size_t len)
{
	unsigned char b[512], fsi[512];
	struct hl_bpb p;
	int r;

	if ((r = hl_fat_boot(fd, b, &p, what, len)) < 0)
		return r;
	if (!hl_fsinfo_named(&p)) {
		fslab_debug(FSLAB_DBG_PROVISION, "%s: no FSInfo sector: no next-free hint to rewind",
			    device);
		return 0;
	}
	if ((r = hl_fsinfo_read(fd, &p, fsi)) == -EINVAL) {
		snprintf(what, len, "its FSInfo sector (sector %u) does not carry FSInfo's signatures",
			 p.fsinfo);
		return r;
	}
	if (r < 0)
		return r;
	uint32_t was = le32(fsi + FAT_FSI_NXT_FREE_OFF);
	if (was == FAT_FIRST_CLUSTER)
		return 0;
	r = hl_write32(fd, FAT_FIRST_CLUSTER, (uint64_t)p.fsinfo * p.bps + FAT_FSI_NXT_FREE_OFF);
	if (r < 0) {
		snprintf(what, len, "cannot write its FSInfo sector's next-free hint: %s", strerror(-r));
		return r;
	}
	fslab_debug(FSLAB_DBG_PROVISION,
		    "%s: FSInfo next-free hint %u -> %u (fusefat allocates upwards from it and "
		    "reads no directory past 2 GiB)",
		    device, was, FAT_FIRST_CLUSTER);
	return 0;
}

int fslab_fat32_rewind_next_free(const char *device, char *what, size_t len)
{
	struct stat st;
	int fd, r;

	what[0] = '\0';
	/* O_EXCL: the kernel refuses while anything mounts the device */
	fd = open(device, O_RDWR | O_EXCL | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		snprintf(what, len, "cannot open %s alone to set its FAT32 next-free hint: %s", device,
			 strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		snprintf(what, len, "%s is not a block device: its FSInfo sector is not written", device);
		return -ENOTBLK;
	}
	r = hl_rewind(fd, device, what, len);
	close(fd);
	if (r < 0 && !what[0])
		snprintf(what, len, "cannot read %s's FAT32 boot sector: %s", device, strerror(-r));
	return r;
}
