/* The report's shared formatting (format.c), a leaf: numbers for people,
 * the verdicts' words, the flags' letters and legend, escaping.  It calls
 * nothing else in report/; the model and the views both use it. */
#ifndef FSLAB_REPORT_FORMAT_H
#define FSLAB_REPORT_FORMAT_H

#include "clock.h"
#include "model.h"

/* The flags the report knows: the CSV's name (lib/results.h), the letter
 * the text tables mark an entry with, the words for people and the
 * legend's sentence (format.c; the one table). */
struct rp_flag_info {
	unsigned bit;
	const char *csv, *letter, *words, *legend;
};
extern const struct rp_flag_info rp_flag_table[];
extern const size_t rp_n_flags;
/* "page cache and FUSE", "buffered loop", "future-flag" (the unknown
 * flags' names from other, ";"-joined as in rp_entry.other_flags). */
char *rp_flag_words(unsigned flags, const char *other, char *buf, size_t len);
/* Every entry's unknown flags: "future-flag (ext4), other (xfs/direct)". */
char *rp_other_flags_all(const struct rp_data *d, char *buf, size_t len);
/* text wrapped at width columns (rp_text_wrap: 96; the claims' lines: 100)
 * after first, continuation lines indented by indent */
void rp_text_wrap_at(FILE *out, const char *first, size_t indent, size_t width, const char *text);
#define rp_text_wrap(out, first, indent, text) rp_text_wrap_at(out, first, indent, 96, text)
/* The text legend of every flag in flags ("flags: P = page cache: ..."),
 * from the flag table; the unknown ones as the CSV names them. */
void rp_text_flag_legend(FILE *out, const struct rp_data *d, unsigned flags);
/* The text marks: "P", "PF", "L?" (sep between them) */
char *rp_flag_letters(unsigned flags, const char *sep, char *buf, size_t len);
/* A device figure with its interval: "1.05 [1.02-1.08]" (write
 * amplification), "98% [96-100%]" (read from the device), "8.0 KiB/file
 * [7.5-8.5]"; "1.05" without an interval, "-" none. */
char *rp_fmt_dev(const struct rp_dev_fig *f, char *buf, size_t len);
/* Test t's device figures beside its ranking, "" when none: "write
 * amplification (device counters): ext4 1.05 [1.04-1.06], xfs 1.02". */
char *rp_dev_test_line(const struct rp_data *d, enum fslab_test t, char *buf, size_t len);
/* What the device panel's figures are, in one sentence. */
extern const char rp_dev_words[];
/* "p<0.001", "p=0.034", "p=n/a" */
char *rp_fmt_p(double p, char *buf, size_t len);
/* Compact throughput in MiB/s ("34180", "51.2"). */
char *rp_fmt_mibs(double kib_s, char *buf, size_t len);
char *rp_fmt_size(uint64_t kib, char *buf, size_t len); /* "64K", "2G" */
/* Throughput for people: "2.15 GiB/s", "512 MiB/s" (3 significant digits). */
char *rp_fmt_rate(double kib_s, char *buf, size_t len);
/* kib_s in the unit rp_fmt_rate picks for like; the unit name when unit. */
char *rp_fmt_rate_in(double kib_s, double like, bool unit, char *buf, size_t len);
/* What test t's score is taken over, for headings: "large-file plateau",
 * or for the many-files tests "many files, every file size" (their
 * plateau is every file size measured; docs/report.md) */
const char *rp_plateau_words(enum fslab_test t);
const char *rp_dir_word(enum rp_dir dir);  /* "slower", "inconclusive", "not tested" */
/* The change matrix's words: "improved", "regressed", else rp_dir_word's. */
const char *rp_change_word(enum rp_dir dir);
const char *rp_dir_class(enum rp_dir dir); /* its CSS class in report.html */
/* A bound with the decimals that keep it on its side of 1 and of the
 * margin 1 +- delta. */
char *rp_fmt_bound(double v, double delta, char *buf, size_t len);
/* "0.98 [0.91-1.05]" (sep between the bounds), or "0.98" untested. */
char *rp_fmt_ratio_ci(const struct rp_cmp *c, const char *sep, char *buf, size_t len);
const char *rp_claim_word(enum rp_claim_word w);
/* Adds size v to the ascending set a of *n sizes, holding at most
 * RP_SIZES_MAX (more are left out, as is a size already there). */
#define RP_SIZES_MAX 64
void rp_sizes_add(uint64_t *a, size_t *n, uint64_t v);
void rp_html_escape(FILE *out, const char *s);
/* before, text escaped, after: "<td>", name, "</td>". */
void rp_html_put(FILE *out, const char *before, const char *text, const char *after);
/* A latency in microseconds: "12.5", "1340", "-" (NaN). */
char *rp_fmt_us(double v, char *buf, size_t len);
/* The string at key k1 of o (k2 NULL), or at k2 of the object there;
 * otherwise (o NULL, missing, not a string) none. */
const char *rp_json_str(json_object *o, const char *k1, const char *k2, const char *none);
/* A finite number as JSON; NULL (null) for NaN or an infinity. */
json_object *rp_json_num(double v);
/* Adds the (key, value) pairs that follow to o, up to a NULL key (a NULL
 * value is null); returns o.  RP_JOBJ(k, v, ...): a new object of them. */
json_object *rp_json_put(json_object *o, ...);
#define RP_JOBJ(...) rp_json_put(json_object_new_object(), __VA_ARGS__, (const char *)NULL)
#define RP_JSTR(s) json_object_new_string(s)
#define RP_JINT(n) json_object_new_int((int)(n))
#define RP_JBOOL(b) json_object_new_boolean(b)
/* The flags by their CSV names, then the unknown ones (other, ";"-joined). */
json_object *rp_json_flags(unsigned f, const char *other);
/* e's message: what fmt says, then ": " and strerror(err); returns
 * -err. */
int rp_err_errno(struct fslab_err *e, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The HTML class of a claim's word (claim-holds, claim-fails ...). */
const char *rp_claim_class(enum rp_claim_word w);

#endif
