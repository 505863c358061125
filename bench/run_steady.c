/* The drive's state around the sweep (docs/ssd.md):
 *
 * - before the sweep, per filesystem, a steady-state phase in SNIA PTS's
 *   write-saturation style: a file of a few rounds' bytes, bounded by a
 *   share of the free space (lib/steady.h), is written once, then rounds of 1 MiB sequential and 4 KiB random
 *   O_DIRECT writes over it run until the 4 KiB random-write throughput
 *   holds lib/steady.h's rule, or FSLAB_STEADY_ROUNDS_MAX rounds;
 * - around each pass of a filesystem's sweep, the drive's temperature and
 *   health (lib/drivetemp.h), and between its tests a watch for heat;
 * - after each pass of a filesystem's sweep, FITRIM (a lab partition) and
 *   a bounded wait for its disk to go idle, so the next filesystem does
 *   not start under the last one's garbage collection.
 *
 * The phase's I/O goes through the engine's I/O layer (bench/engine/engine.h); what
 * it did is in fs->rec.steady and fs->rec.quiet, which the manifest records. */
#include "run_int.h"

#include "drivetemp.h"
#include "engine/engine.h"
#include "log.h"
#include "results.h"
#include "size.h"
#include "steady.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define STEADY_FILE_NAME "steady"
/* The idle wait after a pass: samples 1 s apart, at most this many. */
#define QUIET_WAIT_MAX_S 30

/* What the phase writes with. */
struct steady_io {
	const struct fslab_io_ops *ops;
	int fd;
	unsigned char *buf;  /* FSLAB_STEADY_SEQ_RECORD, aligned for O_DIRECT */
	uint64_t file_bytes; /* whole MiB */
	uint64_t seq_pos;    /* where the next sequential record goes */
	uint64_t rng;
	char why[200];       /* the failed call, for the record */
};

/* One write at off, whole or the reason in s->why.  0 or -errno. */
static int steady_write(struct steady_io *s, const void *buf, size_t len, uint64_t off)
{
	ssize_t w = s->ops->pwrite(s->ops->ctx, s->fd, buf, len, (off_t)off);
	int e = w < 0 ? -errno : -EIO;

	if (w == (ssize_t)len)
		return 0;
	snprintf(s->why, sizeof(s->why), "pwrite of %zu bytes at offset %llu: %s", len,
		 (unsigned long long)off, w < 0 ? strerror(-e) : "short write");
	return e;
}

/* A timed pass ending in fsync (the device's write cache flushed): bytes
 * of sequential records (continuing where the last pass stopped, wrapping
 * at the end of the file) or of random 4 KiB records anywhere in it.
 * 0 with the rate in *kib_s, -EINTR when the run is asked to stop, or
 * -errno. */
static int steady_pass(struct steady_io *s, uint64_t bytes, bool random, double *kib_s)
{
	const uint64_t rec = random ? FSLAB_STEADY_RAND_RECORD : FSLAB_STEADY_SEQ_RECORD;
	const uint64_t slots = s->file_bytes / FSLAB_STEADY_RAND_RECORD;
	double t0 = fslab_now();
	int r;

	for (uint64_t done = 0, i = 0; done < bytes; done += rec, i++) {
		uint64_t off;

		if (run_stop)
			return -EINTR;
		if (random) {
			off = fslab_splitmix64(&s->rng) % slots * FSLAB_STEADY_RAND_RECORD;
		} else {
			if (s->seq_pos + rec > s->file_bytes)
				s->seq_pos = 0;
			off = s->seq_pos;
			s->seq_pos += rec;
		}
		/* a different 4 KiB of the buffer each time: no two
		 * neighbouring writes carry the same data */
		r = steady_write(s, s->buf + (random ? (i % (FSLAB_STEADY_SEQ_RECORD / rec)) * rec : 0), rec, off);
		if (r < 0)
			return r;
	}
	if (s->ops->fsync(s->ops->ctx, s->fd) < 0) {
		r = -errno;
		snprintf(s->why, sizeof(s->why), "fsync: %s", strerror(-r));
		return r;
	}
	*kib_s = (double)bytes / 1024.0 / (fslab_now() - t0);
	return 0;
}

/* Why the phase does not run on fs (NULL: it runs). */
static const char *steady_skip_reason(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs)
{
	if (c->cfg.steady_mode == FSLAB_STEADY_OFF)
		return "skipped: --steady-state off";
	if (fs->rec.fuse)
		return "skipped: FUSE mount (O_DIRECT there does not reach the device: the daemon writes it through the page cache)";
	if (c->cfg.steady_mode == FSLAB_STEADY_ON)
		return NULL;
	if (!fs->t->lab)
		return "skipped: --dir run (auto runs it on a lab's real disk; --steady-state on to run it)";
	if (fs->t->image)
		return "skipped: image lab";
	/* a disk that says it spins (/sys/block/<disk>/queue/rotational): 4 KiB
	 * random writes there run at a few hundred a second, hours for the
	 * phase, and it has no flash translation layer to bring to a steady
	 * state */
	if (fs->have_devinfo && fs->devinfo.rotational == 1)
		return "skipped: rotational disk (steady state is an SSD's; --steady-state on to run it)";
	return NULL;
}

/* The file's size for the filesystem at path now (lib/steady.h's rule),
 * with the free bytes it was sized from in *free_bytes.  0 when too
 * little is free. */
static uint64_t steady_file_size(const char *path, uint64_t round_bytes, uint64_t *free_bytes)
{
	struct statvfs sv;

	*free_bytes = 0;
	if (statvfs(path, &sv) < 0 || sv.f_blocks == 0)
		return 0;
	*free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	return fslab_steady_file_bytes(*free_bytes, round_bytes);
}

static void steady_fmt_rate(double kib_s, char *buf, size_t len)
{
	snprintf(buf, len, kib_s >= 10 * 1024 ? "%.0f MiB/s" : "%.1f MiB/s", kib_s / 1024.0);
}

/* The rounds, after the fill: until the rule holds or the last round.
 * 0 or -errno / -EINTR (s->why says which call failed). */
static int steady_rounds(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct steady_io *s,
			 struct fslab_progress *prog)
{
	struct fslab_manifest_steady *st = &fs->rec.steady;
	double tracked[FSLAB_STEADY_ROUNDS_MAX];
	char r1[32], r2[32];
	int r;

	for (unsigned k = 0; k < FSLAB_STEADY_ROUNDS_MAX; k++) {
		struct fslab_manifest_steady_round *rd = &st->rounds[k];

		/* a round timed across a stop (SIGSTOP) is no figure: run again */
		for (int tries = 0; tries <= FSLAB_STOP_REDO_MAX; tries++) {
			run_continued = 0;
			r = steady_pass(s, c->cfg.steady_round_bytes, false, &rd->seq_write_kib_s);
			if (r == 0)
				r = steady_pass(s, c->cfg.steady_round_bytes, true, &rd->rand_write_kib_s);
			if (r < 0 || !run_continued)
				break;
		}
		if (r < 0)
			return r;
		tracked[k] = rd->rand_write_kib_s;
		st->n_rounds = k + 1;
		steady_fmt_rate(rd->rand_write_kib_s, r1, sizeof(r1));
		steady_fmt_rate(rd->seq_write_kib_s, r2, sizeof(r2));
		fslab_progress_note(prog, "%s: steady state %s: round %u/%d, 4K randwrite %s (1M write %s)",
				    fslab_log_prefix(), fs->rec.name, k + 1, FSLAB_STEADY_ROUNDS_MAX, r1, r2);
		if (fslab_steady_check(tracked, k + 1, &st->window)) {
			st->reached = k + 1;
			return 0;
		}
	}
	return 0;
}

/* Opens the phase's file in fs's private directory (O_DIRECT, new) and
 * the buffer.  0 or -errno with s->why set. */
static int steady_open(struct fslab_bench_fs *fs, struct steady_io *s, uint64_t seed)
{
	s->ops = &fslab_io_posix;
	s->fd = s->ops->open(s->ops->ctx, fs->work_fd, STEADY_FILE_NAME,
			     O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		int e = -errno;

		snprintf(s->why, sizeof(s->why), "cannot create its file with O_DIRECT: %s%s", strerror(-e),
			 e == -EINVAL ? " (the filesystem refuses O_DIRECT)" : "");
		return e;
	}
	if (posix_memalign((void **)&s->buf, 4096, FSLAB_STEADY_SEQ_RECORD) != 0) {
		snprintf(s->why, sizeof(s->why), "out of memory");
		return -ENOMEM;
	}
	s->rng = seed;
	for (size_t i = 0; i < FSLAB_STEADY_SEQ_RECORD; i += 8) {
		uint64_t v = fslab_splitmix64(&s->rng);
		memcpy(s->buf + i, &v, 8);
	}
	return 0;
}

/* The phase's outcome in words, and said. */
static void steady_result(struct fslab_bench_fs *fs, int r, const struct steady_io *s,
			  struct fslab_progress *prog)
{
	struct fslab_manifest_steady *st = &fs->rec.steady;
	const struct fslab_steady_window *w = &st->window;

	if (r == -EINTR) {
		snprintf(st->result, sizeof(st->result), "interrupted");
		return;
	}
	if (r < 0) {
		snprintf(st->result, sizeof(st->result), "failed: %s", s->why);
		fslab_progress_clear(prog);
		fslab_note_warn("%s: the steady-state phase failed (%s); the sweep runs on the drive as it is",
			   fs->rec.name, s->why);
		return;
	}
	if (st->reached) {
		snprintf(st->result, sizeof(st->result), "reached in round %u", st->reached);
		fslab_progress_note(prog, "%s: steady state %s: reached in round %u (rounds %u-%u: mean %.0f KiB/s, range %.1f%%, slope excursion %.1f%% of the mean)",
				    fslab_log_prefix(), fs->rec.name, st->reached, w->first, w->last, w->mean,
				    100 * (w->max - w->min) / w->mean,
				    100 * (w->slope < 0 ? -w->slope : w->slope) * (FSLAB_STEADY_WINDOW - 1) / w->mean);
		return;
	}
	snprintf(st->result, sizeof(st->result), "not reached after %u rounds", st->n_rounds);
	fslab_progress_clear(prog);
	fslab_note_warn("%s: steady state not reached after %u rounds (the last 5 rounds' 4K random writes ranged %.0f-%.0f KiB/s); the sweep runs anyway and fslab report says so",
		   fs->rec.name, st->n_rounds, w->min, w->max);
}

void run_steady_phase(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog)
{
	struct fslab_manifest_steady *st = &fs->rec.steady;
	struct steady_io s = { .fd = -1 };
	const char *skip = steady_skip_reason(c, fs);
	char size[32];
	double t0 = fslab_now();
	int r;

	memset(st, 0, sizeof(*st));
	st->session = c->sessions;
	st->round_bytes = c->cfg.steady_round_bytes;
	if (skip) {
		snprintf(st->result, sizeof(st->result), "%s", skip);
		return;
	}
	if (run_stop || fs->rec.vanished)
		return;
	st->file_bytes = steady_file_size(fs->rec.path, c->cfg.steady_round_bytes, &st->free_bytes);
	if (!st->file_bytes) {
		snprintf(s.why, sizeof(s.why), "too little free space in %s for its file (%llu MiB free; the file is at least %llu MiB and at most 1/%d of the free space)",
			 fslab_esc(fs->rec.path), (unsigned long long)(st->free_bytes >> 20),
			 FSLAB_STEADY_FILE_MIN >> 20, FSLAB_STEADY_FILE_FREE_DIVISOR);
		steady_result(fs, -ENOSPC, &s, prog);
		return;
	}
	fslab_progress_note(prog, "%s: steady state %s: writing a %s file, then rounds of %s of 1M sequential + %s of 4K random O_DIRECT writes until the 4K figure is steady (SNIA PTS; at most %d rounds)",
			    fslab_log_prefix(), fs->rec.name, fslab_size_human(st->file_bytes, size, sizeof(size)),
			    fslab_size_format(c->cfg.steady_round_bytes, (char[32]){ 0 }, 32),
			    fslab_size_format(c->cfg.steady_round_bytes, (char[32]){ 0 }, 32), FSLAB_STEADY_ROUNDS_MAX);
	r = steady_open(fs, &s, c->cfg.sweep.seed * UINT64_C(1000003) + (uint64_t)(fs - c->fs));
	if (r == 0) {
		double fill_kib_s;

		s.file_bytes = st->file_bytes;
		r = steady_pass(&s, st->file_bytes, false, &fill_kib_s);
		st->fill_s = fslab_now() - t0;
	}
	if (r == 0)
		r = steady_rounds(c, fs, &s, prog);
	/* the file closed and removed (an open that refused O_DIRECT may have created it all the same) */
	if (s.fd >= 0)
		s.ops->close(s.ops->ctx, s.fd);
	if (s.ops)
		s.ops->unlink(s.ops->ctx, fs->work_fd, STEADY_FILE_NAME);
	free(s.buf);
	st->elapsed_s = fslab_now() - t0;
	steady_result(fs, r, &s, prog);
}

double run_steady_estimate_s(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs)
{
	uint64_t free_bytes;

	if (steady_skip_reason(c, fs))
		return 0;
	/* a 4 KiB write's device cost from the cost model (run_cost.c) */
	return fslab_steady_estimate_s(steady_file_size(fs->rec.path, c->cfg.steady_round_bytes, &free_bytes),
				       c->cfg.steady_round_bytes, fs->probe.write_kib_s * 1024.0,
				       RUN_COST_DEVICE_OP_S);
}

/* ---- the drive's temperature around each pass ---- */

#define DRIVE_HWMON_EVERY_S 1.0

static void drive_note(struct fslab_manifest_drive *d, const struct fslab_drive_conditions *dc)
{
	if (dc->has_temp && (!d->has_max || dc->temp_c > d->max_temp_c)) {
		d->has_max = true;
		d->max_temp_c = dc->temp_c;
	}
}

void run_drive_before(struct fslab_bench_fs *fs, unsigned trial, unsigned session)
{
	struct fslab_manifest_drive *d = &fs->rec.drive;
	struct fslab_drive_conditions dc;

	fs->drive_watch.start.read_at[0] = '\0';
	fs->drive_watch.hot = false;
	fs->drive_watch.pass = -1;
	if (!fs->rec.device[0] || fslab_drive_conditions_read(fs->rec.device, &dc) < 0)
		return;
	if (!d->before.read_at[0])
		d->before = dc;
	if (d->n_passes < FSLAB_MANIFEST_DRIVE_PASSES) {
		struct fslab_manifest_drive_pass *p = &d->passes[d->n_passes];

		p->trial = trial;
		p->session = session;
		p->before = dc;
		fslab_drive_conditions_unknown(&p->after);
		fs->drive_watch.pass = (int)d->n_passes++;
	} else {
		d->passes_unrecorded++;
	}
	drive_note(&fs->rec.drive, &dc);
	fs->drive_watch.start = dc;
	fs->drive_watch.checked_at = fs->drive_watch.smart_at = fslab_now();
	fs->drive_watch.warn_minutes = dc.warn_minutes;
	fs->drive_watch.hot = fslab_drive_thermal(NULL, &dc, fs->drive_watch.why, sizeof(fs->drive_watch.why));
}

bool run_drive_hot(struct fslab_bench_fs *fs)
{
	const struct fslab_drive_conditions *start = &fs->drive_watch.start;
	bool smart = start->smart_passed >= 0 || start->warn_minutes >= 0 ||
		     strcmp(start->temp_source, "smartctl") == 0;
	double now = fslab_now();

	if (!start->read_at[0] || (!start->has_temp && !smart))
		return false;
	if (now - fs->drive_watch.checked_at >= DRIVE_HWMON_EVERY_S) {
		struct fslab_drive_conditions dc;
		bool full = smart && now - fs->drive_watch.smart_at >= RUN_DRIVE_SMART_EVERY_S;
		int r = full ? fslab_drive_conditions_read(fs->rec.device, &dc)
			     : fslab_drive_conditions_read_hwmon(fs->rec.device, &dc);

		fs->drive_watch.checked_at = now;
		if (full) {
			fs->drive_watch.smart_at = now;
			fs->drive_watch.warn_minutes = dc.warn_minutes;
		} else {
			/* the hwmon sensor has no counter: the last full reading's
			 * stands, so a drive that throttled stays hot to the pass's end */
			dc.warn_minutes = fs->drive_watch.warn_minutes;
		}
		/* a smartctl-only temperature is judged at smartctl's pace */
		if (r == 0 && (full || strcmp(start->temp_source, "hwmon") == 0)) {
			drive_note(&fs->rec.drive, &dc);
			fs->drive_watch.hot = fslab_drive_thermal(start, &dc, fs->drive_watch.why,
								  sizeof(fs->drive_watch.why));
		}
	}
	if (!fs->drive_watch.hot)
		return false;
	if (!fs->rec.drive.thermal[0])
		snprintf(fs->rec.drive.thermal, sizeof(fs->rec.drive.thermal), "%s", fs->drive_watch.why);
	fs->rec.drive.thermal_rows++;
	return true;
}

void run_drive_after(struct fslab_bench_fs *fs, struct fslab_progress *prog)
{
	struct fslab_drive_conditions dc;
	char why[200], line[160];

	if (!fs->drive_watch.start.read_at[0] || fslab_drive_conditions_read(fs->rec.device, &dc) < 0)
		return;
	fs->rec.drive.after = dc;
	if (fs->drive_watch.pass >= 0)
		fs->rec.drive.passes[fs->drive_watch.pass].after = dc;
	drive_note(&fs->rec.drive, &dc);
	if (fslab_drive_thermal(&fs->drive_watch.start, &dc, why, sizeof(why))) {
		if (!fs->rec.drive.thermal[0])
			snprintf(fs->rec.drive.thermal, sizeof(fs->rec.drive.thermal), "after the pass: %s", why);
		fslab_progress_note(prog, "%s: %s: the drive was hot after this pass (%s); the rows measured while it was seen hot are flagged %s, and the manifest's drive records it",
				    fslab_log_prefix(), fs->rec.name, why, FSLAB_FLAG_THERMAL);
	} else {
		fslab_debug(FSLAB_DBG_BENCH, "%s: drive after the pass: %s", fs->rec.name,
			    fslab_drive_conditions_format(&dc, line, sizeof(line)));
	}
	fs->drive_watch.start.read_at[0] = '\0';
}

/* ---- a quiet drive between filesystems ---- */

/* The disk's I/O in flight and sectors moved so far, from /sys/block.
 * 0 or -errno. */
static int quiet_sample(const char *disk, uint64_t *inflight, uint64_t *sectors)
{
	char path[128], *text = NULL;
	unsigned long long f[17] = { 0 };
	unsigned long long rd = 0, wr = 0;
	int r, n;

	snprintf(path, sizeof(path), "/sys/block/%s/inflight", disk);
	r = fslab_read_file(path, &text, NULL, 4096);
	if (r < 0)
		return r;
	n = sscanf(text, "%llu %llu", &rd, &wr);
	free(text);
	if (n != 2)
		return -EINVAL;
	*inflight = rd + wr;
	snprintf(path, sizeof(path), "/sys/block/%s/stat", disk);
	r = fslab_read_file(path, &text, NULL, 4096);
	if (r < 0)
		return r;
	n = sscanf(text, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11],
		   &f[12], &f[13], &f[14], &f[15], &f[16]);
	free(text);
	if (n < 7)
		return -EINVAL;
	/* sectors read, written and (kernels since 4.18) discarded */
	*sectors = f[2] + f[6] + (n >= 14 ? f[13] : 0);
	return 0;
}

/* Sleeps 1 s; false when the run was asked to stop. */
static bool quiet_sleep(void)
{
	struct timespec ts = { 1, 0 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !run_stop)
		;
	return !run_stop;
}

/* FITRIM of fs (a lab partition: the whole free space).  The outcome in
 * q->trim. */
static void quiet_trim(struct fslab_bench_fs *fs, struct fslab_manifest_quiet *q)
{
	struct fstrim_range range = { .start = 0, .len = UINT64_MAX, .minlen = 0 };
	char size[32];
	int fd = fs->dir_fd >= 0 ? fs->dir_fd : fs->work_fd;

	if (!fs->t->lab) {
		snprintf(q->trim, sizeof(q->trim), "not trimmed: --dir (not a filesystem of the lab's)");
		return;
	}
	if (ioctl(fd, FITRIM, &range) == 0) {
		q->trimmed_bytes += range.len;
		snprintf(q->trim, sizeof(q->trim), "trimmed %s", fslab_size_human(range.len, size, sizeof(size)));
		return;
	}
	if (errno == EOPNOTSUPP || errno == ENOTTY || errno == ENOSYS)
		snprintf(q->trim, sizeof(q->trim), "FITRIM not supported by the filesystem or its device (%s)",
			 strerror(errno));
	else
		snprintf(q->trim, sizeof(q->trim), "FITRIM failed: %s", strerror(errno));
}

void run_quiet_after(struct fslab_bench_fs *fs, struct fslab_progress *prog)
{
	struct fslab_manifest_quiet *q = &fs->rec.quiet;
	uint64_t inflight, sectors, prev;
	const char *disk = fs->devinfo.disk; /* the whole disk, as /sys/block names it */
	double t0, waited;
	bool idle = false;

	if (run_stop || fs->rec.vanished)
		return;
	/* FSLAB_TEST_QUIET_LOOP=1: a loop device counts as a lab's disk (and
	 * a --dir on one as a lab's filesystem, untrimmed), so a test sees
	 * the trim and the wait without a disk of its own */
	const char *hook = getenv("FSLAB_TEST_QUIET_LOOP");
	bool test_loop = hook && strcmp(hook, "1") == 0 && fs->rec.loop_io[0];

	if (!fs->t->lab && !test_loop) {
		/* a user's directory sits on a disk others use (the system's):
		 * waiting for it to go idle could take the whole bound each time */
		snprintf(q->skipped, sizeof(q->skipped), "--dir: not a lab's disk (no trim, no wait)");
		return;
	}
	if (!test_loop && (fs->rec.loop_io[0] || fs->t->image)) {
		snprintf(q->skipped, sizeof(q->skipped),
			 "image lab on a loop device: the disk under the image is the host's, not the lab's");
		return;
	}
	if (!fs->have_devinfo || quiet_sample(disk, &inflight, &prev) < 0) {
		snprintf(q->skipped, sizeof(q->skipped), "no block device statistics for %.200s",
			 fs->rec.device[0] ? fs->rec.device : "the filesystem");
		return;
	}
	q->skipped[0] = '\0';
	quiet_trim(fs, q);
	t0 = fslab_now();
	if (quiet_sample(disk, &inflight, &prev) < 0)
		return;
	/* idle: nothing in flight and no sector moved across two samples 1 s
	 * apart */
	for (int s = 0; s < QUIET_WAIT_MAX_S && !idle && quiet_sleep(); s++) {
		if (quiet_sample(disk, &inflight, &sectors) < 0)
			break;
		idle = inflight == 0 && sectors == prev;
		prev = sectors;
	}
	if (run_stop)
		return;
	waited = fslab_now() - t0;
	q->passes++;
	q->wait_s += waited;
	if (waited > q->wait_max_s)
		q->wait_max_s = waited;
	if (!idle) {
		q->not_idle++;
		fslab_progress_note(prog, "%s: %s: its disk %s was still busy after %d s (%s); the next filesystem starts anyway",
				    fslab_log_prefix(), fs->rec.name, disk, QUIET_WAIT_MAX_S, q->trim);
	} else {
		fslab_debug(FSLAB_DBG_BENCH, "%s: %s idle after %.1f s (%s)", fs->rec.name, disk, waited, q->trim);
	}
}
