/* What each filesystem makes the drive do, from the rows' device columns
 * (lib/results.h): the write amplification of the write tests (device
 * bytes written / bytes the test wrote), the share of the read tests'
 * bytes the device read, the device bytes written per file created, per
 * test and per workload family; the passes that had not reached the
 * device; and where the page-cache flag (the counters) and the
 * beyond-device flag (the probe's bound) disagree (docs/report.md). */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The tests of a kind, by their names: "...write" and "...rewrite" write,
 * "...read" reads, files_create creates files. */
static unsigned dv_tests(const char *kind)
{
	unsigned m = 0;

	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		m |= strstr(fslab_test_to_string(t), kind) ? 1u << t : 0;
	return m;
}
#define DV_WRITES dv_tests("write")
#define DV_READS dv_tests("read")
#define DV_CREATE (1u << FSLAB_TEST_FILES_CREATE)

/* Entry e's figure over the tests ft: files created, else writes, else
 * reads.  sum: room for 2 * (e->max_trial + 1) values. */
static void dv_figure(const struct rp_entry *e, unsigned ft, double *sum, struct rp_dev_fig *f)
{
	int num = ft & (DV_CREATE | DV_WRITES) ? RP_DEV_WRITE : RP_DEV_READ;
	int den = ft & DV_CREATE ? RP_DEV_FILES : RP_DEV_IO;
	size_t nt = (size_t)e->max_trial + 1, m = 0;

	ft &= ft & DV_CREATE ? DV_CREATE : ft & DV_WRITES ? DV_WRITES : DV_READS;
	memset(f, 0, sizeof(*f));
	memset(sum, 0, 2 * nt * sizeof(*sum));
	RP_FOR_TESTS(t, ft) RP_FOR_CELLS(c, e, t) for (unsigned k = 0; k < c->n_ok; k++) {
		const struct rp_sample *sm = &e->samples[c->first + k];

		if (!(sm->dev[den] > 0) || isnan(sm->dev[num]))
			continue;
		sum[sm->trial] += sm->dev[num];
		sum[nt + sm->trial] += sm->dev[den];
		f->n_rows++;
		f->n_memory += !!(sm->flags & RP_FLAG_PAGE_CACHE);
	}
	for (size_t k = 0; k < nt; k++)
		if (sum[nt + k] > 0)
			sum[m++] = sum[k] / sum[nt + k];
	fslab_mean_ci95(sum, m, &f->mean, &f->ci);
	f->n_trials = m;
	f->kind = !m ? RP_DEVK_NONE : ft & DV_CREATE ? RP_DEVK_PER_FILE : ft & DV_WRITES ? RP_DEVK_WAF : RP_DEVK_READ;
}

/* Family f's passes that had not reached the device ("" none), and the
 * filesystems they were on. */
static void dv_memory_line(struct rp_dev *v, const struct rp_data *d, int f, unsigned ft, const size_t *rows,
			   const size_t *mem)
{
	char *b = v->memory[f];
	size_t len = sizeof(v->memory[f]);

	for (int w = 1; w >= 0; w--) {
		const char *sep = b[0] ? "; " : "";

		RP_FOR_TESTS(t, ft & (w ? DV_WRITES | DV_CREATE : DV_READS)) if (mem[t]) {
			fslab_catf(b, len, "%s%zu of %zu %s passes", sep, mem[t], rows[t], fslab_test_to_string(t));
			sep = ", ";
		}
		if (*sep != ',')
			continue;
		fslab_catf(b, len, "%s", w ? " had not reached the device by the end of their timed region"
				      : " were served from memory (the device read under 90% of what they returned)");
		sep = " (on ";
		for (size_t i = 0; i < d->n_all; i++) {
			bool on = false;

			RP_FOR_TESTS(t, ft & (w ? DV_WRITES | DV_CREATE : DV_READS))
				on |= v->test[(size_t)t * d->n_all + i].n_memory > 0;
			if (on) {
				fslab_catf(b, len, "%s%s", sep, d->all[i]->label);
				sep = ", ";
			}
		}
		fslab_catf(b, len, "%s", *sep == ',' ? ")" : "");
	}
}

int rp_dev_build(struct rp_summary *s, const struct rp_data *d, const unsigned fam[RP_N_FAMILIES])
{
	struct rp_dev *v = &s->dev;
	size_t rows[FSLAB_TEST_MAX] = { 0 }, mem[FSLAB_TEST_MAX] = { 0 };
	bool cols = false;

	v->test = calloc((s->n ? s->n : 1) * FSLAB_TEST_MAX, sizeof(*v->test));
	v->fam = calloc((s->n ? s->n : 1) * RP_N_FAMILIES, sizeof(*v->fam));
	if (!v->test || !v->fam)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];
		double *sum = malloc(2 * ((size_t)e->max_trial + 1) * sizeof(*sum));

		if (!sum)
			return -ENOMEM;
		cols |= e->device;
		for (size_t k = 0; k < e->n_samples; k++) {
			unsigned fl = e->samples[k].flags;

			if (isnan(e->samples[k].dev[RP_DEV_IO]))
				continue;
			v->n_rows++;
			if (!isnan(e->run->drive_written) && !isnan(e->samples[k].dev[RP_DEV_WRITE]))
				v->block_bytes += e->samples[k].dev[RP_DEV_WRITE];
			v->n_pc_only += (fl & RP_FLAG_PAGE_CACHE) && !(fl & RP_FLAG_BEYOND_DEVICE);
			v->n_beyond_only += (fl & RP_FLAG_BEYOND_DEVICE) && !(fl & RP_FLAG_PAGE_CACHE);
		}
		RP_FOR_TESTS(t, DV_WRITES | DV_READS | DV_CREATE) {
			struct rp_dev_fig *f = &v->test[(size_t)t * s->n + i];

			dv_figure(e, 1u << t, sum, f);
			rows[t] += f->n_rows;
			mem[t] += f->n_memory;
		}
		for (int f = 0; f < RP_N_FAMILIES; f++) {
			/* reread and freread read from memory by design: the
			 * share read from the device is the first reads' */
			dv_figure(e, fam[f] & ~dv_tests("reread"), sum, &v->fam[(size_t)f * s->n + i]);
			v->fam_any[f] |= v->fam[(size_t)f * s->n + i].kind != RP_DEVK_NONE;
		}
		free(sum);
	}
	v->empty = cols && !v->n_rows;
	for (size_t r = 0; r < d->n_runs; r++)
		if (!isnan(d->runs[r].drive_written))
			v->drive_bytes += d->runs[r].drive_written;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		dv_memory_line(v, d, f, fam[f], rows, mem);
	return 0;
}
