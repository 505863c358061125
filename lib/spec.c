#include "spec.h"
#include "fileutil.h"
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
	char msg[512]; /* the first problem */
	int failed;
	bool layout_optional;                /* a sweep file: [fs NAME] may be absent */
	unsigned fs_seen_keys[FSLAB_MAX_FS]; /* bit (1 << enum fs_key): the key was given */
	unsigned disk_seen_keys;             /* bit 0 label, bit 1 alignment */
};

/* libinih reads a line into a fixed buffer (200 bytes in Debian's build)
 * and parses the rest of a longer line as a new line, so the tail of a long
 * value could silently become a key of its own.  Longer lines are refused. */
#define SPEC_LINE_MAX 199
#define SPEC_FILE_MAX (1u << 20)

static const char *const disk_keys = "label, alignment";
static const char *const fs_keys = "type, size, mkfs_options, mount_options";

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

uint64_t fslab_splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

void fslab_sweep_trial_order(uint64_t seed, bool shuffle, unsigned trial, size_t n, size_t *order)
{
	uint64_t s = seed * UINT64_C(1000003) + trial;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (!shuffle)
		return;
	for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
		size_t j = (size_t)(fslab_splitmix64(&s) % i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
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
	s->iodepth = 1;
	s->jobs = 1;
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
		vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
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
		if (!fslab_is_pow2(a) || a < 4 * FSLAB_KiB || a > FSLAB_GiB)
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

/* The keys of [fs NAME], by bit in parse_ctx.fs_seen_keys. */
enum fs_key { FS_KEY_TYPE, FS_KEY_SIZE, FS_KEY_MKFS_OPTIONS, FS_KEY_MOUNT_OPTIONS, FS_KEY_MAX };

static enum fs_key fs_key_of(const char *key)
{
	static const char *const names[FS_KEY_MAX] = {
		[FS_KEY_TYPE] = "type",
		[FS_KEY_SIZE] = "size",
		[FS_KEY_MKFS_OPTIONS] = "mkfs_options",
		[FS_KEY_MOUNT_OPTIONS] = "mount_options",
	};

	int i = fslab_name_index(names, FS_KEY_MAX, key);

	return i < 0 ? FS_KEY_MAX : (enum fs_key)i;
}

/* mkfs_options or mount_options (kind says which) of fs. */
static int handle_fs_options(struct parse_ctx *c, struct fslab_fs_spec *fs,
			     enum fslab_spec_options_kind kind, const char *value)
{
	const char *key = fslab_spec_options_key(kind);
	char *dst = kind == FSLAB_SPEC_MKFS_OPTIONS ? fs->mkfs_options : fs->mount_options;
	/* fslab_spec_write writes "key = value" on one line: it must fit in a
	 * spec line too. */
	size_t max = SPEC_LINE_MAX - strlen(key) - 3;

	if (max > FSLAB_OPTIONS_MAX - 1)
		max = FSLAB_OPTIONS_MAX - 1;
	if (strlen(value) > max)
		return fail(c, "[fs %s] %s is longer than %zu characters", fs->name, key, max);
	for (const char *p = value; *p; p++) {
		if (iscntrl((unsigned char)*p) && *p != '\t')
			return fail(c, "[fs %s] %s contains a control character", fs->name, key);
		/* After a blank, ';' starts an inline comment, so the value
		 * would not survive `fslab spec --print` and back. */
		if (*p == ';')
			return fail(c, "[fs %s] %s contains ';': options are words passed to mkfs or mount, never a shell command; remove it",
				    fs->name, key);
	}
	/* Which options are allowed depends on the type, which may come later
	 * in the section: finish() checks them. */
	snprintf(dst, FSLAB_OPTIONS_MAX, "%s", value);
	return 1;
}

static int handle_fs(struct parse_ctx *c, const char *name, const char *key, const char *value)
{
	size_t idx;
	struct fslab_fs_spec *fs = fs_section(c, name, &idx);
	enum fs_key k = fs_key_of(key);
	char sec[64], types[64];

	if (!fs)
		return fail(c, "internal: [fs %s] not registered", name);
	snprintf(sec, sizeof(sec), "fs %s", name);
	if (k == FS_KEY_MAX)
		return fail(c, "unknown key '%s' in [fs %s] (known: %s)", key, name, fs_keys);
	if (c->fs_seen_keys[idx] & (1u << k))
		return dup_key(c, key, sec);
	switch (k) {
	case FS_KEY_TYPE:
		fs->type = fslab_fs_type_from_string(value);
		if (fs->type == FSLAB_FS_TYPE_INVALID)
			return fail(c, "[fs %s] type = '%s': unknown filesystem type (known: %s)", name,
				    value, fslab_vocab_join(FSLAB_VOCAB_FS_TYPE, ", ", ", ", types, sizeof(types)));
		break;
	case FS_KEY_SIZE:
		if (!parse_size_value(c, sec, key, value, &fs->size))
			return 0;
		break;
	case FS_KEY_MKFS_OPTIONS:
	case FS_KEY_MOUNT_OPTIONS:
		if (!handle_fs_options(c, fs, k == FS_KEY_MKFS_OPTIONS ? FSLAB_SPEC_MKFS_OPTIONS :
									  FSLAB_SPEC_MOUNT_OPTIONS, value))
			return 0;
		break;
	case FS_KEY_MAX:
		break;
	}
	c->fs_seen_keys[idx] |= 1u << k;
	return 1;
}

/* A [sweep] key: a row of fslab run's settings table (lib/settings.c),
 * which parses and checks its value; 1, or 0 after a message. */
static int handle_sweep(struct parse_ctx *c, const char *key, const char *value)
{
	struct fslab_settings *layer = &c->spec->sweep_given;
	struct fslab_run_config cfg = { .sweep = c->spec->sweep };
	struct fslab_err e;
	char origin[64], known[256];
	int id = fslab_setting_by_sweep_key(key);

	if (id < 0)
		return fail(c, "unknown key '%s' in [sweep] (known: %s)", key,
			    fslab_setting_sweep_keys(known, sizeof(known)));
	if (fslab_settings_has(layer, (enum fslab_setting)id))
		return dup_key(c, key, "sweep");
	snprintf(origin, sizeof(origin), "[sweep] %s =", key);
	if (fslab_setting_parse(layer, (enum fslab_setting)id, value, origin, &e) < 0)
		return fail(c, "%s", e.msg);
	fslab_settings_merge(&cfg, layer, FSLAB_SETTING_BIT(id));
	c->spec->sweep = cfg.sweep;
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
	char msg[512], types[64];

	if (s->n_fs == 0 && !c->layout_optional)
		return fail(c, "no [fs NAME] section: the lab needs at least one filesystem");
	for (size_t i = 0; i < s->n_fs; i++) {
		struct fslab_fs_spec *fs = &s->fs[i];
		if (!(c->fs_seen_keys[i] & (1u << FS_KEY_TYPE))) {
			fs->type = fslab_fs_type_from_string(fs->name);
			if (fs->type == FSLAB_FS_TYPE_INVALID)
				return fail(c, "[fs %s] has no type (type = %s)", fs->name,
					    fslab_vocab_join(FSLAB_VOCAB_FS_TYPE, "|", "|", types,
							     sizeof(types)));
		}
		if (!(c->fs_seen_keys[i] & (1u << FS_KEY_SIZE)))
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
	if ((w->set & FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES)) && (w->set & FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES)) &&
	    w->record_min > w->file_max)
		return fail(c, "[sweep] the smallest record is larger than the largest file: no cell to run");
	return 1;
}

static int parse_text(const char *text, const char *name, struct fslab_spec *spec,
		      struct fslab_err *e, bool layout_optional)
{
	struct parse_ctx c = { .spec = spec, .layout_optional = layout_optional };
	int line = 0, r;

	fslab_spec_default(spec); /* [disk]'s and [sweep]'s defaults, no [fs] yet */
	spec->n_fs = 0;
	memset(spec->fs, 0, sizeof(spec->fs));
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
		return fslab_err_set(e, -EINVAL, "%s:%d: %s", name ? name : "spec", line, c.msg);
	return fslab_err_set(e, -EINVAL, "%s: %s", name ? name : "spec", c.msg);
}

int fslab_spec_parse_string(const char *text, const char *name, struct fslab_spec *spec,
			    struct fslab_err *e)
{
	return parse_text(text, name, spec, e, false);
}

int fslab_sweep_parse_string(const char *text, const char *name, struct fslab_spec *spec,
			     struct fslab_err *e)
{
	return parse_text(text, name, spec, e, true);
}

int fslab_spec_load(const char *path, struct fslab_spec *spec, struct fslab_err *e)
{
	char *buf = NULL;
	size_t n = 0;
	int r = fslab_read_file(path, &buf, &n, SPEC_FILE_MAX);

	if (r == -EFBIG)
		return fslab_err_set(e, r, "%s: the spec is larger than 1 MiB; is this the right file?", path);
	if (r < 0)
		return fslab_err_set(e, r, "%s: cannot read the spec: %s", path, fslab_input_strerror(r));
	if (strlen(buf) != n) {
		free(buf);
		return fslab_err_set(e, -EINVAL, "%s: the spec contains a NUL byte; it is not a text file", path);
	}
	r = fslab_spec_parse_string(buf, path, spec, e);
	free(buf);
	return r;
}

int fslab_spec_write(FILE *out, const struct fslab_spec *spec)
{
	const struct fslab_sweep_spec *w = &spec->sweep;
	char a[32], value[256];
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
	/* each [sweep] row, "# cache = warm" (the seed preset's) when not set */
	for (int id = 0; id < FSLAB_SETTING_MAX; id++) {
		bool set = w->set & FSLAB_SETTING_BIT(id);
		struct fslab_run_config shown = { .sweep = set ? *w : d };

		if (fslab_setting_row(id)->sweep_key)
			fprintf(out, "%s%s = %s\n", set ? "" : "# ", fslab_setting_row(id)->sweep_key,
				fslab_setting_format(id, &shown, value, sizeof(value)));
	}
	return ferror(out) ? -EIO : 0;
}
