/* Cheap read-only signs of a damaged filesystem (fshealth.h). */
#include "fshealth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int hl_fat32(int fd, const struct fslab_health_ctx *ctx, char *what, size_t len)
{
	unsigned char b[512], fsi[512], e1[4];
	struct hl_bpb p;
	char line[160];
	int r;

	if ((r = hl_read(fd, b, sizeof(b), 0)) < 0)
		return r;
	if (hl_fat_bpb(b, &p) < 0) {
		snprintf(what, len, "its boot sector is not a FAT32 one");
		return -EINVAL;
	}
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
	if (ctx->kernel_mounted || (ctx->fuse_mounted && ctx->writer) || p.fsinfo == 0 ||
	    p.fsinfo == 0xffff || p.fsinfo >= p.reserved)
		return what[0] ? FSLAB_HEALTH_DAMAGED : FSLAB_HEALTH_CLEAN;
	if ((r = hl_read(fd, fsi, sizeof(fsi), (uint64_t)p.fsinfo * p.bps)) < 0)
		return what[0] ? FSLAB_HEALTH_DAMAGED : r;
	uint32_t said = le32(fsi + 488);
	if (le32(fsi) != 0x41615252 || le32(fsi + 484) != 0x61417272) {
		hl_add(what, len, "its FSInfo sector is not one");
	} else if (said != 0xffffffff) { /* 0xffffffff: not known, nothing said */
		int64_t real = hl_fat_free(fd, &p);

		if (real < 0)
			return what[0] ? FSLAB_HEALTH_DAMAGED : (int)real;
		if (real != (int64_t)said) {
			snprintf(line, sizeof(line),
				 "free cluster count wrong (FSInfo says %u, the FAT has %lld free)",
				 said, (long long)real);
			hl_add(what, len, line);
		}
	}
	return what[0] ? FSLAB_HEALTH_DAMAGED : FSLAB_HEALTH_CLEAN;
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
