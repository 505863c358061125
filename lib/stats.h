/* Statistics every module shares: the median, Student's t distribution (its
 * two-sided tail and the 95% quantile), the 95% confidence interval of a
 * mean, and the page-cache factor.  fslab run's --until-ci stopping rule and the report's
 * interval bars both come from fslab_mean_ci95, so a run never stops on an
 * interval the report then shows as wider. */
#ifndef FSLAB_LIB_STATS_H
#define FSLAB_LIB_STATS_H

#include <stddef.h>

/* The comparison of two scores on the log scale (the report's verdicts,
 * report/infer.c; docs/report.md "Verdicts and their intervals"). */

/* log s2 - digamma(df/2) + log(df/2) for a variance s2 estimated on df
 * degrees of freedom: its mean is the log of the true variance, its
 * variance trigamma(df/2) (Smyth 2004, section 6.2). */
double fslab_log_var_centred(double s2, double df);

/* Welch-Satterthwaite: the variance a + b of the difference of two
 * independent estimates, a on dfa and b on dfb degrees of freedom (an
 * infinite df: a known variance), and its degrees of freedom (INFINITY
 * when neither term carries any). */
void fslab_welch(double a, double dfa, double b, double dfb, double *var, double *df);

/* The degrees of freedom of a variance on df scaled by a factor whose log
 * is known only to variance fvar (a chi-square variance on df has log
 * variance about 2 / df): 2 / (2 / df + fvar); df when fvar is 0. */
double fslab_df_scaled(double df, double fvar);

/* The test of a difference dl of two mean log scores with standard error
 * se on df degrees of freedom, at two-sided level alpha: the ratio's
 * interval (fslab_log_ratio_interval) and the two-sided p.  With se 0 (no
 * noise at all, so any difference is real) the point exp(dl), p 1 when dl
 * is 0 and 0 otherwise. */
void fslab_log_ratio_test(double dl, double se, double df, double alpha, double *lo, double *hi,
			  double *p);

/* A cell faster than this many times the device's upper bound (the fastest
 * O_DIRECT probe) is flagged page-cache: the device could not have done it.
 * The _TEXT spelling is for messages and help text (a string literal, so it
 * can be pasted into one); a unit test checks the two agree. */
#define FSLAB_PAGE_CACHE_FACTOR 1.5
#define FSLAB_PAGE_CACHE_FACTOR_TEXT "1.5"

/* P(|T| >= t) for Student's t with df degrees of freedom (df > 0, not
 * necessarily whole: Welch's test uses fractional df).  NaN when df <= 0. */
double fslab_t_two_sided_p(double t, double df);

/* The two-sided quantile of Student's t: the x >= 0 with
 * P(|T| >= x) = p, for 0 < p < 1 and df > 0 (df = INFINITY: the normal
 * distribution).  NaN outside those ranges.  Accurate to better than
 * 1e-6; p = 0.05 is the 95% quantile. */
double fslab_t_quantile(double p, double df);

/* The digamma and trigamma functions (the first and second derivatives of
 * lgamma), x > 0; NaN otherwise. */
double fslab_digamma(double x);
double fslab_trigamma(double x);

/* An empirical-Bayes prior for n variances: s2[i] estimated with df[i]
 * degrees of freedom, each drawn from a scaled inverse chi-square with
 * *d0 degrees of freedom and scale *s02 (Smyth 2004, "Linear models and
 * empirical Bayes methods for assessing differential expression", SAGMB
 * 3(1), section 6.2: moments of log s2).  z > 0 takes the variances'
 * scatter z standard errors above its estimate (a smaller d0: a prior
 * trusted only as far as the data support it); z = 0 is Smyth's.  Entries
 * with s2 <= 0, a non-finite s2 or df < 1 are left out.  *d0 is 0 (no
 * prior) with fewer than 3 usable entries, INFINITY when the variances
 * scatter no more than their own sampling noise; each variance is then
 * moderated to (d0 s02 + df s2) / (d0 + df) on d0 + df degrees of
 * freedom. */
void fslab_var_prior(const double *s2, const double *df, size_t n, double z, double *d0,
		     double *s02);

/* Mean and sample standard deviation (n - 1 in the denominator) of n
 * samples: *mean is NaN when n == 0, *sd NaN when n < 2. */
void fslab_mean_sd(const double *x, size_t n, double *mean, double *sd);

/* Mean of n samples and the half-width of its two-sided 95% confidence
 * interval (Student's t, sample standard deviation).  *mean is NaN when
 * n == 0; *half is NaN when n < 2.  Either pointer may be NULL. */
void fslab_mean_ci95(const double *x, size_t n, double *mean, double *half);

/* What an interval [lo, hi] of a ratio x / y says, with the equivalence
 * margin delta (0.05: +-5%): slower when it lies below 1, faster above 1,
 * equivalent inside [1 - delta, 1 + delta], else inconclusive; untested
 * when either bound is NaN.  The report's words (report/infer.c) and fslab
 * run's stopping rule (bench/run_stop.c) both read intervals with it. */
enum fslab_ratio_word {
	FSLAB_RATIO_UNTESTED,
	FSLAB_RATIO_SLOWER,
	FSLAB_RATIO_FASTER,
	FSLAB_RATIO_EQUIVALENT,
	FSLAB_RATIO_INCONCLUSIVE,
};
enum fslab_ratio_word fslab_ratio_word_of(double lo, double hi, double delta);

/* The equivalence margin of fslab report's verdicts and of fslab run's
 * stopping rule (a fraction: +-5%), and their error rate per family of
 * comparisons. */
#define FSLAB_EQUIVALENCE_DEFAULT 0.05
#define FSLAB_FAMILY_ALPHA 0.05

/* The interval of a ratio from the difference dl of two mean log scores,
 * its standard error se and degrees of freedom df, at two-sided level p
 * (Student's t): [exp(dl - t se), exp(dl + t se)]; with se 0 the point
 * exp(dl).  *lo and *hi are NaN when se or df cannot give one. */
void fslab_log_ratio_interval(double dl, double se, double df, double p, double *lo, double *hi);

/* The two-way residual sum of squares of an ne x nk table y (row-major:
 * ne entries, e.g. filesystems, measured in the same nk blocks, e.g.
 * trials): sum of (y[e][k] - mean_e - mean_k + mean)^2, on
 * (ne - 1)(nk - 1) degrees of freedom.  The trials as blocks: an effect a
 * trial has on every entry is not counted as noise (report/infer.c pools
 * the same residuals).  row_ss (may be NULL) gets each entry's share.
 * NaN when ne < 2 or nk < 2. */
double fslab_twoway_resid_ss(const double *y, size_t ne, size_t nk, double *row_ss);

/* The median of n samples (the mean of the middle two when n is even);
 * sorts v in place.  NaN when n == 0. */
double fslab_median_sort(double *v, size_t n);

/* ---- trials: the stopping rule's statistics ---- */

#include <stdbool.h>
#include <stdint.h>

/* --until-ci's stopping rule: true when n >= 2 and the half-width of the
 * 95% interval (fslab_mean_ci95, the one the report draws) is at most
 * pct/100 * mean. */
bool fslab_ci_within(const double *x, size_t n, double pct);

/* A cell took more than FSLAB_DISTURBED_FACTOR x the median of its trials:
 * its timing was disturbed (the machine, not the filesystem), so it is
 * redone rather than kept. */
#define FSLAB_DISTURBED_FACTOR 10.0

/* Latency histogram of one timed pass: log-linear buckets (16 per power
 * of two, so a bucket is at most 6.25% wide), fixed size, no allocation.  The
 * timed loop only reads the clock and increments a bucket.  Values are in
 * the caller's clock units (the engine uses time-stamp counter ticks and
 * converts the quantiles to time once, after the pass). */
#define FSLAB_LAT_SUB_BITS 4
#define FSLAB_LAT_BUCKETS (64 << FSLAB_LAT_SUB_BITS)

struct fslab_lat_hist {
	uint64_t count;
	uint64_t max_ns; /* the largest value added (clock units, named for ns) */
	uint32_t bucket[FSLAB_LAT_BUCKETS];
};

/* Bucket of a latency in nanoseconds: values below 16 ns have their own
 * bucket each; above, the power of two and the 4 bits below the top one
 * (a bucket's upper edge at most 6.25% above its values). */
static inline unsigned fslab_lat_bucket(uint64_t ns)
{
	unsigned top;

	if (ns < (1u << FSLAB_LAT_SUB_BITS))
		return (unsigned)ns;
	top = 63u - (unsigned)__builtin_clzll(ns);
	return ((top - FSLAB_LAT_SUB_BITS + 1) << FSLAB_LAT_SUB_BITS) |
	       (unsigned)((ns >> (top - FSLAB_LAT_SUB_BITS)) & ((1u << FSLAB_LAT_SUB_BITS) - 1));
}

static inline void fslab_lat_add(struct fslab_lat_hist *h, uint64_t ns)
{
	h->bucket[fslab_lat_bucket(ns)]++;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
}

/* The smallest and largest latency a bucket holds. */
void fslab_lat_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

/* The q quantile (0 < q <= 1) in the values' units: the upper edge of the bucket
 * that holds it (capped at the maximum seen), so it overstates by less than
 * one bucket (12.5%).  0 when the histogram is empty. */
uint64_t fslab_lat_quantile(const struct fslab_lat_hist *h, double q);

/* A pass's latency figures, the CSV's order (lib/results.h): p50, p99,
 * p99.9, p99.99 (fslab_lat_quantile) and max, in the values' units.
 * p99.9 needs 1,000 values and p99.99 10,000: with fewer they are -1. */
enum { FSLAB_LAT_P50, FSLAB_LAT_P99, FSLAB_LAT_P999, FSLAB_LAT_P9999, FSLAB_LAT_MAX, FSLAB_LAT_N };
void fslab_lat_quantiles(const struct fslab_lat_hist *h, double out[FSLAB_LAT_N]);

/* The decided stopping rule's judgement of one test from its trials
 * (fslab run --stop decided, docs/run.md "When the run stops"): pure
 * functions of the numbers given, the report's inference on one cell
 * (log scores, trials as blocks, Student's t intervals of the ratios, the
 * report's words) at the level of a look of a group-sequential design
 * (Lan-DeMets Pocock-type spending over the looks the cap allows,
 * Bonferroni over the test's pairs), with non-binding futility.
 *
 * Why a test of a cell stopped getting trials (include/fslab/run.h has the
 * manifest's words). */
enum fslab_stop_why {
	FSLAB_STOP_OPEN,        /* "open": still getting trials */
	FSLAB_STOP_DECIDED,     /* "decided": every comparison decided */
	FSLAB_STOP_UNDECIDABLE, /* "undecidable": the rest cannot be decided by the cap */
	FSLAB_STOP_MAX_TRIALS,  /* "max_trials": the cap came first */
	FSLAB_STOP_NO_DATA,     /* "no_data": no filesystem measured it (failed or skipped) */
	FSLAB_STOP_WHY_MAX,
};

/* The futility threshold of the decided rule: a comparison whose chance
 * of being decided at a look still to come (its conditional power on the
 * present estimate) is below this is undecidable. */
#define FSLAB_STOP_FUTILITY 0.2
/* The band look's target (bench/run_stop.c): a band of file sizes stays
 * open while a pair's interval over it, at the first screen's level,
 * would resolve only differences beyond this. */
#define FSLAB_STOP_BAND_RESOLVE 0.10
/* The tests' own rule looks up to this many trials (or up to the cap when
 * it is lower: --max-trials).  Past it only the band look keeps a test
 * going, up to the cap, and a trial past it starts only while the run so
 * far and the trial before it fit in FSLAB_STOP_BAND_BUDGET_S (the help
 * texts and docs say 45 minutes). */
#define FSLAB_STOP_CELL_CAP 8
#define FSLAB_STOP_BAND_BUDGET_S (45 * 60)
/* Looks the futility judgement weighs at most (evenly spaced up to the
 * cap when more are left). */
#define FSLAB_STOP_LOOKS_MAX 32

struct fslab_stop_params {
	double alpha;          /* family-wise error over the looks (FSLAB_FAMILY_ALPHA) */
	double delta;          /* equivalence margin (FSLAB_EQUIVALENCE_DEFAULT) */
	double futility;       /* conditional power below which: undecidable (FSLAB_STOP_FUTILITY) */
	unsigned min_trials;   /* the first look, >= 2 */
	unsigned max_trials;   /* the cap (the last look), >= min_trials */
};

/* The error spent at the look after n trials: the spending function's
 * growth from the look before (all of it up to min_trials at the first
 * look); 0 outside min_trials..max_trials. */
double fslab_stop_look_alpha(const struct fslab_stop_params *p, unsigned n);

/* What the judgement of one test found. */
struct fslab_stop_tally {
	enum fslab_stop_why why;
	unsigned pairs;       /* comparisons judged */
	unsigned decided;     /* of them: slower, faster or equivalent */
	unsigned undecidable; /* of them: not decided and not decidable by the cap */
	unsigned wrong_way;   /* of the decided: slower or faster (for tests) */
};

/* Judges one test from y, ne filesystems x nk trials of log scores
 * (row-major; only trials every one of them measured).  words (may be
 * NULL) holds each pair's word (enum fslab_ratio_word, pairs (0,1), (0,2)
 * .. (1,2) ..; all FSLAB_RATIO_UNTESTED before the first look): a pair
 * decided at an earlier look stays decided, and one decided at this look
 * is written there, so a decision, once made, stands (ne(ne-1)/2 bytes,
 * the same filesystems in the same order at every look).  ne == 1: no
 * comparison exists, so the filesystem's own interval must resolve half
 * the margin (two such intervals resolve the margin); words is not used.
 * Sets t (may be NULL) and returns t->why.  nk >= max_trials turns "open"
 * into "max_trials". */
enum fslab_stop_why fslab_stop_judge(const struct fslab_stop_params *p, const double *y, size_t ne,
				     size_t nk, unsigned char *words, struct fslab_stop_tally *t);

#endif
