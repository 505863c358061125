#include "progress.h"
#include "clock.h"
#include "err.h"
#include "log.h"
#include "size.h"
#include "termtext.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The share of the work after which the ETA is the measured rate alone. */
#define PROGRESS_MEASURED_FRACTION 0.2
/* Work is left (beyond rounding): the share shows 100 only when none is. */
#define PROGRESS_LEFT(p) ((p)->work_total - (p)->work_done > 1e-9 * (p)->work_total)

struct fslab_progress {
	FILE *out;
	bool quiet, tty, drawn;
	char stage[64];
	double start, last_draw, before_s, after_s, after_hi_s;
	double work_total, work_done;
	/* the measured rate: work finished since the first set_work (across
	 * its calls, one a trial) and when that was; the estimated rate */
	double meas_work, meas_t0, est_rate;
	double work_lo, work_hi; /* the work total may be as low, as high */
	double pct;              /* the share done (never back) */
	/* off a terminal, a thread's line after beat_s without one; mu
	 * orders the lines (the figures it reads are single words) */
	pthread_t beat;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool beating, ending;
	double beat_s, last_line;
};

struct fslab_progress *fslab_progress_new(FILE *out, const char *stage, bool quiet)
{
	struct fslab_progress *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->out = out;
	p->quiet = quiet;
	p->tty = !quiet && out && isatty(fileno(out));
	p->start = p->last_line = fslab_now();
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* fslab_now's clock */
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	snprintf(p->stage, sizeof(p->stage), "%s", stage ? stage : "");
	return p;
}

void fslab_progress_free(struct fslab_progress *p)
{
	if (!p)
		return;
	if (p->beating) {
		pthread_mutex_lock(&p->mu);
		p->ending = true;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->beat, NULL);
	}
	fslab_progress_clear(p);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

static void *progress_beat(void *arg)
{
	struct fslab_progress *p = arg;
	char el[32], eta[72];

	pthread_mutex_lock(&p->mu);
	while (!p->ending) {
		/* wake one beat after the last line, whoever wrote it */
		double due = p->last_line + p->beat_s;
		struct timespec ts = { (time_t)due, (long)((due - (double)(time_t)due) * 1e9) };

		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		if (p->ending || fslab_now() < p->last_line + p->beat_s - 0.01)
			continue;
		fprintf(p->out, "%s: %s%selapsed %s, ETA %s\n", fslab_log_prefix(), p->stage, p->stage[0] ? ": " : "",
			fslab_progress_format_duration(fslab_progress_elapsed(p) + p->before_s, el, sizeof(el)),
			fslab_progress_format_eta(p, eta, sizeof(eta)));
		fflush(p->out);
		p->last_line = fslab_now();
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void fslab_progress_beat(struct fslab_progress *p, double every_s)
{
	sigset_t all, was;

	p->beat_s = every_s;
	if (p->beating || p->tty || p->quiet || !p->out)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was); /* signals: the main thread's (its sleeps end) */
	p->beating = pthread_create(&p->beat, NULL, progress_beat, p) == 0;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

bool fslab_progress_is_tty(const struct fslab_progress *p)
{
	return p && p->tty;
}

void fslab_progress_set_pipeline(struct fslab_progress *p, double elapsed_before_s,
				 double remaining_after_s, double remaining_after_hi_s)
{
	p->before_s = elapsed_before_s > 0 ? elapsed_before_s : 0;
	p->after_s = remaining_after_s > 0 ? remaining_after_s : 0;
	p->after_hi_s = remaining_after_hi_s > p->after_s ? remaining_after_hi_s : p->after_s;
}

double fslab_progress_elapsed(const struct fslab_progress *p)
{
	return fslab_now() - p->start;
}

void fslab_progress_set_work(struct fslab_progress *p, double total, double done)
{
	p->work_total = total;
	p->work_done = done;
	if (!p->meas_t0)
		p->meas_t0 = fslab_now();
}

void fslab_progress_set_estimate(struct fslab_progress *p, double seconds_per_work)
{
	p->est_rate = seconds_per_work > 0 ? seconds_per_work : 0;
}

void fslab_progress_add_work(struct fslab_progress *p, double work)
{
	p->work_done += work;
	p->meas_work += work;
	p->pct = fmax(p->pct, fmin(100.0 * p->work_done / p->work_total, PROGRESS_LEFT(p) ? 99.9 : 100));
}

void fslab_progress_set_work_range(struct fslab_progress *p, double lo, double hi)
{
	p->work_lo = lo;
	p->work_hi = hi;
}

/* Seconds the work from done to total takes: at the estimated rate before
 * anything is measured, moving over to the measured one, wholly once a
 * fifth of the work ahead is done; never under the floor while work is
 * left.  Negative with nothing to go on. */
static double progress_left(const struct fslab_progress *p, double total)
{
	double left = total > p->work_done ? total - p->work_done : 0, w = p->meas_work, m, s;

	if (w <= 0 && !(p->est_rate > 0))
		return -1;
	m = p->est_rate > 0 && left > 0 ? fmin(w / (w + left) / PROGRESS_MEASURED_FRACTION, 1) : 1;
	/* from when the work began (not from before the device probes) */
	s = (w > 0 ? m * (fslab_now() - p->meas_t0) / w : 0) * left + (1 - m) * p->est_rate * left;
	return PROGRESS_LEFT(p) && s < FSLAB_PROGRESS_MIN_LEFT_S ? FSLAB_PROGRESS_MIN_LEFT_S : s;
}

bool fslab_progress_eta_range(const struct fslab_progress *p, double *lo_s, double *point_s, double *hi_s)
{
	if (!p || !(p->work_total > 0) || (*point_s = progress_left(p, p->work_total)) < 0)
		return false;
	*lo_s = progress_left(p, p->work_lo > 0 && p->work_lo < p->work_total ? p->work_lo : p->work_total) + p->after_s;
	*hi_s = progress_left(p, p->work_hi > p->work_total ? p->work_hi : p->work_total) + p->after_hi_s;
	*point_s += (p->after_s + p->after_hi_s) / 2;
	return true;
}

double fslab_progress_done_pct(const struct fslab_progress *p)
{
	return p && p->work_total > 0 ? p->pct : -1;
}

char *fslab_progress_format_eta(const struct fslab_progress *p, char *buf, size_t len)
{
	char a[32], b[32], m[32];
	double lo, hi, point;

	if (!fslab_progress_eta_range(p, &lo, &point, &hi))
		return fslab_progress_format_duration(p ? fslab_progress_eta(p) : -1, buf, len);
	fslab_progress_format_duration(lo, a, sizeof(a));
	fslab_progress_format_duration(hi, b, sizeof(b));
	fslab_progress_format_duration(point, m, sizeof(m));
	if (strcmp(a, b) == 0)
		snprintf(buf, len, "%s", m);
	else
		snprintf(buf, len, "%s (%s..%s)", m, a, b);
	return buf;
}

double fslab_progress_eta(const struct fslab_progress *p)
{
	double lo, hi, point;

	return fslab_progress_eta_range(p, &lo, &point, &hi) ? point : -1;
}

char *fslab_progress_format_duration(double s, char *buf, size_t len)
{
	if (s < 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
	return buf;
}

void fslab_progress_clear(struct fslab_progress *p)
{
	if (!p || !p->tty || !p->drawn)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->drawn = false;
}

/* Redraws the line: the stage, then what (printf-style), then the clock;
 * at most 10 times a second (small cells finish by the thousand) unless
 * force. */
static void redraw(struct fslab_progress *p, bool force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void redraw(struct fslab_progress *p, bool force, const char *fmt, ...)
{
	char el[32], eta[72];
	double now = fslab_now();
	va_list ap;

	if (p->drawn && !force && now - p->last_draw < 0.1)
		return;
	p->last_draw = now;
	fslab_progress_format_duration(fslab_progress_elapsed(p) + p->before_s, el, sizeof(el));
	fslab_progress_format_eta(p, eta, sizeof(eta));
	fprintf(p->out, "\r\033[K%s%s", p->stage, p->stage[0] ? "  " : "");
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fprintf(p->out, "  elapsed %s  ETA %s", el, eta);
	fflush(p->out);
	p->drawn = true;
}

void fslab_progress_step(struct fslab_progress *p, const struct fslab_progress_item *it)
{
	char fsz[32], rsz[32], tp[48] = "", pct[16] = "", item[192] = "";

	if (!p->tty)
		return;
	if (it && it->throughput_kib_s >= 0)
		snprintf(tp, sizeof(tp), "  %.0f KiB/s", it->throughput_kib_s);
	else if (it)
		snprintf(tp, sizeof(tp), "  -");
	if (p->work_total > 0)
		snprintf(pct, sizeof(pct), "%.0f%%", floor(fslab_progress_done_pct(p)));
	if (it)
		snprintf(item, sizeof(item), "  %s  %s  %s/%s%s", fslab_esc(it->filesystem ? it->filesystem : ""),
			 it->test ? it->test : "", fslab_size_format(it->file_bytes, fsz, sizeof(fsz)),
			 fslab_size_format(it->record_bytes, rsz, sizeof(rsz)), tp);
	redraw(p, p->work_done >= p->work_total, "%s%s", pct, item);
}

void fslab_progress_draw(struct fslab_progress *p, const char *what, bool force)
{
	if (p && p->tty)
		redraw(p, force, "%s", what ? what : "");
}

void fslab_progress_note(struct fslab_progress *p, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	if (!p || p->quiet)
		return;
	fslab_progress_clear(p);
	pthread_mutex_lock(&p->mu);
	va_start(ap, fmt);
	fslab_put_text(vasprintf(&text, fmt, ap) < 0 ? fmt : text, p->out);
	va_end(ap);
	fputc('\n', p->out);
	fflush(p->out);
	free(text);
	p->last_line = fslab_now();
	pthread_mutex_unlock(&p->mu);
}

void fslab_note(enum fslab_note_kind kind, const char *fmt, ...)
{
	FILE *out = kind == FSLAB_NOTE_ASK ? stderr : stdout;
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	/* out of memory: the note is lost, as a printf's would be */
	if (n < 0)
		return;
	if (kind == FSLAB_NOTE_WARN)
		fslab_warn("%s", text);
	else if (kind == FSLAB_NOTE_ERROR)
		fslab_error("%s", text);
	else if (fslab_put_text(text, out) == 0 && kind == FSLAB_NOTE_LINE)
		putc('\n', out);
	fflush(out);
	free(text);
}

void fslab_note_err(struct fslab_err *e)
{
	if (e && e->code) {
		fslab_note(FSLAB_NOTE_ERROR, "%s", fslab_err_msg(e));
		fslab_err_clear(e);
	}
}

static int note_vfail(struct fslab_err *e, int code, bool with_errno, const char *fmt, va_list ap)
{
	char msg[FSLAB_ERR_MSG_MAX];

	code = code > 0 ? -code : code ? code : -EIO;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fslab_note_err(e);
	if (with_errno)
		return fslab_err_set(e, code, "%s: %s", msg, strerror(-code));
	return fslab_err_set(e, code, "%s", msg);
}

int fslab_note_fail_errno(struct fslab_err *e, int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = note_vfail(e, err, true, fmt, ap);
	va_end(ap);
	return r;
}

int fslab_note_fail(struct fslab_err *e, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_vfail(e, ret < 0 ? ret : -EPERM, false, fmt, ap);
	va_end(ap);
	return ret;
}
