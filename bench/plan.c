#include "plan.h"
#include "run.h"
#include "size.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void fslab_sweep_preset_values(enum fslab_preset p, struct fslab_sweep_spec *s)
{
	fslab_sweep_defaults(s); /* the seed preset */
	if (p == FSLAB_PRESET_QUICK || p == FSLAB_PRESET_LAB)
		s->file_max = 64 * FSLAB_MiB;
	if (p == FSLAB_PRESET_LAB) {
		s->cache = FSLAB_CACHE_COLD;
		s->trials = FSLAB_DEFAULT_MIN_TRIALS;
	}
}

int fslab_sweep_preset(const char *name, struct fslab_sweep_spec *s)
{
	int p = name ? fslab_setting_word_index(FSLAB_SETTING_PRESET, name) : FSLAB_PRESET_SEED;

	if (p < 0)
		return -EINVAL;
	fslab_sweep_preset_values((enum fslab_preset)p, s);
	return 0;
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

/* The next size of a doubling sequence up to max: false once doubling
 * would pass max (or wrap: a max near 2^64, read from a damaged manifest,
 * must end the walk, not spin on a value that overflowed to 0). */
static bool plan_double(uint64_t *v, uint64_t max)
{
	if (*v > max / 2)
		return false;
	*v *= 2;
	return true;
}

/* Walks the grid in plan order; stores the cells in cells (when not NULL)
 * and returns how many there are. */
static size_t plan_walk(const struct fslab_sweep_spec *s, struct fslab_sweep_cell *cells)
{
	size_t n = 0;
	uint64_t f = s->file_min;

	do {
		uint64_t r = s->record_min;

		do {
			if (!plan_keep(s, f, r))
				continue;
			if (cells)
				cells[n] = (struct fslab_sweep_cell){ .file_bytes = f, .record_bytes = r };
			n++;
		} while (plan_double(&r, s->record_max));
	} while (plan_double(&f, s->file_max));
	return n;
}

int fslab_plan_build(const struct fslab_sweep_spec *s, struct fslab_plan *p)
{
	size_t n;

	memset(p, 0, sizeof(*p));
	if (!s->file_min || !s->record_min || s->file_min > s->file_max ||
	    s->record_min > s->record_max)
		return -EINVAL;
	n = plan_walk(s, NULL);
	if (n == 0)
		return -EINVAL;
	p->cells = calloc(n, sizeof(*p->cells));
	if (!p->cells)
		return -ENOMEM;
	p->n = plan_walk(s, p->cells);
	return 0;
}

void fslab_plan_free(struct fslab_plan *p)
{
	free(p->cells);
	memset(p, 0, sizeof(*p));
}
