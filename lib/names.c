#include "names.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const fs_type_names[FSLAB_FS_TYPE_MAX] = {
	[FSLAB_FS_EXT4] = "ext4",
	[FSLAB_FS_EXT2] = "ext2",
	[FSLAB_FS_XFS] = "xfs",
	[FSLAB_FS_FAT32] = "fat32",
	[FSLAB_FS_BTRFS] = "btrfs",
};

static const char *const test_names[FSLAB_TEST_MAX] = {
	[FSLAB_TEST_WRITE] = "write",
	[FSLAB_TEST_REWRITE] = "rewrite",
	[FSLAB_TEST_READ] = "read",
	[FSLAB_TEST_REREAD] = "reread",
	[FSLAB_TEST_RANDOM_READ] = "random_read",
	[FSLAB_TEST_RANDOM_WRITE] = "random_write",
	[FSLAB_TEST_BACKWARD_READ] = "backward_read",
	[FSLAB_TEST_RECORD_REWRITE] = "record_rewrite",
	[FSLAB_TEST_STRIDE_READ] = "stride_read",
	[FSLAB_TEST_FWRITE] = "fwrite",
	[FSLAB_TEST_FREWRITE] = "frewrite",
	[FSLAB_TEST_FREAD] = "fread",
	[FSLAB_TEST_FREREAD] = "freread",
	[FSLAB_TEST_QUEUED_WRITE] = "queued_write",
	[FSLAB_TEST_QUEUED_READ] = "queued_read",
	[FSLAB_TEST_QUEUED_RANDOM_WRITE] = "queued_random_write",
	[FSLAB_TEST_QUEUED_RANDOM_READ] = "queued_random_read",
	[FSLAB_TEST_FILES_CREATE] = "files_create",
	[FSLAB_TEST_FILES_STAT] = "files_stat",
	[FSLAB_TEST_FILES_READ] = "files_read",
	[FSLAB_TEST_FILES_UNLINK] = "files_unlink",
};

/* The family words; "all" is IOzone's too (fslab_tests_parse). */
static const char *const family_names[FSLAB_FAMILY_MAX] = {
	[FSLAB_FAMILY_IOZONE] = "iozone",
	[FSLAB_FAMILY_QUEUED] = "queued",
	[FSLAB_FAMILY_FILES] = "files",
};

static const char *const test_iozone_titles[FSLAB_TEST_MAX] = {
	[FSLAB_TEST_WRITE] = "Writer report",
	[FSLAB_TEST_REWRITE] = "Re-writer report",
	[FSLAB_TEST_READ] = "Reader report",
	[FSLAB_TEST_REREAD] = "Re-Reader report",
	[FSLAB_TEST_RANDOM_READ] = "Random read report",
	[FSLAB_TEST_RANDOM_WRITE] = "Random write report",
	[FSLAB_TEST_BACKWARD_READ] = "Backward read report",
	[FSLAB_TEST_RECORD_REWRITE] = "Record rewrite report",
	[FSLAB_TEST_STRIDE_READ] = "Stride read report",
	[FSLAB_TEST_FWRITE] = "Fwrite report",
	[FSLAB_TEST_FREWRITE] = "Re-Fwrite report",
	[FSLAB_TEST_FREAD] = "Fread report",
	[FSLAB_TEST_FREREAD] = "Re-Fread report",
};

const char *const fslab_cache_mode_names[FSLAB_CACHE_MODE_MAX] = {
	[FSLAB_CACHE_WARM] = "warm",
	[FSLAB_CACHE_FSYNC] = "fsync",
	[FSLAB_CACHE_DIRECT] = "direct",
	[FSLAB_CACHE_COLD] = "cold",
};

const char *const fslab_preset_names[FSLAB_PRESET_MAX] = {
	[FSLAB_PRESET_LAB] = "lab",
	[FSLAB_PRESET_QUICK] = "quick",
	[FSLAB_PRESET_SEED] = "seed",
	[FSLAB_PRESET_CDM] = "cdm",
	[FSLAB_PRESET_CDM_NVME] = "cdm-nvme",
};

static const char *const purge_names[FSLAB_PURGE_MAX] = {
	[FSLAB_PURGE_NONE] = "none",
	[FSLAB_PURGE_TRIM] = "trim",
	[FSLAB_PURGE_SECURE_ERASE] = "secure-erase",
};

static const struct vocab {
	const char *const *names;
	int n;
} vocabs[] = {
	[FSLAB_VOCAB_FS_TYPE] = { fs_type_names, FSLAB_FS_TYPE_MAX },
	[FSLAB_VOCAB_TEST] = { test_names, FSLAB_TEST_MAX },
	[FSLAB_VOCAB_CACHE_MODE] = { fslab_cache_mode_names, FSLAB_CACHE_MODE_MAX },
	[FSLAB_VOCAB_PRESET] = { fslab_preset_names, FSLAB_PRESET_MAX },
	[FSLAB_VOCAB_PURGE] = { purge_names, FSLAB_PURGE_MAX },
	[FSLAB_VOCAB_FAMILY] = { family_names, FSLAB_FAMILY_MAX },
};

const char *fslab_vocab_name(enum fslab_vocab v, int i)
{
	return i >= 0 && i < vocabs[v].n ? vocabs[v].names[i] : NULL;
}

int fslab_vocab_index(enum fslab_vocab v, const char *s)
{
	return fslab_name_index(vocabs[v].names, vocabs[v].n, s);
}

char *fslab_catf(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strnlen(buf, len);
	va_list ap;

	va_start(ap, fmt);
	if (l + 1 < len)
		vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
	return buf;
}

char *fslab_names_join(const char *const *names, int n, const char *sep, const char *last,
		       char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		fslab_catf(buf, len, "%s%s", i == 0 ? "" : i == n - 1 ? last : sep, names[i]);
	return buf;
}

char *fslab_vocab_join(enum fslab_vocab v, const char *sep, const char *last, char *buf,
		       size_t len)
{
	return fslab_names_join(vocabs[v].names, vocabs[v].n, sep, last, buf, len);
}

int fslab_name_index(const char *const *table, int n, const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < n; i++)
		if (table[i] && strcmp(table[i], s) == 0)
			return i;
	return -1;
}

const char *fslab_test_iozone_title(enum fslab_test t)
{
	return (t >= 0 && t < FSLAB_TEST_MAX) ? test_iozone_titles[t] : NULL;
}

enum fslab_test_family fslab_test_family(enum fslab_test t)
{
	unsigned bit = (t >= 0 && t < FSLAB_TEST_MAX) ? FSLAB_TEST_BIT(t) : 0;

	if (bit & FSLAB_TESTS_QUEUED)
		return FSLAB_FAMILY_QUEUED;
	if (bit & FSLAB_TESTS_FILES)
		return FSLAB_FAMILY_FILES;
	return FSLAB_FAMILY_IOZONE;
}

int fslab_band_of(uint64_t file_kib)
{
	static const uint64_t lo[FSLAB_N_BANDS] = { 64, 2048, 131072 }, hi[FSLAB_N_BANDS] = { 1024, 65536, 2097152 };
	int b = 0;

	while (b < FSLAB_N_BANDS && !(file_kib >= lo[b] && file_kib <= hi[b]))
		b++;
	return b;
}

unsigned fslab_test_family_mask(enum fslab_test_family f)
{
	switch (f) {
	case FSLAB_FAMILY_IOZONE:
		return FSLAB_TESTS_IOZONE;
	case FSLAB_FAMILY_QUEUED:
		return FSLAB_TESTS_QUEUED;
	case FSLAB_FAMILY_FILES:
		return FSLAB_TESTS_FILES;
	case FSLAB_FAMILY_MAX:
		break;
	}
	return 0;
}

/* The mask a name of --tests stands for: a test, a family word or "all";
 * 0 when it is none of them. */
static unsigned tests_word_mask(const char *name)
{
	enum fslab_test t = fslab_test_from_string(name);
	int f;

	if (t != FSLAB_TEST_INVALID)
		return FSLAB_TEST_BIT(t);
	if (strcmp(name, "all") == 0)
		return FSLAB_TESTS_ALL;
	f = fslab_vocab_index(FSLAB_VOCAB_FAMILY, name);
	return f < 0 ? 0 : fslab_test_family_mask((enum fslab_test_family)f);
}

int fslab_tests_parse(const char *list, unsigned *mask, char *bad, size_t badlen)
{
	unsigned m = 0;
	const char *p = list;

	snprintf(bad, badlen, "(empty list)");
	while (p && *p) {
		char name[64];
		size_t b = strspn(p, " \t"), n = strcspn(p, ",") - b, k; /* blanks are no commas */

		p += b;
		for (k = n; k && (p[k - 1] == ' ' || p[k - 1] == '\t'); k--)
			;
		snprintf(bad, badlen, "%.*s", (int)(k < 60 ? k : 60), p);
		if (k == 0 || k >= sizeof(name))
			return -EINVAL;
		snprintf(name, sizeof(name), "%.*s", (int)k, p);
		unsigned w = tests_word_mask(name);
		snprintf(bad, badlen, "%s", w ? "(trailing comma)" : name);
		if (!w || (p[n] == ',' && !p[n + 1]))
			return -EINVAL;
		m |= w;
		p += n + (p[n] == ',');
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

char *fslab_tests_problem(const char *bad, char *buf, size_t len)
{
	char known[512];

	snprintf(buf, len, "unknown test '%s' (known: all, iozone, queued, files, %s)", bad,
		 fslab_vocab_join(FSLAB_VOCAB_TEST, ", ", ", ", known, sizeof(known)));
	return buf;
}

void fslab_tests_format(unsigned mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < FSLAB_TEST_MAX; i++) {
		enum fslab_test_family f = fslab_test_family((enum fslab_test)i);
		unsigned fm = fslab_test_family_mask(f);
		const char *word = test_names[i];

		if (!(mask & FSLAB_TEST_BIT(i)))
			continue;
		if ((mask & fm) == fm) {
			/* a whole family by its word, once, at its first test */
			if (FSLAB_TEST_BIT(i) != (fm & -fm))
				continue;
			word = f == FSLAB_FAMILY_IOZONE ? "all" : family_names[f];
		}
		fslab_catf(buf, len, "%s%s", buf[0] ? "," : "", word);
	}
}

char *fslab_queue_row_name(enum fslab_test t, unsigned long long record_kib, unsigned iodepth,
			   unsigned jobs, char *buf, size_t len)
{
	const char *kind = t == FSLAB_TEST_QUEUED_WRITE || t == FSLAB_TEST_QUEUED_READ ? "SEQ"
			   : t == FSLAB_TEST_QUEUED_RANDOM_WRITE || t == FSLAB_TEST_QUEUED_RANDOM_READ
				   ? "RND"
				   : NULL;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!kind)
		return buf;
	const int mib = record_kib >= 1024 && record_kib % 1024 == 0;

	snprintf(buf, len, "%s%llu%s Q%uT%u", kind, mib ? record_kib / 1024 : record_kib, mib ? "M" : "K",
		 iodepth ? iodepth : 1, jobs ? jobs : 1);
	return buf;
}
