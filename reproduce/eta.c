/* fslab reproduce: how large the honest sweeps' files are, and how long
 * each stage takes (the sweeps by fslab run's cost model, one home for
 * it: bench/run_cost.c). */
#include "fslab/reproduce.h"
#include "fslab/run.h"
#include "size.h"
#include "state.h"

#include <stdio.h>
#include <sys/statvfs.h>
#include <unistd.h>

void repro_stage_opts(const struct reproduce_ctl *c, const struct repro_stage *s,
		      struct fslab_run_opts *o)
{
	fslab_run_opts_init(o);
	if (s->cache != FSLAB_CACHE_WARM)
		o->given = c->honest_given; /* --until-ci, --max-trials */
	fslab_settings_put(&o->given, FSLAB_SETTING_PRESET, FSLAB_PRESET_SEED, 0);
	/* the seed preset's smallest file; a range is given whole */
	fslab_settings_put(&o->given, FSLAB_SETTING_FILE_SIZES, 64 * FSLAB_KiB, s->file_max);
	fslab_settings_put(&o->given, FSLAB_SETTING_CACHE, (uint64_t)s->cache, 0);
	o->quiet = c->quiet;
	o->argc = c->argc;
	o->argv = c->argv;
	fslab_settings_put(&o->given, FSLAB_SETTING_TRIALS, s->cache != FSLAB_CACHE_WARM ? 2 : 1, 0);
}

uint64_t repro_min_free(const struct fslab_state *st)
{
	uint64_t room = UINT64_MAX;

	for (size_t i = 0; i < st->n_partitions; i++) {
		struct statvfs sv;

		if (st->partitions[i].mountpoint[0] && statvfs(st->partitions[i].mountpoint, &sv) == 0) {
			uint64_t free_b = (uint64_t)sv.f_bavail * sv.f_frsize;
			if (free_b < room)
				room = free_b;
		}
	}
	return room;
}

uint64_t repro_honest_max_file(const struct reproduce_ctl *c, uint64_t room, char *why, size_t whylen)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t ram = (pages > 0 && psize > 0) ? (uint64_t)pages * (uint64_t)psize : 0;
	uint64_t beyond = 64 * FSLAB_KiB, fit = 64 * FSLAB_KiB;
	char a[32], b[32], free_h[32] = "unknown", fit_s[32];

	why[0] = '\0';
	if (c->max_file_set) {
		snprintf(why, whylen,
			 "honest sweeps use --max-file %s, as the warm one; files beyond RAM (%s) "
			 "were not asked for",
			 fslab_size_format(c->max_file, a, sizeof(a)),
			 fslab_size_human(ram, b, sizeof(b)));
		return c->max_file;
	}
	while (beyond <= ram && beyond < FSLAB_SIZE_MAX)
		beyond <<= 1;
	if (room != UINT64_MAX && beyond + beyond / 10 <= room)
		return beyond;
	while (room != UINT64_MAX && (fit << 1) + (fit << 1) / 10 <= room)
		fit <<= 1;
	if (fit < c->max_file)
		fit = c->max_file;
	if (room != UINT64_MAX)
		fslab_size_human(room, free_h, sizeof(free_h));
	snprintf(why, whylen,
		 "files beyond RAM (%s, so %s files) do not fit the partitions (%s free on the "
		 "fullest); the honest sweeps stop at %s and rely on the cold and direct cache "
		 "modes to keep the page cache out",
		 fslab_size_human(ram, a, sizeof(a)), fslab_size_format(beyond, b, sizeof(b)), free_h,
		 fslab_size_format(fit, fit_s, sizeof(fit_s)));
	return fit;
}

int repro_stage_estimate(const struct reproduce_ctl *c, const struct repro_stage *s, size_t n_fs,
			 double device_kib_s, double *lo_s, double *hi_s)
{
	struct fslab_run_opts o;
	double rate = device_kib_s > 0 ? device_kib_s : FSLAB_RUN_NOMINAL_KIB_S;

	repro_stage_opts(c, s, &o);
	o.quiet = true;
	return fslab_run_estimate(&o, n_fs, rate, rate, lo_s, hi_s);
}
