/* Waiting for a freshly mounted filesystem to go quiet (quiet.h). */
#include "quiet.h"
#include "clock.h"
#include "procfs.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define QUIET_POLL_US 200000

struct quiet_sample {
	bool have_stat;
	uint64_t sectors_written, discards, in_flight;
	bool lazyinit;     /* ext4: the ext4lazyinit thread exists */
	bool btrfs_busy;   /* btrfs: an exclusive operation or queued discards */
};

/* /sys/class/block/NAME/stat: fields 7 (sectors written), 9 (in flight)
 * and 12 (discards completed, Linux 4.18 and later). */
static bool quiet_read_stat(const char *name, struct quiet_sample *q)
{
	char path[PATH_MAX];
	uint64_t f[17] = { 0 };
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	n = fscanf(fp, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11]);
	fclose(fp);
	if (n < 9)
		return false;
	q->sectors_written = f[6];
	q->in_flight = f[8];
	q->discards = n >= 12 ? f[11] : 0;
	return true;
}

static int quiet_find_lazyinit(pid_t pid, void *ctx)
{
	char comm[32];

	(void)ctx;
	return fslab_proc_comm(pid, comm, sizeof(comm)) == 0 && strcmp(comm, "ext4lazyinit") == 0;
}

/* The btrfs filesystem on the partition name: the FSID directory whose
 * devices/ lists it.  0 or -ENOENT. */
static int quiet_btrfs_dir(const char *name, char *out, size_t len)
{
	DIR *d = opendir("/sys/fs/btrfs");
	struct dirent *e;
	int r = -ENOENT;

	if (!d)
		return -ENOENT;
	while (r < 0 && (e = readdir(d))) {
		char p[PATH_MAX];

		if (e->d_name[0] == '.' || strlen(e->d_name) != 36)
			continue;
		snprintf(p, sizeof(p), "/sys/fs/btrfs/%s/devices/%s", e->d_name, name);
		if (access(p, F_OK) == 0 && snprintf(out, len, "/sys/fs/btrfs/%s", e->d_name) < (int)len)
			r = 0;
	}
	closedir(d);
	return r;
}

static bool quiet_btrfs_busy(const char *dir)
{
	char path[PATH_MAX], word[64] = "";
	uint64_t queued = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/exclusive_operation", dir);
	fp = fopen(path, "re");
	if (fp) {
		if (!fgets(word, sizeof(word), fp))
			word[0] = '\0';
		fclose(fp);
		word[strcspn(word, "\n")] = '\0';
		if (word[0] && strcmp(word, "none") != 0)
			return true;
	}
	snprintf(path, sizeof(path), "%s/discard", dir);
	return fslab_sysfs_read_u64(path, "discardable_extents", &queued) == 0 && queued > 0;
}

static void quiet_sample(const struct fslab_state_partition *sp, const char *name,
			 const char *btrfs_dir, struct quiet_sample *q)
{
	memset(q, 0, sizeof(*q));
	q->have_stat = quiet_read_stat(name, q);
	if (sp->type == FSLAB_FS_EXT4 || sp->type == FSLAB_FS_EXT2)
		q->lazyinit = fslab_proc_each_pid(quiet_find_lazyinit, NULL) > 0;
	if (btrfs_dir && btrfs_dir[0])
		q->btrfs_busy = quiet_btrfs_busy(btrfs_dir);
}

struct quiet_fs {
	struct fslab_state_partition *sp;
	const char *name;
	char btrfs_dir[PATH_MAX];
	struct quiet_sample ref, cur;
	double since;
	bool quiet;
};

static void quiet_record(struct quiet_fs *f, double waited)
{
	struct fslab_state_partition *sp = f->sp;

	sp->quiet_wait_s = waited;
	snprintf(sp->quiet, sizeof(sp->quiet), "%s", f->quiet ? "quiet" : "timeout");
	snprintf(sp->quiet_note, sizeof(sp->quiet_note), "%s%s%s",
		 f->ref.have_stat ? "no write, discard or request in flight for 1 s"
				  : "block counters unreadable",
		 sp->type == FSLAB_FS_EXT4 || sp->type == FSLAB_FS_EXT2 ? "; no ext4lazyinit thread" : "",
		 sp->type != FSLAB_FS_BTRFS ? ""
		 : f->btrfs_dir[0] ? "; no btrfs exclusive operation or queued discard"
				   : "; btrfs sysfs directory not found");
	if (!f->quiet)
		fslab_note_warn("%s (%s) was still busy %.0f s after mount (%s%s%s); the first tests may "
			   "overlap its background work",
			   sp->name, sp->device, waited,
			   f->cur.lazyinit ? "the ext4lazyinit thread runs" : "",
			   f->cur.btrfs_busy ? "btrfs has an exclusive operation or queued discards" : "",
			   !f->cur.lazyinit && !f->cur.btrfs_busy ? "the disk still writes" : "");
}

/* All filesystems watched together: the wait is the slowest one's, not
 * the sum. */
void fslab_quiet_wait(struct fslab_state_partition *parts, size_t n, double timeout_s,
		      volatile sig_atomic_t *stop)
{
	struct quiet_fs fs[FSLAB_MAX_FS];
	double t0 = fslab_now(), now = t0;
	size_t left = n;

	if (n > FSLAB_MAX_FS)
		n = left = FSLAB_MAX_FS;
	for (size_t i = 0; i < n; i++) {
		struct quiet_fs *f = &fs[i];

		memset(f, 0, sizeof(*f));
		f->sp = &parts[i];
		f->name = strrchr(f->sp->device, '/') ? strrchr(f->sp->device, '/') + 1 : f->sp->device;
		if (f->sp->type == FSLAB_FS_BTRFS &&
		    quiet_btrfs_dir(f->name, f->btrfs_dir, sizeof(f->btrfs_dir)) < 0)
			f->btrfs_dir[0] = '\0';
		quiet_sample(f->sp, f->name, f->btrfs_dir, &f->ref);
		f->cur = f->ref;
		f->since = t0;
	}
	while (left && now - t0 < timeout_s && !*stop) {
		usleep(QUIET_POLL_US);
		now = fslab_now();
		for (size_t i = 0; i < n; i++) {
			struct quiet_fs *f = &fs[i];

			if (f->quiet)
				continue;
			quiet_sample(f->sp, f->name, f->btrfs_dir, &f->cur);
			/* busy now (a request in flight, ext4lazyinit, btrfs work), or
			 * written or discarded since the reference sample */
			if ((f->cur.have_stat && f->cur.in_flight) || f->cur.lazyinit || f->cur.btrfs_busy ||
			    f->cur.sectors_written != f->ref.sectors_written || f->cur.discards != f->ref.discards) {
				f->ref = f->cur;
				f->since = now;
			} else if (now - f->since >= FSLAB_QUIET_WINDOW_S) {
				f->quiet = true;
				left--;
				quiet_record(f, now - t0);
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!fs[i].quiet)
			quiet_record(&fs[i], fslab_now() - t0);
}
