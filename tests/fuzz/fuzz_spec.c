/* Fuzz target: lib/spec.h, the one INI parser every command uses.
 * Properties checked on every input:
 *  - fslab_spec_parse_string returns 0 or -EINVAL, and on -EINVAL a
 *    message that starts with the file name;
 *  - an accepted spec is sane (1..FSLAB_MAX_FS filesystems with valid,
 *    unique names and known types, sizes that are multiples of the
 *    alignment, ordered sweep ranges, 1..FSLAB_TRIALS_MAX trials);
 *  - no line of an accepted spec is longer than libinih's line buffer
 *    (199 characters): inih parses the tail of a longer line as a line of
 *    its own, which once let "mount_options = aaa...size = 1G" change the
 *    size (regressions/spec/long-line-smuggles-key.ini);
 *  - its mkfs_options and mount_options hold no device by label or UUID,
 *    no bare word and no option that finds the mount source another way
 *    (loop, offset, bind, ...);
 *  - fslab_spec_write writes it as text that parses back to the same spec
 *    (the promise spec.h makes for `fslab spec --check` and `--print`). */
#include "fuzz_check.h"
#include "spec.h"
#include "size.h"

#include <errno.h>
#include <stdbool.h>
#include <strings.h>

/* The parse with its message in a buffer, as these tests print it. */
static int t_spec_parse(const char *text, const char *name, struct fslab_spec *spec, char *err,
			size_t len)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	int r = fslab_spec_parse_string(text, name, spec, &e);

	snprintf(err, len, "%s", e.msg);
	return r;
}

/* The allowlist (lib/spec_options.h) seen from outside: whatever it
 * accepts never names a device by label or UUID, never holds a bare word
 * (a word mkfs would take as a device or file) and never finds the mount
 * source another way. */
/* LABEL=x or UUID=x naming a device; "--label=x" (btrfs: the new
 * filesystem's own label) is the option's name, not a device. */
static bool names_by_id(const char *opts)
{
	for (const char *p = opts; (p = strcasestr(p, "label=")) || (p = NULL); p++)
		if (!(p - opts >= 2 && p[-1] == '-' && p[-2] == '-'))
			return true;
	return strcasestr(opts, "uuid=") != NULL;
}

static void check_options(const struct fslab_fs_spec *fs)
{
	static const char *const source_opts[] = { "loop", "offset", "sizelimit", "bind", "rbind",
						   "move", "remount", "source", "device", "logdev",
						   "rtdev", "journal_dev", "journal_path", "ro" };
	char words[FSLAB_OPTIONS_MAX], *save = NULL, err[512];
	bool prev_takes_value = false;

	FUZZ_CHECK(!names_by_id(fs->mkfs_options));
	FUZZ_CHECK(!strcasestr(fs->mount_options, "label=") && !strcasestr(fs->mount_options, "uuid="));
	/* A word not starting with '-' follows an option word that takes a
	 * value (which the allowlist knows: here, any option word without
	 * an attached value). */
	snprintf(words, sizeof(words), "%s", fs->mkfs_options);
	for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		FUZZ_CHECK(strcmp(w, "--") != 0);
		if (w[0] != '-') {
			FUZZ_CHECK(prev_takes_value);
			prev_takes_value = false;
		} else {
			prev_takes_value = w[1] == '-' ? !strchr(w, '=') : w[2] == '\0';
		}
	}
	snprintf(words, sizeof(words), "%s", fs->mount_options);
	for (char *o = strtok_r(words, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		o[strcspn(o, "=")] = '\0';
		for (size_t k = 0; k < sizeof(source_opts) / sizeof(source_opts[0]); k++)
			FUZZ_CHECK(strcmp(o, source_opts[k]) != 0);
		FUZZ_CHECK(strncasecmp(o, "x-", 2) != 0);
	}
	/* What a state file records is checked with the same function. */
	FUZZ_CHECK(fslab_spec_options_check(fs->type, FSLAB_SPEC_MKFS_OPTIONS, fs->mkfs_options, err,
					    sizeof(err)) == 0);
	FUZZ_CHECK(fslab_spec_options_check(fs->type, FSLAB_SPEC_MOUNT_OPTIONS, fs->mount_options,
					    err, sizeof(err)) == 0);
}

static void check_sane(const struct fslab_spec *s)
{
	const struct fslab_sweep_spec *w = &s->sweep;

	FUZZ_CHECK(strcmp(s->disk.label, "gpt") == 0);
	FUZZ_CHECK(s->disk.alignment >= 4 * FSLAB_KiB && s->disk.alignment <= FSLAB_GiB);
	FUZZ_CHECK((s->disk.alignment & (s->disk.alignment - 1)) == 0);
	FUZZ_CHECK(s->n_fs >= 1 && s->n_fs <= FSLAB_MAX_FS);
	for (size_t i = 0; i < s->n_fs; i++) {
		const struct fslab_fs_spec *fs = &s->fs[i];
		FUZZ_CHECK(fslab_fs_name_valid(fs->name));
		FUZZ_CHECK(fs->type >= 0 && fs->type < FSLAB_FS_TYPE_MAX);
		FUZZ_CHECK(fs->size > 0 && fs->size <= FSLAB_SIZE_MAX);
		FUZZ_CHECK(fs->size % s->disk.alignment == 0);
		FUZZ_CHECK(memchr(fs->mkfs_options, '\0', sizeof(fs->mkfs_options)));
		FUZZ_CHECK(memchr(fs->mount_options, '\0', sizeof(fs->mount_options)));
		/* A spec never names a device (regressions/spec/mkfs-options-*). */
		FUZZ_CHECK(!strchr(fs->mkfs_options, '/') && !strchr(fs->mount_options, '/'));
		FUZZ_CHECK(!strstr(fs->mount_options, "journal_dev="));
		check_options(fs);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(s->fs[j].name, fs->name) != 0);
	}
	FUZZ_CHECK(w->file_min <= w->file_max && w->record_min <= w->record_max);
	FUZZ_CHECK(w->record_min >= 4 * FSLAB_KiB);
	FUZZ_CHECK(w->trials >= 1 && w->trials <= FSLAB_TRIALS_MAX);
	FUZZ_CHECK(w->tests != 0 && (w->tests & ~FSLAB_TESTS_EVERY) == 0);
	FUZZ_CHECK(w->cache >= 0 && w->cache < FSLAB_CACHE_MODE_MAX);
}

static void check_lines(const char *text)
{
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		FUZZ_CHECK(len <= 199);
		if (!eol)
			break;
		p = eol + 1;
	}
}

static void check_same(const struct fslab_spec *a, const struct fslab_spec *b)
{
	FUZZ_CHECK(strcmp(a->disk.label, b->disk.label) == 0);
	FUZZ_CHECK(a->disk.alignment == b->disk.alignment);
	FUZZ_CHECK(a->n_fs == b->n_fs);
	for (size_t i = 0; i < a->n_fs; i++) {
		FUZZ_CHECK(strcmp(a->fs[i].name, b->fs[i].name) == 0);
		FUZZ_CHECK(a->fs[i].type == b->fs[i].type);
		FUZZ_CHECK(a->fs[i].size == b->fs[i].size);
		FUZZ_CHECK(strcmp(a->fs[i].mkfs_options, b->fs[i].mkfs_options) == 0);
		FUZZ_CHECK(strcmp(a->fs[i].mount_options, b->fs[i].mount_options) == 0);
	}
	FUZZ_CHECK(a->sweep.set == b->sweep.set);
	FUZZ_CHECK(a->sweep.file_min == b->sweep.file_min);
	FUZZ_CHECK(a->sweep.file_max == b->sweep.file_max);
	FUZZ_CHECK(a->sweep.record_min == b->sweep.record_min);
	FUZZ_CHECK(a->sweep.record_max == b->sweep.record_max);
	FUZZ_CHECK(a->sweep.tests == b->sweep.tests);
	FUZZ_CHECK(a->sweep.trials == b->sweep.trials);
	FUZZ_CHECK(a->sweep.cache == b->sweep.cache);
	FUZZ_CHECK(a->sweep.seed == b->sweep.seed);
	FUZZ_CHECK(a->sweep.keep_small_records == b->sweep.keep_small_records);
	FUZZ_CHECK(a->sweep.shuffle == b->sweep.shuffle);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fslab_spec spec, again;
	char err[512], err2[512];
	char *text = fuzz_cstring(data, size), *out = NULL;
	size_t outlen = 0;
	FILE *f;
	int r;

	memset(err, 0x5a, sizeof(err));
	r = t_spec_parse(text, "fuzz.ini", &spec, err, sizeof(err));
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL);
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_CHECK(strncmp(err, "fuzz.ini", 8) == 0);
		free(text);
		return 0;
	}
	FUZZ_CHECK(r == 0);
	check_sane(&spec);
	check_lines(text);

	f = open_memstream(&out, &outlen);
	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(fslab_spec_write(f, &spec) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	r = t_spec_parse(out, "written.ini", &again, err2, sizeof(err2));
	if (r != 0)
		fprintf(stderr, "re-parse of the written spec failed: %s\n--- written:\n%s", err2, out);
	FUZZ_CHECK(r == 0);
	check_same(&spec, &again);
	free(out);
	free(text);
	return 0;
}
