/* What a directory under test sits on: the kernel's mount table through
 * libmount (type, source, options, FUSE or not), the target's maker for
 * what it did (a lab's setup), lib/device_identity.h for the device. */
#include "run_int.h"
#include "fileutil.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The device's identity through lib/device_identity.h, the one reader:
 * read once, kept whole for the manifest's device_info, and its model,
 * serial and size (of the partition itself) in the record. */
static void fsinfo_device(struct fslab_bench_fs *fs)
{
	struct fslab_devinfo *di = &fs->devinfo;

	fs->have_devinfo = strncmp(fs->rec.device, "/dev/", 5) == 0 &&
			   fslab_devinfo_read(fs->rec.device, di, NULL) == 0;
	if (!fs->have_devinfo)
		return;
	fs->rec.device_size_bytes = di->dev_size_bytes;
	snprintf(fs->rec.device_serial, sizeof(fs->rec.device_serial), "%s", di->serial);
	if (di->model[0])
		snprintf(fs->rec.device_model, sizeof(fs->rec.device_model), "%s", di->model);
	else if (di->backing_file[0])
		snprintf(fs->rec.device_model, sizeof(fs->rec.device_model), "loop device on %.100s",
			 di->backing_file);
}

/* The mount the directory is on, from the kernel's mount table read into tb through
 * libmount: by the mount ID statx gives for the directory, which names the
 * one mount holding it exactly (bind mounts and btrfs included: a btrfs
 * subvolume's st_dev is an anonymous number that is not the mount's);
 * without STATX_MNT_ID (kernels before 5.8), the mount whose target is the
 * longest prefix of the directory's real path.  NULL: the table unread or no such mount. */
static struct libmnt_fs *fsinfo_find_mount(struct libmnt_table *tb, const char *path)
{
	struct libmnt_iter *it;
	struct libmnt_fs *m, *hit = NULL;
	char real[PATH_MAX];
	struct statx sx;

	if (!tb || mnt_table_parse_file(tb, "/proc/self/mountinfo") != 0)
		return NULL;
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &sx) < 0 || !(sx.stx_mask & STATX_MNT_ID))
		return mnt_table_find_mountpoint(tb, realpath(path, real) ? real : path, MNT_ITER_BACKWARD);
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!it)
		return NULL;
	while (!hit && mnt_table_next_fs(tb, it, &m) == 0)
		if (mnt_fs_get_id(m) >= 0 && (uint64_t)mnt_fs_get_id(m) == sx.stx_mnt_id)
			hit = m;
	mnt_free_iter(it);
	return hit;
}

/* The filesystem type by statfs's magic number, for a directory whose
 * mount the mount table does not show (inside a chroot, mounts outside its
 * root are hidden); "" for a type not listed.  ext2, ext3 and ext4 share
 * one magic number. */
static const char *fsinfo_statfs_type(const char *path)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ 0xEF53, "ext2/ext3/ext4" }, { 0x58465342, "xfs" },   { 0x9123683E, "btrfs" },
		{ 0x01021994, "tmpfs" },      { 0x65735546, "fuse" },  { 0x794C7630, "overlay" },
		{ 0x4D44, "vfat" },
	};
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return "";
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((unsigned long)sf.f_type == types[i].magic)
			return types[i].name;
	return "";
}

/* Superblock features: ext2/3/4's and xfs v5's compat, incompat and
 * ro_compat words (the superblock at 1024, little-endian; at 0, big-endian),
 * the names sysfs lists for a btrfs. */
static void fsinfo_features(struct fslab_live *l, const char *dev, const char *path)
{
	static const unsigned at[2][3] = { { 0x5c / 4, 0x60 / 4, 0x64 / 4 }, { 208 / 4, 216 / 4, 212 / 4 } };
	const char *type = l->v[FSLAB_LIVE_TYPE];
	char *out = l->v[FSLAB_LIVE_FEATURES], p[128];
	const size_t len = sizeof(l->v[0]);
	bool xfs = strcmp(type, "xfs") == 0;
	int fd = xfs || strncmp(type, "ext", 3) == 0 ? open(dev, O_RDONLY | O_CLOEXEC) : -1;
	uint32_t sb[256], w[3];
	struct stat ds, ps;
	DIR *d;

	/* only the block device the filesystem at path is on: not a file or
	 * another device a mount source names */
	if (fd >= 0 && (fstat(fd, &ds) < 0 || !S_ISBLK(ds.st_mode) || stat(path, &ps) < 0 || ds.st_rdev != ps.st_dev)) {
		close(fd);
		fd = -1;
	}

	snprintf(p, sizeof(p), "/sys/fs/btrfs/%.64s/features", l->v[FSLAB_LIVE_UUID]);
	if (strcmp(type, "btrfs") == 0 && (d = opendir(p))) {
		for (struct dirent *e; (e = readdir(d));)
			if (e->d_name[0] != '.')
				fslab_catf(out, len, "%s%s", out[0] ? "," : "", e->d_name);
		closedir(d);
	}
	if (fd >= 0 && pread(fd, sb, sizeof(sb), xfs ? 0 : 1024) == (ssize_t)sizeof(sb)) {
		for (int i = 0; i < 3; i++)
			w[i] = xfs ? be32toh(sb[at[1][i]]) : le32toh(sb[at[0][i]]);
		snprintf(out, len, "compat=0x%x incompat=0x%x ro_compat=0x%x", w[0], w[1], w[2]);
	}
	if (fd >= 0)
		close(fd);
}

bool fslab_fsinfo_live(const char *path, struct fslab_live *l, struct fslab_manifest_fs *rec)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_cache *mc = mnt_new_cache();
	struct libmnt_fs *m = fsinfo_find_mount(tb, path);
	const char *src = m ? mnt_fs_get_source(m) : NULL, *t;
	struct utsname u;
	/* the options: per-mount and the filesystem's own (super) ones */
	const char *v[FSLAB_LIVE_N] = { m ? mnt_fs_get_fstype(m) : NULL,
					src && src[0] == '/' && mc ? mnt_cache_find_tag_value(mc, src, "UUID") : NULL,
					m ? mnt_fs_get_options(m) : NULL, NULL, uname(&u) == 0 ? u.release : NULL };

	for (int k = 0; k < FSLAB_LIVE_N; k++)
		snprintf(l->v[k], sizeof(l->v[k]), "%s", v[k] ? v[k] : "");
	fsinfo_features(l, src ? src : "", path);
	if (m && rec) {
		snprintf(rec->mountpoint, sizeof(rec->mountpoint), "%s", (t = mnt_fs_get_target(m)) ? t : "");
		snprintf(rec->type, sizeof(rec->type), "%.63s", l->v[FSLAB_LIVE_TYPE]);
		snprintf(rec->device, sizeof(rec->device), "%s", src ? src : "");
		/* the per-mount options (rw,relatime,...), as findmnt's VFS-OPTIONS */
		snprintf(rec->mount_options, sizeof(rec->mount_options), "%s", (t = mnt_fs_get_vfs_options(m)) ? t : "");
		rec->fuse = strncmp(rec->type, "fuse", 4) == 0;
	}
	mnt_unref_cache(mc);
	mnt_unref_table(tb);
	return m != NULL;
}

/* Whether the filesystem's device is a loop device, and in which mode. */
static void fsinfo_loop(struct fslab_bench_fs *fs)
{
	bool direct = false;

	fs->rec.loop_io[0] = '\0';
	if (fslab_loop_of_device(fs->rec.device, fs->dev, fs->loop_backing, sizeof(fs->loop_backing), &direct))
		snprintf(fs->rec.loop_io, sizeof(fs->rec.loop_io), "%s", direct ? "direct" : "buffered");
	else
		fs->loop_backing[0] = '\0';
}

/* The block layer's counters of the partition the filesystem is on: the
 * lab's device (a FUSE daemon's too), else the directory's st_dev where
 * /sys knows it (btrfs and FUSE have an anonymous one: none). */
static void fsinfo_counters(struct fslab_bench_fs *fs)
{
	char *out = fs->rec.device_counters, sys[64], real[PATH_MAX];
	const size_t len = sizeof(fs->rec.device_counters);
	struct stat st;
	dev_t d = fs->dev;

	out[0] = '\0';
	if (fs->t->lab && stat(fs->t->device, &st) == 0 && S_ISBLK(st.st_mode))
		d = st.st_rdev;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat", major(d), minor(d));
	if (major(d) != 0 && realpath(sys, real) && strlen(real) < len && access(real, R_OK) == 0)
		snprintf(out, len, "%s", real);
}

/* A lab's target: its own record wins for what setup did. */
static void fsinfo_lab(struct fslab_bench_fs *fs)
{
	const struct fslab_target *t = fs->t;
	struct fslab_manifest_fs *r = &fs->rec;

	snprintf(r->device, sizeof(r->device), "%s", t->device);
	if (t->type[0])
		snprintf(r->type, sizeof(r->type), "%s", t->type);
	r->fuse |= t->fuse;
	if (t->mount_options[0])
		snprintf(r->mount_options, sizeof(r->mount_options), "%s", t->mount_options);
	r->has_mkfs_options = true;
	snprintf(r->mkfs_options, sizeof(r->mkfs_options), "%s", t->mkfs_options);
	snprintf(r->mkfs_command, sizeof(r->mkfs_command), "%s", t->mkfs_command);
	snprintf(r->mkfs_tool_version, sizeof(r->mkfs_tool_version), "%s", t->mkfs_version);
	r->setup_discarded = t->discarded;
	snprintf(r->mount_quiet, sizeof(r->mount_quiet), "%s", t->mount_quiet);
	r->mount_quiet_wait_s = t->mount_quiet_wait_s;
	r->precondition = t->precondition;
}

int fslab_fsinfo_fill(struct fslab_bench_fs *fs)
{
	struct stat st;
	bool found;

	if (stat(fs->rec.path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	fs->dev = st.st_dev;
	found = fslab_fsinfo_live(fs->rec.path, &fs->live, &fs->rec);
	if (!found && !fs->rec.type[0])
		snprintf(fs->rec.type, sizeof(fs->rec.type), "%s", fsinfo_statfs_type(fs->rec.path));
	if (fs->t->lab)
		fsinfo_lab(fs);
	snprintf(fs->rec.mount_method, sizeof(fs->rec.mount_method), "%s",
		 fs->rec.fuse ? "fuse" : (found || fs->t->lab) ? "kernel" : "unknown");
	fsinfo_device(fs);
	fsinfo_counters(fs);
	fsinfo_loop(fs);
	return 0;
}

int fslab_fsinfo_check(const struct fslab_bench_fs *fs)
{
	char sys[64];
	struct statvfs sv;
	struct stat st;

	if (stat(fs->rec.path, &st) < 0)
		return -errno;
	if (st.st_dev != fs->dev)
		return -ESTALE;
	/* A pulled disk leaves ext4 mounted (read-only, same st_dev): the
	 * block device behind it must still exist.  Major 0 is no device
	 * (FUSE, tmpfs, btrfs's anonymous st_dev). */
	if (major(st.st_dev) != 0) {
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
		if (access(sys, F_OK) < 0 && errno == ENOENT)
			return -ENODEV;
	}
	/* The run starts only on a writable directory: read-only now means
	 * the filesystem went read-only under it (an I/O error). */
	if (statvfs(fs->rec.path, &sv) == 0 && (sv.f_flag & ST_RDONLY))
		return -EROFS;
	return 0;
}
