/* fslab run's device probe (bench/probe.c), measured by every run before
 * its sweep. */
#include "run_int.h"

#include "engine/engine.h"
#include "log.h"
#include "size.h"

#include <errno.h>
#include <string.h>

/* The probe measured into fs->probe.  A probe timed across a stop of the
 * process is no figure: it is probed again (a few times at most). */
static int run_probe_measure(struct fslab_run_ctx *c, struct fslab_bench_fs *fs)
{
	int r = 0;

	for (int tries = 0; tries < FSLAB_STOP_REDO_MAX + 1; tries++) {
		run_continued = 0;
		r = fslab_device_probe(&fslab_io_posix, &fs->work_fd, fs->rec.path, &fs->cache, c->cfg.probe_bytes,
				       &fs->probe);
		if (!run_continued || run_stop)
			break;
		fslab_debug(FSLAB_DBG_BENCH, "%s: the process was stopped during the probe; probing again",
			    fs->rec.name);
	}
	if (run_continued) {
		fslab_note_warn("%s: the process was stopped during every device probe; its cells get no page-cache flag",
			   fs->rec.name);
		fs->probe.write_kib_s = fs->probe.read_kib_s = 0;
		snprintf(fs->probe.method, sizeof(fs->probe.method), "failed");
		snprintf(fs->probe.note, sizeof(fs->probe.note), "stopped (SIGSTOP) during every probe");
		return -EINTR;
	}
	if (r < 0)
		fslab_note_warn("%s: device probe failed (%s); its cells get no page-cache flag", fs->rec.name,
			   fslab_esc(fs->probe.note));
	else if (strcmp(fs->probe.method, "o_direct") != 0)
		fslab_note_warn("%s: %s", fs->rec.name, fslab_esc(fs->probe.note));
	return r;
}

void run_fs_probe(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog)
{
	char size[32];

	if (c->cfg.no_device_probe || run_stop) {
		snprintf(fs->probe.method, sizeof(fs->probe.method), "skipped");
		return;
	}
	fslab_progress_note(prog, "%s: probing what the device under %s can do (%u x %s sequential O_DIRECT write and read; the fastest is the bound)",
			    fslab_log_prefix(), fslab_esc(fs->rec.path), FSLAB_PROBE_RUNS,
			    fslab_size_human(c->cfg.probe_bytes ? c->cfg.probe_bytes : FSLAB_PROBE_DEFAULT_BYTES,
					     size, sizeof(size)));
	run_probe_measure(c, fs);
	if (fs->rec.fuse)
		fslab_note_warn("%s is mounted through FUSE (%s): its figures are flagged 'fuse' and are not comparable to kernel drivers",
			   fs->rec.name, fs->rec.type);
}
