/* The latency panel: rows of fslab run --latency carry per-operation
 * latency (p50, p99, max in microseconds); per test and filesystem, over
 * its ok cells: the median of the cells' p50, the worst cell's p99 (and
 * which cell) and the largest max.  Decided once here (rp_latency_build),
 * rendered by the text, HTML and JSON reports. */
#include "view.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

struct rp_lat_row *rp_lat_row(const struct rp_summary *s, int t, size_t i)
{
	return &s->lat[(size_t)t * s->n + i];
}

/* Entry e in test t into l (l->has false without latency). */
static void lt_row(const struct rp_entry *e, enum fslab_test t, double *tmp, struct rp_lat_row *l)
{
	size_t m = 0;

	*l = (struct rp_lat_row){ .p50 = NAN, .p99 = NAN, .max = NAN };
	for (size_t k = e->test_first[t]; k < e->test_first[t + 1]; k++) {
		const struct rp_cell *c = &e->cells[k];

		if (!c->n_ok || (isnan(c->lat_p50) && isnan(c->lat_p99) && isnan(c->lat_max)))
			continue;
		l->n_cells++;
		if (!isnan(c->lat_p50))
			tmp[m++] = c->lat_p50;
		if (!isnan(c->lat_p99) && !(c->lat_p99 <= l->p99)) {
			l->p99 = c->lat_p99;
			l->p99_file_kib = c->file_kib;
			l->p99_record_kib = c->record_kib;
		}
		if (!isnan(c->lat_max) && !(c->lat_max <= l->max))
			l->max = c->lat_max;
	}
	l->has = l->n_cells > 0;
	l->p50 = m ? fslab_median_sort(tmp, m) : NAN;
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

			if (!(tests & (1u << t)) || !d->all[i]->latency) {
				*l = (struct rp_lat_row){ .p50 = NAN, .p99 = NAN, .max = NAN };
				continue;
			}
			lt_row(d->all[i], t, tmp, l);
			if (l->has)
				s->lat_tests |= 1u << t;
		}
	free(tmp);
	return 0;
}

/* "12.5", "1340", "-" */
static char *lt_us(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, v < 100 ? "%.1f" : "%.0f", v);
	return buf;
}

int rp_latency_text(FILE *out, const struct rp_data *d)
{
	static const char *const heads[] = { "test", "filesystem", "cells", "p50 median",
					     "p99 worst", "(cell)", "max" };
	const struct rp_summary *s = d->sum;
	struct fslab_table *tb;
	int rc;

	if (!s->lat_tests)
		return 0;
	fputs("\n== latency per operation (fslab run --latency), microseconds ==\n", out);
	if (!(tb = fslab_table_new(2)))
		return -ENOMEM;
	for (size_t c = 0; c < sizeof(heads) / sizeof(heads[0]); c++)
		fslab_table_column(tb, heads[c], c < 2 || c == 5 ? FSLAB_TABLE_LEFT : FSLAB_TABLE_RIGHT);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		for (size_t i = 0; (s->lat_tests & (1u << t)) && i < s->n; i++) {
			const struct rp_lat_row *l = rp_lat_row(s, t, i);
			char a[24], f[16], r[16];

			if (!l->has)
				continue;
			fslab_table_row(tb);
			fslab_table_cell(tb, 0, fslab_test_to_string(t));
			fslab_table_cell(tb, 1, d->all[i]->label);
			fslab_table_cellf(tb, 2, "%zu", l->n_cells);
			fslab_table_cell(tb, 3, lt_us(l->p50, a, sizeof(a)));
			fslab_table_cell(tb, 4, lt_us(l->p99, a, sizeof(a)));
			if (!isnan(l->p99))
				fslab_table_cellf(tb, 5, "%s/%s", rp_fmt_size(l->p99_file_kib, f, sizeof(f)),
						  rp_fmt_size(l->p99_record_kib, r, sizeof(r)));
			fslab_table_cell(tb, 6, lt_us(l->max, a, sizeof(a)));
		}
	rc = fslab_table_print(tb, out);
	fslab_table_free(tb);
	if (rc < 0)
		return rc;
	fputs("p50 median: the median of the cells' p50 (each the median over its trials); p99\n"
	      "worst: the largest cell p99, at that file/record size; max: the largest seen.\n",
	      out);
	return 0;
}

void rp_latency_html(FILE *out, const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;

	if (!s->lat_tests)
		return;
	fputs("<section id=\"latency\"><h2>Latency per operation</h2>\n<p>From <code>fslab run "
	      "--latency</code>, in microseconds: per test and filesystem, the median of its cells' "
	      "p50, the largest cell p99 (at that file/record size) and the largest maximum.</p>\n"
	      "<div class=scroll><table><tr><th class=l>test</th><th class=l>filesystem</th>"
	      "<th>cells</th><th>p50 median</th><th>p99 worst</th><th class=l>cell</th><th>max</th></tr>\n",
	      out);
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		for (size_t i = 0; (s->lat_tests & (1u << t)) && i < s->n; i++) {
			const struct rp_lat_row *l = rp_lat_row(s, t, i);
			char a[24], b[24], c[24], f[16], r[16];

			if (!l->has)
				continue;
			fprintf(out, "<tr><td class=l>%s</td><td class=l>", fslab_test_to_string(t));
			rp_html_escape(out, d->all[i]->label);
			fprintf(out, "</td><td>%zu</td><td>%s</td><td>%s</td><td class=l>", l->n_cells,
				lt_us(l->p50, a, sizeof(a)), lt_us(l->p99, b, sizeof(b)));
			if (!isnan(l->p99))
				fprintf(out, "%s/%s", rp_fmt_size(l->p99_file_kib, f, sizeof(f)),
					rp_fmt_size(l->p99_record_kib, r, sizeof(r)));
			fprintf(out, "</td><td>%s</td></tr>\n", lt_us(l->max, c, sizeof(c)));
		}
	fputs("</table></div></section>\n", out);
}

static json_object *lt_num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

json_object *rp_latency_json(const struct rp_data *d)
{
	const struct rp_summary *s = d->sum;
	json_object *o;

	if (!s->lat_tests)
		return NULL;
	o = json_object_new_object();
	for (int t = 0; t < FSLAB_TEST_MAX; t++) {
		json_object *a;

		if (!(s->lat_tests & (1u << t)))
			continue;
		a = json_object_new_array();
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_lat_row *l = rp_lat_row(s, t, i);
			json_object *x;

			if (!l->has)
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "label", json_object_new_string(d->all[i]->label));
			json_object_object_add(x, "cells", json_object_new_int((int)l->n_cells));
			json_object_object_add(x, "p50_us_median", lt_num(l->p50));
			json_object_object_add(x, "p99_us_worst", lt_num(l->p99));
			if (!isnan(l->p99)) {
				json_object *c = json_object_new_object();
				json_object_object_add(c, "file_kib", json_object_new_int64((int64_t)l->p99_file_kib));
				json_object_object_add(c, "record_kib",
						       json_object_new_int64((int64_t)l->p99_record_kib));
				json_object_object_add(x, "p99_worst_cell", c);
			}
			json_object_object_add(x, "max_us", lt_num(l->max));
			json_object_array_add(a, x);
		}
		json_object_object_add(o, fslab_test_to_string(t), a);
	}
	return o;
}
