/* Purge and precondition a drive before setup partitions it (precond.h). */
#include "precond.h"
#include "clock.h"
#include "discard.h"
#include "drivetemp.h"
#include "progress.h"
#include "prov_int.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRECOND_SAVE_EVERY_S 2.0
#define PRECOND_RATE_NOTE_AFTER_S 5.0
#define PRECOND_SEED UINT64_C(0x9e3779b97f4a7c15)

static const char *const when_names[FSLAB_PRECONDITION_MAX] = {
	[FSLAB_PRECONDITION_AUTO] = "auto",
	[FSLAB_PRECONDITION_ON] = "on",
	[FSLAB_PRECONDITION_OFF] = "off",
};

enum fslab_precondition_when fslab_precondition_when_from_string(const char *s)
{
	return (enum fslab_precondition_when)fslab_name_index(when_names, FSLAB_PRECONDITION_MAX, s);
}

void fslab_precond_decide(enum fslab_precondition_when when, bool purge_given,
			  enum fslab_purge purge, bool is_drive, int rotational,
			  struct fslab_precond_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->write = true;
	if (when == FSLAB_PRECONDITION_OFF) {
		d->write = false;
		d->status = "off";
		snprintf(d->note, sizeof(d->note), "--precondition off, the default; on writes the disk twice over "
			 "first: %d drive-writes", FSLAB_PRECOND_PASSES);
	} else if (when == FSLAB_PRECONDITION_AUTO && (!is_drive || rotational == 1)) {
		d->write = false;
		d->status = "skipped";
		snprintf(d->note, sizeof(d->note), "preconditioning skipped: %s (--precondition on forces it)",
			 !is_drive ? "an image is not a drive" : "a rotational disk has no flash to precondition");
	}
	d->purge = purge_given ? purge : d->write ? FSLAB_PURGE_TRIM : FSLAB_PURGE_NONE;
}

uint64_t fslab_precond_target(uint64_t capacity)
{
	return capacity * FSLAB_PRECOND_PASSES;
}

bool fslab_precond_write_at(uint64_t capacity, uint64_t i, uint64_t *off, uint64_t *len)
{
	uint64_t per_pass, k;

	if (!capacity)
		return false;
	per_pass = (capacity + FSLAB_PRECOND_BLOCK - 1) / FSLAB_PRECOND_BLOCK;
	if (i >= per_pass * FSLAB_PRECOND_PASSES)
		return false;
	k = i % per_pass;
	*off = k * FSLAB_PRECOND_BLOCK;
	*len = capacity - *off < FSLAB_PRECOND_BLOCK ? capacity - *off : FSLAB_PRECOND_BLOCK;
	return true;
}

void fslab_precond_plan_line(const struct fslab_precond_decision *d, const char *disk,
			     uint64_t capacity, char *buf, size_t len)
{
	char a[32], b[32], t[32], purge[96];

	if (d->purge == FSLAB_PURGE_TRIM)
		snprintf(purge, sizeof(purge), "purge all of %s with BLKDISCARD (a TRIM purge, not a PTS purge)",
			 disk && disk[0] ? disk : "the loop device");
	else if (d->purge == FSLAB_PURGE_SECURE_ERASE)
		snprintf(purge, sizeof(purge), "purge all of %s with NVMe Format, Secure Erase: user data (a PTS purge)",
			 disk && disk[0] ? disk : "the disk");
	else
		snprintf(purge, sizeof(purge), "no purge");
	if (!d->write) {
		snprintf(buf, len, "precondition: no (%s); %s", d->note, purge);
		return;
	}
	fslab_size_human(capacity, a, sizeof(a));
	fslab_size_human(fslab_precond_target(capacity), b, sizeof(b));
	fslab_progress_format_duration((double)fslab_precond_target(capacity) / (FSLAB_PRECOND_PLAN_MIB_S * 1048576.0),
				       t, sizeof(t));
	snprintf(buf, len,
		 "precondition: %s, then write %d x %s = %s (%d drive-writes of wear) in 128 KiB "
		 "sequential O_DIRECT writes, about %s at %.0f MiB/s (--precondition off skips it)",
		 purge, FSLAB_PRECOND_PASSES, a, b, FSLAB_PRECOND_PASSES, t, FSLAB_PRECOND_PLAN_MIB_S);
}

int fslab_precond_secure_erase_refusal(const char *disk, struct fslab_err *e)
{
	const char *name = strrchr(disk, '/') ? strrchr(disk, '/') + 1 : disk;
	const char *why = strncmp(name, "sd", 2) == 0
		? "fslab does not send ATA SECURITY ERASE UNIT: it needs a security password set on the "
		  "drive first, and a drive interrupted during the erase (power lost, the bus reset) "
		  "stays locked with that password"
		: strncmp(name, "nvme", 4) == 0 ? "fslab cannot format this NVMe namespace"
						: "it is done only on an NVMe namespace (NVMe Format with Secure Erase)";

	return fslab_err_set(e, -EOPNOTSUPP,
			     "--purge secure-erase on %s: %s; use --purge trim (a TRIM purge, not a PTS "
			     "purge), or erase the drive yourself (hdparm --security-erase) and run setup "
			     "with --purge none",
			     disk, why);
}

/* The data written: pseudo-random (xorshift64, fixed seed) so that a
 * drive that compresses or deduplicates cannot skip it, with each 4 KiB
 * stamped with its disk offset (and pass) before each write so no two
 * blocks are alike. */
static void precond_fill(uint64_t *buf, size_t words)
{
	uint64_t x = PRECOND_SEED;

	for (size_t i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
	}
}

static int precond_purge(const struct fslab_precond_run *r)
{
	struct fslab_state_precondition *rec = r->rec;
	enum fslab_discard_result res;
	int e;

	rec->purge = r->d->purge;
	if (r->d->purge == FSLAB_PURGE_NONE) {
		snprintf(rec->purge_result, sizeof(rec->purge_result), "not asked");
		return 0;
	}
	if (r->d->purge == FSLAB_PURGE_SECURE_ERASE) {
		fslab_note_line("purging %s: NVMe Format NVM of namespace %u with Secure Erase Settings 1 (user data "
		       "erase, a PTS purge); the drive may take minutes and the command cannot be stopped",
		       r->disk, r->d->nvme.nsid);
		e = fslab_nvme_erase_run(r->disk, r->devno, r->capacity, &r->d->nvme, r->e);
		snprintf(rec->purge_result, sizeof(rec->purge_result), "%s", e < 0 ? "failed" : "done");
		return e;
	}
	fslab_note_line("purging %s: BLKDISCARD of the whole disk (a TRIM purge, not a PTS purge)", r->disk);
	e = fslab_discard_device(r->disk, true, &res, r->e);
	if (e == 0 && res == FSLAB_DISCARD_UNSUPPORTED)
		fslab_note_line("purge: not supported: %s takes no discard requests; preconditioning without a "
		       "purge", r->disk);
	snprintf(rec->purge_result, sizeof(rec->purge_result), "%s",
		 e < 0 ? "failed" : res == FSLAB_DISCARD_UNSUPPORTED ? "not supported" : "done");
	return e;
}

static void precond_conditions(const char *disk, const char *when, struct fslab_drive_conditions *dc)
{
	char line[128];

	fslab_drive_conditions_read(disk, dc);
	fslab_note_line("drive %s preconditioning: %s", when, fslab_drive_conditions_format(dc, line, sizeof(line)));
}

/* One line of the progress: "1.2 GiB/200 GiB  61%  512 MiB/s". */
static void precond_draw(struct fslab_progress *p, uint64_t done, uint64_t total, double mib_s,
			 bool force)
{
	char a[32], b[32], what[128];

	snprintf(what, sizeof(what), "%s/%s  %.0f%%  %.0f MiB/s", fslab_size_human(done, a, sizeof(a)),
		 fslab_size_human(total, b, sizeof(b)), total ? 100.0 * (double)done / (double)total : 0,
		 mib_s);
	fslab_progress_draw(p, what, force);
}

/* The writes themselves, on fd (O_DIRECT); rec->bytes and seconds kept
 * current, the state saved every few seconds.  0, -EINTR or -errno. */
static int precond_write_loop(const struct fslab_precond_run *r, int fd, uint64_t *buf,
			      struct fslab_progress *prog)
{
	struct fslab_state_precondition *rec = r->rec;
	double t0 = fslab_now(), last_save = t0, now;
	uint64_t off, len, per_pass = (r->capacity + FSLAB_PRECOND_BLOCK - 1) / FSLAB_PRECOND_BLOCK;
	bool noted = false;
	int e;

	for (uint64_t i = 0; fslab_precond_write_at(r->capacity, i, &off, &len); i++) {
		ssize_t w;

		if (*r->stop)
			return -EINTR;
		for (uint64_t k = 0; k < len / 4096; k++)
			buf[k * 512] = (off + k * 4096) ^ ((i / per_pass) << 56) ^ PRECOND_SEED;
		w = pwrite(fd, buf, (size_t)len, (off_t)off);
		if (w < 0 && errno == EINTR)
			return -EINTR;
		if (w < 0)
			return fslab_note_fail_errno(r->e, errno, "%s: preconditioning write of %llu bytes at %llu failed",
						 r->disk, (unsigned long long)len, (unsigned long long)off);
		if ((uint64_t)w != len)
			return fslab_note_fail_errno(r->e, EIO, "%s: preconditioning write at %llu wrote %zd of %llu bytes",
						 r->disk, (unsigned long long)off, w, (unsigned long long)len);
		rec->bytes += len;
		now = fslab_now();
		rec->seconds = now - t0;
		rec->mib_s = rec->seconds > 0 ? (double)rec->bytes / 1048576.0 / rec->seconds : 0;
		fslab_progress_add_work(prog, (double)len);
		precond_draw(prog, rec->bytes, rec->target_bytes, rec->mib_s, false);
		if (!noted && rec->seconds >= PRECOND_RATE_NOTE_AFTER_S) {
			char eta[32];

			noted = true;
			fslab_progress_note(prog, "preconditioning: %.0f MiB/s, about %s to go (Ctrl-C stops it: the "
					    "disk is left unpartitioned)",
					    rec->mib_s,
					    fslab_progress_format_duration(fslab_progress_eta(prog), eta, sizeof(eta)));
		}
		if (now - last_save >= PRECOND_SAVE_EVERY_S) {
			last_save = now;
			e = r->save(r->ctx, false);
			if (e < 0)
				return e;
		}
	}
	if (fdatasync(fd) < 0)
		return fslab_note_fail_errno(r->e, errno, "%s: cannot flush the preconditioning writes", r->disk);
	rec->seconds = fslab_now() - t0;
	rec->mib_s = rec->seconds > 0 ? (double)rec->bytes / 1048576.0 / rec->seconds : 0;
	precond_draw(prog, rec->bytes, rec->target_bytes, rec->mib_s, true);
	return 0;
}

static int precond_write(const struct fslab_precond_run *r)
{
	struct fslab_state_precondition *rec = r->rec;
	struct fslab_progress *prog = NULL;
	void *buf = NULL;
	int fd = -1, e;

	struct stat st;

	/* O_EXCL: nothing may have opened the disk since the checks; and the
	 * node opened is the device the checks passed (no link followed, the
	 * same device number), not whatever the name points at now. */
	fd = open(r->disk, O_WRONLY | O_DIRECT | O_EXCL | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return fslab_note_fail_errno(r->e, errno, "%s: cannot open it for the preconditioning writes "
						"(O_DIRECT, exclusive); --precondition off skips them",
					 r->disk);
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != r->devno) {
		close(fd);
		return fslab_note_fail(r->e, -ESTALE, "refused: %s is no longer the disk the safety checks passed "
				       "(another device node under that name); nothing was written", r->disk);
	}
	e = posix_memalign(&buf, 4096, FSLAB_PRECOND_BLOCK);
	if (e) {
		close(fd);
		return fslab_note_fail_errno(r->e, e, "no memory for the preconditioning buffer");
	}
	precond_fill(buf, FSLAB_PRECOND_BLOCK / sizeof(uint64_t));
	prog = fslab_progress_new(stdout, "precondition", false);
	if (!prog) {
		e = fslab_note_fail_errno(r->e, ENOMEM, "out of memory");
		goto out;
	}
	fslab_progress_set_work(prog, (double)rec->target_bytes, 0);
	fslab_progress_set_estimate(prog, 1.0 / (FSLAB_PRECOND_PLAN_MIB_S * 1048576.0));
	e = precond_write_loop(r, fd, buf, prog);
	fslab_progress_clear(prog);
	/* Stopped: flush what was written, so the record's bytes are on the
	 * drive; a failed flush is no reason to keep the disk busy longer. */
	if (e == -EINTR && fdatasync(fd) < 0)
		fslab_note_warn("%s: cannot flush the preconditioning writes: %s", r->disk, strerror(errno));
out:
	fslab_progress_free(prog);
	free(buf);
	close(fd);
	return e;
}

int fslab_precond_run(const struct fslab_precond_run *r)
{
	struct fslab_state_precondition *rec = r->rec;
	char a[32];
	int e, se;

	memset(rec, 0, sizeof(*rec));
	rec->before.smart_passed = rec->after.smart_passed = -1;
	rec->purge = r->d->purge;
	if (!r->d->write) {
		snprintf(rec->status, sizeof(rec->status), "%s", r->d->status);
		snprintf(rec->note, sizeof(rec->note), "%s", r->d->note);
		if (r->d->status && strcmp(r->d->status, "skipped") == 0)
			fslab_note_line("%s", r->d->note);
		e = precond_purge(r);
		if (e == 0)
			e = r->save(r->ctx, false);
		return e;
	}
	rec->target_bytes = fslab_precond_target(r->capacity);
	rec->block_bytes = FSLAB_PRECOND_BLOCK;
	snprintf(rec->status, sizeof(rec->status), "running");
	precond_conditions(r->disk, "before", &rec->before);
	/* durable: from here the disk is written */
	e = r->save(r->ctx, true);
	if (e == 0)
		e = precond_purge(r);
	if (e == 0) {
		e = r->save(r->ctx, false);
		prov_test_pause("purged", r->stop);
	}
	if (e == 0 && *r->stop)
		e = -EINTR;
	if (e == 0) {
		fslab_note_line("preconditioning %s: writing %s (%d x its capacity) in 128 KiB sequential O_DIRECT writes",
		       r->disk, fslab_size_human(rec->target_bytes, a, sizeof(a)), FSLAB_PRECOND_PASSES);
		e = precond_write(r);
	}
	snprintf(rec->status, sizeof(rec->status), "%s", e == 0 ? "done" : e == -EINTR ? "interrupted" : "failed");
	if (e == 0 || e == -EINTR)
		precond_conditions(r->disk, "after", &rec->after);
	if (e == 0)
		fslab_note_line("preconditioned %s: %s in %.1f s (%.0f MiB/s)", r->disk,
		       fslab_size_human(rec->bytes, a, sizeof(a)), rec->seconds, rec->mib_s);
	se = r->save(r->ctx, true);
	if (e == 0)
		e = se;
	return e;
}
