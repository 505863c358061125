#include "plan.h"
#include "run.h"
#include "size.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int fslab_sweep_preset(const char *name, struct fslab_sweep_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->file_min = 64 * FSLAB_KiB;
	s->file_max = 2 * FSLAB_GiB;
	s->record_min = 4 * FSLAB_KiB;
	s->record_max = 16 * FSLAB_MiB;
	s->tests = FSLAB_TESTS_ALL;
	s->trials = 1;
	s->cache = FSLAB_CACHE_WARM;
	s->seed = 1;
	s->keep_small_records = false;
	s->shuffle = true;
	if (!name || strcmp(name, "seed") == 0)
		return 0;
	if (strcmp(name, "quick") == 0) {
		s->file_max = 64 * FSLAB_MiB;
		return 0;
	}
	if (strcmp(name, FSLAB_PRESET_DEFAULT) == 0) {
		s->file_max = 64 * FSLAB_MiB;
		s->cache = FSLAB_CACHE_COLD;
		s->trials = FSLAB_DEFAULT_MIN_TRIALS;
		return 0;
	}
	return -EINVAL;
}

void fslab_sweep_merge(struct fslab_sweep_spec *d, const struct fslab_sweep_spec *s)
{
	if (s->set & FSLAB_SWEEP_SET_FILE_SIZES) {
		d->file_min = s->file_min;
		d->file_max = s->file_max;
	}
	if (s->set & FSLAB_SWEEP_SET_RECORD_SIZES) {
		d->record_min = s->record_min;
		d->record_max = s->record_max;
	}
	if (s->set & FSLAB_SWEEP_SET_TESTS)
		d->tests = s->tests;
	if (s->set & FSLAB_SWEEP_SET_TRIALS)
		d->trials = s->trials;
	if (s->set & FSLAB_SWEEP_SET_CACHE)
		d->cache = s->cache;
	if (s->set & FSLAB_SWEEP_SET_SEED)
		d->seed = s->seed;
	if (s->set & FSLAB_SWEEP_SET_SMALL_RECORDS)
		d->keep_small_records = s->keep_small_records;
	if (s->set & FSLAB_SWEEP_SET_ORDER)
		d->shuffle = s->shuffle;
	d->set |= s->set;
}

static bool plan_keep(const struct fslab_sweep_spec *s, uint64_t file, uint64_t rec)
{
	if (rec > file)
		return false;
	if (!s->keep_small_records && file > FSLAB_SMALL_RECORD_FILE &&
	    rec < FSLAB_SMALL_RECORD_LIMIT)
		return false;
	return true;
}

int fslab_plan_build(const struct fslab_sweep_spec *s, struct fslab_plan *p)
{
	size_t n = 0, i = 0;

	memset(p, 0, sizeof(*p));
	if (!s->file_min || !s->record_min || s->file_min > s->file_max ||
	    s->record_min > s->record_max)
		return -EINVAL;
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t f = s->file_min; f <= s->file_max; f *= 2)
			for (uint64_t r = s->record_min; r <= s->record_max; r *= 2) {
				if (!plan_keep(s, f, r))
					continue;
				if (pass == 1) {
					p->cells[i].file_bytes = f;
					p->cells[i].record_bytes = r;
					i++;
				} else {
					n++;
				}
			}
		if (pass == 0) {
			if (n == 0)
				return -EINVAL;
			p->cells = calloc(n, sizeof(*p->cells));
			if (!p->cells)
				return -ENOMEM;
			p->n = n;
		}
	}
	return 0;
}

void fslab_plan_free(struct fslab_plan *p)
{
	free(p->cells);
	memset(p, 0, sizeof(*p));
}
