/* What a directory under test sits on: /proc/self/mountinfo for the mount
 * (type, source, options, FUSE or not), /sys for the device. */
#include "bench_int.h"
#include "exec.h"
#include "fileutil.h"
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void fsinfo_read_sys(const char *path, char *buf, size_t len)
{
	char *data = NULL;
	size_t n;

	buf[0] = '\0';
	if (fslab_read_file(path, &data, &n, 4096) < 0)
		return;
	data[strcspn(data, "\n")] = '\0';
	/* trim trailing blanks (sysfs pads model names) */
	n = strlen(data);
	while (n && data[n - 1] == ' ')
		data[--n] = '\0';
	snprintf(buf, len, "%s", data);
	free(data);
}

int fslab_fsinfo_disk(const char *device, char *disk, size_t len)
{
	char sys[PATH_MAX], real[PATH_MAX];
	const char *base;

	if (strncmp(device, "/dev/", 5) != 0 || !device[5] || strchr(device + 5, '/'))
		return -ENODEV;
	base = device + 5;
	snprintf(sys, sizeof(sys), "/sys/class/block/%s", base);
	if (!realpath(sys, real))
		return -ENODEV;
	/* A partition's parent directory in /sys is its disk. */
	snprintf(disk, len, "%s", base);
	char part[PATH_MAX + 16];
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0)
		snprintf(disk, len, "%s", basename(dirname(real)));
	return 0;
}

static void fsinfo_device(struct fslab_bench_fs *fs)
{
	char sys[PATH_MAX], val[256], disk[64];
	uint64_t sectors;

	if (fslab_fsinfo_disk(fs->device, disk, sizeof(disk)) < 0)
		return;
	snprintf(sys, sizeof(sys), "/sys/class/block/%s", fs->device + 5);
	if (fslab_sysfs_read_u64(sys, "size", &sectors) == 0)
		fs->device_size_bytes = sectors * 512;
	snprintf(sys, sizeof(sys), "/sys/block/%s/device/model", disk);
	fsinfo_read_sys(sys, fs->device_model, sizeof(fs->device_model));
	snprintf(sys, sizeof(sys), "/sys/block/%s/device/serial", disk);
	fsinfo_read_sys(sys, fs->device_serial, sizeof(fs->device_serial));
	if (!fs->device_serial[0]) {
		snprintf(sys, sizeof(sys), "/sys/block/%s/serial", disk);
		fsinfo_read_sys(sys, fs->device_serial, sizeof(fs->device_serial));
	}
	if (!fs->device_model[0]) {
		snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", disk);
		fsinfo_read_sys(sys, val, sizeof(val));
		if (val[0])
			snprintf(fs->device_model, sizeof(fs->device_model), "loop device on %.100s",
				 val);
	}
}

/* The mount the directory is on, from the kernel's mount table through
 * libmount: by the mount ID statx gives for the directory, which names the
 * one mount holding it exactly (bind mounts and btrfs included: a btrfs
 * subvolume's st_dev is an anonymous number that is not the mount's);
 * without STATX_MNT_ID (kernels before 5.8), the mount whose target is the
 * longest prefix of the directory's real path. */
static struct libmnt_fs *fsinfo_find_mount(struct libmnt_table *tb, const char *path,
					   const char *real)
{
	struct libmnt_iter *it;
	struct libmnt_fs *m, *hit = NULL;
	struct statx sx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &sx) < 0 || !(sx.stx_mask & STATX_MNT_ID))
		return mnt_table_find_mountpoint(tb, real, MNT_ITER_BACKWARD);
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!it)
		return NULL;
	while (!hit && mnt_table_next_fs(tb, it, &m) == 0)
		if (mnt_fs_get_id(m) >= 0 && (uint64_t)mnt_fs_get_id(m) == sx.stx_mnt_id)
			hit = m;
	mnt_free_iter(it);
	return hit;
}

static void fsinfo_mount(struct fslab_bench_fs *fs, const char *real, bool *found)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *m;
	const char *v;

	*found = false;
	if (!tb)
		return;
	if (mnt_table_parse_file(tb, "/proc/self/mountinfo") == 0 &&
	    (m = fsinfo_find_mount(tb, fs->path, real))) {
		*found = true;
		snprintf(fs->mountpoint, sizeof(fs->mountpoint), "%s", (v = mnt_fs_get_target(m)) ? v : "");
		snprintf(fs->type, sizeof(fs->type), "%s", (v = mnt_fs_get_fstype(m)) ? v : "");
		snprintf(fs->device, sizeof(fs->device), "%s", (v = mnt_fs_get_source(m)) ? v : "");
		/* the per-mount options (rw,relatime,...), as findmnt's VFS-OPTIONS */
		snprintf(fs->mount_options, sizeof(fs->mount_options), "%s",
			 (v = mnt_fs_get_vfs_options(m)) ? v : "");
		snprintf(fs->mount_vfs_options, sizeof(fs->mount_vfs_options), "%s", fs->mount_options);
		fs->fuse = strncmp(fs->type, "fuse", 4) == 0;
	}
	mnt_unref_table(tb);
}

void fslab_fsinfo_vfs_options(const struct fslab_bench_fs *fs, char *buf, size_t len)
{
	struct libmnt_table *tb = mnt_new_table();
	char real[PATH_MAX];
	struct libmnt_fs *m;
	const char *v;

	buf[0] = '\0';
	if (!tb)
		return;
	if (!realpath(fs->path, real))
		snprintf(real, sizeof(real), "%s", fs->path);
	if (mnt_table_parse_file(tb, "/proc/self/mountinfo") == 0 && (m = fsinfo_find_mount(tb, fs->path, real)))
		snprintf(buf, len, "%s", (v = mnt_fs_get_vfs_options(m)) ? v : "");
	mnt_unref_table(tb);
}

/* Whether the filesystem's device is a loop device, and in which mode. */
static void fsinfo_loop(struct fslab_bench_fs *fs)
{
	bool direct = false;

	fs->loop_io[0] = '\0';
	if (fslab_loop_of_device(fs->device, fs->dev, fs->loop_backing, sizeof(fs->loop_backing), &direct))
		snprintf(fs->loop_io, sizeof(fs->loop_io), "%s", direct ? "direct" : "buffered");
	else
		fs->loop_backing[0] = '\0';
}

int fslab_fsinfo_fill(struct fslab_bench_fs *fs)
{
	char real[PATH_MAX];
	struct stat st;
	bool found;

	if (stat(fs->path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	fs->dev = st.st_dev;
	if (!realpath(fs->path, real))
		snprintf(real, sizeof(real), "%s", fs->path);
	fsinfo_mount(fs, real, &found);
	if (fs->part) {
		/* The lab's own record wins for what setup did. */
		snprintf(fs->device, sizeof(fs->device), "%s", fs->part->device);
		snprintf(fs->mkfs_options, sizeof(fs->mkfs_options), "%s", fs->part->mkfs_options);
		if (fs->part->mount_method == FSLAB_MOUNT_FUSE)
			fs->fuse = true;
		if (fs->part->mount_options[0])
			snprintf(fs->mount_options, sizeof(fs->mount_options), "%s",
				 fs->part->mount_options);
	}
	snprintf(fs->mount_method, sizeof(fs->mount_method), "%s",
		 fs->fuse ? "fuse" : (found || fs->part) ? "kernel" : "unknown");
	if (fs->fuse && fs->part && fs->part->type == FSLAB_FS_FAT32)
		snprintf(fs->type, sizeof(fs->type), "fat32");
	else if (fs->part)
		snprintf(fs->type, sizeof(fs->type), "%s", fslab_fs_type_to_string(fs->part->type));
	fsinfo_device(fs);
	fsinfo_loop(fs);
	return 0;
}

int fslab_fsinfo_check(const struct fslab_bench_fs *fs)
{
	char sys[64];
	struct statvfs sv;
	struct stat st;

	if (stat(fs->path, &st) < 0)
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
	if (statvfs(fs->path, &sv) == 0 && (sv.f_flag & ST_RDONLY))
		return -EROFS;
	return 0;
}

void fslab_fsinfo_mkfs_version(const char *type, char *buf, size_t len)
{
	static const struct {
		const char *type;
		const char *tool;
		const char *arg;
	} tools[] = {
		{ "ext4", "mke2fs", "-V" },     { "ext2", "mke2fs", "-V" },
		{ "xfs", "mkfs.xfs", "-V" },    { "btrfs", "mkfs.btrfs", "--version" },
		{ "fat32", "mkfs.fat", "--help" }, { "vfat", "mkfs.fat", "--help" },
	};
	char tool[PATH_MAX], data[4096];
	struct fslab_exec_result res;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (strcmp(type, tools[i].type) != 0)
			continue;
		if (fslab_exec_find(tools[i].tool, tool, sizeof(tool)) < 0)
			return;
		/* The tool's output goes to an anonymous memory file: nothing to
		 * clean up, even when the run is killed. */
		fd = memfd_create("fslab-mkfs-version", MFD_CLOEXEC);
		if (fd < 0)
			return;
		const char *argv[] = { tool, tools[i].arg, NULL };
		struct fslab_exec_opts eo = { .log_fd = fd, .timeout_s = 10 };
		if (fslab_exec_run_opts(argv, &eo, &res) == 0 &&
		    (n = pread(fd, data, sizeof(data) - 1, 0)) > 0) {
			/* first non-empty line that names a version */
			char *save = NULL;
			data[n] = '\0';
			for (char *l = strtok_r(data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
				if (l[0] != '$' && strpbrk(l, "0123456789")) {
					snprintf(buf, len, "%s", l);
					break;
				}
		}
		close(fd);
		return;
	}
}
