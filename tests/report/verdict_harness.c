/* fslab's verdict harness: synthetic experiments with a known truth run
 * through the real report code (synth.c), printing what the report's
 * verdicts are worth - the family-wise false alarm rate when every
 * filesystem is equal, the power to call a known slowdown, and how many
 * ranked cells show an interval that disagrees with their word (the goal
 * is none).  Not a test: scripts/bench-verdict.sh runs it; test_report_synth
 * is the quick check under ctest.
 *
 *   verdict_harness [--experiments N] [--seed S] [--tmp DIR]
 */
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long h_disagree, h_cells;

static int h_run(const char *name, const struct synth_cfg *c, unsigned n, uint64_t seed,
		 const char *tmp, struct synth_tally *t)
{
	memset(t, 0, sizeof(*t));
	int r = synth_run(c, n, seed, tmp, t);
	if (r < 0) {
		fprintf(stderr, "verdict_harness: %s failed (%d)\n", name, r);
		return r;
	}
	h_disagree += t->disagree;
	h_cells += t->cells;
	return 0;
}

static void h_null_line(const char *name, const struct synth_tally *t)
{
	printf("  %-44s %5lu  %6.2f%%  %7.3f%%  %5.1f%%  %5.1f%%  %6.2f%%\n", name, t->experiments,
	       100.0 * (double)t->fw_false / (double)t->experiments,
	       100.0 * (double)t->false_calls / (double)(t->null_cmp ? t->null_cmp : 1),
	       100.0 * (double)t->equivalent / (double)(t->null_cmp ? t->null_cmp : 1),
	       100.0 * t->resolve_sum / (double)(t->resolve_n ? t->resolve_n : 1),
	       100.0 * (double)t->band_false / (double)t->experiments);
}

/* One straight list of scenarios and their printed lines; longer than 80
 * lines because it reads as the table it prints. */
int main(int argc, char **argv)
{
	unsigned n = 1000;
	uint64_t seed = 20261201;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct synth_tally t;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--experiments") == 0 && i + 1 < argc)
			n = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--tmp") == 0 && i + 1 < argc)
			tmp = argv[++i];
		else {
			fprintf(stderr, "usage: verdict_harness [--experiments N] [--seed S] [--tmp DIR]\n");
			return 2;
		}
	}
	if (n == 0)
		n = 1;
	printf("fslab verdict harness: 5 filesystems x 13 tests, 4 plateau cells, seed %llu\n\n",
	       (unsigned long long)seed);
	printf("A/A (all five equal): experiments with any false slower/faster call (goal <= 5%%)\n");
	printf("  %-44s %5s  %7s  %8s  %6s  %6s  %7s\n", "scenario", "runs", "FWER", "per cmp", "equiv", "resolv",
	       "bands");
	static const struct {
		const char *name;
		struct synth_cfg c;
	} nulls[] = {
		{ "3 trials, CV 2%, normal",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02 } },
		{ "3 trials, CV 1-10% by test",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.01, .cv_hi = 0.10 } },
		{ "3 trials, CV 2%, t3 heavy tails",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .tails = SYNTH_T3 } },
		{ "3 trials, CV 2%, 5% trials at 0.7x",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .outlier_p = 0.05, .outlier = 0.7 } },
		{ "3 trials, CV 2%, shared drift 3%",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .drift = 0.03 } },
		{ "5 trials, CV 1-10% by test, t3",
		  { .n_fs = 5, .n_tests = 13, .trials = 5, .cv = 0.01, .cv_hi = 0.10, .tails = SYNTH_T3 } },
		{ "2 trials, CV 5%",
		  { .n_fs = 5, .n_tests = 13, .trials = 2, .cv = 0.05 } },
		{ "3 trials, CV 2-4% by test",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .cv_hi = 0.04 } },
		{ "3 trials, CV 2%, one filesystem 3x noisier",
		  { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .noisy = 3 } },
	};
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
		if (h_run(nulls[i].name, &nulls[i].c, n, seed + i, tmp, &t) < 0)
			return 1;
		h_null_line(nulls[i].name, &t);
	}
	printf("  (FWER: experiments with a false call; per cmp: of the comparisons with the best;\n"
	       "   equiv: called equivalent within 5%%; resolv: mean half-width of the intervals;\n"
	       "   bands: experiments with a false call on the by-file-size screen)\n\n");

	printf("Power: one filesystem slower in every test, its 13 comparisons with the best\n");
	printf("  %-12s %-10s %6s  %8s  %6s\n", "slowdown", "trial CV", "runs", "called", "FWER");
	struct synth_cfg pc = { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .n_slow = 1, .slowdown = 0.10 };
	if (h_run("power", &pc, n, seed + 100, tmp, &t) < 0)
		return 1;
	printf("  %-12s %-10s %6lu  %7.1f%%  %5.2f%%   <- goal >= 80%%\n", "10%", "2%", t.experiments,
	       100.0 * (double)t.slow_hits / (double)(t.slow_cmp ? t.slow_cmp : 1),
	       100.0 * (double)t.fw_false / (double)t.experiments);
	struct synth_cfg pd = { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = 0.02, .n_slow = 1,
				.slowdown = 0.10, .drift = 0.03 };
	if (h_run("power with drift", &pd, n, seed + 101, tmp, &t) < 0)
		return 1;
	printf("  %-12s %-10s %6lu  %7.1f%%  %5.2f%%   (plus a 3%% drift shared by all in a trial)\n",
	       "10%", "2%", t.experiments, 100.0 * (double)t.slow_hits / (double)(t.slow_cmp ? t.slow_cmp : 1),
	       100.0 * (double)t.fw_false / (double)t.experiments);
	struct synth_cfg pb = { .n_fs = 2, .n_tests = 13, .trials = 3, .cv = 0.02, .n_slow = 1, .slowdown = 0.10 };
	if (h_run("bands power", &pb, n, seed + 102, tmp, &t) < 0)
		return 1;
	printf("  %-12s %-10s %6lu  %7.1f%%  %5.2f%%   (by file size: the leader of 2 called faster)\n",
	       "10%", "2%", t.experiments, 100.0 * (double)t.band_calls / (double)(t.band_verdicts ? t.band_verdicts : 1),
	       100.0 * (double)t.band_false / (double)t.experiments);
	static const double slows[] = { 0.05, 0.10, 0.20 }, cvs[] = { 0.01, 0.02, 0.05 };
	unsigned nc = n / 3 ? n / 3 : 1;
	printf("\nPower curve (3 trials, %u experiments each): share of the slower filesystem's\n"
	       "comparisons called slower\n", nc);
	printf("  %-10s", "CV \\ slow");
	for (size_t s = 0; s < 3; s++)
		printf("  %6.0f%%", 100 * slows[s]);
	printf("\n");
	for (size_t v = 0; v < 3; v++) {
		printf("  %-10.0f", 100 * cvs[v]);
		for (size_t s = 0; s < 3; s++) {
			struct synth_cfg c = { .n_fs = 5, .n_tests = 13, .trials = 3, .cv = cvs[v], .n_slow = 1, .slowdown = slows[s] };
			if (h_run("curve", &c, nc, seed + 200 + 10 * v + s, tmp, &t) < 0)
				return 1;
			printf("  %6.1f%%", 100.0 * (double)t.slow_hits / (double)(t.slow_cmp ? t.slow_cmp : 1));
		}
		printf("   (CV %.0f%%)\n", 100 * cvs[v]);
	}
	printf("\nRanked cells whose shown interval and verdict disagree (numeric, printed, text\n"
	       "matrix), every experiment above: %lu of %lu   <- goal 0\n",
	       h_disagree, h_cells);
	return h_disagree ? 1 : 0;
}
