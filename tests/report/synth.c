/* Synthetic experiments through the real report code (synth.h).
 *
 * One experiment: n_fs filesystems, n_tests tests, each test's plateau
 * four cells (1 GiB and 2 GiB files at 64 KiB and 1 MiB records), each
 * measured in every trial.  A cell's throughput is
 *   base(test) x profile(cell) x truth(fs) x exp(trial noise + drift +
 *   cell noise) [x outlier]
 * where the trial noise (per filesystem, test and trial) has the test's
 * CV, the drift (per test and trial, shared by every filesystem) models a
 * machine that is slower in one trial for everybody, and the cell noise
 * (0.3 x the CV) the scatter within a trial.  The directory is written as
 * fslab run writes it (the results CSV columns), loaded with rp_load and
 * summarised with rp_summary_build. */
#include "synth.h"

#include "view.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SY_MAX_FS 8
#define SY_CELLS 4

static const char *const sy_names[SY_MAX_FS] = { "alpha", "bravo", "charlie", "delta",
						 "echo", "foxtrot", "golf", "hotel" };

/* xorshift64*: small, fast, reproducible from the seed */
static double sy_uniform(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double sy_normal(uint64_t *s)
{
	double u = sy_uniform(s), v = sy_uniform(s);

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* a draw with standard deviation 1 */
static double sy_noise(uint64_t *s, enum synth_tails tails)
{
	if (tails == SYNTH_NORMAL)
		return sy_normal(s);
	double z = sy_normal(s), chi = 0;
	for (int i = 0; i < 3; i++) {
		double g = sy_normal(s);
		chi += g * g;
	}
	return z / sqrt(chi / 3) / sqrt(3.0); /* t3 has variance 3 */
}

/* Writes one experiment into dir. */
static int sy_write(const struct synth_cfg *c, const char *dir, uint64_t *rng)
{
	static const uint64_t files[2] = { 1048576, 2097152 }, recs[2] = { 64, 1024 };
	double cv[FSLAB_TEST_MAX], drift[FSLAB_TEST_MAX][64];

	for (unsigned t = 0; t < c->n_tests; t++) {
		cv[t] = c->cv_hi > c->cv ? c->cv * exp(sy_uniform(rng) * log(c->cv_hi / c->cv)) : c->cv;
		for (unsigned k = 0; k < c->trials && k < 64; k++)
			drift[t][k] = c->drift * sy_normal(rng);
	}
	for (unsigned f = 0; f < c->n_fs; f++) {
		char path[4200];
		FILE *out;

		snprintf(path, sizeof(path), "%.4095s/%s.csv", dir, sy_names[f]);
		out = fopen(path, "w");
		if (!out) {
			fprintf(stderr, "synth: %s: %s\n", path, strerror(errno));
			return -errno;
		}
		fputs("filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,"
		      "cache_mode,status,flag\n",
		      out);
		double truth = f >= c->n_fs - c->n_slow ? 1 - c->slowdown : 1;
		for (unsigned t = 0; t < c->n_tests; t++)
			for (unsigned k = 0; k < c->trials; k++) {
				double scale = f == 0 && c->noisy > 1 ? c->noisy : 1;
				double trial = scale * cv[t] * sy_noise(rng, c->tails) + drift[t][k < 64 ? k : 63];
				double hiccup = sy_uniform(rng) < c->outlier_p ? c->outlier : 1;

				for (unsigned cell = 0; cell < SY_CELLS; cell++) {
					double v = 512000.0 * (1 + 0.2 * t) * (1 + 0.1 * cell) * truth * hiccup *
						   exp(trial + 0.3 * cv[t] * sy_normal(rng));

					fprintf(out, "%s,%s,%llu,%llu,%u,%.1f,1.0,cold,ok,\n", sy_names[f],
						fslab_test_to_string((enum fslab_test)t),
						(unsigned long long)files[cell / 2],
						(unsigned long long)recs[cell % 2], k + 1, v);
				}
			}
		if (fclose(out) != 0) {
			fprintf(stderr, "synth: %s: %s\n", path, strerror(errno));
			return -EIO;
		}
	}
	return 0;
}

/* Does the verdict agree with interval [lo, hi] (margin delta)? */
static bool sy_agrees(enum rp_dir dir, double lo, double hi, double delta)
{
	switch (dir) {
	case RP_DIR_SLOWER:
		return hi < 1;
	case RP_DIR_FASTER:
		return lo > 1;
	case RP_DIR_EQUIVALENT:
		return lo <= 1 && hi >= 1 && lo >= 1 - delta && hi <= 1 + delta;
	case RP_DIR_INCONCLUSIVE:
		return lo <= 1 && hi >= 1 && (lo < 1 - delta || hi > 1 + delta);
	case RP_DIR_UNTESTED:
		return isnan(lo) && isnan(hi);
	default:
		return false;
	}
}

/* The cell as printed ("0.91 [0.85-0.97] <" in the text matrix): its
 * bounds against its mark.  Returns the disagreements on the text
 * matrix's lines. */
static unsigned long sy_text_disagreements(const struct rp_data *d, unsigned long *cells)
{
	char *text = NULL, *p, *end;
	size_t len = 0;
	unsigned long bad = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return 1;
	rp_text_summary(f, d);
	fclose(f);
	p = strstr(text, "== summary");
	end = p ? strstr(p, "\nbest = ") : NULL;
	for (; p && end && (p = strchr(p, '[')) && p < end; p++) {
		double lo, hi;
		char mark = 0;
		int used = 0;

		if (sscanf(p, "[%lf-%lf]%n", &lo, &hi, &used) != 2)
			continue;
		if (p[used] == ' ')
			mark = p[used + 1];
		(*cells)++;
		if ((mark == '<' && !(hi < 1)) || (mark == '>' && !(lo > 1)) ||
		    (mark == '=' && !(lo >= 1 - d->sum->delta && hi <= 1 + d->sum->delta && lo <= 1 && hi >= 1)) ||
		    (mark == '?' && !(lo <= 1 && hi >= 1)) || (hi < 1 && mark != '<') ||
		    (lo > 1 && mark != '>')) {
			bad++;
			if (getenv("SYNTH_DEBUG"))
				fprintf(stderr, "text: %.40s\n", p - 6);
		}
	}
	free(text);
	return bad;
}

/* Scores one summarised experiment against the truth. */
static void sy_score(const struct synth_cfg *c, const struct rp_data *d, struct synth_tally *t)
{
	const struct rp_summary *s = d->sum;
	bool any_false = false;
	unsigned long text_cells = 0;

	for (unsigned test = 0; test < c->n_tests; test++) {
		size_t b = s->best[test];

		if (b == SIZE_MAX)
			continue;
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_mcell *m = rp_sum_cell(s, (int)test, i);
			char buf[64], lo[32], hi[32];

			if (!m->has || i == b)
				continue;
			t->cells++;
			size_t fi = 0;
			while (fi < c->n_fs && strcmp(sy_names[fi], d->all[i]->fs) != 0)
				fi++;
			size_t fb = 0;
			while (fb < c->n_fs && strcmp(sy_names[fb], d->all[b]->fs) != 0)
				fb++;
			bool slow_i = fi >= c->n_fs - c->n_slow, slow_b = fb >= c->n_fs - c->n_slow;
			if (!sy_agrees(m->cmp.dir, m->cmp.lo, m->cmp.hi, s->delta)) {
				t->disagree++;
				if (getenv("SYNTH_DEBUG"))
					fprintf(stderr, "numeric: %s %g [%g %g]\n", rp_dir_word(m->cmp.dir), m->cmp.ratio, m->cmp.lo, m->cmp.hi);
			}
			rp_fmt_ratio_ci(&m->cmp, "-", buf, sizeof(buf));
			if (m->cmp.tested && sscanf(buf, "%*f [%31[0-9.]-%31[0-9.]]", lo, hi) == 2 &&
			    !sy_agrees(m->cmp.dir, strtod(lo, NULL), strtod(hi, NULL), s->delta)) {
				t->disagree++;
				if (getenv("SYNTH_DEBUG"))
					fprintf(stderr, "printed: %s %s\n", rp_dir_word(m->cmp.dir), buf);
			}
			if (m->cmp.tested) {
				t->resolve_sum += m->cmp.resolve;
				t->resolve_n++;
			}
			bool called = m->cmp.dir == RP_DIR_SLOWER || m->cmp.dir == RP_DIR_FASTER;
			if (slow_i == slow_b) {
				t->null_cmp++;
				t->false_calls += called;
				t->equivalent += m->cmp.dir == RP_DIR_EQUIVALENT;
				any_false |= called;
			} else if (slow_i) {
				t->slow_cmp++;
				t->slow_hits += m->cmp.dir == RP_DIR_SLOWER;
				any_false |= m->cmp.dir == RP_DIR_FASTER;
			} else {
				any_false |= m->cmp.dir == RP_DIR_SLOWER; /* the wrong way round */
			}
		}
	}
	/* the by-file-size screen: the leader called faster than an equal
	 * next best, or a slower one called faster than an equal one */
	bool band_false = false;
	for (int f = 0; f < RP_N_FAMILIES; f++)
		for (int b = 0; b < RP_N_BANDS; b++) {
			const struct rp_band_verdict *v = &s->bands.v[f][b];
			size_t fl = 0, fn = 0;

			if (!v->next)
				continue;
			while (fl < c->n_fs && strcmp(sy_names[fl], v->lead->fs) != 0)
				fl++;
			while (fn < c->n_fs && strcmp(sy_names[fn], v->next->fs) != 0)
				fn++;
			bool slow_l = fl >= c->n_fs - c->n_slow, slow_n = fn >= c->n_fs - c->n_slow;
			t->band_verdicts++;
			t->band_calls += v->cmp.dir == RP_DIR_FASTER;
			band_false |= v->cmp.dir == RP_DIR_FASTER && (slow_l || !slow_n);
			t->disagree += !sy_agrees(v->cmp.dir, v->cmp.lo, v->cmp.hi, s->delta);
		}
	t->band_false += band_false;
	t->disagree += sy_text_disagreements(d, &text_cells);
	t->fw_false += any_false;
	t->experiments++;
}

int synth_run(const struct synth_cfg *cfg, unsigned n, uint64_t seed, const char *tmp,
	      struct synth_tally *t)
{
	uint64_t rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	char dir[4096];
	int r = 0;

	if (cfg->n_fs > SY_MAX_FS || cfg->n_tests > FSLAB_TEST_MAX || cfg->n_slow > cfg->n_fs)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/fslab-synth-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "synth: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	for (unsigned e = 0; e < n && r == 0; e++) {
		const char *dirs[] = { dir };
		struct rp_data *d = calloc(1, sizeof(*d));

		if (!d) {
			r = -ENOMEM;
			break;
		}
		r = sy_write(cfg, dir, &rng);
		if (r == 0)
			r = rp_load(d, dirs, 1, NULL);
		if (r == 0)
			r = rp_summary_build(d, FSLAB_TESTS_ALL, RP_EQUIVALENCE_DEFAULT);
		if (r == 0)
			sy_score(cfg, d, t);
		rp_summary_free(d->sum);
		d->sum = NULL;
		rp_free(d);
		free(d);
	}
	for (unsigned f = 0; f < cfg->n_fs; f++) {
		char p[4200];
		snprintf(p, sizeof(p), "%.4095s/%s.csv", dir, sy_names[f]);
		unlink(p);
	}
	rmdir(dir);
	return r;
}
