/* The report's shared formatting, a leaf: it calls nothing else in report/.
 * Numbers for people (sizes, rates, p values, interval bounds), the
 * verdicts' words and HTML classes, the flags' letters, words and legend,
 * and HTML escaping.  Model and views call it; it calls neither. */
#include "format.h"
#include "results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rp_html_escape(FILE *out, const char *s)
{
	static const char special[] = "<>&\"'";
	static const char *const entity[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&#39;" };

	for (; s && *s; s++) {
		const char *k = strchr(special, *s);

		if (k)
			fputs(entity[k - special], out);
		else
			fputc(*s, out);
	}
}

void rp_html_put(FILE *out, const char *before, const char *text, const char *after)
{
	fputs(before, out);
	rp_html_escape(out, text);
	fputs(after, out);
}

char *rp_fmt_p(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "p=n/a");
	else if (p < 0.001)
		snprintf(buf, len, "p<0.001");
	else if (fabs(p - 0.05) < 0.0005) /* "p=0.050" would hide which side */
		snprintf(buf, len, "p=%.4f", p);
	else
		snprintf(buf, len, "p=%.3f", p);
	return buf;
}

char *rp_fmt_mibs(double kib_s, char *buf, size_t len)
{
	double v = kib_s / 1024;

	if (isnan(v) || v == 0)
		snprintf(buf, len, "%s", v == 0 ? "0" : "-");
	else
		snprintf(buf, len, "%.*f", fabs(v) >= 1000 ? 0 : fabs(v) >= 10 ? 1 : 2, v);
	return buf;
}

/* 3 significant digits in the unit of `like`: GiB/s from 1 GiB/s, MiB/s
 * from 1 MiB/s, else KiB/s. */
char *rp_fmt_rate_in(double kib_s, double like, bool unit, char *buf, size_t len)
{
	static const char *const names[] = { "KiB/s", "MiB/s", "GiB/s" };
	int u = like >= 1024.0 * 1024 ? 2 : like >= 1024 ? 1 : 0;
	double v = kib_s / pow(1024, u);

	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f%s%s", fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : 2, v, unit ? " " : "",
			 unit ? names[u] : "");
	return buf;
}

char *rp_fmt_rate(double kib_s, char *buf, size_t len)
{
	return rp_fmt_rate_in(kib_s, kib_s, true, buf, len);
}

char *rp_fmt_size(uint64_t kib, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = 0;

	while (kib >= 1024 && kib % 1024 == 0 && u < 5) {
		kib /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)kib, units[u]);
	return buf;
}

/* Decimals enough that a bound on one side of a threshold (1, and the
 * equivalence margin's 1 - delta and 1 + delta) is not shown on the other
 * side of it or at it ("1.00" for 1.003 next to "faster", "0.95" for
 * 0.9496 next to "inconclusive"): 2 decimals, more only when needed, at
 * most 5. */
char *rp_fmt_bound(double v, double delta, char *buf, size_t len)
{
	const double th[3] = { 1, 1 - delta, 1 + delta };
	int n = delta > 0 ? 3 : 1;

	for (int prec = 2; prec <= 5; prec++) {
		bool bad = false;

		snprintf(buf, len, "%.*f", prec, v);
		double back = strtod(buf, NULL);
		for (int i = 0; i < n; i++)
			bad |= (v > th[i] && back <= th[i]) || (v < th[i] && back >= th[i]);
		if (!bad)
			return buf;
	}
	/* within 5e-6 of a threshold: cut towards its own side */
	double near = th[0];
	for (int i = 1; i < n; i++)
		if (fabs(v - th[i]) < fabs(v - near))
			near = th[i];
	snprintf(buf, len, "%.5f", v < near ? floor(v * 1e5) / 1e5 : ceil(v * 1e5) / 1e5);
	return buf;
}

char *rp_fmt_ratio_ci(const struct rp_cmp *c, const char *sep, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (isnan(c->lo))
		snprintf(buf, len, "%.2f", c->ratio);
	else
		snprintf(buf, len, "%.2f [%s%s%s]", c->ratio, rp_fmt_bound(c->lo, c->delta, lo, sizeof(lo)),
			 sep, rp_fmt_bound(c->hi, c->delta, hi, sizeof(hi)));
	return buf;
}

/* Each verdict's words and the class that colours it in report.html. */
static const struct {
	const char *word, *cls;
} sm_dirs[] = {
	[RP_DIR_NONE] = { "no data", "nd" },
	[RP_DIR_BEST] = { "best", "best" },
	[RP_DIR_FASTER] = { "faster", "faster" },
	[RP_DIR_SLOWER] = { "slower", "slower" },
	[RP_DIR_EQUIVALENT] = { "equivalent", "same" },
	[RP_DIR_INCONCLUSIVE] = { "inconclusive", "undecided" },
	[RP_DIR_UNTESTED] = { "not tested", "nd" },
};

const char *rp_plateau_words(enum fslab_test t)
{
	return (FSLAB_TESTS_FILES & (1u << t)) ? "many files, every file size" : "large files (the two largest per record size)";
}

const char *rp_dir_word(enum rp_dir dir)
{
	return dir <= RP_DIR_UNTESTED ? sm_dirs[dir].word : sm_dirs[RP_DIR_NONE].word;
}

const char *rp_change_word(enum rp_dir dir)
{
	return dir == RP_DIR_FASTER ? "improved" : dir == RP_DIR_SLOWER ? "regressed" : rp_dir_word(dir);
}

const char *rp_dir_class(enum rp_dir dir)
{
	return dir <= RP_DIR_UNTESTED ? sm_dirs[dir].cls : sm_dirs[RP_DIR_NONE].cls;
}

const char rp_dev_words[] =
	"Write tests: device bytes written / bytes the tests wrote (write amplification); sequential "
	"read: the share of the bytes the first reads (read, fread) read that the device read (reread "
	"and freread read from memory by design); small files: device bytes written "
	"per file created.";

char *rp_fmt_dev(const struct rp_dev_fig *f, char *buf, size_t len)
{
	static const char *const fmt[][2] = {
		[RP_DEVK_WAF] = { "%.2f", "%.2f [%.2f-%.2f]" },
		[RP_DEVK_READ] = { "%.0f%%", "%.0f%% [%.0f-%.0f%%]" },
		[RP_DEVK_PER_FILE] = { "%.1f KiB", "%.1f KiB [%.1f-%.1f]" },
	};
	double k = f->kind == RP_DEVK_READ ? 100 : f->kind == RP_DEVK_PER_FILE ? 1.0 / 1024 : 1;

	if (f->kind == RP_DEVK_NONE)
		snprintf(buf, len, "-");
	else if (isnan(f->ci))
		snprintf(buf, len, fmt[f->kind][0], k * f->mean);
	else
		snprintf(buf, len, fmt[f->kind][1], k * f->mean, k * fmax(0, f->mean - f->ci),
			 k * (f->mean + f->ci));
	return buf;
}

char *rp_dev_test_line(const struct rp_data *d, enum fslab_test t, char *buf, size_t len)
{
	static const char *const what[] = { "", "write amplification", "read from the device",
					    "device bytes written per file created" };
	char f[64];

	buf[0] = '\0';
	for (size_t i = 0; d->sum->dev.n_rows && i < d->n_all; i++) {
		const struct rp_dev_fig *x = &d->sum->dev.test[(size_t)t * d->n_all + i];

		if (x->kind == RP_DEVK_NONE)
			continue;
		if (!buf[0])
			fslab_catf(buf, len, "%s (device counters):", what[x->kind]);
		else
			fslab_catf(buf, len, ",");
		fslab_catf(buf, len, " %s %s", d->all[i]->label, rp_fmt_dev(x, f, sizeof(f)));
	}
	return buf;
}

const struct rp_flag_info rp_flag_table[] = {
	{ RP_FLAG_PAGE_CACHE, FSLAB_FLAG_PAGE_CACHE, "P", "page cache",
	  "a large-file cell ran faster than the device can (>" FSLAB_PAGE_CACHE_FACTOR_TEXT
	  "x its probed O_DIRECT speed), so it measured memory (the page cache), not the disk" },
	{ RP_FLAG_FUSE, FSLAB_FLAG_FUSE, "F", "FUSE",
	  "FAT32 mounted through fusefat (a user-space driver, used where the kernel has no vfat), "
	  "not comparable to kernel filesystems" },
	{ RP_FLAG_BUFFERED_LOOP, FSLAB_FLAG_BUFFERED_LOOP, "L", "buffered loop",
	  "measured on a loop device the kernel kept buffered, so its figures may be the host's "
	  "page cache" },
	{ RP_FLAG_THERMAL, FSLAB_FLAG_THERMAL, "T", "hot drive",
	  "measured while the drive reported a temperature alarm, a temperature at its warning "
	  "threshold or throttling (the manifest's drive)" },
	{ RP_FLAG_MEMORY, FSLAB_FLAG_MEMORY, "M", "memory",
	  "a cold, fsync or direct figure on tmpfs or ramfs, which have no device: it measured "
	  "memory" },
	{ RP_FLAG_BUFFERED, FSLAB_FLAG_BUFFERED, "B", "ran buffered",
	  "the test ran buffered where the cache mode promised O_DIRECT (stdio tests in direct "
	  "mode, queued tests in warm mode)" },
	{ RP_FLAG_REDONE_STOPPED, FSLAB_FLAG_REDONE_STOPPED, "S", "redone after a stop",
	  "the process was stopped while this test was timed, so the test was run again and "
	  "the figure is the second pass (not set aside)" },
	{ RP_FLAG_REDONE_SLOW, FSLAB_FLAG_REDONE_SLOW, "R", "redone when disturbed",
	  "a pass took over 10x the median of the test's trials (the machine was disturbed), so "
	  "it was run again and the figure is the new pass (not set aside)" },
	{ RP_FLAG_BEYOND_DEVICE, FSLAB_FLAG_BEYOND_DEVICE, "D", "beyond the probe",
	  "faster than " FSLAB_PAGE_CACHE_FACTOR_TEXT "x the device's probed speed: the probe's "
	  "check, beside the device counters that decide P (not set aside)" },
};
const size_t rp_n_flags = sizeof(rp_flag_table) / sizeof(rp_flag_table[0]);

/* The flags' words (words) or letters, sep between them; an unknown flag
 * as unknown says. */
static char *rp_flag_join(unsigned flags, bool words, const char *sep, const char *unknown, char *buf,
			  size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < rp_n_flags; i++)
		if (flags & rp_flag_table[i].bit)
			fslab_catf(buf, len, "%s%s", buf[0] ? sep : "",
				words ? rp_flag_table[i].words : rp_flag_table[i].letter);
	if (flags & RP_FLAG_OTHER)
		fslab_catf(buf, len, "%s%s", buf[0] ? sep : "", unknown);
	return buf;
}

char *rp_flag_words(unsigned flags, const char *other, char *buf, size_t len)
{
	if (!rp_flag_join(flags, true, " and ", other && other[0] ? other : "an unknown flag", buf, len)[0])
		snprintf(buf, len, "flagged");
	return buf;
}

char *rp_flag_letters(unsigned flags, const char *sep, char *buf, size_t len)
{
	return rp_flag_join(flags, false, sep, "?", buf, len);
}

char *rp_other_flags_all(const struct rp_data *d, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < d->n_all; i++)
		if (d->all[i]->other_flags[0])
			fslab_catf(buf, len, "%s%s (%s)", buf[0] ? ", " : "", d->all[i]->other_flags, d->all[i]->label);
	return buf;
}

void rp_text_wrap_at(FILE *out, const char *first, size_t indent, size_t width, const char *text)
{
	size_t col = (size_t)fprintf(out, "%s", first), start = col;
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (col > start && col + 1 + n > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = start = indent;
		} else if (col > start) {
			fputc(' ', out);
			col++;
		}
		col += fwrite(p, 1, n, out);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static const char *const cl_words[] = {
	[RP_CLAIM_UNKNOWN] = "cannot tell",
	[RP_CLAIM_HOLDS] = "holds",
	[RP_CLAIM_FAILS] = "does not hold",
	[RP_CLAIM_INCONCLUSIVE] = "inconclusive",
	[RP_CLAIM_UNTESTED] = "not tested",
	[RP_CLAIM_DISAGREE] = "the runs disagree",
	[RP_CLAIM_PAGE_CACHE] = "the 2023 figures are the page cache",
};
static const char *const cl_class[] = {
	[RP_CLAIM_UNKNOWN] = "unknown", [RP_CLAIM_HOLDS] = "holds", [RP_CLAIM_FAILS] = "fails",
	[RP_CLAIM_INCONCLUSIVE] = "within", [RP_CLAIM_UNTESTED] = "within",
	[RP_CLAIM_DISAGREE] = "within", [RP_CLAIM_PAGE_CACHE] = "fails",
};
const char *rp_claim_word(enum rp_claim_word w)
{
	return w <= RP_CLAIM_PAGE_CACHE ? cl_words[w] : "?";
}

const char *rp_claim_class(enum rp_claim_word w)
{
	return w <= RP_CLAIM_PAGE_CACHE ? cl_class[w] : "unknown";
}

void rp_text_flag_legend(FILE *out, const struct rp_data *d, unsigned flags)
{
	char line[1024], names[512];
	bool first = true;

	for (size_t i = 0; i <= rp_n_flags; i++) { /* the table's flags, then the unknown ones */
		if (i < rp_n_flags && (flags & rp_flag_table[i].bit))
			snprintf(line, sizeof(line), "%s = %s: %s.", rp_flag_table[i].letter,
				 rp_flag_table[i].words, rp_flag_table[i].legend);
		else if (i == rp_n_flags && (flags & RP_FLAG_OTHER))
			snprintf(line, sizeof(line), "? = a flag this fslab report does not know, as the CSV names it: %s.",
				 rp_other_flags_all(d, names, sizeof(names)));
		else
			continue;
		if (first)
			fputc('\n', out);
		rp_text_wrap(out, first ? "flags: " : "       ", 9, line);
		first = false;
	}
}

void rp_sizes_add(uint64_t *a, size_t *n, uint64_t v)
{
	size_t i = 0;

	while (i < *n && a[i] < v)
		i++;
	if ((i < *n && a[i] == v) || *n >= RP_SIZES_MAX)
		return;
	memmove(a + i + 1, a + i, ((*n)++ - i) * sizeof(*a));
	a[i] = v;
}

/* A latency in microseconds: "12.5", "1340", "-" */
char *rp_fmt_us(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, v < 100 ? "%.1f" : "%.0f", v);
	return buf;
}

const char *rp_json_str(json_object *o, const char *k1, const char *k2, const char *none)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, k1, &v) || (k2 && !json_object_object_get_ex(v, k2, &v)) ||
	    !json_object_is_type(v, json_type_string))
		return none;
	return json_object_get_string(v);
}

json_object *rp_json_num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *rp_json_put(json_object *o, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, o);
	while ((k = va_arg(ap, const char *)))
		json_object_object_add(o, k, va_arg(ap, json_object *));
	va_end(ap);
	return o;
}

json_object *rp_json_flags(unsigned f, const char *other)
{
	json_object *a = json_object_new_array();
	char buf[sizeof(((struct rp_entry *)0)->other_flags)], *save = NULL;

	for (size_t i = 0; i < rp_n_flags; i++)
		if (f & rp_flag_table[i].bit)
			json_object_array_add(a, RP_JSTR(rp_flag_table[i].csv));
	snprintf(buf, sizeof(buf), "%s", f & RP_FLAG_OTHER ? other : "");
	for (char *w = strtok_r(buf, ";", &save); w; w = strtok_r(NULL, ";", &save))
		json_object_array_add(a, RP_JSTR(w));
	return a;
}

int rp_err_errno(struct fslab_err *e, int err, const char *fmt, ...)
{
	char msg[FSLAB_ERR_MSG_MAX];
	va_list ap;

	if (err < 0)
		err = -err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fslab_err_set(e, err, "%s: %s", msg, strerror(err));
}
