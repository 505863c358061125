/* fslab run's device probe: kept from an earlier run while it holds
 * (bench/probe_keep.c), else measured (bench/probe.c) and kept; measured
 * again once when the run's own figures say the reused bound moved. */
#include "run_int.h"

#include "engine/engine.h"
#include "log.h"
#include "results.h"
#include "size.h"
#include "stats.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* The probe measured into fs->probe.  A probe timed across a stop of the
 * process is no figure: it is probed again (a few times at most). */
static int run_probe_measure(struct fslab_run_ctx *c, struct fslab_bench_fs *fs)
{
	int r = 0;

	for (int tries = 0; tries < FSLAB_STOP_REDO_MAX + 1; tries++) {
		run_continued = 0;
		r = fslab_device_probe(&fslab_io_posix, &fs->work_fd, fs->rec.path, &fs->cache, c->probe_bytes,
				       &fs->probe);
		if (!run_continued || run_stop)
			break;
		fslab_debug(FSLAB_DBG_BENCH, "%s: the process was stopped during the probe; probing again",
			    fs->rec.name);
	}
	if (run_continued) {
		fslab_warn("%s: the process was stopped during every device probe; its cells get no page-cache flag",
			   fs->rec.name);
		fs->probe.write_kib_s = fs->probe.read_kib_s = 0;
		snprintf(fs->probe.method, sizeof(fs->probe.method), "failed");
		snprintf(fs->probe.note, sizeof(fs->probe.note), "stopped (SIGSTOP) during every probe");
		return -EINTR;
	}
	if (r < 0)
		fslab_warn("%s: device probe failed (%s); its cells get no page-cache flag", fs->rec.name,
			   run_esc(fs->probe.note));
	else if (strcmp(fs->probe.method, "o_direct") != 0)
		fslab_warn("%s: %s", fs->rec.name, run_esc(fs->probe.note));
	return r;
}

/* Keeps a good probe for the runs after this one.  Not keeping it costs
 * only the next run's probe. */
static void run_probe_keep(const struct fslab_bench_fs *fs, const char *key)
{
	int r;

	if (!key[0] || !(fs->probe.write_kib_s > 0) || !(fs->probe.read_kib_s > 0))
		return;
	r = fslab_probe_kept_save(fs, key, &fs->probe);
	if (r == -EACCES) /* not root: the runtime directory is root's */
		fslab_debug(FSLAB_DBG_BENCH, "%s: the device probe is not kept: %s is root's", fs->rec.name,
			    FSLAB_RUNTIME_DIR);
	else if (r < 0)
		fslab_warn("%s: cannot keep the device probe in %s: %s; the next run probes again", fs->rec.name,
			   FSLAB_RUNTIME_DIR, strerror(-r));
}

/* The kept probe into fs->probe when it holds: true.  A file that is no
 * probe of fslab's is said (and replaced by the new probe). */
static bool run_probe_reuse(struct fslab_bench_fs *fs, const char *key, struct fslab_progress *prog)
{
	char why[2048], at[32], age[32];
	int64_t now = (int64_t)time(NULL);
	struct fslab_probe_result kept;
	int r = fslab_probe_kept_load(fs, key, now, &kept, why, sizeof(why));

	if (r == -EINVAL)
		fslab_warn("%s: ignored the kept device probe: %s; probing again", fs->rec.name, run_esc(why));
	else if (r == -ESTALE)
		fslab_debug(FSLAB_DBG_BENCH, "%s: not reusing the kept device probe: %s", fs->rec.name, why);
	if (r < 0)
		return false;
	fs->probe = kept;
	run_utc_format(kept.measured_at, at, sizeof(at), false);
	fslab_progress_note(prog, "%s: reusing the device probe of %s measured at %s (%s ago; --probe fresh measures again): write %.0f KiB/s, read %.0f KiB/s",
			    fslab_log_prefix(), run_esc(fs->rec.path), at,
			    fslab_progress_format_duration((double)(now - kept.measured_at), age, sizeof(age)),
			    kept.write_kib_s, kept.read_kib_s);
	return true;
}

void run_fs_probe(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog)
{
	char size[32], key[FSLAB_PROBE_KEY_MAX] = "";

	if (c->no_device_probe || run_stop) {
		snprintf(fs->probe.method, sizeof(fs->probe.method), "skipped");
		return;
	}
	if (fslab_probe_key(fs, c->probe_bytes, key, sizeof(key)) < 0)
		key[0] = '\0'; /* an identity too long to keep: measured each run */
	if (c->probe_fresh || !key[0] || !run_probe_reuse(fs, key, prog)) {
		fslab_progress_note(prog, "%s: probing what the device under %s can do (%u x %s sequential O_DIRECT write and read; the fastest is the bound)",
				    fslab_log_prefix(), run_esc(fs->rec.path), FSLAB_PROBE_RUNS,
				    fslab_size_human(c->probe_bytes ? c->probe_bytes : FSLAB_PROBE_DEFAULT_BYTES,
						     size, sizeof(size)));
		if (run_probe_measure(c, fs) == 0)
			run_probe_keep(fs, key);
	}
	if (fs->rec.fuse)
		fslab_warn("%s is mounted through FUSE (%s): its figures are flagged 'fuse' and are not comparable to kernel drivers",
			   fs->rec.name, fs->rec.type);
}

/* Does the cache mode promise the device for test t, so that a figure
 * above the bound has no explanation but the bound?  Cold: every first
 * pass (writers timed with their fsync, readers after the drop); fsync:
 * the writers; direct: every test (stdio ones are flagged buffered);
 * the many-files tests' reads in cold and direct mode. */
static bool run_probe_promised(enum fslab_cache_mode cache, const struct fslab_bench_test *bt)
{
	/* the many-files tests: only their reads, after the drop or O_DIRECT
	 * (their creates may be unsynced, --file-sync none) */
	if (bt->flags & FSLAB_BT_FILES)
		return (bt->flags & FSLAB_BT_READS) &&
		       (cache == FSLAB_CACHE_COLD || cache == FSLAB_CACHE_DIRECT);
	switch (cache) {
	case FSLAB_CACHE_COLD:
		return !(bt->flags & FSLAB_BT_SECOND_PASS);
	case FSLAB_CACHE_FSYNC:
		return (bt->flags & FSLAB_BT_WRITES) != 0;
	case FSLAB_CACHE_DIRECT:
		return !(bt->flags & FSLAB_BT_STDIO);
	default:
		return false;
	}
}

bool run_probe_recheck(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog,
		       const struct fslab_test_outcome out[FSLAB_TEST_MAX])
{
	char key[FSLAB_PROBE_KEY_MAX], at[32], flag[128];
	int hit = -1;

	if (strcmp(fs->probe.source, "reused") != 0 || run_stop)
		return false;
	for (int t = 0; t < FSLAB_TEST_MAX && hit < 0; t++) {
		if (out[t].status != FSLAB_OUTCOME_OK ||
		    !run_probe_promised(c->sweep.cache, fslab_bench_test_get((enum fslab_test)t)))
			continue;
		/* the row's own flag: page-cache alone, no fuse, buffered,
		 * buffered-loop or memory to explain the figure */
		run_flag(fs, c->sweep.cache, (enum fslab_test)t, out[t].throughput_kib_s, flag, sizeof(flag));
		if (strcmp(flag, FSLAB_FLAG_PAGE_CACHE) == 0)
			hit = t;
	}
	if (hit < 0)
		return false;
	run_utc_format(fs->probe.measured_at, at, sizeof(at), false);
	fslab_progress_note(prog, "%s: %s: %s ran at %.0f KiB/s, above %g x the device probe reused from %s: measuring the device again for the cells after it",
			    fslab_log_prefix(), fs->rec.name, fslab_test_to_string((enum fslab_test)hit),
			    out[hit].throughput_kib_s, FSLAB_PAGE_CACHE_FACTOR, at);
	if (run_probe_measure(c, fs) == 0) {
		size_t n = strlen(fs->probe.note);

		if (fslab_probe_key(fs, c->probe_bytes, key, sizeof(key)) == 0)
			run_probe_keep(fs, key);
		snprintf(fs->probe.note + n, sizeof(fs->probe.note) - n,
			 "%smeasured again during the run: %s ran above the bound reused from %s", n ? "; " : "",
			 fslab_test_to_string((enum fslab_test)hit), at);
	}
	return true;
}
