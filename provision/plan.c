/* Partition plan: pure arithmetic over the spec, plus the filesystem
 * recipe table.  No I/O here. */
#include "plan.h"
#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ext4 and ext2 without lazy initialisation: mke2fs leaves the inode
 * tables and the journal to be zeroed by the kernel's ext4lazyinit thread
 * after the first mount, which would write in the background while the
 * benchmark runs.  Zeroed now instead (on a loop device or a disk with
 * write-zeroes that costs little).  A spec's mkfs_options come after these
 * words, so "-E lazy_itable_init=1" there wins. */
static const char *const ext4_args[] = { "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", NULL };
static const char *const xfs_args[] = { "-q", NULL };
static const char *const fat32_args[] = { "-F", "32", NULL };
static const char *const btrfs_args[] = { "-q", NULL };

#define LINUX_FS "Linux filesystem"

/* Behaviour as data: one row per filesystem type. */
static const struct fslab_fs_recipe recipes[FSLAB_FS_TYPE_MAX] = {
	[FSLAB_FS_EXT4] = { FSLAB_FS_EXT4, FSLAB_GPT_TYPE_LINUX_FS, "mkfs.ext4", "-V", ext4_args,
			    "e2fsprogs", "ext4", NULL, "ext4", LINUX_FS },
	[FSLAB_FS_EXT2] = { FSLAB_FS_EXT2, FSLAB_GPT_TYPE_LINUX_FS, "mkfs.ext2", "-V", ext4_args,
			    "e2fsprogs", "ext2", NULL, "ext2", LINUX_FS },
	[FSLAB_FS_XFS] = { FSLAB_FS_XFS, FSLAB_GPT_TYPE_LINUX_FS, "mkfs.xfs", "-V", xfs_args,
			   "xfsprogs", "xfs", NULL, "xfs", LINUX_FS },
	[FSLAB_FS_FAT32] = { FSLAB_FS_FAT32, FSLAB_GPT_TYPE_MS_BASIC_DATA, "mkfs.fat", "--help", fat32_args,
			     "dosfstools", "vfat", "FAT32", "vfat", "Microsoft basic data" },
	[FSLAB_FS_BTRFS] = { FSLAB_FS_BTRFS, FSLAB_GPT_TYPE_LINUX_FS, "mkfs.btrfs", "--version", btrfs_args,
			     "btrfs-progs", "btrfs", NULL, "btrfs", LINUX_FS },
};

const struct fslab_fs_recipe *fslab_fs_recipe(enum fslab_fs_type type)
{
	return (type >= 0 && type < FSLAB_FS_TYPE_MAX) ? &recipes[type] : NULL;
}

bool fslab_fs_recipe_probed(const struct fslab_fs_recipe *rc, const char *type,
			    const char *version)
{
	return strcmp(type, rc->blkid_type) == 0 &&
	       (!rc->blkid_version || strcmp(version, rc->blkid_version) == 0);
}

static uint64_t plan_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* A size as people read it ("100.0 GiB"), with the exact figure after it
 * when the one decimal rounds ("100.0 GiB (102401M)"). */
static char *plan_size_words(uint64_t bytes, char *buf, size_t len)
{
	uint64_t unit = 1024;
	char exact[32];

	fslab_size_human(bytes, buf, len);
	while (unit < (UINT64_C(1) << 60) && bytes / unit >= 1024)
		unit *= 1024;
	if (bytes >= 1024 && (bytes % unit) * 10 % unit != 0) {
		size_t used = strlen(buf);

		fslab_size_format(bytes, exact, sizeof(exact));
		snprintf(buf + used, len - used, " (%s)", exact);
	}
	return buf;
}

int fslab_partition_device_name(const char *disk, unsigned number, char *buf, size_t len)
{
	size_t n = strlen(disk);
	int w;

	w = snprintf(buf, len, "%s%s%u", disk, n && isdigit((unsigned char)disk[n - 1]) ? "p" : "",
		     number);
	return (w < 0 || (size_t)w >= len) ? -ENAMETOOLONG : 0;
}

/* Places the next partition, for fs, at *pos and moves *pos to its end
 * (unaligned).  0, or -EINVAL with the problem in e. */
static int plan_place(struct fslab_lab_plan *plan, const struct fslab_fs_spec *fs,
		      unsigned sector_size, const char *mount_root, uint64_t *pos, struct fslab_err *e)
{
	struct fslab_partition_plan *p = &plan->parts[plan->n];
	char a[32];

	p->recipe = fslab_fs_recipe(fs->type);
	if (!p->recipe)
		return fslab_err_set(e, -EINVAL, "[fs %s]: unknown filesystem type", fs->name);
	if (fs->size == 0 || fs->size % sector_size)
		return fslab_err_set(e, -EINVAL, "[fs %s] size = %s is not a multiple of the %u-byte sector",
			 fs->name, fslab_size_format(fs->size, a, sizeof(a)), sector_size);
	if (fs->size > FSLAB_SIZE_MAX || *pos > FSLAB_SIZE_MAX)
		return fslab_err_set(e, -EINVAL, "the layout is larger than fslab supports");
	p->number = (unsigned)plan->n + 1;
	p->fs = fs;
	p->start = *pos;
	p->size = fs->size;
	if (plan->disk[0] &&
	    fslab_partition_device_name(plan->disk, p->number, p->device, sizeof(p->device)) < 0)
		return fslab_err_set(e, -EINVAL, "%s: device name too long", plan->disk);
	if (mount_root &&
	    snprintf(p->mountpoint, sizeof(p->mountpoint), "%s/%s", mount_root, fs->name) >=
		    (int)sizeof(p->mountpoint))
		return fslab_err_set(e, -EINVAL, "%s: mount root path too long", mount_root);
	*pos += fs->size;
	plan->n++;
	return 0;
}

int fslab_plan_compute(const struct fslab_spec *spec, const char *disk, uint64_t disk_bytes,
		       unsigned sector_size, const char *mount_root, struct fslab_lab_plan *plan,
		       struct fslab_err *e)
{
	uint64_t align = spec->disk.alignment ? spec->disk.alignment : FSLAB_MiB;
	uint64_t pos;
	char a[32], b[32];

	memset(plan, 0, sizeof(*plan));
	if (sector_size != 512 && sector_size != 4096)
		return fslab_err_set(e, -EINVAL, "%s: logical sector size %u is not supported (512 or 4096)",
			 disk && *disk ? disk : "the disk", sector_size);
	if (align < sector_size || (align & (align - 1)))
		return fslab_err_set(e, -EINVAL, "[disk] alignment %llu is not a power of two >= the sector size %u",
			 (unsigned long long)align, sector_size);
	if (spec->n_fs == 0 || spec->n_fs > FSLAB_MAX_FS)
		return fslab_err_set(e, -EINVAL, "the spec has %zu filesystems; give 1 to %d [fs NAME] sections",
			 spec->n_fs, FSLAB_MAX_FS);
	snprintf(plan->disk, sizeof(plan->disk), "%s", disk ? disk : "");
	plan->disk_bytes = disk_bytes;
	plan->sector_size = sector_size;
	/* the first usable byte: after the protective MBR, the GPT header and its entries */
	pos = plan_align_up(2ull * sector_size + plan_align_up(FSLAB_GPT_ENTRIES_BYTES, sector_size), align);
	for (size_t i = 0; i < spec->n_fs; i++) {
		int r = plan_place(plan, &spec->fs[i], sector_size, mount_root, &pos, e);

		if (r < 0)
			return r;
		pos = plan_align_up(pos, align);
	}
	/* pos is the aligned end of the last partition; the backup GPT (its
	 * entries and header) must fit after the last partition's real end. */
	{
		const struct fslab_partition_plan *last = &plan->parts[plan->n - 1];
		uint64_t end = last->start + last->size + plan_align_up(FSLAB_GPT_ENTRIES_BYTES, sector_size) +
			       sector_size;
		plan->needed_bytes = plan_align_up(end, align);
	}
	if (disk_bytes && disk_bytes < plan->needed_bytes) {
		uint64_t parts = 0;
		char c[32], d[32];

		for (size_t i = 0; i < plan->n; i++)
			parts += plan->parts[i].size;
		/* Both parts of the need, each as it is, and the total in the
		 * spelling --size takes: "100.0 GiB" alone hides the 2 MiB. */
		return fslab_err_set(e, -ENOSPC, "%s is too small: %s, the layout needs %s of partitions + %s for the GPT "
			 "and alignment (%s in all)",
			 disk && *disk ? disk : "the image", plan_size_words(disk_bytes, a, sizeof(a)),
			 plan_size_words(parts, b, sizeof(b)),
			 plan_size_words(plan->needed_bytes - parts, c, sizeof(c)),
			 fslab_size_format(plan->needed_bytes, d, sizeof(d)));
	}
	return 0;
}

char *fslab_plan_size_to_ask(uint64_t needed, char *buf, size_t len)
{
	uint64_t unit = needed >= FSLAB_GiB ? FSLAB_GiB : FSLAB_MiB;

	return fslab_size_format(plan_align_up(needed, unit), buf, len);
}

uint64_t fslab_plan_image_size(const struct fslab_spec *spec)
{
	struct fslab_lab_plan plan;

	if (fslab_plan_compute(spec, NULL, 0, 512, NULL, &plan, NULL) < 0)
		return 0;
	return plan.needed_bytes;
}

int fslab_mkfs_argv(const struct fslab_fs_recipe *r, const char *mkfs_options,
		    const char *device, char *words, size_t words_len,
		    const char *argv[FSLAB_MKFS_ARGV_MAX])
{
	size_t n = 0, off = 0;
	const char *s = mkfs_options ? mkfs_options : "";

	argv[n++] = r->mkfs;
	for (size_t i = 0; r->mkfs_args && r->mkfs_args[i]; i++)
		argv[n++] = r->mkfs_args[i];
	while (*s) {
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		len = strcspn(s, " \t");
		if (n >= FSLAB_MKFS_ARGV_MAX - 2 || off + len + 1 > words_len)
			return -E2BIG;
		memcpy(words + off, s, len);
		words[off + len] = '\0';
		argv[n++] = words + off;
		off += len + 1;
		s += len;
	}
	argv[n++] = device;
	argv[n] = NULL;
	return 0;
}
