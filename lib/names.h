/* fslab's shared vocabulary: filesystem types, benchmark tests, cache modes.
 *
 * Every enum has a string table; *_from_string returns *_INVALID for an
 * unknown name so callers can name the bad value in their message.  The
 * strings are what users type and what the results files contain, so they
 * never change once released.
 */
#ifndef FSLAB_NAMES_H
#define FSLAB_NAMES_H

#include <stddef.h>

enum fslab_fs_type {
	FSLAB_FS_EXT4,
	FSLAB_FS_EXT2,
	FSLAB_FS_XFS,
	FSLAB_FS_FAT32,
	FSLAB_FS_BTRFS,
	FSLAB_FS_TYPE_MAX,
	FSLAB_FS_TYPE_INVALID = -1,
};

/* The 13 IOzone tests, in IOzone's order (the order of its report columns). */
enum fslab_test {
	FSLAB_TEST_WRITE,
	FSLAB_TEST_REWRITE,
	FSLAB_TEST_READ,
	FSLAB_TEST_REREAD,
	FSLAB_TEST_RANDOM_READ,
	FSLAB_TEST_RANDOM_WRITE,
	FSLAB_TEST_BACKWARD_READ,
	FSLAB_TEST_RECORD_REWRITE,
	FSLAB_TEST_STRIDE_READ,
	FSLAB_TEST_FWRITE,
	FSLAB_TEST_FREWRITE,
	FSLAB_TEST_FREAD,
	FSLAB_TEST_FREREAD,
	FSLAB_TEST_MAX,
	FSLAB_TEST_INVALID = -1,
};

#define FSLAB_TESTS_ALL ((1u << FSLAB_TEST_MAX) - 1)

enum fslab_cache_mode {
	FSLAB_CACHE_WARM,
	FSLAB_CACHE_FSYNC,
	FSLAB_CACHE_DIRECT,
	FSLAB_CACHE_COLD,
	FSLAB_CACHE_MODE_MAX,
	FSLAB_CACHE_MODE_INVALID = -1,
};

/* How fslab setup --purge empties a drive before preconditioning it
 * (provision/precond.c).  trim is BLKDISCARD of the whole disk: a TRIM
 * purge, not a PTS purge (the drive may keep mapping tables and data). */
enum fslab_purge {
	FSLAB_PURGE_NONE,
	FSLAB_PURGE_TRIM,
	FSLAB_PURGE_SECURE_ERASE, /* NVMe format / ATA secure erase: refused, not implemented */
	FSLAB_PURGE_MAX,
	FSLAB_PURGE_INVALID = -1,
};

/* The sweep presets of fslab run --sweep (bench/plan.c gives their values). */
enum fslab_preset {
	FSLAB_PRESET_LAB,   /* the default: quick grid, cold, adaptive trials */
	FSLAB_PRESET_QUICK, /* the seed sweep with files up to 64M */
	FSLAB_PRESET_SEED,  /* the 2023 experiment */
	FSLAB_PRESET_MAX,
	FSLAB_PRESET_INVALID = -1,
};

/* The vocabularies, for messages that list what is known. */
enum fslab_vocab {
	FSLAB_VOCAB_FS_TYPE,
	FSLAB_VOCAB_TEST,
	FSLAB_VOCAB_CACHE_MODE,
	FSLAB_VOCAB_PRESET,
	FSLAB_VOCAB_PURGE,
};

/* Every name of a vocabulary in table order, separated by sep and the last
 * two by last: (FSLAB_VOCAB_CACHE_MODE, ", ", " or ") gives "warm, fsync,
 * direct or cold".  Returns buf. */
char *fslab_vocab_join(enum fslab_vocab v, const char *sep, const char *last, char *buf,
		       size_t len);

/* The index of s in table[0..n) (NULL entries skipped), or -1: the
 * from_string of every name table, here and in other modules. */
int fslab_name_index(const char *const *table, int n, const char *s);

const char *fslab_fs_type_to_string(enum fslab_fs_type t);
enum fslab_fs_type fslab_fs_type_from_string(const char *s);

const char *fslab_test_to_string(enum fslab_test t);
enum fslab_test fslab_test_from_string(const char *s);
/* IOzone's section title for the test ("Writer report", ...). */
const char *fslab_test_iozone_title(enum fslab_test t);

/* Parses "all" or a comma-separated list of test names into a bit mask
 * (bit i = enum fslab_test i).  On an unknown name returns -EINVAL and, when
 * bad is not NULL, copies the offending name into it. */
int fslab_tests_parse(const char *list, unsigned *mask, char *bad, size_t badlen);
/* The message for a list fslab_tests_parse refused: "unknown test 'sing'
 * (known: all, write, rewrite, ...)".  Returns buf. */
char *fslab_tests_problem(const char *bad, char *buf, size_t len);
/* Writes a mask back as a comma-separated list ("all" for every test). */
void fslab_tests_format(unsigned mask, char *buf, size_t len);

/* The words themselves, in enum order (lib/settings.c's rows use them). */
extern const char *const fslab_cache_mode_names[FSLAB_CACHE_MODE_MAX];
extern const char *const fslab_preset_names[FSLAB_PRESET_MAX];

const char *fslab_cache_mode_to_string(enum fslab_cache_mode m);
enum fslab_cache_mode fslab_cache_mode_from_string(const char *s);

const char *fslab_purge_to_string(enum fslab_purge p);
enum fslab_purge fslab_purge_from_string(const char *s);

const char *fslab_preset_to_string(enum fslab_preset p);
enum fslab_preset fslab_preset_from_string(const char *s);

#endif
