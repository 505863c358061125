/* The progress line of long commands (fslab run, fslab reproduce).
 *
 * On a terminal one line is redrawn in place:
 *   STAGE  42%  ext4  read  64M/1M  812345 KiB/s  elapsed 1:02  ETA 14:10
 * Off a terminal nothing is redrawn; callers print a line per milestone
 * with fslab_progress_note().  quiet silences both.  Drawing never happens
 * inside a timed region: callers update after a cell finished.
 *
 * The ETA is the work left (fslab_progress_set_work) at the rate
 * measured, plus the remaining_after_s the caller set (the rest of a
 * pipeline); with an estimate set it starts from the estimate instead.
 * fslab run's work is its cost model's seconds (bench/run_cost.c), with
 * the range a stopping rule leaves open: "42%  ETA 2:10 (1:50..2:40)". */
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

/* A cell finished: redraws on a terminal. */
void fslab_progress_step(struct fslab_progress *p, const struct fslab_progress_item *item);

/* The work of the job and how much is done (a cell costs by its size;
 * fslab_progress_add_work before the matching fslab_progress_step): the
 * ETA is the work left at the rate measured. */
void fslab_progress_set_work(struct fslab_progress *p, double total, double done);
void fslab_progress_add_work(struct fslab_progress *p, double work);
/* An estimate of seconds per unit of work: the ETA starts from it before
 * anything finished and moves over to the measured rate, wholly once a
 * fifth of the work ahead (done + left) is done.  0 clears it. */
void fslab_progress_set_estimate(struct fslab_progress *p, double seconds_per_work);
/* Seconds since fslab_progress_new, and the estimate of seconds left
 * (negative while nothing is done yet). */
double fslab_progress_elapsed(const struct fslab_progress *p);
double fslab_progress_eta(const struct fslab_progress *p);

/* The least ETA shown while work is left (never 0:00 before the end). */
#define FSLAB_PROGRESS_MIN_LEFT_S 1.0

/* The work total may turn out as low as lo and as high as hi (a stopping
 * rule decides): the ETA's range. */
void fslab_progress_set_work_range(struct fslab_progress *p, double lo, double hi);
/* The seconds left now: the figure (fslab_progress_eta) and its range by
 * set_work_range (the pipeline's rest included).  False when no work is
 * set or nothing is known yet. */
bool fslab_progress_eta_range(const struct fslab_progress *p, double *lo_s, double *point_s,
			      double *hi_s);
/* The share of the work done, in percent (never less than an earlier
 * answer); negative when no work is set. */
double fslab_progress_done_pct(const struct fslab_progress *p);
/* The ETA as shown: "2:10 (1:50..2:40)" (a figure and its range),
 * "1:02" or "?".  Returns buf. */
char *fslab_progress_format_eta(const struct fslab_progress *p, char *buf, size_t len);

/* A job that is not cells (setup's preconditioning, measured in bytes
 * through set_work/add_work): on a terminal, redraws
 *   STAGE  WHAT  elapsed 1:02  ETA 14:10
 * at most 10 times a second (force: now, e.g. at the end).  Nothing off a
 * terminal. */
void fslab_progress_draw(struct fslab_progress *p, const char *what, bool force);

/* Off a terminal (not quiet): a thread prints "STAGE: elapsed 1:02, ETA
 * 14:10" whenever no line came for every_s (a long cell), until _free. */
void fslab_progress_beat(struct fslab_progress *p, double every_s);

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
