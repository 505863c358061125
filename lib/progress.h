/* The progress line of long commands (fslab run, fslab reproduce).
 *
 * On a terminal one line is redrawn in place:
 *   STAGE  123/2000 cells  ext4  read  64M/1M  812345 KiB/s  elapsed 1:02  ETA 14:10
 * Off a terminal nothing is redrawn; callers print a line per milestone
 * with fslab_progress_note().  quiet silences both.  Drawing never happens
 * inside a timed region: callers update after a cell finished.
 *
 * The ETA is the mean time per finished unit (or work: see
 * fslab_progress_set_work) times the units left, plus the
 * remaining_after_s the caller set (the rest of a pipeline); with an
 * estimate set it starts from the estimate instead.  A caller that knows
 * its whole plan (fslab run: bench/run_cost.c) sets the seconds left as a
 * range, a figure within it and the share of the plan done
 * (fslab_progress_set_left); the line then shows "42%  ETA 2:10 (1:50..2:40)". */
#ifndef FSLAB_PROGRESS_H
#define FSLAB_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct fslab_progress;

/* out: where to draw (stderr normally).  stage: a label printed first (may
 * be NULL).  Returns NULL only when out of memory. */
struct fslab_progress *fslab_progress_new(FILE *out, const char *stage, bool quiet);
void fslab_progress_free(struct fslab_progress *p);

/* True when out is a terminal (redrawn line) and not quiet. */
bool fslab_progress_is_tty(const struct fslab_progress *p);

/* Units (cells) of the whole job and how many are already done (resume). */
void fslab_progress_set_total(struct fslab_progress *p, uint64_t total, uint64_t done);
/* Pipeline context: seconds spent before this job, and at least
 * remaining_after_s, at most remaining_after_hi_s (less: the same)
 * expected after it. */
void fslab_progress_set_pipeline(struct fslab_progress *p, double elapsed_before_s,
				 double remaining_after_s, double remaining_after_hi_s);

struct fslab_progress_item {
	const char *filesystem;
	const char *test;
	uint64_t file_bytes, record_bytes;
	double throughput_kib_s; /* negative: none (failed or skipped) */
};

/* One unit finished (done += units); redraws on a terminal. */
void fslab_progress_step(struct fslab_progress *p, uint64_t units,
			 const struct fslab_progress_item *item);

/* Optional: units differ in cost (a 2 GiB cell takes longer than a 64 KiB
 * one).  With a work total set, the ETA comes from work done per second
 * instead of units; fslab_progress_add_work reports work finished (call
 * it before the matching fslab_progress_step). */
void fslab_progress_set_work(struct fslab_progress *p, double total, double done);
void fslab_progress_add_work(struct fslab_progress *p, double work);
/* An estimate of seconds per unit of work (e.g. from a device probe):
 * the ETA starts from it (work left x rate) before anything finished, and
 * moves over to the measured rate as work finishes, wholly once a fifth
 * of the work ahead (done + left) is done.  0 clears it. */
void fslab_progress_set_estimate(struct fslab_progress *p, double seconds_per_work);
/* Seconds since fslab_progress_new, and the estimate of seconds left
 * (negative while nothing is done yet; with set_left, its point, or
 * the range's low end without one). */
double fslab_progress_elapsed(const struct fslab_progress *p);
double fslab_progress_eta(const struct fslab_progress *p);

/* The least ETA shown while work is left: an estimate never says 0:00
 * before the end. */
#define FSLAB_PROGRESS_MIN_LEFT_S 1.0

/* What is left of a planned job, from the caller's cost model: at least
 * lo_s and at most hi_s seconds (equal once nothing is adaptive), point_s
 * the figure expected (within them; negative: none, the range alone is
 * shown), and the share done of the planned work (0..1; 1 only when
 * nothing is left).  Between two calls they count down with the clock,
 * never below FSLAB_PROGRESS_MIN_LEFT_S while done_frac < 1; the share
 * shown never goes back.  The pipeline's rest (set_pipeline) is added to
 * each end (its middle to the point).  lo_s < 0 clears it (the work-rate
 * ETA applies again). */
void fslab_progress_set_left(struct fslab_progress *p, double lo_s, double point_s, double hi_s,
			     double done_frac);
/* The seconds left now as lo..hi and the point (negative: none; the
 * pipeline's rest included).  False when no range is set (set_left). */
bool fslab_progress_eta_range(const struct fslab_progress *p, double *lo_s, double *point_s,
			      double *hi_s);
/* The share of the planned work done, in percent (never less than an
 * earlier answer); negative when no plan is set. */
double fslab_progress_done_pct(const struct fslab_progress *p);
/* ... as a whole percent to show: rounded down, so 100 only at the end. */
double fslab_progress_shown_pct(const struct fslab_progress *p);
/* The ETA as shown: "2:10 (1:50..2:40)" (a figure and its range),
 * "1:02..4:05" (a range alone), "1:02" or "?".  Returns buf. */
char *fslab_progress_format_eta(const struct fslab_progress *p, char *buf, size_t len);

/* A job that is not cells (setup's preconditioning, measured in bytes
 * through set_work/add_work): on a terminal, redraws
 *   STAGE  WHAT  elapsed 1:02  ETA 14:10
 * at most 10 times a second (force: now, e.g. at the end).  Nothing off a
 * terminal. */
void fslab_progress_draw(struct fslab_progress *p, const char *what, bool force);

/* Prints a whole line (clearing the redrawn line first on a terminal);
 * silent when quiet. */
void fslab_progress_note(struct fslab_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Clears the redrawn line (before other output, and at the end). */
void fslab_progress_clear(struct fslab_progress *p);

/* "1:02:03" or "4:05" into buf; returns buf. */
char *fslab_progress_format_duration(double seconds, char *buf, size_t len);

/* Notes of library code that does not print itself (provision/): the
 * progress lines of a command, its warnings, the text of a question it
 * asks, and an error that did not end the work (teardown names each
 * problem, then stops; an error followed by another): a line on stdout
 * (flushed), a warning as fslab_warn and an error as fslab_error print
 * them, a question's text on stderr as is (flushed, no newline added).
 * The error that ends the work is no note: library code fills a struct
 * fslab_err (lib/err.h), returns, and the command prints it, last. */
enum fslab_note_kind {
	FSLAB_NOTE_LINE,
	FSLAB_NOTE_WARN,
	FSLAB_NOTE_ASK,
	FSLAB_NOTE_ERROR,
};
void fslab_note(enum fslab_note_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define fslab_note_line(...) fslab_note(FSLAB_NOTE_LINE, __VA_ARGS__)
#define fslab_note_warn(...) fslab_note(FSLAB_NOTE_WARN, __VA_ARGS__)
/* An error already in e (code set) becomes a FSLAB_NOTE_ERROR note, e is
 * cleared: before e takes the next error, so both are seen, in order. */
struct fslab_err;
void fslab_note_err(struct fslab_err *e);
/* fslab_err_set after fslab_note_err: e never loses an error.  ret is
 * what the caller returns: a negative errno (e's code), or an FSLAB_EXIT_*
 * status (e's code -EPERM); returns ret. */
int fslab_note_fail(struct fslab_err *e, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with ": " and strerror(err) after the message (err positive or
 * negative): "MSG: strerror(err)". */
int fslab_note_fail_errno(struct fslab_err *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
