/* The latency panel: rows of fslab run --latency carry per-operation
 * latency (p50, p99, max in microseconds); per test (but the queued ones,
 * per row in the CDM panel) and filesystem, over its ok cells: the median of the cells' p50, the worst cell's p99 (and
 * which cell), p99.9 and p99.99, and the largest max.  Decided once here (rp_latency_build),
 * rendered by the text, HTML and JSON reports. */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

struct rp_lat_row *rp_lat_row(const struct rp_summary *s, int t, size_t i)
{
	return &s->lat[(size_t)t * s->n + i];
}

/* Entry e in test t into l (NaN figures: l->has false without latency). */
static void lt_row(const struct rp_entry *e, enum fslab_test t, double *tmp, struct rp_lat_row *l)
{
	size_t m = 0;

	RP_FOR_CELLS(c, e, t) {
		if (!c->n_ok || isnan(c->lat[FSLAB_LAT_MAX]))
			continue;
		l->n_cells++;
		if (!isnan(c->lat[FSLAB_LAT_P50]))
			tmp[m++] = c->lat[FSLAB_LAT_P50];
		if (!isnan(c->lat[FSLAB_LAT_P99]) && !(c->lat[FSLAB_LAT_P99] <= l->lat[FSLAB_LAT_P99])) {
			l->p99_file_kib = c->file_kib;
			l->p99_record_kib = c->record_kib;
		}
		for (int q = FSLAB_LAT_P99; q < FSLAB_LAT_N; q++)
			if (!isnan(c->lat[q]) && !(c->lat[q] <= l->lat[q]))
				l->lat[q] = c->lat[q];
	}
	l->has = l->n_cells > 0;
	l->lat[FSLAB_LAT_P50] = m ? fslab_median_sort(tmp, m) : NAN;
}

int rp_latency_build(struct rp_summary *s, const struct rp_data *d, unsigned tests)
{
	size_t most = 1;
	bool any = false;

	for (size_t i = 0; i < d->n_all; i++) {
		any |= d->all[i]->latency;
		if (d->all[i]->n_cells > most)
			most = d->all[i]->n_cells;
	}
	if (!any)
		return 0;
	double *tmp = malloc(most * sizeof(double));
	s->lat = calloc((s->n ? s->n : 1) * FSLAB_TEST_MAX, sizeof(*s->lat));
	if (!tmp || !s->lat) {
		free(tmp);
		free(s->lat);
		s->lat = NULL;
		return -ENOMEM;
	}
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		for (size_t i = 0; i < s->n; i++) {
			struct rp_lat_row *l = rp_lat_row(s, t, i);

			*l = (struct rp_lat_row){ .lat = { NAN, NAN, NAN, NAN, NAN } };
			if ((tests & (1u << t)) && d->all[i]->latency && fslab_test_family(t) != FSLAB_FAMILY_QUEUED)
				lt_row(d->all[i], t, tmp, l);
			s->lat_tests |= l->has ? 1u << t : 0;
		}
	free(tmp);
	return 0;
}
