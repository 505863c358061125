/* manifest.json's keys, one row each in one table per JSON object, and the
 * one walker that reads a manifest by them (every value checked against
 * what fslab writes before it is kept) and writes one (manifest.h).  A
 * row says the key (or the settings row whose manifest key it is), the
 * type, where the value lives (offsetof), its bounds, its default for
 * manifests written before it and how the writer spells it; a row's
 * position is its place in the written file. */
#include "fileutil.h"
#include "manifest.h"
#include "settings.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mf_ctx {
	const char *name; /* the file, for messages */
	struct fslab_manifest *m;
	struct fslab_err *e;
};

/* Writing: which rows (ONLY_RUN, ONLY_IMPORT) and an array entry's index. */
struct mf_wctx {
	unsigned only, k;
};

enum mf_type {
	T_STR,   /* char[size] */
	T_BOOL,  /* bool */
	T_UINT,  /* unsigned or uint64_t (by size), a JSON whole number lo..hi */
	T_DBL,   /* double, a JSON number lo..hi */
	T_TRI,   /* int: -1 null, else a JSON boolean */
	T_ENUM,  /* int: index of the settings row's words, -1 null; size: the longest word + 1 */
	T_JSON,  /* json_object *: any JSON object, kept as it is (owned) */
	T_COND,  /* struct fslab_drive_conditions (lib/drivetemp.h's encoding) */
	T_OBJ,   /* a JSON object read by sub (offsets from the same base) */
	T_ARR,   /* an array of objects read by sub, entry k at off + k * stride
		  * (fs: in the array m->fs points to, grown as it is read) */
	T_WORDS, /* char ** of strings, its size_t count at count */
	T_SEED,  /* uint64_t: any 64-bit value; written as a JSON int64, so one above
		  * INT64_MAX reads back negative and is taken modulo 2^64 */
	T_INDEX, /* written only: the array entry's number, from 1 */
	T_FN,    /* read and written by rd and wr */
};

enum mf_wr {
	W_NULL0,   /* "" or 0 is null; a double only above 0 */
	W_ALWAYS,  /* written as it is */
	W_KIB,     /* a double of at least 1 as a whole number, else null */
	W_ROUND,   /* a double rounded to a whole number */
	W_OMIT0,   /* "" or no words: the key is left out */
	W_OMITNULL /* words never set: the key is left out */
};

enum { ONLY_RUN = 1, ONLY_IMPORT = 2 };

struct mf_table;

struct mf_row {
	const char *key;          /* NULL: the settings row's manifest key */
	unsigned char type;       /* enum mf_type */
	unsigned char wr, only;   /* enum mf_wr; 0 or ONLY_*: which manifests write it */
	signed char set, k;       /* FSLAB_SETTING_x + 1 and which of its keys; 0: key */
	bool words;               /* T_STR: "" or one of the settings row's words */
	bool req;                 /* T_COND: written even when not read */
	bool fs;                  /* T_ARR: the manifest's filesystems (m->fs, m->n_fs) */
	size_t off, size;
	size_t has;               /* offsetof + 1 of a bool: set when read, written null when false */
	size_t when;              /* offsetof + 1 of a byte: written null when 0 */
	double lo, hi, def;       /* bounds; def: the value when absent */
	unsigned mfhas;           /* FSLAB_MF_HAS_* when present */
	const struct mf_table *sub;
	size_t count, stride;     /* T_ARR (unsigned count), T_WORDS (size_t count) */
	unsigned max;             /* T_ARR, T_WORDS: entries */
	const char *note;         /* T_ARR: after "at most N" */
	/* T_FN: v is NULL when absent; rd returns 1 read, 0 absent or -errno */
	int (*rd)(struct mf_ctx *c, json_object *v, const char *field, void *base);
	json_object *(*wf)(const void *base);
};

struct mf_table {
	const struct mf_row *rows;
	size_t n;
	/* after the rows: what binds them together (o the object read) */
	int (*check)(struct mf_ctx *c, json_object *o, const char *field, void *base);
	/* unsigned at offset le[0] at most the one at le[1]: else refused with
	 * the message order (given both) */
	size_t le[2];
	const char *order;
	/* writing: null unless the string at offset when - 1 is not empty or
	 * the unsigned at when_u - 1 is not 0 (0 and 0: always written) */
	size_t when, when_u;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define TABLE(name, r, ...) static const struct mf_table name = { .rows = r, .n = N(r), __VA_ARGS__ }
#define AT(st, mem) .off = offsetof(st, mem), .size = sizeof(((st *)0)->mem)
#define HAS(st, mem) .has = offsetof(st, mem) + 1
#define WHEN(st, mem) .when = offsetof(st, mem) + 1
#define SK(row, n) .set = FSLAB_SETTING_##row + 1, .k = n

typedef struct fslab_manifest M;
typedef struct fslab_manifest_fs FS;
typedef struct fslab_manifest_steady ST;
typedef struct fslab_steady_window WIN;
typedef struct fslab_manifest_steady_round RND;
typedef struct fslab_manifest_quiet QT;
typedef struct fslab_manifest_drive DRV;
typedef struct fslab_manifest_drive_pass PASS;

/* ---- reading ---- */

static int mf_fail(struct mf_ctx *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int mf_fail(struct mf_ctx *c, const char *field, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fslab_err_set(c->e, -EINVAL, "%s: %s %s", c->name, field, why);
}

/* The value of key in o; NULL when absent or null (the default then). */
static json_object *mf_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static const char *mf_key(const struct mf_row *r)
{
	return r->key ? r->key : fslab_setting_mkey(r->set - 1, r->k);
}

/* v of JSON type want (json_type_double: any number), else -EINVAL
 * naming field ("is not <what>"). */
static int mf_is(struct mf_ctx *c, json_object *v, json_type want, const char *what,
		 const char *field)
{
	if (json_object_is_type(v, want) ||
	    (want == json_type_double && json_object_is_type(v, json_type_int)))
		return 0;
	return mf_fail(c, field, "is not %s", what);
}

/* A string of less than size bytes into dst. */
static int mf_str(struct mf_ctx *c, json_object *v, const char *field, char *dst, size_t size)
{
	size_t n;

	if (mf_is(c, v, json_type_string, "a string", field) < 0)
		return -EINVAL;
	n = (size_t)json_object_get_string_len(v);
	if (n >= size || strlen(json_object_get_string(v)) != n)
		return mf_fail(c, field, "is longer than %zu bytes or holds a NUL byte", size - 1);
	memcpy(dst, json_object_get_string(v), n + 1);
	return 0;
}

static int mf_words_of(struct mf_ctx *c, const struct mf_row *r, const char *field, const char *w)
{
	char words[64];

	return mf_fail(c, field, "is '%s'; allowed: %s", w,
		       fslab_setting_words(r->set - 1, ", ", words, sizeof(words)));
}

static int mf_read_obj(struct mf_ctx *c, json_object *o, const char *prefix,
		       const struct mf_table *t, void *base);

/* An array of at most r->max entries: objects, each read by r->sub, or
 * (T_WORDS) strings, each shorter than FSLAB_MANIFEST_TEXT_MAX. */
static int mf_read_arr(struct mf_ctx *c, const struct mf_row *r, json_object *v,
		       const char *field, char *base)
{
	size_t n = json_object_array_length(v);
	const char **w = NULL;
	int rc;

	if (n > r->max)
		return mf_fail(c, field, "has %zu entries; at most %u%s%s", n, r->max,
			       r->note ? " " : "", r->note ? r->note : "");
	if (r->type == T_WORDS && !(w = calloc(n + 1, sizeof(*w))))
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		json_object *one = json_object_array_get_idx(v, k);
		char p[144], *el;

		if (r->type == T_WORDS) {
			if (!one || !json_object_is_type(one, json_type_string) ||
			    (size_t)json_object_get_string_len(one) >= FSLAB_MANIFEST_TEXT_MAX) {
				free(w);
				return mf_fail(c, field, "entry %zu is not a string of less than %d bytes",
					       k, FSLAB_MANIFEST_TEXT_MAX);
			}
			w[k] = json_object_get_string(one);
			continue;
		}
		snprintf(p, sizeof(p), "%s[%zu]", field, k);
		if (!one || !json_object_is_type(one, json_type_object))
			return mf_fail(c, p, "is not an object");
		if (r->fs && !fslab_manifest_add_fs(c->m))
			return -ENOMEM;
		el = r->fs ? (char *)&c->m->fs[k] : base + r->off + k * r->stride;
		if ((rc = mf_read_obj(c, one, p, r->sub, el)) < 0)
			return rc;
	}
	if (r->fs)
		return 0;
	if (r->type != T_WORDS) {
		*(unsigned *)(base + r->count) = (unsigned)n;
		return 0;
	}
	rc = fslab_manifest_set_words((char ***)(base + r->off), (size_t *)(base + r->count), n, w);
	free(w);
	return rc;
}

static void mf_put_uint(const struct mf_row *r, void *p, uint64_t v)
{
	if (r->size == sizeof(uint64_t))
		*(uint64_t *)p = v;
	else
		*(unsigned *)p = (unsigned)v;
}

/* The JSON type each row type reads, and its name in a refusal. */
static const struct {
	json_type type;
	const char *what;
} mf_json[] = {
	[T_STR] = { json_type_string, "a string" },
	[T_BOOL] = { json_type_boolean, "true or false" },
	[T_UINT] = { json_type_int, "a whole number" },
	[T_DBL] = { json_type_double, "a number" },
	[T_TRI] = { json_type_boolean, "true or false" },
	[T_ENUM] = { json_type_string, "a string" },
	[T_JSON] = { json_type_object, "an object" },
	[T_COND] = { json_type_object, "an object" },
	[T_OBJ] = { json_type_object, "an object" },
	[T_ARR] = { json_type_array, "an array" },
	[T_WORDS] = { json_type_array, "an array of strings" },
	[T_SEED] = { json_type_int, "a whole number" },
};

/* Row r of the object o: 1 read, 0 absent (its default kept), or -errno. */
static int mf_read_value(struct mf_ctx *c, const struct mf_row *r, json_object *v,
			 const char *field, char *base)
{
	char *p = base + r->off, text[64];
	double d;
	int64_t i;
	int rc;

	if (r->type == T_COND)
		fslab_drive_conditions_unknown((struct fslab_drive_conditions *)p);
	if (r->def)
		mf_put_uint(r, p, (uint64_t)r->def);
	if (r->type == T_FN)
		return r->rd(c, v, field, base);
	if (!v || r->type == T_INDEX)
		return 0;
	if (mf_is(c, v, mf_json[r->type].type, mf_json[r->type].what, field) < 0)
		return -EINVAL;
	switch ((enum mf_type)r->type) {
	case T_STR:
		if ((rc = mf_str(c, v, field, p, r->size)) < 0)
			return rc;
		if (r->words && p[0] && fslab_setting_word_index(r->set - 1, p) < 0)
			return mf_words_of(c, r, field, p);
		return 1;
	case T_BOOL:
		*(bool *)p = json_object_get_boolean(v);
		return 1;
	case T_TRI:
		*(int *)p = json_object_get_boolean(v);
		return 1;
	case T_UINT:
		i = json_object_get_int64(v);
		if (i < 0 || (uint64_t)i < (uint64_t)r->lo || (uint64_t)i > (uint64_t)r->hi)
			return mf_fail(c, field, "is %s; allowed: %llu to %llu", json_object_get_string(v),
				       (unsigned long long)r->lo, (unsigned long long)r->hi);
		mf_put_uint(r, p, (uint64_t)i);
		return 1;
	case T_DBL:
		d = json_object_get_double(v);
		if (!isfinite(d) || d < r->lo || d > r->hi)
			return mf_fail(c, field, "is %.17g; allowed: %.17g to %.17g", d, r->lo, r->hi);
		*(double *)p = d;
		return 1;
	case T_ENUM:
		if ((rc = mf_str(c, v, field, text, r->size)) < 0)
			return rc;
		if ((*(int *)p = fslab_setting_word_index(r->set - 1, text)) < 0)
			return mf_words_of(c, r, field, text);
		return 1;
	case T_SEED:
		i = json_object_get_int64(v);
		*(uint64_t *)p = i < 0 ? (uint64_t)i : json_object_get_uint64(v);
		return 1;
	case T_JSON:
		*(json_object **)p = json_object_get(v);
		return 1;
	case T_COND:
		if (fslab_drive_conditions_from_json(v, (struct fslab_drive_conditions *)p) < 0)
			return mf_fail(c, field, "is not a drive's conditions (temperatures -60..200 C, booleans, a count)");
		return 1;
	case T_OBJ:
		return (rc = mf_read_obj(c, v, field, r->sub, base + r->off)) < 0 ? rc : 1;
	case T_ARR:
	case T_WORDS:
		return (rc = mf_read_arr(c, r, v, field, base)) < 0 ? rc : 1;
	case T_INDEX:
	case T_FN:
		break;
	}
	return 0;
}

static int mf_read_obj(struct mf_ctx *c, json_object *o, const char *prefix,
		       const struct mf_table *t, void *base)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct mf_row *r = &t->rows[i];
		const char *key = mf_key(r);
		char field[128];
		int rc;

		/* field: "sweep.file_max_kib", "filesystems[2].name": the key's path */
		snprintf(field, sizeof(field), "%s%s%s", prefix, prefix[0] ? "." : "", key);
		if ((rc = mf_read_value(c, r, mf_get(o, key), field, base)) < 0)
			return rc;
		if (rc > 0 && r->has)
			*(bool *)((char *)base + r->has - 1) = true;
		if (rc > 0)
			c->m->has |= r->mfhas;
	}
	if (t->order && *(unsigned *)((char *)base + t->le[0]) > *(unsigned *)((char *)base + t->le[1]))
		return mf_fail(c, prefix, t->order, *(unsigned *)((char *)base + t->le[0]),
			       *(unsigned *)((char *)base + t->le[1]));
	return t->check ? t->check(c, o, prefix, base) : 0;
}

/* ---- writing ---- */

static json_object *mf_write_obj(const struct mf_wctx *w, const struct mf_table *t,
				 const void *base);

static json_object *mf_jint(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

static json_object *mf_jwords(char *const *w, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_string(w[i]));
	return a;
}

/* Row r's value; *omit when the key is left out. */
static json_object *mf_write_value(const struct mf_wctx *w, const struct mf_row *r,
				   const char *base, bool *omit)
{
	const char *p = base + r->off;
	uint64_t u;
	double d;

	if ((r->has && !base[r->has - 1]) || (r->when && !base[r->when - 1]))
		return NULL;
	switch ((enum mf_type)r->type) {
	case T_STR:
		*omit = r->wr == W_OMIT0 && !p[0];
		return p[0] || r->wr == W_ALWAYS ? json_object_new_string(p) : NULL;
	case T_BOOL:
		return json_object_new_boolean(*(const bool *)p);
	case T_TRI:
		return *(const int *)p < 0 ? NULL : json_object_new_boolean(*(const int *)p);
	case T_UINT:
		u = r->size == sizeof(uint64_t) ? *(const uint64_t *)p : *(const unsigned *)p;
		if (!u && r->def)
			u = (uint64_t)r->def;
		return u || r->wr == W_ALWAYS ? mf_jint(u) : NULL;
	case T_DBL:
		d = *(const double *)p;
		if (r->wr == W_KIB)
			return d >= 1 ? mf_jint((uint64_t)d) : NULL;
		if (r->wr == W_ROUND)
			return json_object_new_int64(llround(d));
		return d > 0 || r->wr == W_ALWAYS ? json_object_new_double(d) : NULL;
	case T_ENUM: {
		const char *word = fslab_setting_word(r->set - 1, *(const int *)p);
		return word ? json_object_new_string(word) : NULL;
	}
	case T_SEED:
		return mf_jint(*(const uint64_t *)p);
	case T_JSON:
		return json_object_get(*(json_object *const *)p);
	case T_COND: {
		const struct fslab_drive_conditions *dc = (const void *)p;
		return r->req || dc->read_at[0] ? fslab_drive_conditions_to_json(dc) : NULL;
	}
	case T_OBJ:
		return mf_write_obj(w, r->sub, p);
	case T_ARR: {
		json_object *a = json_object_new_array();
		struct mf_wctx one = *w;
		size_t n = r->fs ? *(const size_t *)(base + r->count) : *(const unsigned *)(base + r->count);

		if (r->fs)
			p = *(const char *const *)p;
		for (one.k = 0; a && one.k < n && one.k < r->max; one.k++)
			json_object_array_add(a, mf_write_obj(&one, r->sub, p + one.k * r->stride));
		return a;
	}
	case T_WORDS: {
		char *const *words = *(char *const *const *)p;
		size_t n = *(const size_t *)(base + r->count);

		*omit = (r->wr == W_OMIT0 && !n) || (r->wr == W_OMITNULL && !words);
		return *omit ? NULL : mf_jwords(words, n);
	}
	case T_INDEX:
		return json_object_new_int64(w->k + 1);
	case T_FN:
		return r->wf(base);
	}
	return NULL;
}

static json_object *mf_write_obj(const struct mf_wctx *w, const struct mf_table *t,
				 const void *base)
{
	json_object *o;

	if ((t->when || t->when_u) && !(t->when && ((const char *)base)[t->when - 1]) &&
	    !(t->when_u && *(const unsigned *)((const char *)base + t->when_u - 1)))
		return NULL;
	o = json_object_new_object();
	for (size_t i = 0; o && i < t->n; i++) {
		const struct mf_row *r = &t->rows[i];
		bool omit = false;
		json_object *v;

		if (r->only && r->only != w->only)
			continue;
		v = mf_write_value(w, r, base, &omit);
		if (!omit)
			json_object_object_add(o, mf_key(r), v);
	}
	return o;
}

/* ---- the specials: read and written by their own functions ---- */

static int rd_imported_from(struct mf_ctx *c, json_object *v, const char *field, void *base)
{
	char from[16];

	if (!v)
		return 0;
	if (mf_str(c, v, field, from, sizeof(from)) < 0)
		return -EINVAL;
	if (strcmp(from, "iozone") != 0)
		return mf_fail(c, field, "is '%s'; fslab imports from iozone only", from);
	((M *)base)->kind = FSLAB_MANIFEST_IMPORT;
	return 1;
}

static json_object *wr_imported_from(const void *base)
{
	(void)base;
	return json_object_new_string("iozone");
}

static int rd_tests(struct mf_ctx *c, json_object *v, const char *field, void *base)
{
	M *m = base;

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return mf_fail(c, field, "is not an array of test names");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *t = json_object_array_get_idx(v, i);
		enum fslab_test id = t && json_object_is_type(t, json_type_string)
					     ? fslab_test_from_string(json_object_get_string(t))
					     : FSLAB_TEST_INVALID;
		if (id == FSLAB_TEST_INVALID)
			return mf_fail(c, field, "entry %zu is not a test name (write, read, ...)", i);
		m->sweep.tests |= 1u << id;
	}
	return 1;
}

static json_object *wr_tests(const void *base)
{
	json_object *tests = json_object_new_array();

	for (int t = 0; tests && t < FSLAB_TEST_MAX; t++)
		if (((const M *)base)->sweep.tests & (1u << t))
			json_object_array_add(tests, json_object_new_string(fslab_test_to_string(t)));
	return tests;
}

/* the order row's words (lib/settings.c); absent: shuffle */
static int rd_order(struct mf_ctx *c, json_object *v, const char *field, void *base)
{
	char order[16] = "";

	if (v && mf_str(c, v, field, order, sizeof(order)) < 0)
		return -EINVAL;
	((M *)base)->sweep.shuffle = fslab_setting_word_index(FSLAB_SETTING_ORDER, order) != 1;
	return v != NULL;
}

static json_object *wr_order(const void *base)
{
	return json_object_new_string(fslab_setting_word(FSLAB_SETTING_ORDER, ((const M *)base)->sweep.shuffle ? 0 : 1));
}

/* The lab's precondition record, in the encoding of its one writer
 * (lib/state.c); absent, its defaults. */
static int rd_precondition(struct mf_ctx *c, json_object *v, const char *field, void *base)
{
	char why[256];

	if (v && mf_is(c, v, json_type_object, "an object", field) < 0)
		return -EINVAL;
	if (fslab_state_precondition_from_json(v, &((FS *)base)->precondition, why, sizeof(why)) < 0)
		return mf_fail(c, field, "%s", why);
	return v != NULL;
}

static json_object *wr_precondition(const void *base)
{
	return fslab_state_precondition_to_json(&((const FS *)base)->precondition);
}

/* "spec": {source, text} or a string (the source). */
static int rd_spec(struct mf_ctx *c, json_object *v, const char *field, void *base)
{
	M *m = base;
	json_object *t;

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return mf_str(c, v, field, m->spec_source, sizeof(m->spec_source)) < 0 ? -EINVAL : 1;
	if (!json_object_is_type(v, json_type_object))
		return mf_fail(c, field, "is neither a string nor an object");
	if ((t = mf_get(v, "source")) && mf_str(c, t, "spec.source", m->spec_source, sizeof(m->spec_source)) < 0)
		return -EINVAL;
	if ((t = mf_get(v, "text"))) {
		size_t n = json_object_is_type(t, json_type_string) ? (size_t)json_object_get_string_len(t) : 0;
		if (!json_object_is_type(t, json_type_string) || n > FSLAB_MANIFEST_SPEC_MAX ||
		    strlen(json_object_get_string(t)) != n)
			return mf_fail(c, "spec.text", "is not a text of at most %u bytes", FSLAB_MANIFEST_SPEC_MAX);
		m->spec_text = strdup(json_object_get_string(t));
		if (!m->spec_text)
			return -ENOMEM;
	}
	return 1;
}

static json_object *wr_spec(const void *base)
{
	const M *m = base;
	json_object *o;

	if (!m->spec_text)
		return json_object_new_string(m->spec_source[0] ? m->spec_source : "preset");
	o = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string(m->spec_source));
	json_object_object_add(o, "text", json_object_new_string(m->spec_text));
	return o;
}

/* ---- the tables ---- */

#define R .only = ONLY_RUN
#define A .wr = W_ALWAYS
#define KIB_S .lo = 0, .hi = FSLAB_MANIFEST_KIB_S_MAX
#define SECS .lo = 0, .hi = FSLAB_MANIFEST_SECONDS_MAX
#define BYTES .lo = 0, .hi = 0x1p60
#define COUNT .lo = 0, .hi = FSLAB_MANIFEST_COUNT_MAX
#define ROUNDS .lo = 1, .hi = FSLAB_STEADY_ROUNDS_MAX

/* "steady_state".window: rounds within the phase's bound, figures within
 * a device's. */
static const struct mf_row window_rows[] = {
	{ "first_round", T_UINT, AT(WIN, first), A, ROUNDS },
	{ "last_round", T_UINT, AT(WIN, last), A, ROUNDS },
	{ "mean_kib_s", T_DBL, AT(WIN, mean), .wr = W_ROUND, KIB_S },
	{ "min_kib_s", T_DBL, AT(WIN, min), .wr = W_ROUND, KIB_S },
	{ "max_kib_s", T_DBL, AT(WIN, max), .wr = W_ROUND, KIB_S },
	{ "slope_kib_s_per_round", T_DBL, AT(WIN, slope), .wr = W_ROUND, .lo = -FSLAB_MANIFEST_KIB_S_MAX, .hi = FSLAB_MANIFEST_KIB_S_MAX },
	{ "range_ok", T_BOOL, AT(WIN, range_ok) },
	{ "slope_ok", T_BOOL, AT(WIN, slope_ok) },
};
TABLE(window_table, window_rows, .le = { offsetof(WIN, first), offsetof(WIN, last) },
      .order = "has first_round %u after last_round %u", .when_u = offsetof(WIN, last) + 1);

static const struct mf_row round_rows[] = {
	{ "round", T_INDEX, A },
	{ "seq_write_kib_s", T_DBL, AT(RND, seq_write_kib_s), .wr = W_ROUND, KIB_S },
	{ "rand_write_kib_s", T_DBL, AT(RND, rand_write_kib_s), .wr = W_ROUND, KIB_S },
};
TABLE(round_table, round_rows);

/* at most FSLAB_STEADY_ROUNDS_MAX rounds, and none named beyond them */
static int steady_check(struct mf_ctx *c, json_object *o, const char *field, void *base)
{
	const ST *st = base;

	if (!st->result[0])
		return mf_fail(c, field, "has no result");
	if (mf_get(o, "rounds") && (st->reached > st->n_rounds || st->window.last > st->n_rounds))
		return mf_fail(c, field, "names round %u of %u recorded",
			       st->reached > st->n_rounds ? st->reached : st->window.last, st->n_rounds);
	return 0;
}

static const struct mf_row steady_rows[] = {
	{ "result", T_STR, AT(ST, result), A },
	{ "reached_in_round", T_UINT, AT(ST, reached), .lo = 0, .hi = FSLAB_STEADY_ROUNDS_MAX },
	{ "session", T_UINT, AT(ST, session), .lo = 0, .hi = FSLAB_MANIFEST_SESSIONS_MAX },
	{ "file_bytes", T_UINT, AT(ST, file_bytes), BYTES },
	{ "round_bytes", T_UINT, AT(ST, round_bytes), BYTES },
	{ "free_bytes", T_UINT, AT(ST, free_bytes), BYTES },
	{ "fill_s", T_DBL, AT(ST, fill_s), A, SECS },
	{ "elapsed_s", T_DBL, AT(ST, elapsed_s), A, SECS },
	{ "rounds", T_ARR, AT(ST, rounds), .sub = &round_table, .count = offsetof(ST, n_rounds), .stride = sizeof(RND), .max = FSLAB_STEADY_ROUNDS_MAX },
	{ "window", T_OBJ, AT(ST, window), .sub = &window_table },
};
TABLE(steady_table, steady_rows, .check = steady_check, .when = offsetof(ST, result) + 1);

/* "between_filesystems" of one filesystem. */
static const struct mf_row quiet_rows[] = {
	{ "skipped", T_STR, AT(QT, skipped) },
	{ "trim", T_STR, AT(QT, trim) },
	{ "trimmed_bytes", T_UINT, AT(QT, trimmed_bytes), A, COUNT },
	{ "waits", T_UINT, AT(QT, passes), A, .lo = 0, .hi = UINT_MAX },
	{ "not_idle", T_UINT, AT(QT, not_idle), A, .lo = 0, .hi = UINT_MAX },
	{ "wait_s", T_DBL, AT(QT, wait_s), A, SECS },
	{ "wait_max_s", T_DBL, AT(QT, wait_max_s), A, SECS },
};
TABLE(quiet_table, quiet_rows, .le = { offsetof(QT, not_idle), offsetof(QT, passes) },
      .order = "has more not_idle (%u) than waits (%u)", .when = offsetof(QT, skipped) + 1,
      .when_u = offsetof(QT, passes) + 1);

static int pass_check(struct mf_ctx *c, json_object *o, const char *field, void *base)
{
	const PASS *p = base;
	char before[160];

	if (!p->trial || !p->session)
		return mf_fail(c, field, "has no trial or session");
	snprintf(before, sizeof(before), "%s.before", field);
	if (!mf_get(o, "before"))
		return mf_fail(c, before, "is missing: a pass's conditions before it are always read");
	return 0;
}

/* "drive"."passes": each pass's trial, session and the conditions before
 * and after it. */
static const struct mf_row pass_rows[] = {
	{ "trial", T_UINT, AT(PASS, trial), A, .lo = 1, .hi = FSLAB_TRIALS_MAX },
	{ "session", T_UINT, AT(PASS, session), A, .lo = 1, .hi = FSLAB_MANIFEST_SESSIONS_MAX },
	{ "before", T_COND, AT(PASS, before), .req = true },
	{ "after", T_COND, AT(PASS, after) },
};
TABLE(pass_table, pass_rows, .check = pass_check);

/* "drive" of one filesystem: the conditions in lib/drivetemp.h's one
 * encoding, bounded there. */
static const struct mf_row drive_rows[] = {
	{ "before", T_COND, AT(DRV, before) },
	{ "after", T_COND, AT(DRV, after) },
	{ "max_temperature_c", T_DBL, AT(DRV, max_temp_c), HAS(DRV, has_max), A, .lo = -60, .hi = 200 },
	{ "thermal_rows", T_UINT, AT(DRV, thermal_rows), A, COUNT },
	{ "thermal", T_STR, AT(DRV, thermal) },
	{ "passes", T_ARR, AT(DRV, passes), .sub = &pass_table, .count = offsetof(DRV, n_passes), .stride = sizeof(PASS),
	  .max = FSLAB_MANIFEST_DRIVE_PASSES, .note = "(later passes are counted in passes_not_recorded)" },
	{ "passes_not_recorded", T_UINT, AT(DRV, passes_unrecorded), A, COUNT },
};
TABLE(drive_table, drive_rows, .when = offsetof(DRV, before.read_at) + 1);

/* device_probe_runs: up to FSLAB_MANIFEST_PROBE_RUNS {write_kib_s, read_kib_s}. */
static const struct mf_row probe_rows[] = {
	{ "write_kib_s", T_DBL, AT(FS, probe_write_kib_s[0]), .wr = W_KIB, KIB_S },
	{ "read_kib_s", T_DBL, AT(FS, probe_read_kib_s[0]), .wr = W_KIB, KIB_S },
};
TABLE(probe_table, probe_rows);

static int fs_check(struct mf_ctx *c, json_object *o, const char *field, void *base)
{
	const FS *fs = base;

	(void)o;
	if (!fslab_fs_name_valid(fs->name))
		return mf_fail(c, field, "has no valid name (1-31 of A-Z a-z 0-9 _ -)");
	if (fslab_manifest_find_fs(c->m, fs->name) != (int)(fs - c->m->fs))
		return mf_fail(c, field, "repeats the name %s", fs->name);
	return 0;
}

/* One entry of "filesystems"; an import's holds its name, type and report. */
static const struct mf_row fs_rows[] = {
	{ "name", T_STR, AT(FS, name), A },
	{ "type", T_STR, AT(FS, type), R },
	{ "type", T_STR, AT(FS, type), .only = ONLY_IMPORT, .wr = W_OMIT0 },
	{ "iozone_report", T_STR, AT(FS, iozone_report), .only = ONLY_IMPORT },
	{ "path", T_STR, AT(FS, path), R, A },
	{ "mountpoint", T_STR, AT(FS, mountpoint), R },
	{ "device", T_STR, AT(FS, device), R },
	{ "mount_method", T_STR, AT(FS, mount_method), R },
	{ "mkfs_options", T_STR, AT(FS, mkfs_options), HAS(FS, has_mkfs_options), R, A },
	{ "mkfs_command", T_STR, AT(FS, mkfs_command), R },
	{ "mount_options", T_STR, AT(FS, mount_options), R },
	{ "mount_options_at_end", T_STR, AT(FS, mount_options_at_end), R },
	{ "live", T_JSON, AT(FS, live), R },
	{ "mkfs_tool_version", T_STR, AT(FS, mkfs_tool_version), R },
	{ "device_model", T_STR, AT(FS, device_model), R },
	{ "device_serial", T_STR, AT(FS, device_serial), R },
	{ "device_info", T_JSON, AT(FS, device_info), R },
	{ "setup_discarded", T_TRI, AT(FS, setup_discarded), R },
	{ "device_size_bytes", T_UINT, AT(FS, device_size_bytes), R, BYTES },
	{ "device_write_kib_s", T_DBL, AT(FS, device_write_kib_s), R, .wr = W_KIB, KIB_S },
	{ "device_read_kib_s", T_DBL, AT(FS, device_read_kib_s), R, .wr = W_KIB, KIB_S },
	{ "device_probe", T_STR, AT(FS, device_probe), R },
	{ "device_probe_note", T_STR, AT(FS, device_probe_note), R },
	{ "device_probe_source", T_STR, AT(FS, device_probe_source), R },
	{ "device_probe_measured_at", T_STR, AT(FS, device_probe_measured_at), R },
	{ "device_probe_runs", T_ARR, HAS(FS, has_probe_runs), R, .sub = &probe_table, .count = offsetof(FS, probe_runs),
	  .stride = sizeof(double), .max = FSLAB_MANIFEST_PROBE_RUNS },
	{ NULL, T_UINT, SK(PROBE_SIZE, 0), AT(FS, device_probe_bytes), R, BYTES },
	{ "sync_device", T_STR, AT(FS, sync_device), R },
	{ "sync_note", T_STR, AT(FS, sync_note), R },
	{ "cache_drop_method", T_STR, AT(FS, cache_drop_method), R },
	{ "cache_drop_note", T_STR, AT(FS, cache_drop_note), R },
	{ "fuse", T_BOOL, AT(FS, fuse), R },
	{ "loop_io", T_STR, AT(FS, loop_io), R },
	{ "device_counters", T_STR, AT(FS, device_counters), R },
	{ "precondition", T_FN, R, .rd = rd_precondition, .wf = wr_precondition },
	{ "quiet_after_mount", T_STR, AT(FS, mount_quiet), R },
	{ "quiet_after_mount_s", T_DBL, AT(FS, mount_quiet_wait_s), WHEN(FS, mount_quiet), R, A, SECS },
	{ "vanished", T_BOOL, AT(FS, vanished), R },
	{ "cells_ok", T_UINT, AT(FS, cells_ok), R, A, COUNT },
	{ "cells_failed", T_UINT, AT(FS, cells_failed), R, A, COUNT },
	{ "cells_skipped", T_UINT, AT(FS, cells_skipped), R, A, COUNT },
	{ "timed_s", T_DBL, AT(FS, timed_s), R, A, SECS },
	{ "untimed_io_s", T_DBL, AT(FS, untimed_io_s), R, A, SECS },
	{ "cache_drop_s", T_DBL, AT(FS, cache_drop_s), R, A, SECS },
	{ "wall_s", T_DBL, AT(FS, wall_s), R, A, SECS },
	{ "steady_state", T_OBJ, AT(FS, steady), R, .sub = &steady_table },
	{ "between_filesystems", T_OBJ, AT(FS, quiet), R, .sub = &quiet_table },
	{ "drive", T_OBJ, AT(FS, drive), R, .sub = &drive_table },
};
TABLE(fs_table, fs_rows, .check = fs_check);

static int sweep_check(struct mf_ctx *c, json_object *o, const char *field, void *base)
{
	const M *m = base;

	(void)o;
	(void)field;
	if (m->sweep.file_max_kib && m->sweep.file_min_kib > m->sweep.file_max_kib)
		return mf_fail(c, "sweep.file_min_kib", "is larger than sweep.file_max_kib");
	if (m->sweep.record_max_kib && m->sweep.record_min_kib > m->sweep.record_max_kib)
		return mf_fail(c, "sweep.record_min_kib", "is larger than sweep.record_max_kib");
	return 0;
}

/* "sweep": sizes within what fslab's size parser accepts (lists in the strings);
 * the queued tests' depth and threads 0 (unset: 1) when absent - runs
 * recorded before them, and CDM sweeps, whose rows each have their own. */
#define KIB(lo_) .lo = lo_, .hi = FSLAB_MANIFEST_SIZE_KIB_MAX
static const struct mf_row sweep_rows[] = {
	{ NULL, T_STR, SK(PRESET, 0), AT(M, sweep.preset) },
	{ NULL, T_UINT, SK(FILE_SIZES, 0), AT(M, sweep.file_min_kib), KIB(1) },
	{ NULL, T_UINT, SK(FILE_SIZES, 1), AT(M, sweep.file_max_kib), KIB(1) },
	{ NULL, T_UINT, SK(RECORD_SIZES, 0), AT(M, sweep.record_min_kib), KIB(4) },
	{ NULL, T_UINT, SK(RECORD_SIZES, 1), AT(M, sweep.record_max_kib), KIB(4) },
	{ NULL, T_FN, SK(TESTS, 0), .rd = rd_tests, .wf = wr_tests },
	{ NULL, T_BOOL, SK(SMALL_RECORDS, 0), AT(M, sweep.keep_small_records), .mfhas = FSLAB_MF_HAS_KEEP_SMALL },
	{ NULL, T_FN, SK(ORDER, 0), .rd = rd_order, .wf = wr_order },
	{ "records_rule", T_STR, AT(M, sweep.records_rule), .wr = W_OMIT0 },
	{ "blocks", T_STR, AT(M, sweep.blocks), .wr = W_OMIT0 },
	{ NULL, T_UINT, SK(CDM_TIME, 0), AT(M, sweep.pass_s), .lo = 0, .hi = 3600 },
	{ "warmup_passes_discarded", T_UINT, AT(M, sweep.warmup_passes), .lo = 0, .hi = 100 },
	{ NULL, T_UINT, SK(IODEPTH, 0), AT(M, sweep.iodepth), .lo = 1, .hi = 256 },
	{ NULL, T_UINT, SK(JOBS, 0), AT(M, sweep.jobs), .lo = 1, .hi = 64 },
	{ "file_sizes", T_STR, AT(M, sweep.file_sizes), .wr = W_OMIT0 },
	{ "record_sizes", T_STR, AT(M, sweep.record_sizes), .wr = W_OMIT0 },
	{ "iodepths", T_STR, AT(M, sweep.iodepths), .wr = W_OMIT0 },
};
TABLE(sweep_table, sweep_rows, .check = sweep_check);

static const struct mf_row machine_rows[] = {
	{ "hostname", T_STR, AT(M, machine.hostname), A },
	{ "kernel", T_STR, AT(M, machine.kernel) },
	{ "kernel_version", T_STR, AT(M, machine.kernel_version) },
	{ "cpu_model", T_STR, AT(M, machine.cpu_model) },
	{ "cpus", T_UINT, AT(M, machine.cpus), .lo = 0, .hi = 1u << 20 },
	{ "memory_kib", T_UINT, AT(M, machine.memory_kib), .lo = 0, .hi = FSLAB_MANIFEST_SIZE_KIB_MAX },
};
TABLE(machine_table, machine_rows);

static const struct mf_row time_rows[] = {
	{ "wall_s", T_DBL, AT(M, time.wall_s), A, SECS },
	{ "timed_s", T_DBL, AT(M, time.timed_s), A, SECS },
	{ "untimed_io_s", T_DBL, AT(M, time.untimed_io_s), A, SECS },
	{ "cache_drop_s", T_DBL, AT(M, time.cache_drop_s), A, SECS },
};
TABLE(time_table, time_rows);

static int root_check(struct mf_ctx *c, json_object *o, const char *field, void *base)
{
	(void)o;
	(void)field;
	if (c->m->run_id[0] && strlen(c->m->run_id) != FSLAB_MANIFEST_RUN_ID_LEN)
		return mf_fail(c, "run_id", "is not a run id (%d characters)", FSLAB_MANIFEST_RUN_ID_LEN);
	(void)base;
	return 0;
}

/* The top level, in the order fslab has always written a run's keys; an
 * import's are fslab_version, command, imported_at, imported_from,
 * cache_mode, trials, filesystems and notes. */
static const struct mf_row root_rows[] = {
	{ "fslab_version", T_STR, AT(M, fslab_version) },
	{ "run_id", T_STR, AT(M, run_id), R },
	{ NULL, T_STR, SK(LABEL, 0), AT(M, label), R },
	{ "command", T_WORDS, AT(M, command), .count = offsetof(M, n_command), A, .max = FSLAB_MANIFEST_WORDS_MAX },
	{ "resumed_with", T_WORDS, AT(M, resumed_with), .count = offsetof(M, n_resumed_with), R, .wr = W_OMITNULL,
	  .max = FSLAB_MANIFEST_WORDS_MAX },
	{ "imported_at", T_STR, AT(M, imported_at), .only = ONLY_IMPORT },
	{ "imported_from", T_FN, .only = ONLY_IMPORT, .rd = rd_imported_from, .wf = wr_imported_from },
	{ "started_at", T_STR, AT(M, started_at), R },
	{ "finished_at", T_STR, AT(M, finished_at), R },
	{ "interrupted", T_BOOL, AT(M, interrupted), R },
	{ "sessions", T_UINT, AT(M, sessions), R, A, .lo = 1, .hi = FSLAB_MANIFEST_SESSIONS_MAX, .mfhas = FSLAB_MF_HAS_SESSIONS },
	{ NULL, T_ENUM, SK(CACHE, 0), .off = offsetof(M, cache), .size = 16 },
	{ NULL, T_UINT, SK(TRIALS, 0), AT(M, trials), .lo = 1, .hi = FSLAB_TRIALS_MAX, .mfhas = FSLAB_MF_HAS_TRIALS },
	{ NULL, T_DBL, SK(UNTIL_CI, 0), AT(M, until_ci_pct), R, .lo = 0, .hi = 100 },
	{ NULL, T_UINT, SK(MAX_TRIALS, 0), AT(M, max_trials), R, .lo = 1, .hi = FSLAB_TRIALS_MAX, .mfhas = FSLAB_MF_HAS_MAX_TRIALS },
	{ NULL, T_STR, SK(STOP, 0), AT(M, stop), R },
	/* kept as it is, so a manifest read and written again (fslab
	 * reproduce's notes) does not lose it */
	{ "stopping", T_JSON, AT(M, stopping), R },
	{ NULL, T_SEED, SK(SEED, 0), AT(M, seed), R, .mfhas = FSLAB_MF_HAS_SEED },
	{ NULL, T_STR, SK(IO, 0), AT(M, io_mode), R },
	{ NULL, T_STR, SK(SYNC, 0), AT(M, sync_policy), R },
	{ NULL, T_STR, SK(FILE_SYNC, 0), AT(M, file_sync), R },
	{ NULL, T_BOOL, SK(LATENCY, 0), AT(M, latency), R },
	{ NULL, T_UINT, SK(PASS_GAP, 0), AT(M, pass_gap_ms), R, A, .lo = 0, .hi = FSLAB_PASS_GAP_MS_MAX },
	{ NULL, T_STR, SK(STEADY, 0), AT(M, steady_state), R, .words = true },
	{ NULL, T_UINT, SK(STEADY_ROUND, 0), AT(M, steady_round_kib), R, .lo = 0, .hi = FSLAB_MANIFEST_SIZE_KIB_MAX },
	{ "sweep", T_OBJ, R, .sub = &sweep_table, .mfhas = FSLAB_MF_HAS_SWEEP },
	{ "machine", T_OBJ, R, .sub = &machine_table, .mfhas = FSLAB_MF_HAS_MACHINE },
	{ "page_cache_factor", T_DBL, AT(M, page_cache_factor), R, .lo = 0, .hi = 1000 },
	{ "page_cache_flag", T_STR, AT(M, page_cache_flag), R },
	{ "device_bytes", T_STR, AT(M, device_bytes), R },
	{ NULL, T_STR, SK(NO_PROBE, 0), AT(M, device_probe), R },
	{ "state_path", T_STR, AT(M, state_path), R },
	{ "filesystems", T_ARR, AT(M, fs), .fs = true, .sub = &fs_table, .count = offsetof(M, n_fs), .stride = sizeof(FS),
	  .max = FSLAB_MANIFEST_FS_MAX, .mfhas = FSLAB_MF_HAS_FILESYSTEMS },
	{ "time", T_OBJ, R, .sub = &time_table, .mfhas = FSLAB_MF_HAS_TIME },
	{ "spec", T_FN, R, .rd = rd_spec, .wf = wr_spec },
	{ "notes", T_WORDS, AT(M, notes), .count = offsetof(M, n_notes), .wr = W_OMIT0, .max = FSLAB_MANIFEST_NOTES_MAX },
};
TABLE(root_table, root_rows, .check = root_check);

/* ---- the API ---- */

/* JSON text to an object, or -EINVAL naming the line where it stopped. */
static int mf_tokenize(struct mf_ctx *c, const char *text, size_t len, json_object **out)
{
	json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *o;
	size_t line = 1, end;

	if (len > FSLAB_MANIFEST_MAX_BYTES)
		return fslab_err_set(c->e, -EINVAL, "%s: larger than %u MiB; not a manifest fslab wrote",
				     c->name, FSLAB_MANIFEST_MAX_BYTES >> 20);
	tok = json_tokener_new();
	if (!tok)
		return fslab_err_set(c->e, -ENOMEM, "%s: out of memory", c->name);
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
	json_tokener_free(tok);
	fslab_err_set(c->e, -EINVAL, "%s:%zu: not a JSON object (%s)", c->name, line,
		      o && jerr == json_tokener_success ? "not an object" : json_tokener_error_desc(jerr));
	json_object_put(o);
	return -EINVAL;
}

int fslab_manifest_parse(const char *text, size_t len, const char *name,
			 struct fslab_manifest **out, struct fslab_err *e)
{
	struct mf_ctx c = { name ? name : FSLAB_MANIFEST_NAME, NULL, e };
	json_object *root = NULL;
	int r;

	*out = NULL;
	r = mf_tokenize(&c, text, len, &root);
	if (r < 0)
		return r;
	c.m = fslab_manifest_new(FSLAB_MANIFEST_RUN);
	if (!c.m) {
		json_object_put(root);
		return fslab_err_set(e, -ENOMEM, "%s: out of memory", c.name);
	}
	c.m->json = root;
	r = mf_read_obj(&c, root, "", &root_table, c.m);
	if (r < 0) {
		if (r == -ENOMEM)
			fslab_err_set(e, r, "%s: out of memory", c.name);
		fslab_manifest_free(c.m);
		return r;
	}
	*out = c.m;
	return 0;
}

int fslab_manifest_format(const struct fslab_manifest *m, char **text, size_t *len)
{
	struct mf_wctx w = { m->kind == FSLAB_MANIFEST_IMPORT ? ONLY_IMPORT : ONLY_RUN, 0 };
	json_object *root = mf_write_obj(&w, &root_table, m);
	const char *js;
	int r = 0;

	if (!root)
		return -ENOMEM;
	js = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!js || asprintf(text, "%s\n", js) < 0)
		r = -ENOMEM;
	else
		*len = strlen(*text);
	json_object_put(root);
	return r;
}

/* ---- reading and writing the file ---- */

int fslab_manifest_open_at(int dfd)
{
	return fslab_open_regular_at(dfd, FSLAB_MANIFEST_NAME, O_RDONLY | O_NONBLOCK);
}

int fslab_manifest_read_fd(int fd, const char *name, struct fslab_manifest **out,
			   struct fslab_err *e)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	*out = NULL;
	/* one byte over the limit: a larger file is refused, never cut */
	r = fslab_read_fd(fd, &text, &len, (size_t)FSLAB_MANIFEST_MAX_BYTES + 2);
	if (r < 0)
		return fslab_err_set(e, r, "%s: %s", name,
				     r == -EFBIG ? "larger than 16 MiB; not a manifest fslab wrote" : strerror(-r));
	r = fslab_manifest_parse(text, len, name, out, e);
	free(text);
	return r;
}

int fslab_manifest_write_at(int dfd, const struct fslab_manifest *m)
{
	char *text = NULL;
	size_t len = 0;
	int r = fslab_manifest_format(m, &text, &len);

	if (r < 0)
		return r;
	r = fslab_write_file_atomic_at(dfd, FSLAB_MANIFEST_NAME, text, len, 0644);
	free(text);
	return r;
}
