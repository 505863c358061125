/* SSD steady state, the rule of SNIA's Solid State Storage Performance
 * Test Specification (PTS 2.0.2): a measurement window of
 * FSLAB_STEADY_WINDOW consecutive rounds of the tracking variable is
 * steady when
 *
 *   max - min            <= FSLAB_STEADY_RANGE x mean   (data excursion)
 *   |slope| x (window-1) <= FSLAB_STEADY_SLOPE x mean   (slope excursion)
 *
 * with slope that of the least-squares line through (round, value) over
 * the window, and at most FSLAB_STEADY_ROUNDS_MAX rounds are run.  Pure
 * arithmetic: fslab run's steady-state phase (bench/run_steady.c) feeds
 * it, the manifest bounds what it records with these constants. */
#ifndef FSLAB_STEADY_H
#define FSLAB_STEADY_H

#include <stdbool.h>
#include <stddef.h>

#define FSLAB_STEADY_WINDOW 5
#define FSLAB_STEADY_ROUNDS_MAX 25
#define FSLAB_STEADY_RANGE 0.20
#define FSLAB_STEADY_SLOPE 0.10

/* The phase's tracking file (docs/ssd.md, "Steady state"): written once,
 * then overwritten by every round.  Its size is
 *
 *   min(free / FSLAB_STEADY_FILE_FREE_DIVISOR,
 *       FSLAB_STEADY_FILE_ROUNDS x round, FSLAB_STEADY_FILE_MAX)
 *
 * in whole MiB, raised to FSLAB_STEADY_FILE_MIN when that still fits in
 * the free share: a few rounds' worth, so a round's writes spread over
 * more blocks than the drive's cache holds, but bounded so the fill is
 * seconds, not minutes, and the filesystem stays far from full. */
#define FSLAB_STEADY_FILE_FREE_DIVISOR 4
#define FSLAB_STEADY_FILE_ROUNDS 4
#define FSLAB_STEADY_FILE_MIN (16ull << 20)
#define FSLAB_STEADY_FILE_MAX (4ull << 30)
#define FSLAB_STEADY_FILE_UNIT (1ull << 20)

/* Each round's two workloads: 1 MiB sequential and 4 KiB random writes. */
#define FSLAB_STEADY_SEQ_RECORD (1u << 20)
#define FSLAB_STEADY_RAND_RECORD 4096u

/* The phase's longest time, in seconds: the fill of file_bytes and all
 * FSLAB_STEADY_ROUNDS_MAX rounds of round_bytes per workload, at
 * write_bytes_s (a device probe's write rate) plus op_s per 4 KiB write
 * (the cost model's price of an I/O that reaches the device,
 * bench/run_cost.c).  -1 when the rate is not positive.  fslab run
 * --dry-run and the run's ETA use it (bench/run_steady.c,
 * run_steady_estimate_s, fills in a filesystem's figures). */
double fslab_steady_estimate_s(unsigned long long file_bytes, unsigned long long round_bytes,
			       double write_bytes_s, double op_s);

/* The file's bytes for free_bytes free on the filesystem and rounds of
 * round_bytes; 0 when the free share is under FSLAB_STEADY_FILE_MIN. */
unsigned long long fslab_steady_file_bytes(unsigned long long free_bytes,
					   unsigned long long round_bytes);

/* fslab run --steady-state: auto (a lab on a real disk: on; an image lab
 * or --dir: off), on, off. */
enum fslab_steady_mode {
	FSLAB_STEADY_AUTO,
	FSLAB_STEADY_ON,
	FSLAB_STEADY_OFF,
};

/* One window of the series, as the rule sees it. */
struct fslab_steady_window {
	unsigned first, last;    /* 1-based rounds; 0: fewer rounds than a window */
	double mean, min, max;
	double slope;            /* per round, least squares */
	bool range_ok, slope_ok; /* each half of the rule */
};

/* The window of the last FSLAB_STEADY_WINDOW values of v[0..n) into *w;
 * true when it is steady (both halves hold and the mean is above 0).
 * Fewer values than a window: false, w->first = w->last = 0. */
bool fslab_steady_check(const double *v, size_t n, struct fslab_steady_window *w);

#endif
