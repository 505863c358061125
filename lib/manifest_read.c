/* manifest.json: the reader (manifest.h).  Every value is checked against
 * what fslab writes before it is kept. */
#include "fileutil.h"
#include "manifest.h"
#include "settings.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A setting's manifest key name: the settings table's (lib/settings.c). */
#define MK(row, k) fslab_setting_mkey(FSLAB_SETTING_##row, k)

struct mf_ctx {
	const char *name; /* the file, for messages */
	char *err;
	size_t errlen;
};

static int mf_fail(struct mf_ctx *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int mf_fail(struct mf_ctx *c, const char *field, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s %s", c->name, field, why);
	return -EINVAL;
}

/* The value of key in o; NULL when absent or null (the default then). */
static json_object *mf_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* field: "sweep.file_max_kib", "filesystems[2].name": the key's path. */
static void mf_field(char *buf, size_t len, const char *prefix, const char *key)
{
	snprintf(buf, len, "%s%s%s", prefix, prefix[0] ? "." : "", key);
}

/* The value of key of the given type (json_type_double: any number) in
 * v, its path in field.  Returns 1, 0 (absent or null) or -EINVAL naming
 * the field ("is not <what>"). */
static int mf_value(struct mf_ctx *c, json_object *o, const char *prefix, const char *key,
		    json_type type, const char *what, char field[static 96], json_object **v)
{
	mf_field(field, 96, prefix, key);
	*v = mf_get(o, key);
	if (!*v)
		return 0;
	if (json_object_is_type(*v, type) ||
	    (type == json_type_double && json_object_is_type(*v, json_type_int)))
		return 1;
	return mf_fail(c, field, "is not %s", what);
}

static int mf_read_str(struct mf_ctx *c, json_object *o, const char *prefix, const char *key,
		       char *dst, size_t size)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, o, prefix, key, json_type_string, "a string", field, &v);
	size_t n;

	if (r <= 0)
		return r;
	n = (size_t)json_object_get_string_len(v);
	if (n >= size || strlen(json_object_get_string(v)) != n)
		return mf_fail(c, field, "is longer than %zu bytes or holds a NUL byte", size - 1);
	memcpy(dst, json_object_get_string(v), n + 1);
	return 1;
}

static int mf_read_bool(struct mf_ctx *c, json_object *o, const char *prefix, const char *key,
			bool *out)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, o, prefix, key, json_type_boolean, "true or false", field, &v);

	if (r > 0)
		*out = json_object_get_boolean(v);
	return r;
}

/* A number within [lo, hi].  Returns 1 (set), 0 (absent) or -EINVAL. */
static int mf_read_num(struct mf_ctx *c, json_object *o, const char *prefix, const char *key,
		       double lo, double hi, double *out)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, o, prefix, key, json_type_double, "a number", field, &v);
	double d;

	if (r <= 0)
		return r;
	d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi)
		return mf_fail(c, field, "is %.17g; allowed: %.17g to %.17g", d, lo, hi);
	*out = d;
	return 1;
}

/* A whole number within [lo, hi] (hi at most 2^63). */
static int mf_read_uint(struct mf_ctx *c, json_object *o, const char *prefix, const char *key,
			uint64_t lo, uint64_t hi, uint64_t *out)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, o, prefix, key, json_type_int, "a whole number", field, &v);
	int64_t i;

	if (r <= 0)
		return r;
	i = json_object_get_int64(v);
	if (i < 0 || (uint64_t)i < lo || (uint64_t)i > hi)
		return mf_fail(c, field, "is %s; allowed: %llu to %llu", json_object_get_string(v),
			       (unsigned long long)lo, (unsigned long long)hi);
	*out = (uint64_t)i;
	return 1;
}

static int mf_read_unsigned(struct mf_ctx *c, json_object *o, const char *prefix,
			    const char *key, unsigned lo, unsigned hi, unsigned *out)
{
	uint64_t v = 0;
	int r = mf_read_uint(c, o, prefix, key, lo, hi, &v);

	if (r > 0)
		*out = (unsigned)v;
	return r;
}

/* An array of at most max strings, each shorter than FSLAB_MANIFEST_TEXT_MAX. */
static int mf_read_words(struct mf_ctx *c, json_object *o, const char *key, size_t max,
			 char ***words, size_t *n_words)
{
	char field[96];
	json_object *v;
	const char **tmp;
	int r = mf_value(c, o, "", key, json_type_array, "an array of strings", field, &v);
	size_t n;

	if (r <= 0)
		return r;
	n = json_object_array_length(v);
	if (n > max)
		return mf_fail(c, key, "has %zu entries; at most %zu", n, max);
	tmp = calloc(n + 1, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *w = json_object_array_get_idx(v, i);
		if (!w || !json_object_is_type(w, json_type_string) ||
		    (size_t)json_object_get_string_len(w) >= FSLAB_MANIFEST_TEXT_MAX) {
			free(tmp);
			return mf_fail(c, key, "entry %zu is not a string of less than %d bytes", i,
				       FSLAB_MANIFEST_TEXT_MAX);
		}
		tmp[i] = json_object_get_string(w);
	}
	r = fslab_manifest_set_words(words, n_words, n, tmp);
	free(tmp);
	return r < 0 ? r : 1;
}

/* "sweep": sizes powers of two within what fslab's size parser accepts. */
static int mf_read_sweep(struct mf_ctx *c, json_object *sw, struct fslab_manifest *m)
{
	/* the settings table's key names (lib/settings.c) */
	const char *const keys[] = { MK(FILE_SIZES, 0), MK(FILE_SIZES, 1), MK(RECORD_SIZES, 0),
				     MK(RECORD_SIZES, 1) };
	uint64_t *vals[] = { &m->sweep.file_min_kib, &m->sweep.file_max_kib,
			     &m->sweep.record_min_kib, &m->sweep.record_max_kib };
	char order[16] = "";
	json_object *tests;
	int r;

	if (!json_object_is_type(sw, json_type_object))
		return mf_fail(c, "sweep", "is not an object");
	m->has |= FSLAB_MF_HAS_SWEEP;
	if ((r = mf_read_str(c, sw, "sweep", MK(PRESET, 0), m->sweep.preset, sizeof(m->sweep.preset))) < 0)
		return r;
	for (size_t i = 0; i < 4; i++) {
		uint64_t lo = i >= 2 ? 4 : 1;
		char field[64];

		r = mf_read_uint(c, sw, "sweep", keys[i], lo, FSLAB_MANIFEST_SIZE_KIB_MAX, vals[i]);
		if (r < 0)
			return r;
		mf_field(field, sizeof(field), "sweep", keys[i]);
		/* powers of two only: earlier fslab runs took files below 4K */
		if (r > 0 && !fslab_is_pow2(*vals[i]))
			return mf_fail(c, field, "is %llu: not a power of two (the sweep doubles)",
				       (unsigned long long)*vals[i]);
	}
	if (m->sweep.file_max_kib && m->sweep.file_min_kib > m->sweep.file_max_kib)
		return mf_fail(c, "sweep.file_min_kib", "is larger than sweep.file_max_kib");
	if (m->sweep.record_max_kib && m->sweep.record_min_kib > m->sweep.record_max_kib)
		return mf_fail(c, "sweep.record_min_kib", "is larger than sweep.record_max_kib");
	if ((tests = mf_get(sw, MK(TESTS, 0)))) {
		if (!json_object_is_type(tests, json_type_array))
			return mf_fail(c, "sweep.tests", "is not an array of test names");
		for (size_t i = 0; i < json_object_array_length(tests); i++) {
			json_object *t = json_object_array_get_idx(tests, i);
			enum fslab_test id = t && json_object_is_type(t, json_type_string)
						     ? fslab_test_from_string(json_object_get_string(t))
						     : FSLAB_TEST_INVALID;
			if (id == FSLAB_TEST_INVALID)
				return mf_fail(c, "sweep.tests", "entry %zu is not a test name (write, read, ...)", i);
			m->sweep.tests |= 1u << id;
		}
	}
	if ((r = mf_read_bool(c, sw, "sweep", MK(SMALL_RECORDS, 0), &m->sweep.keep_small_records)) < 0)
		return r;
	if (r > 0)
		m->has |= FSLAB_MF_HAS_KEEP_SMALL;
	if ((r = mf_read_str(c, sw, "sweep", MK(ORDER, 0), order, sizeof(order))) < 0)
		return r;
	/* the order row's words (lib/settings.c); absent: shuffle */
	m->sweep.shuffle = fslab_setting_word_index(FSLAB_SETTING_ORDER, order) != 1;
	uint64_t pass = 0, warm = 0;

	if ((r = mf_read_uint(c, sw, "sweep", MK(CDM_TIME, 0), 0, 3600, &pass)) < 0 ||
	    (r = mf_read_uint(c, sw, "sweep", "warmup_passes_discarded", 0, 100, &warm)) < 0)
		return r;
	m->sweep.pass_s = (unsigned)pass;
	m->sweep.warmup_passes = (unsigned)warm;
	/* absent in runs recorded before the queued tests: 1 and 1 */
	m->sweep.iodepth = m->sweep.jobs = 1;
	if ((r = mf_read_unsigned(c, sw, "sweep", MK(IODEPTH, 0), 1, 256, &m->sweep.iodepth)) < 0 ||
	    (r = mf_read_unsigned(c, sw, "sweep", MK(JOBS, 0), 1, 64, &m->sweep.jobs)) < 0)
		return r;
	return 0;
}

static int mf_read_machine(struct mf_ctx *c, json_object *o, struct fslab_manifest *m)
{
	uint64_t mem = 0;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return mf_fail(c, "machine", "is not an object");
	m->has |= FSLAB_MF_HAS_MACHINE;
	if ((r = mf_read_str(c, o, "machine", "hostname", m->machine.hostname, sizeof(m->machine.hostname))) < 0 ||
	    (r = mf_read_str(c, o, "machine", "kernel", m->machine.kernel, sizeof(m->machine.kernel))) < 0 ||
	    (r = mf_read_str(c, o, "machine", "kernel_version", m->machine.kernel_version,
			     sizeof(m->machine.kernel_version))) < 0 ||
	    (r = mf_read_str(c, o, "machine", "cpu_model", m->machine.cpu_model, sizeof(m->machine.cpu_model))) < 0 ||
	    (r = mf_read_unsigned(c, o, "machine", "cpus", 0, 1u << 20, &m->machine.cpus)) < 0 ||
	    (r = mf_read_uint(c, o, "machine", "memory_kib", 0, FSLAB_MANIFEST_SIZE_KIB_MAX, &mem)) < 0)
		return r;
	m->machine.memory_kib = mem;
	return 0;
}

static int mf_read_time(struct mf_ctx *c, json_object *o, struct fslab_manifest *m)
{
	double *vals[] = { &m->time.wall_s, &m->time.timed_s, &m->time.untimed_io_s,
			   &m->time.cache_drop_s };
	static const char *const keys[] = { "wall_s", "timed_s", "untimed_io_s", "cache_drop_s" };

	if (!json_object_is_type(o, json_type_object))
		return mf_fail(c, "time", "is not an object");
	m->has |= FSLAB_MF_HAS_TIME;
	for (size_t i = 0; i < 4; i++) {
		int r = mf_read_num(c, o, "time", keys[i], 0, FSLAB_MANIFEST_SECONDS_MAX, vals[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* device_probe_runs: up to FSLAB_MANIFEST_PROBE_RUNS {write_kib_s, read_kib_s}. */
static int mf_read_probe_runs(struct mf_ctx *c, json_object *f, const char *prefix,
			      struct fslab_manifest_fs *fs)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, f, prefix, "device_probe_runs", json_type_array, "an array", field, &v);
	size_t n;

	if (r <= 0)
		return r;
	n = json_object_array_length(v);
	if (n > FSLAB_MANIFEST_PROBE_RUNS)
		return mf_fail(c, field, "has %zu entries; at most %d", n, FSLAB_MANIFEST_PROBE_RUNS);
	fs->has_probe_runs = true;
	for (size_t k = 0; k < n; k++) {
		json_object *pr = json_object_array_get_idx(v, k);
		char p2[112];

		snprintf(p2, sizeof(p2), "%s[%zu]", field, k);
		if (!pr || !json_object_is_type(pr, json_type_object))
			return mf_fail(c, p2, "is not an object");
		if ((r = mf_read_num(c, pr, p2, "write_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX,
				     &fs->probe_write_kib_s[k])) < 0 ||
		    (r = mf_read_num(c, pr, p2, "read_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX,
				     &fs->probe_read_kib_s[k])) < 0)
			return r;
		fs->probe_runs = (unsigned)k + 1;
	}
	return 0;
}

/* "steady_state".window: rounds within the phase's bound, figures within
 * a device's. */
static int mf_read_steady_window(struct mf_ctx *c, json_object *st, const char *prefix,
				 struct fslab_steady_window *w)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, st, prefix, "window", json_type_object, "an object", field, &v);

	if (r <= 0)
		return r;
	if ((r = mf_read_unsigned(c, v, field, "first_round", 1, FSLAB_STEADY_ROUNDS_MAX, &w->first)) < 0 ||
	    (r = mf_read_unsigned(c, v, field, "last_round", 1, FSLAB_STEADY_ROUNDS_MAX, &w->last)) < 0 ||
	    (r = mf_read_num(c, v, field, "mean_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX, &w->mean)) < 0 ||
	    (r = mf_read_num(c, v, field, "min_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX, &w->min)) < 0 ||
	    (r = mf_read_num(c, v, field, "max_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX, &w->max)) < 0 ||
	    (r = mf_read_num(c, v, field, "slope_kib_s_per_round", -FSLAB_MANIFEST_KIB_S_MAX,
			     FSLAB_MANIFEST_KIB_S_MAX, &w->slope)) < 0 ||
	    (r = mf_read_bool(c, v, field, "range_ok", &w->range_ok)) < 0 ||
	    (r = mf_read_bool(c, v, field, "slope_ok", &w->slope_ok)) < 0)
		return r;
	if (w->first > w->last)
		return mf_fail(c, field, "has first_round %u after last_round %u", w->first, w->last);
	return 0;
}

/* "steady_state" of one filesystem: at most FSLAB_STEADY_ROUNDS_MAX rounds. */
static int mf_read_steady(struct mf_ctx *c, json_object *f, const char *prefix,
			  struct fslab_manifest_steady *st)
{
	char field[96], p2[112];
	json_object *v, *rounds;
	int r = mf_value(c, f, prefix, "steady_state", json_type_object, "an object", field, &v);
	size_t n;

	if (r <= 0)
		return r;
	if ((r = mf_read_str(c, v, field, "result", st->result, sizeof(st->result))) < 0 ||
	    (r = mf_read_unsigned(c, v, field, "reached_in_round", 0, FSLAB_STEADY_ROUNDS_MAX, &st->reached)) < 0 ||
	    (r = mf_read_unsigned(c, v, field, "session", 0, FSLAB_MANIFEST_SESSIONS_MAX, &st->session)) < 0 ||
	    (r = mf_read_uint(c, v, field, "file_bytes", 0, UINT64_C(1) << 60, &st->file_bytes)) < 0 ||
	    (r = mf_read_uint(c, v, field, "round_bytes", 0, UINT64_C(1) << 60, &st->round_bytes)) < 0 ||
	    (r = mf_read_uint(c, v, field, "free_bytes", 0, UINT64_C(1) << 60, &st->free_bytes)) < 0 ||
	    (r = mf_read_num(c, v, field, "fill_s", 0, FSLAB_MANIFEST_SECONDS_MAX, &st->fill_s)) < 0 ||
	    (r = mf_read_num(c, v, field, "elapsed_s", 0, FSLAB_MANIFEST_SECONDS_MAX, &st->elapsed_s)) < 0 ||
	    (r = mf_read_steady_window(c, v, field, &st->window)) < 0)
		return r;
	if (!st->result[0])
		return mf_fail(c, field, "has no result");
	r = mf_value(c, v, field, "rounds", json_type_array, "an array", p2, &rounds);
	if (r <= 0)
		return r;
	n = json_object_array_length(rounds);
	if (n > FSLAB_STEADY_ROUNDS_MAX)
		return mf_fail(c, p2, "has %zu entries; at most %d", n, FSLAB_STEADY_ROUNDS_MAX);
	for (size_t k = 0; k < n; k++) {
		json_object *one = json_object_array_get_idx(rounds, k);
		char p3[128];

		snprintf(p3, sizeof(p3), "%s[%zu]", p2, k);
		if (!one || !json_object_is_type(one, json_type_object))
			return mf_fail(c, p3, "is not an object");
		if ((r = mf_read_num(c, one, p3, "seq_write_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX,
				     &st->rounds[k].seq_write_kib_s)) < 0 ||
		    (r = mf_read_num(c, one, p3, "rand_write_kib_s", 0, FSLAB_MANIFEST_KIB_S_MAX,
				     &st->rounds[k].rand_write_kib_s)) < 0)
			return r;
		st->n_rounds = (unsigned)k + 1;
	}
	if (st->reached > st->n_rounds || st->window.last > st->n_rounds)
		return mf_fail(c, field, "names round %u of %u recorded", st->reached > st->n_rounds ? st->reached : st->window.last,
			       st->n_rounds);
	return 0;
}

/* "between_filesystems" of one filesystem. */
static int mf_read_quiet(struct mf_ctx *c, json_object *f, const char *prefix,
			 struct fslab_manifest_quiet *q)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, f, prefix, "between_filesystems", json_type_object, "an object", field, &v);

	if (r <= 0)
		return r;
	if ((r = mf_read_str(c, v, field, "skipped", q->skipped, sizeof(q->skipped))) < 0 ||
	    (r = mf_read_str(c, v, field, "trim", q->trim, sizeof(q->trim))) < 0 ||
	    (r = mf_read_uint(c, v, field, "trimmed_bytes", 0, FSLAB_MANIFEST_COUNT_MAX, &q->trimmed_bytes)) < 0 ||
	    (r = mf_read_unsigned(c, v, field, "waits", 0, UINT_MAX, &q->passes)) < 0 ||
	    (r = mf_read_unsigned(c, v, field, "not_idle", 0, UINT_MAX, &q->not_idle)) < 0 ||
	    (r = mf_read_num(c, v, field, "wait_s", 0, FSLAB_MANIFEST_SECONDS_MAX, &q->wait_s)) < 0 ||
	    (r = mf_read_num(c, v, field, "wait_max_s", 0, FSLAB_MANIFEST_SECONDS_MAX, &q->wait_max_s)) < 0)
		return r;
	if (q->not_idle > q->passes)
		return mf_fail(c, field, "has more not_idle (%u) than waits (%u)", q->not_idle, q->passes);
	return 0;
}

/* "drive"."passes": each pass's trial, session and the conditions before
 * and after it, at most FSLAB_MANIFEST_DRIVE_PASSES. */
static int mf_read_drive_passes(struct mf_ctx *c, json_object *v, const char *field,
				struct fslab_manifest_drive *d)
{
	char p2[112];
	json_object *a;
	size_t n;
	int r = mf_value(c, v, field, "passes", json_type_array, "an array", p2, &a);

	d->n_passes = 0;
	if (r <= 0)
		return r;
	n = json_object_array_length(a);
	if (n > FSLAB_MANIFEST_DRIVE_PASSES)
		return mf_fail(c, p2, "has %zu entries; at most %d (later passes are counted in passes_not_recorded)",
			       n, FSLAB_MANIFEST_DRIVE_PASSES);
	for (size_t k = 0; k < n; k++) {
		struct fslab_manifest_drive_pass *p = &d->passes[k];
		json_object *one = json_object_array_get_idx(a, k), *x;
		char p3[128], p4[96];

		snprintf(p3, sizeof(p3), "%s[%zu]", p2, k);
		if (!one || !json_object_is_type(one, json_type_object))
			return mf_fail(c, p3, "is not an object");
		fslab_drive_conditions_unknown(&p->before);
		fslab_drive_conditions_unknown(&p->after);
		p->trial = p->session = 0;
		if ((r = mf_read_unsigned(c, one, p3, "trial", 1, FSLAB_TRIALS_MAX, &p->trial)) < 0 ||
		    (r = mf_read_unsigned(c, one, p3, "session", 1, FSLAB_MANIFEST_SESSIONS_MAX, &p->session)) < 0)
			return r;
		if (!p->trial || !p->session)
			return mf_fail(c, p3, "has no trial or session");
		for (int j = 0; j < 2; j++) {
			if ((r = mf_value(c, one, p3, j ? "after" : "before", json_type_object, "an object", p4, &x)) < 0)
				return r;
			if (r == 0 && !j)
				return mf_fail(c, p4, "is missing: a pass's conditions before it are always read");
			if (r > 0 && fslab_drive_conditions_from_json(x, j ? &p->after : &p->before) < 0)
				return mf_fail(c, p4, "is not a drive's conditions (temperatures -60..200 C, booleans, a count)");
		}
		d->n_passes = (unsigned)k + 1;
	}
	return 0;
}

/* "drive" of one filesystem: the conditions in lib/drivetemp.h's one
 * encoding, bounded there. */
static int mf_read_drive(struct mf_ctx *c, json_object *f, const char *prefix,
			 struct fslab_manifest_drive *d)
{
	char field[96], p2[112];
	json_object *v, *x;
	double t;
	int r = mf_value(c, f, prefix, "drive", json_type_object, "an object", field, &v);

	fslab_drive_conditions_unknown(&d->before);
	fslab_drive_conditions_unknown(&d->after);
	if (r <= 0)
		return r;
	for (int k = 0; k < 2; k++) {
		const char *key = k ? "after" : "before";

		if ((r = mf_value(c, v, field, key, json_type_object, "an object", p2, &x)) < 0)
			return r;
		if (r > 0 && fslab_drive_conditions_from_json(x, k ? &d->after : &d->before) < 0)
			return mf_fail(c, p2, "is not a drive's conditions (temperatures -60..200 C, booleans, a count)");
	}
	if ((r = mf_read_num(c, v, field, "max_temperature_c", -60, 200, &t)) < 0)
		return r;
	d->has_max = r > 0;
	d->max_temp_c = r > 0 ? t : 0;
	if ((r = mf_read_uint(c, v, field, "thermal_rows", 0, FSLAB_MANIFEST_COUNT_MAX, &d->thermal_rows)) < 0 ||
	    (r = mf_read_str(c, v, field, "thermal", d->thermal, sizeof(d->thermal))) < 0 ||
	    (r = mf_read_uint(c, v, field, "passes_not_recorded", 0, FSLAB_MANIFEST_COUNT_MAX,
			      &d->passes_unrecorded)) < 0)
		return r;
	return mf_read_drive_passes(c, v, field, d);
}

/* The text fields of one filesystem entry. */
static int mf_read_fs_strings(struct mf_ctx *c, json_object *f, const char *p,
			      struct fslab_manifest_fs *fs)
{
	struct {
		const char *key;
		char *dst;
		size_t size;
	} s[] = {
		{ "type", fs->type, sizeof(fs->type) },
		{ "path", fs->path, sizeof(fs->path) },
		{ "mountpoint", fs->mountpoint, sizeof(fs->mountpoint) },
		{ "device", fs->device, sizeof(fs->device) },
		{ "mount_method", fs->mount_method, sizeof(fs->mount_method) },
		{ "mount_options", fs->mount_options, sizeof(fs->mount_options) },
		{ "mount_options_at_end", fs->mount_options_at_end, sizeof(fs->mount_options_at_end) },
		{ "mkfs_tool_version", fs->mkfs_tool_version, sizeof(fs->mkfs_tool_version) },
		{ "device_model", fs->device_model, sizeof(fs->device_model) },
		{ "device_serial", fs->device_serial, sizeof(fs->device_serial) },
		{ "device_probe", fs->device_probe, sizeof(fs->device_probe) },
		{ "device_probe_note", fs->device_probe_note, sizeof(fs->device_probe_note) },
		{ "device_probe_source", fs->device_probe_source, sizeof(fs->device_probe_source) },
		{ "device_probe_measured_at", fs->device_probe_measured_at, sizeof(fs->device_probe_measured_at) },
		{ "sync_device", fs->sync_device, sizeof(fs->sync_device) },
		{ "sync_note", fs->sync_note, sizeof(fs->sync_note) },
		{ "cache_drop_method", fs->cache_drop_method, sizeof(fs->cache_drop_method) },
		{ "cache_drop_note", fs->cache_drop_note, sizeof(fs->cache_drop_note) },
		{ "iozone_report", fs->iozone_report, sizeof(fs->iozone_report) },
		{ "loop_io", fs->loop_io, sizeof(fs->loop_io) },
		{ "mkfs_command", fs->mkfs_command, sizeof(fs->mkfs_command) },
		{ "quiet_after_mount", fs->mount_quiet, sizeof(fs->mount_quiet) },
	};
	int r;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if ((r = mf_read_str(c, f, p, s[i].key, s[i].dst, s[i].size)) < 0)
			return r;
	r = mf_read_str(c, f, p, "mkfs_options", fs->mkfs_options, sizeof(fs->mkfs_options));
	fs->has_mkfs_options = r > 0;
	return r < 0 ? r : 0;
}

/* The lab's precondition record, in the encoding of its one writer
 * (lib/state.c). */
static int mf_read_conditions(struct mf_ctx *c, json_object *f, const char *p,
			      struct fslab_manifest_fs *fs)
{
	char field[96], why[256];
	json_object *v;
	int r;

	r = mf_value(c, f, p, "precondition", json_type_object, "an object", field, &v);
	if (r < 0)
		return r;
	if (fslab_state_precondition_from_json(r > 0 ? v : NULL, &fs->precondition, why, sizeof(why)) < 0)
		return mf_fail(c, field, "%s", why);
	return 0;
}

/* The numbers and flags of one filesystem entry. */
static int mf_read_fs_numbers(struct mf_ctx *c, json_object *f, const char *p,
			      struct fslab_manifest_fs *fs)
{
	struct {
		const char *key;
		double max, *dst;
	} d[] = {
		{ "device_write_kib_s", FSLAB_MANIFEST_KIB_S_MAX, &fs->device_write_kib_s },
		{ "device_read_kib_s", FSLAB_MANIFEST_KIB_S_MAX, &fs->device_read_kib_s },
		{ "timed_s", FSLAB_MANIFEST_SECONDS_MAX, &fs->timed_s },
		{ "untimed_io_s", FSLAB_MANIFEST_SECONDS_MAX, &fs->untimed_io_s },
		{ "cache_drop_s", FSLAB_MANIFEST_SECONDS_MAX, &fs->cache_drop_s },
		{ "wall_s", FSLAB_MANIFEST_SECONDS_MAX, &fs->wall_s },
		{ "quiet_after_mount_s", FSLAB_MANIFEST_SECONDS_MAX, &fs->mount_quiet_wait_s },
	};
	struct {
		const char *key;
		uint64_t max, *dst;
	} u[] = {
		{ "device_size_bytes", UINT64_C(1) << 60, &fs->device_size_bytes },
		{ MK(PROBE_SIZE, 0), UINT64_C(1) << 60, &fs->device_probe_bytes },
		{ "cells_ok", FSLAB_MANIFEST_COUNT_MAX, &fs->cells_ok },
		{ "cells_failed", FSLAB_MANIFEST_COUNT_MAX, &fs->cells_failed },
		{ "cells_skipped", FSLAB_MANIFEST_COUNT_MAX, &fs->cells_skipped },
	};
	bool discarded = false;
	char field[96];
	json_object *info;
	int r;

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if ((r = mf_read_num(c, f, p, d[i].key, 0, d[i].max, d[i].dst)) < 0)
			return r;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if ((r = mf_read_uint(c, f, p, u[i].key, 0, u[i].max, u[i].dst)) < 0)
			return r;
	if ((r = mf_read_bool(c, f, p, "fuse", &fs->fuse)) < 0 ||
	    (r = mf_read_bool(c, f, p, "vanished", &fs->vanished)) < 0 ||
	    (r = mf_read_bool(c, f, p, "setup_discarded", &discarded)) < 0)
		return r;
	fs->setup_discarded = r > 0 ? discarded : -1;
	if ((r = mf_value(c, f, p, "device_info", json_type_object, "an object", field, &info)) < 0)
		return r;
	fs->device_info = r > 0 ? json_object_get(info) : NULL;
	if ((r = mf_read_steady(c, f, p, &fs->steady)) < 0 || (r = mf_read_quiet(c, f, p, &fs->quiet)) < 0 ||
	    (r = mf_read_drive(c, f, p, &fs->drive)) < 0 || (r = mf_read_conditions(c, f, p, fs)) < 0)
		return r;
	return mf_read_probe_runs(c, f, p, fs);
}

static int mf_read_filesystems(struct mf_ctx *c, json_object *arr, struct fslab_manifest *m)
{
	size_t n;

	if (!json_object_is_type(arr, json_type_array))
		return mf_fail(c, "filesystems", "is not an array");
	n = json_object_array_length(arr);
	if (n > FSLAB_MANIFEST_FS_MAX)
		return mf_fail(c, "filesystems", "has %zu entries; at most %d", n, FSLAB_MANIFEST_FS_MAX);
	m->has |= FSLAB_MF_HAS_FILESYSTEMS;
	for (size_t i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		struct fslab_manifest_fs *fs;
		char p[32];
		int r;

		snprintf(p, sizeof(p), "filesystems[%zu]", i);
		if (!f || !json_object_is_type(f, json_type_object))
			return mf_fail(c, p, "is not an object");
		fs = fslab_manifest_add_fs(m);
		if (!fs)
			return -ENOMEM;
		if ((r = mf_read_str(c, f, p, "name", fs->name, sizeof(fs->name))) < 0)
			return r;
		if (!fslab_fs_name_valid(fs->name))
			return mf_fail(c, p, "has no valid name (1-31 of A-Z a-z 0-9 _ -)");
		if (fslab_manifest_find_fs(m, fs->name) != (int)i)
			return mf_fail(c, p, "repeats the name %s", fs->name);
		if ((r = mf_read_fs_strings(c, f, p, fs)) < 0 || (r = mf_read_fs_numbers(c, f, p, fs)) < 0)
			return r;
	}
	return 0;
}

/* "spec": {source, text} or a string (the source). */
static int mf_read_spec(struct mf_ctx *c, json_object *v, struct fslab_manifest *m)
{
	json_object *t;
	int r;

	if (json_object_is_type(v, json_type_string)) {
		size_t n = (size_t)json_object_get_string_len(v);
		if (n >= sizeof(m->spec_source) || strlen(json_object_get_string(v)) != n)
			return mf_fail(c, "spec", "is longer than %zu bytes or holds a NUL byte",
				       sizeof(m->spec_source) - 1);
		memcpy(m->spec_source, json_object_get_string(v), n + 1);
		return 0;
	}
	if (!json_object_is_type(v, json_type_object))
		return mf_fail(c, "spec", "is neither a string nor an object");
	if ((r = mf_read_str(c, v, "spec", "source", m->spec_source, sizeof(m->spec_source))) < 0)
		return r;
	if ((t = mf_get(v, "text"))) {
		size_t n = json_object_is_type(t, json_type_string) ? (size_t)json_object_get_string_len(t) : 0;
		if (!json_object_is_type(t, json_type_string) || n > FSLAB_MANIFEST_SPEC_MAX ||
		    strlen(json_object_get_string(t)) != n)
			return mf_fail(c, "spec.text", "is not a text of at most %u bytes", FSLAB_MANIFEST_SPEC_MAX);
		m->spec_text = strdup(json_object_get_string(t));
		if (!m->spec_text)
			return -ENOMEM;
	}
	return 0;
}

/* "seed" is any 64-bit value; the writer stores it as a JSON int64, so a
 * seed above INT64_MAX reads back negative and is taken modulo 2^64. */
static int mf_read_seed(struct mf_ctx *c, json_object *root, struct fslab_manifest *m)
{
	char field[96];
	json_object *v;
	int r = mf_value(c, root, "", MK(SEED, 0), json_type_int, "a whole number", field, &v);
	int64_t i;

	if (r <= 0)
		return r;
	i = json_object_get_int64(v);
	m->seed = i < 0 ? (uint64_t)i : json_object_get_uint64(v);
	m->has |= FSLAB_MF_HAS_SEED;
	return 0;
}

/* The top-level text fields and the kind. */
static int mf_read_root_strings(struct mf_ctx *c, json_object *root, struct fslab_manifest *m)
{
	struct {
		const char *key;
		char *dst;
		size_t size;
	} s[] = {
		{ "fslab_version", m->fslab_version, sizeof(m->fslab_version) },
		{ "run_id", m->run_id, sizeof(m->run_id) },
		{ MK(LABEL, 0), m->label, sizeof(m->label) },
		{ "started_at", m->started_at, sizeof(m->started_at) },
		{ "finished_at", m->finished_at, sizeof(m->finished_at) },
		{ "imported_at", m->imported_at, sizeof(m->imported_at) },
		{ MK(IO, 0), m->io_mode, sizeof(m->io_mode) },
		{ MK(SYNC, 0), m->sync_policy, sizeof(m->sync_policy) },
		{ MK(FILE_SYNC, 0), m->file_sync, sizeof(m->file_sync) },
		{ MK(STOP, 0), m->stop, sizeof(m->stop) },
		{ MK(STEADY, 0), m->steady_state, sizeof(m->steady_state) },
		{ "page_cache_flag", m->page_cache_flag, sizeof(m->page_cache_flag) },
		{ MK(NO_PROBE, 0), m->device_probe, sizeof(m->device_probe) },
		{ "state_path", m->state_path, sizeof(m->state_path) },
	};
	char from[16] = "", cache[16] = "", words[64];
	int r;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if ((r = mf_read_str(c, root, "", s[i].key, s[i].dst, s[i].size)) < 0)
			return r;
	if (m->steady_state[0] && fslab_steady_mode_from_string(m->steady_state) < 0)
		return mf_fail(c, "steady_state", "is '%s'; allowed: %s", m->steady_state,
			       fslab_setting_words(FSLAB_SETTING_STEADY, ", ", words, sizeof(words)));
	if (m->run_id[0] && strlen(m->run_id) != FSLAB_MANIFEST_RUN_ID_LEN)
		return mf_fail(c, "run_id", "is not a run id (%d characters)", FSLAB_MANIFEST_RUN_ID_LEN);
	if ((r = mf_read_str(c, root, "", "imported_from", from, sizeof(from))) < 0)
		return r;
	if (r > 0 && strcmp(from, "iozone") != 0)
		return mf_fail(c, "imported_from", "is '%s'; fslab imports from iozone only", from);
	m->kind = r > 0 ? FSLAB_MANIFEST_IMPORT : FSLAB_MANIFEST_RUN;
	if ((r = mf_read_str(c, root, "", MK(CACHE, 0), cache, sizeof(cache))) < 0)
		return r;
	if (r > 0 && (m->cache = fslab_cache_mode_from_string(cache)) == FSLAB_CACHE_MODE_INVALID)
		return mf_fail(c, "cache_mode", "is '%s'; allowed: %s", cache,
			       fslab_setting_words(FSLAB_SETTING_CACHE, ", ", words, sizeof(words)));
	return 0;
}

/* The top-level numbers and flags. */
static int mf_read_root_numbers(struct mf_ctx *c, json_object *root, struct fslab_manifest *m)
{
	int r;

	if ((r = mf_read_unsigned(c, root, "", MK(TRIALS, 0), 1, FSLAB_TRIALS_MAX, &m->trials)) < 0)
		return r;
	m->has |= r > 0 ? FSLAB_MF_HAS_TRIALS : 0;
	if ((r = mf_read_unsigned(c, root, "", MK(MAX_TRIALS, 0), 1, FSLAB_TRIALS_MAX, &m->max_trials)) < 0)
		return r;
	m->has |= r > 0 ? FSLAB_MF_HAS_MAX_TRIALS : 0;
	if ((r = mf_read_unsigned(c, root, "", "sessions", 1, FSLAB_MANIFEST_SESSIONS_MAX, &m->sessions)) < 0)
		return r;
	m->has |= r > 0 ? FSLAB_MF_HAS_SESSIONS : 0;
	if ((r = mf_read_uint(c, root, "", MK(STEADY_ROUND, 0), 0, FSLAB_MANIFEST_SIZE_KIB_MAX,
			      &m->steady_round_kib)) < 0)
		return r;
	if ((r = mf_read_unsigned(c, root, "", MK(PASS_GAP, 0), 0, FSLAB_PASS_GAP_MS_MAX, &m->pass_gap_ms)) < 0)
		return r;
	if ((r = mf_read_num(c, root, "", MK(UNTIL_CI, 0), 0, 100, &m->until_ci_pct)) < 0 ||
	    (r = mf_read_num(c, root, "", "page_cache_factor", 0, 1000, &m->page_cache_factor)) < 0 ||
	    (r = mf_read_bool(c, root, "", "interrupted", &m->interrupted)) < 0 ||
	    (r = mf_read_bool(c, root, "", MK(LATENCY, 0), &m->latency)) < 0 || (r = mf_read_seed(c, root, m)) < 0)
		return r;
	return 0;
}

static int mf_read_root(struct mf_ctx *c, json_object *root, struct fslab_manifest *m)
{
	json_object *v;
	int r;

	if ((r = mf_read_root_strings(c, root, m)) < 0 || (r = mf_read_root_numbers(c, root, m)) < 0)
		return r;
	if ((r = mf_read_words(c, root, "command", FSLAB_MANIFEST_WORDS_MAX, &m->command, &m->n_command)) < 0 ||
	    (r = mf_read_words(c, root, "resumed_with", FSLAB_MANIFEST_WORDS_MAX, &m->resumed_with,
			       &m->n_resumed_with)) < 0 ||
	    (r = mf_read_words(c, root, "notes", FSLAB_MANIFEST_NOTES_MAX, &m->notes, &m->n_notes)) < 0)
		return r;
	if ((v = mf_get(root, "sweep")) && (r = mf_read_sweep(c, v, m)) < 0)
		return r;
	if ((v = mf_get(root, "machine")) && (r = mf_read_machine(c, v, m)) < 0)
		return r;
	if ((v = mf_get(root, "time")) && (r = mf_read_time(c, v, m)) < 0)
		return r;
	if ((v = mf_get(root, "spec")) && (r = mf_read_spec(c, v, m)) < 0)
		return r;
	if ((v = mf_get(root, "filesystems")) && (r = mf_read_filesystems(c, v, m)) < 0)
		return r;
	/* kept as it is, so a manifest read and written again (fslab
	 * reproduce's notes) does not lose it */
	char field[96];
	if ((r = mf_value(c, root, "", "stopping", json_type_object, "an object", field, &v)) < 0)
		return r;
	m->stopping = r > 0 ? json_object_get(v) : NULL;
	return 0;
}

/* JSON text to an object, or -EINVAL naming the line where it stopped. */
static int mf_tokenize(struct mf_ctx *c, const char *text, size_t len, json_object **out)
{
	json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *o;
	size_t line = 1, end;

	if (len > FSLAB_MANIFEST_MAX_BYTES) {
		snprintf(c->err, c->errlen, "%s: larger than %u MiB; not a manifest fslab wrote", c->name,
			 FSLAB_MANIFEST_MAX_BYTES >> 20);
		return -EINVAL;
	}
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (o && jerr == json_tokener_success && json_object_is_type(o, json_type_object)) {
		json_tokener_free(tok);
		*out = o;
		return 0;
	}
	end = json_tokener_get_parse_end(tok);
	for (size_t i = 0; i < end && i < len; i++)
		line += text[i] == '\n';
	snprintf(c->err, c->errlen, "%s:%zu: not a JSON object (%s)", c->name, line,
		 o && jerr == json_tokener_success ? "not an object" : json_tokener_error_desc(jerr));
	json_object_put(o);
	json_tokener_free(tok);
	return -EINVAL;
}

int fslab_manifest_parse(const char *text, size_t len, const char *name,
			 struct fslab_manifest **out, char *err, size_t errlen)
{
	struct mf_ctx c = { name ? name : FSLAB_MANIFEST_NAME, err, errlen };
	struct fslab_manifest *m;
	json_object *root = NULL;
	int r;

	*out = NULL;
	r = mf_tokenize(&c, text, len, &root);
	if (r < 0)
		return r;
	m = fslab_manifest_new(FSLAB_MANIFEST_RUN);
	if (!m) {
		json_object_put(root);
		return -ENOMEM;
	}
	m->json = root;
	r = mf_read_root(&c, root, m);
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", c.name);
		fslab_manifest_free(m);
		return r;
	}
	*out = m;
	return 0;
}

int fslab_manifest_open_at(int dfd)
{
	return fslab_open_regular_at(dfd, FSLAB_MANIFEST_NAME, O_RDONLY | O_NONBLOCK);
}

int fslab_manifest_read_fd(int fd, const char *name, struct fslab_manifest **out, char *err,
			   size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	*out = NULL;
	/* one byte over the limit: a larger file is refused, never cut */
	r = fslab_read_fd(fd, &text, &len, (size_t)FSLAB_MANIFEST_MAX_BYTES + 2);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", name,
			 r == -EFBIG ? "larger than 16 MiB; not a manifest fslab wrote" : strerror(-r));
		return r;
	}
	r = fslab_manifest_parse(text, len, name, out, err, errlen);
	free(text);
	return r;
}

int fslab_manifest_check_resumable(const struct fslab_manifest *m, const char *name, char *err,
				   size_t errlen)
{
	const char *missing = NULL;

	if (m->kind != FSLAB_MANIFEST_RUN || !m->run_id[0]) {
		snprintf(err, errlen, "%s: no run_id: written by an fslab before run ids, or not by fslab; a run can be continued only by proving the manifest is this directory's",
			 name);
		return -EINVAL;
	}
	if (!(m->has & FSLAB_MF_HAS_SWEEP) || !m->sweep.file_min_kib || !m->sweep.file_max_kib ||
	    !m->sweep.record_min_kib || !m->sweep.record_max_kib)
		missing = "sweep (file_min_kib, file_max_kib, record_min_kib, record_max_kib)";
	else if (!m->sweep.tests)
		missing = "sweep.tests";
	else if (!(m->has & FSLAB_MF_HAS_KEEP_SMALL))
		missing = "sweep.keep_small_records";
	else if (m->cache == FSLAB_CACHE_MODE_INVALID)
		missing = "cache_mode";
	else if (!(m->has & FSLAB_MF_HAS_TRIALS))
		missing = "trials";
	else if (!(m->has & FSLAB_MF_HAS_SEED))
		missing = "seed";
	else if (m->n_fs == 0 || m->n_fs > FSLAB_MAX_FS)
		missing = "filesystems (1 to 16 entries)";
	for (size_t i = 0; !missing && i < m->n_fs; i++)
		if (!m->fs[i].path[0])
			missing = "a filesystem's path";
	if (missing) {
		snprintf(err, errlen, "%s: %s is missing; fslab run records it in every run", name, missing);
		return -EINVAL;
	}
	return 0;
}
