#include "spec.h"
#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parse_ctx {
	struct fslab_spec *spec;
	char *err;
	size_t errlen;
	int failed;
	unsigned fs_seen_keys[FSLAB_MAX_FS]; /* bit 0 type, 1 size, 2 mkfs, 3 mount */
	unsigned disk_seen_keys;             /* bit 0 label, bit 1 alignment */
};

/* libinih reads a line into a fixed buffer (200 bytes in Debian's build)
 * and parses the rest of a longer line as a new line, so the tail of a long
 * value could silently become a key of its own.  Longer lines are refused. */
#define SPEC_LINE_MAX 199

static const char *const disk_keys = "label, alignment";
static const char *const fs_keys = "type, size, mkfs_options, mount_options";
static const char *const sweep_keys =
	"file_sizes, record_sizes, tests, trials, cache, seed, small_records, order";

bool fslab_fs_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= FSLAB_FS_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

void fslab_sweep_defaults(struct fslab_sweep_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->file_min = 64 * FSLAB_KiB;
	s->file_max = 2 * FSLAB_GiB;
	s->record_min = 4 * FSLAB_KiB;
	s->record_max = 16 * FSLAB_MiB;
	s->tests = FSLAB_TESTS_ALL;
	s->trials = 1;
	s->cache = FSLAB_CACHE_WARM;
	s->seed = 1;
	s->keep_small_records = false;
	s->shuffle = true;
}

void fslab_spec_default(struct fslab_spec *spec)
{
	static const enum fslab_fs_type order[] = {
		FSLAB_FS_EXT4, FSLAB_FS_EXT2, FSLAB_FS_XFS, FSLAB_FS_FAT32, FSLAB_FS_BTRFS,
	};

	memset(spec, 0, sizeof(*spec));
	snprintf(spec->disk.label, sizeof(spec->disk.label), "gpt");
	spec->disk.alignment = FSLAB_MiB;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct fslab_fs_spec *fs = &spec->fs[spec->n_fs++];
		snprintf(fs->name, sizeof(fs->name), "%s", fslab_fs_type_to_string(order[i]));
		fs->type = order[i];
		fs->size = 20 * FSLAB_GiB;
	}
	fslab_sweep_defaults(&spec->sweep);
}

static int fail(struct parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
		c->failed = 1;
	}
	return 0; /* inih: 0 = error on this line */
}

/* A key given twice, or an indented line (which inih reads as a second
 * value for the key above it): refused rather than letting the last one
 * silently win. */
static int dup_key(struct parse_ctx *c, const char *key, const char *section)
{
	return fail(c, "'%s' is set twice in [%s]; give each key once, on one line (an indented line continues the key above it)",
		    key, section);
}

static int parse_size_value(struct parse_ctx *c, const char *section, const char *key,
			    const char *value, uint64_t *out)
{
	const char *why = NULL;

	if (fslab_size_parse(value, out, &why) < 0)
		return fail(c, "[%s] %s = '%s': %s", section, key, value, why);
	return 1;
}

static int parse_range_value(struct parse_ctx *c, const char *key, const char *value,
			     uint64_t *lo, uint64_t *hi)
{
	const char *why = NULL;

	if (fslab_size_range_parse(value, lo, hi, &why) < 0)
		return fail(c, "[sweep] %s = '%s': %s", key, value, why);
	if (!is_pow2(*lo) || !is_pow2(*hi))
		return fail(c, "[sweep] %s = '%s': sizes must be powers of two (the sweep doubles)",
			    key, value);
	if (*lo < 4 * FSLAB_KiB)
		return fail(c, "[sweep] %s = '%s': the smallest size is 4K", key, value);
	return 1;
}

static int parse_uint(const char *value, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*value || !isdigit((unsigned char)value[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int handle_disk(struct parse_ctx *c, const char *key, const char *value)
{
	struct fslab_disk_spec *d = &c->spec->disk;
	unsigned bit = strcmp(key, "label") == 0 ? 1 : strcmp(key, "alignment") == 0 ? 2 : 0;

	if (bit & c->disk_seen_keys)
		return dup_key(c, key, "disk");
	c->disk_seen_keys |= bit;
	if (strcmp(key, "label") == 0) {
		if (strcmp(value, "gpt") != 0)
			return fail(c, "[disk] label = '%s': fslab writes GPT only (label = gpt)", value);
		snprintf(d->label, sizeof(d->label), "gpt");
		return 1;
	}
	if (strcmp(key, "alignment") == 0) {
		uint64_t a;
		if (!parse_size_value(c, "disk", key, value, &a))
			return 0;
		if (!is_pow2(a) || a < 4 * FSLAB_KiB || a > FSLAB_GiB)
			return fail(c, "[disk] alignment = '%s': use a power of two from 4K to 1G (default 1M)",
				    value);
		d->alignment = a;
		return 1;
	}
	return fail(c, "unknown key '%s' in [disk] (known: %s)", key, disk_keys);
}

static struct fslab_fs_spec *fs_section(struct parse_ctx *c, const char *name, size_t *idx)
{
	struct fslab_spec *s = c->spec;

	for (size_t i = 0; i < s->n_fs; i++) {
		if (strcmp(s->fs[i].name, name) == 0) {
			*idx = i;
			return &s->fs[i];
		}
	}
	return NULL;
}

static int handle_fs(struct parse_ctx *c, const char *name, const char *key, const char *value)
{
	size_t idx;
	struct fslab_fs_spec *fs = fs_section(c, name, &idx);

	if (!fs)
		return fail(c, "internal: [fs %s] not registered", name);
	{
		static const char *const keys[] = { "type", "size", "mkfs_options", "mount_options" };
		for (unsigned i = 0; i < 4; i++) {
			if (strcmp(key, keys[i]) != 0)
				continue;
			if (c->fs_seen_keys[idx] & (1u << i)) {
				char sec[64];
				snprintf(sec, sizeof(sec), "fs %s", name);
				return dup_key(c, key, sec);
			}
			if (i >= 2)
				c->fs_seen_keys[idx] |= 1u << i;
		}
	}
	if (strcmp(key, "type") == 0) {
		enum fslab_fs_type t = fslab_fs_type_from_string(value);
		if (t == FSLAB_FS_TYPE_INVALID)
			return fail(c, "[fs %s] type = '%s': unknown filesystem type (known: ext4, ext2, xfs, fat32, btrfs)",
				    name, value);
		fs->type = t;
		c->fs_seen_keys[idx] |= 1;
		return 1;
	}
	if (strcmp(key, "size") == 0) {
		char sec[64];
		snprintf(sec, sizeof(sec), "fs %s", name);
		if (!parse_size_value(c, sec, key, value, &fs->size))
			return 0;
		c->fs_seen_keys[idx] |= 2;
		return 1;
	}
	if (strcmp(key, "mkfs_options") == 0 || strcmp(key, "mount_options") == 0) {
		char *dst = key[1] == 'k' ? fs->mkfs_options : fs->mount_options;
		/* fslab_spec_write writes "key = value" on one line: it must
		 * fit in a spec line too. */
		size_t max = SPEC_LINE_MAX - strlen(key) - 3;
		if (max > FSLAB_OPTIONS_MAX - 1)
			max = FSLAB_OPTIONS_MAX - 1;
		if (strlen(value) > max)
			return fail(c, "[fs %s] %s is longer than %zu characters", name, key, max);
		for (const char *p = value; *p; p++) {
			if (iscntrl((unsigned char)*p) && *p != '\t')
				return fail(c, "[fs %s] %s contains a control character", name, key);
			/* After a blank, ';' starts an inline comment, so the value
			 * would not survive `fslab spec --print` and back. */
			if (*p == ';')
				return fail(c, "[fs %s] %s contains ';': options are words passed to mkfs or mount, never a shell command; remove it",
					    name, key);
		}
		/* Which options are allowed depends on the type, which may
		 * come later in the section: finish() checks them. */
		snprintf(dst, FSLAB_OPTIONS_MAX, "%s", value);
		return 1;
	}
	return fail(c, "unknown key '%s' in [fs %s] (known: %s)", key, name, fs_keys);
}

static int handle_sweep(struct parse_ctx *c, const char *key, const char *value)
{
	struct fslab_sweep_spec *s = &c->spec->sweep;
	static const char *const keys[] = { "file_sizes", "record_sizes", "tests", "trials",
					    "cache", "seed", "small_records", "order" };
	uint64_t v;

	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0 && (s->set & (1u << i)))
			return dup_key(c, key, "sweep");
	if (strcmp(key, "file_sizes") == 0) {
		if (!parse_range_value(c, key, value, &s->file_min, &s->file_max))
			return 0;
		s->set |= FSLAB_SWEEP_SET_FILE_SIZES;
	} else if (strcmp(key, "record_sizes") == 0) {
		if (!parse_range_value(c, key, value, &s->record_min, &s->record_max))
			return 0;
		s->set |= FSLAB_SWEEP_SET_RECORD_SIZES;
	} else if (strcmp(key, "tests") == 0) {
		char bad[64];
		if (fslab_tests_parse(value, &s->tests, bad, sizeof(bad)) < 0)
			return fail(c, "[sweep] tests: unknown test '%s' (known: all, write, rewrite, read, reread, random_read, random_write, backward_read, record_rewrite, stride_read, fwrite, frewrite, fread, freread)",
				    bad);
		s->set |= FSLAB_SWEEP_SET_TESTS;
	} else if (strcmp(key, "trials") == 0) {
		if (parse_uint(value, FSLAB_TRIALS_MAX, &v) < 0 || v == 0)
			return fail(c, "[sweep] trials = '%s': give a whole number from 1 to %d", value,
				    FSLAB_TRIALS_MAX);
		s->trials = (unsigned)v;
		s->set |= FSLAB_SWEEP_SET_TRIALS;
	} else if (strcmp(key, "cache") == 0) {
		enum fslab_cache_mode m = fslab_cache_mode_from_string(value);
		if (m == FSLAB_CACHE_MODE_INVALID)
			return fail(c, "[sweep] cache = '%s': use warm, fsync, direct or cold", value);
		s->cache = m;
		s->set |= FSLAB_SWEEP_SET_CACHE;
	} else if (strcmp(key, "seed") == 0) {
		if (parse_uint(value, UINT64_MAX, &v) < 0)
			return fail(c, "[sweep] seed = '%s': give a whole number", value);
		s->seed = v;
		s->set |= FSLAB_SWEEP_SET_SEED;
	} else if (strcmp(key, "small_records") == 0) {
		if (strcmp(value, "skip") == 0)
			s->keep_small_records = false;
		else if (strcmp(value, "keep") == 0)
			s->keep_small_records = true;
		else
			return fail(c, "[sweep] small_records = '%s': use skip (IOzone's default) or keep (iozone -z)",
				    value);
		s->set |= FSLAB_SWEEP_SET_SMALL_RECORDS;
	} else if (strcmp(key, "order") == 0) {
		if (strcmp(value, "shuffle") == 0)
			s->shuffle = true;
		else if (strcmp(value, "fixed") == 0)
			s->shuffle = false;
		else
			return fail(c, "[sweep] order = '%s': use shuffle or fixed", value);
		s->set |= FSLAB_SWEEP_SET_ORDER;
	} else {
		return fail(c, "unknown key '%s' in [sweep] (known: %s)", key, sweep_keys);
	}
	return 1;
}

/* inih calls this once per key; a new section shows up as a new name. */
static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;

	if (c->failed)
		return 1; /* report the first error only */
	if (strcmp(section, "disk") == 0)
		return handle_disk(c, key, value);
	if (strcmp(section, "sweep") == 0)
		return handle_sweep(c, key, value);
	if (strncmp(section, "fs ", 3) == 0) {
		const char *name = section + 3;
		size_t idx;

		while (*name == ' ')
			name++;
		if (!fslab_fs_name_valid(name))
			return fail(c, "[fs %s]: a filesystem name is 1 to 31 letters, digits, '_' or '-'",
				    name);
		if (!fs_section(c, name, &idx)) {
			struct fslab_fs_spec *fs;
			if (c->spec->n_fs >= FSLAB_MAX_FS)
				return fail(c, "too many [fs] sections (at most %d)", FSLAB_MAX_FS);
			fs = &c->spec->fs[c->spec->n_fs++];
			memset(fs, 0, sizeof(*fs));
			snprintf(fs->name, sizeof(fs->name), "%s", name);
			fs->type = FSLAB_FS_TYPE_INVALID;
		}
		return handle_fs(c, name, key, value);
	}
	return fail(c, "unknown section [%s] (known: [disk], [fs NAME], [sweep])", section);
}

/* Sections inih reports only through their keys: an empty or duplicated
 * [fs NAME] header would go unnoticed, so scan the headers ourselves. */
static int check_headers(struct parse_ctx *c, const char *text, int *line_out)
{
	char seen[FSLAB_MAX_FS * 2][256];
	size_t n_seen = 0;
	int line = 0;

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char buf[256];

		line++;
		if (len > SPEC_LINE_MAX) {
			*line_out = line;
			return fail(c, "the line is %zu characters long; spec lines are at most %d (shorten the value)",
				    len, SPEC_LINE_MAX);
		}
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (len && *p == '[') {
			const char *close = memchr(p, ']', len);
			size_t n = close ? (size_t)(close - p - 1) : len - 1;
			if (!close) {
				*line_out = line;
				return fail(c, "section header without ']'");
			}
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
			memcpy(buf, p + 1, n);
			buf[n] = '\0';
			if (strncmp(buf, "fs ", 3) == 0 || strcmp(buf, "disk") == 0 ||
			    strcmp(buf, "sweep") == 0) {
				for (size_t i = 0; i < n_seen; i++) {
					if (strcmp(seen[i], buf) == 0) {
						*line_out = line;
						return fail(c, "[%s] appears twice; each section (and each filesystem name) must be unique",
							    buf);
					}
				}
				if (n_seen < sizeof(seen) / sizeof(seen[0]))
					snprintf(seen[n_seen++], sizeof(seen[0]), "%s", buf);
			} else if (strcmp(buf, "fs") == 0) {
				*line_out = line;
				return fail(c, "[fs] needs a name: [fs NAME]");
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return 1;
}

static int finish(struct parse_ctx *c)
{
	struct fslab_spec *s = c->spec;
	struct fslab_sweep_spec *w = &s->sweep;
	char msg[512];

	if (s->n_fs == 0)
		return fail(c, "no [fs NAME] section: the lab needs at least one filesystem");
	for (size_t i = 0; i < s->n_fs; i++) {
		struct fslab_fs_spec *fs = &s->fs[i];
		if (!(c->fs_seen_keys[i] & 1)) {
			fs->type = fslab_fs_type_from_string(fs->name);
			if (fs->type == FSLAB_FS_TYPE_INVALID)
				return fail(c, "[fs %s] has no type (type = ext4|ext2|xfs|fat32|btrfs)",
					    fs->name);
		}
		if (!(c->fs_seen_keys[i] & 2))
			return fail(c, "[fs %s] has no size (e.g. size = 20G)", fs->name);
		if (fs->size % s->disk.alignment)
			return fail(c, "[fs %s] size is not a multiple of the alignment", fs->name);
		if (fslab_spec_options_check(fs->type, FSLAB_SPEC_MKFS_OPTIONS, fs->mkfs_options, msg,
					     sizeof(msg)) < 0 ||
		    fslab_spec_options_check(fs->type, FSLAB_SPEC_MOUNT_OPTIONS, fs->mount_options,
					     msg, sizeof(msg)) < 0)
			return fail(c, "[fs %s] %s", fs->name, msg);
	}
	if (w->record_min > w->record_max || w->file_min > w->file_max)
		return fail(c, "[sweep] a range's minimum is larger than its maximum");
	if ((w->set & FSLAB_SWEEP_SET_RECORD_SIZES) && (w->set & FSLAB_SWEEP_SET_FILE_SIZES) &&
	    w->record_min > w->file_max)
		return fail(c, "[sweep] the smallest record is larger than the largest file: no cell to run");
	if ((w->set & FSLAB_SWEEP_SET_TESTS) && w->tests == 0)
		return fail(c, "[sweep] tests is empty");
	return 1;
}

int fslab_spec_parse_string(const char *text, const char *name, struct fslab_spec *spec,
			    char *err, size_t errlen)
{
	struct parse_ctx c = { .spec = spec, .err = err, .errlen = errlen };
	char msg[512] = "";
	int line = 0, r;

	memset(spec, 0, sizeof(*spec));
	snprintf(spec->disk.label, sizeof(spec->disk.label), "gpt");
	spec->disk.alignment = FSLAB_MiB;
	fslab_sweep_defaults(&spec->sweep);
	c.err = msg;
	c.errlen = sizeof(msg);

	if (!check_headers(&c, text, &line))
		goto failed;
	r = ini_parse_string(text, handler, &c);
	if (r != 0 || c.failed) {
		line = r > 0 ? r : 0;
		if (!c.failed)
			fail(&c, "not an INI line (expected [section] or key = value)");
		goto failed;
	}
	if (!finish(&c))
		goto failed;
	return 0;
failed:
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s", name ? name : "spec", line, msg);
	else
		snprintf(err, errlen, "%s: %s", name ? name : "spec", msg);
	return -EINVAL;
}

int fslab_spec_load(const char *path, struct fslab_spec *spec, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int r;

	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot read the spec: %s", path, strerror(errno));
		return r;
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			if (cap > (1u << 20)) {
				fclose(f);
				free(buf);
				snprintf(err, errlen, "%s: the spec is larger than 1 MiB; is this the right file?",
					 path);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				snprintf(err, errlen, "%s: out of memory", path);
				return -ENOMEM;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		snprintf(err, errlen, "%s: read error", path);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		snprintf(err, errlen, "%s: the spec contains a NUL byte; it is not a text file", path);
		return -EINVAL;
	}
	r = fslab_spec_parse_string(buf, path, spec, err, errlen);
	free(buf);
	return r;
}

int fslab_spec_write(FILE *out, const struct fslab_spec *spec)
{
	const struct fslab_sweep_spec *w = &spec->sweep;
	char a[32], b[32], tests[256];
	struct fslab_sweep_spec d;

	fprintf(out, "# fslab lab spec.  Sizes take K, M, G, T (powers of 1024).\n"
		     "# Edit, then: fslab setup --spec FILE ... and fslab run --sweep FILE\n\n");
	fprintf(out, "[disk]\nlabel = %s\nalignment = %s\n\n", spec->disk.label,
		fslab_size_format(spec->disk.alignment, a, sizeof(a)));
	fprintf(out, "# One [fs NAME] per partition, in disk order.  NAME names the GPT\n"
		     "# partition, the mount point <mount-root>/NAME and the results file NAME.csv.\n");
	for (size_t i = 0; i < spec->n_fs; i++) {
		const struct fslab_fs_spec *fs = &spec->fs[i];
		fprintf(out, "[fs %s]\ntype = %s\nsize = %s\nmkfs_options = %s\nmount_options = %s\n\n",
			fs->name, fslab_fs_type_to_string(fs->type),
			fslab_size_format(fs->size, a, sizeof(a)), fs->mkfs_options, fs->mount_options);
	}
	fslab_sweep_defaults(&d);
	fprintf(out, "# The sweep.  Keys left commented come from the run's --sweep preset\n"
		     "# (seed: the 2023 experiment; quick: files up to 64M); flags override both.\n"
		     "[sweep]\n");
#define SWEEP_LINE(bit, fmt, ...) \
	fprintf(out, "%s" fmt "\n", (w->set & (bit)) ? "" : "# ", __VA_ARGS__)
	{
		const struct fslab_sweep_spec *v = w;
		const struct fslab_sweep_spec *src;

		src = (v->set & FSLAB_SWEEP_SET_FILE_SIZES) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_FILE_SIZES, "file_sizes = %s-%s",
			   fslab_size_format(src->file_min, a, sizeof(a)),
			   fslab_size_format(src->file_max, b, sizeof(b)));
		src = (v->set & FSLAB_SWEEP_SET_RECORD_SIZES) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_RECORD_SIZES, "record_sizes = %s-%s",
			   fslab_size_format(src->record_min, a, sizeof(a)),
			   fslab_size_format(src->record_max, b, sizeof(b)));
		src = (v->set & FSLAB_SWEEP_SET_TESTS) ? v : &d;
		fslab_tests_format(src->tests, tests, sizeof(tests));
		SWEEP_LINE(FSLAB_SWEEP_SET_TESTS, "tests = %s", tests);
		src = (v->set & FSLAB_SWEEP_SET_TRIALS) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_TRIALS, "trials = %u", src->trials);
		src = (v->set & FSLAB_SWEEP_SET_CACHE) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_CACHE, "cache = %s", fslab_cache_mode_to_string(src->cache));
		src = (v->set & FSLAB_SWEEP_SET_SEED) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_SEED, "seed = %llu", (unsigned long long)src->seed);
		src = (v->set & FSLAB_SWEEP_SET_SMALL_RECORDS) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_SMALL_RECORDS, "small_records = %s",
			   src->keep_small_records ? "keep" : "skip");
		src = (v->set & FSLAB_SWEEP_SET_ORDER) ? v : &d;
		SWEEP_LINE(FSLAB_SWEEP_SET_ORDER, "order = %s", src->shuffle ? "shuffle" : "fixed");
	}
#undef SWEEP_LINE
	return ferror(out) ? -EIO : 0;
}

uint64_t fslab_spec_layout_bytes(const struct fslab_spec *spec)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < spec->n_fs; i++)
		sum += spec->fs[i].size;
	return sum;
}

const struct fslab_fs_spec *fslab_spec_find_fs(const struct fslab_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->n_fs; i++)
		if (strcmp(spec->fs[i].name, name) == 0)
			return &spec->fs[i];
	return NULL;
}
