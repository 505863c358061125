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
#include <stdint.h>

enum fslab_fs_type {
	FSLAB_FS_EXT4,
	FSLAB_FS_EXT2,
	FSLAB_FS_XFS,
	FSLAB_FS_FAT32,
	FSLAB_FS_BTRFS,
	FSLAB_FS_TYPE_MAX,
	FSLAB_FS_TYPE_INVALID = -1,
};

/* The tests, in three families (enum fslab_test_family):
 * - IOzone's 13, in IOzone's order (the order of its report columns):
 *   synchronous, one request at a time, on one file per cell;
 * - the queued tests: sequential and random read and write through
 *   io_uring at a queue depth (--iodepth) and a number of threads
 *   (--jobs), O_DIRECT by default, as fio and CrystalDiskMark measure;
 * - the many-files tests: the phases of creating, stat'ing, reading and
 *   unlinking many files of one size in a fresh directory tree.
 * The enum order is the order a cell runs them (a write before the reads
 * of its file). */
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
	FSLAB_TEST_QUEUED_WRITE,
	FSLAB_TEST_QUEUED_READ,
	FSLAB_TEST_QUEUED_RANDOM_WRITE,
	FSLAB_TEST_QUEUED_RANDOM_READ,
	FSLAB_TEST_FILES_CREATE,
	FSLAB_TEST_FILES_STAT,
	FSLAB_TEST_FILES_READ,
	FSLAB_TEST_FILES_UNLINK,
	FSLAB_TEST_MAX,
	FSLAB_TEST_INVALID = -1,
};

/* How many tests IOzone has (its report columns): the first of the enum. */
#define FSLAB_TEST_IOZONE_COUNT (FSLAB_TEST_FREREAD + 1)

enum fslab_test_family {
	FSLAB_FAMILY_IOZONE,
	FSLAB_FAMILY_QUEUED,
	FSLAB_FAMILY_FILES,
	FSLAB_FAMILY_MAX,
};

#define FSLAB_TEST_BIT(t) (1u << (t))
#define FSLAB_TESTS_RANGE(first, last) \
	(((1u << ((last) + 1)) - 1) & ~((1u << (first)) - 1))
/* Each family's tests as a mask (bit i = enum fslab_test i). */
#define FSLAB_TESTS_IOZONE FSLAB_TESTS_RANGE(FSLAB_TEST_WRITE, FSLAB_TEST_FREREAD)
#define FSLAB_TESTS_QUEUED \
	FSLAB_TESTS_RANGE(FSLAB_TEST_QUEUED_WRITE, FSLAB_TEST_QUEUED_RANDOM_READ)
#define FSLAB_TESTS_FILES FSLAB_TESTS_RANGE(FSLAB_TEST_FILES_CREATE, FSLAB_TEST_FILES_UNLINK)
/* What --tests all means: IOzone's 13 (the word predates the other
 * families; they are named by their own words, "queued" and "files"). */
#define FSLAB_TESTS_ALL FSLAB_TESTS_IOZONE
/* Every test of every family. */
#define FSLAB_TESTS_EVERY ((1u << FSLAB_TEST_MAX) - 1)
/* The workloads the first screen answers by, as masks of the IOzone tests
 * each is judged on (report/summary.c names them; its fourth, small
 * files, is FSLAB_TESTS_FILES). */
#define FSLAB_TESTS_SEQ_WRITE                                                                  \
	(FSLAB_TEST_BIT(FSLAB_TEST_WRITE) | FSLAB_TEST_BIT(FSLAB_TEST_REWRITE) |               \
	 FSLAB_TEST_BIT(FSLAB_TEST_FWRITE) | FSLAB_TEST_BIT(FSLAB_TEST_FREWRITE))
#define FSLAB_TESTS_SEQ_READ                                                                   \
	(FSLAB_TEST_BIT(FSLAB_TEST_READ) | FSLAB_TEST_BIT(FSLAB_TEST_REREAD) |                 \
	 FSLAB_TEST_BIT(FSLAB_TEST_FREAD) | FSLAB_TEST_BIT(FSLAB_TEST_FREREAD))
#define FSLAB_TESTS_RANDOM                                                                     \
	(FSLAB_TEST_BIT(FSLAB_TEST_RANDOM_READ) | FSLAB_TEST_BIT(FSLAB_TEST_RANDOM_WRITE) |    \
	 FSLAB_TEST_BIT(FSLAB_TEST_RECORD_REWRITE) | FSLAB_TEST_BIT(FSLAB_TEST_STRIDE_READ) | \
	 FSLAB_TEST_BIT(FSLAB_TEST_BACKWARD_READ))

/* The bands of file sizes the first screen answers by: small 64K-1M,
 * medium 2M-64M, large 128M-2G.  The band of a file size (FSLAB_N_BANDS:
 * none). */
enum { FSLAB_BAND_SMALL, FSLAB_BAND_MEDIUM, FSLAB_BAND_LARGE, FSLAB_N_BANDS };
int fslab_band_of(uint64_t file_kib);

/* The family of a test; its word ("iozone", "queued", "files"), which
 * --tests accepts for the whole family. */
enum fslab_test_family fslab_test_family(enum fslab_test t);
#define fslab_test_family_to_string(f) fslab_vocab_name(FSLAB_VOCAB_FAMILY, (int)(f))
/* The mask of a family's tests. */
unsigned fslab_test_family_mask(enum fslab_test_family f);

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

/* The sweep presets of fslab run --sweep (lib/cell_plan.c gives their values). */
enum fslab_preset {
	FSLAB_PRESET_LAB,   /* the default: quick grid, cold, adaptive trials */
	FSLAB_PRESET_QUICK, /* the seed sweep with files up to 64M */
	FSLAB_PRESET_SEED,  /* the 2023 experiment */
	/* CrystalDiskMark 8's profiles: named rows of queued tests, not a
	 * file x record grid (lib/cell_plan.c) */
	FSLAB_PRESET_CDM,      /* its default profile */
	FSLAB_PRESET_CDM_NVME, /* its NVMe SSD profile */
	FSLAB_PRESET_MAX,
	FSLAB_PRESET_INVALID = -1,
};

/* fslab run's enum settings whose words are lib/settings.c's rows, in the
 * enums' order (fslab_setting_word gives them back). */
/* What the many-files tests do with each file they create before closing
 * it (--file-sync): nothing, fsync(2) (the default: as fs_mark) or
 * fdatasync(2). */
enum fslab_file_sync {
	FSLAB_FILE_SYNC_NONE,
	FSLAB_FILE_SYNC_FSYNC,
	FSLAB_FILE_SYNC_FDATASYNC,
};

/* How the positioned tests (random read/write, backward read, record
 * rewrite, stride read) address a record. */
enum fslab_io_mode {
	FSLAB_IO_SEEK,       /* lseek + read/write: IOzone's calls (the default) */
	FSLAB_IO_POSITIONAL, /* pread/pwrite: one call per record (--io positional) */
};

/* The untimed flush before each cell. */
enum fslab_sync_policy {
	/* syncfs(2) of the filesystem under test, then fsync(2) of its block
	 * device (cell.device) when known: that also reaches a FUSE
	 * filesystem whose daemon writes the device through the page cache
	 * (the default). */
	FSLAB_SYNC_FS,
	/* sync(2) twice, IOzone's own flush of the whole machine (--sync
	 * global). */
	FSLAB_SYNC_GLOBAL,
};

/* --stop: how many trials a cell's test gets.  The names are what the
 * manifest records ("stop") and --stop takes. */
enum fslab_stop_rule {
	FSLAB_STOP_RULE_DECIDED, /* until its comparisons are decided or undecidable, its band resolved */
	FSLAB_STOP_RULE_CI,      /* --until-ci PCT: until each interval is narrow */
	FSLAB_STOP_RULE_FIXED,   /* --trials N, no more */
	FSLAB_STOP_RULE_MAX,
	FSLAB_STOP_RULE_INVALID = -1,
};

/* The vocabularies, for messages that list what is known. */
enum fslab_vocab {
	FSLAB_VOCAB_FS_TYPE,
	FSLAB_VOCAB_TEST,
	FSLAB_VOCAB_CACHE_MODE,
	FSLAB_VOCAB_PRESET,
	FSLAB_VOCAB_PURGE,
	FSLAB_VOCAB_FAMILY,
};

/* Every name of a vocabulary in table order, separated by sep and the last
 * two by last: (FSLAB_VOCAB_CACHE_MODE, ", ", " or ") gives "warm, fsync,
 * direct or cold".  Returns buf. */
char *fslab_vocab_join(enum fslab_vocab v, const char *sep, const char *last, char *buf,
		       size_t len);
/* The same of any n names. */
char *fslab_names_join(const char *const *names, int n, const char *sep, const char *last,
		       char *buf, size_t len);
/* Appends what fmt says to the string in buf (len bytes), what fits;
 * returns buf. */
char *fslab_catf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The index of s in table[0..n) (NULL entries skipped), or -1: the
 * from_string of every name table, here and in other modules. */
int fslab_name_index(const char *const *table, int n, const char *s);
/* The name of value i of a vocabulary (NULL out of range), and the index
 * of a name in it (-1: none): every *_to_string and *_from_string. */
const char *fslab_vocab_name(enum fslab_vocab v, int i);
int fslab_vocab_index(enum fslab_vocab v, const char *s);

#define fslab_fs_type_to_string(x) fslab_vocab_name(FSLAB_VOCAB_FS_TYPE, (int)(x))
#define fslab_fs_type_from_string(s) ((enum fslab_fs_type)fslab_vocab_index(FSLAB_VOCAB_FS_TYPE, s))

#define fslab_test_to_string(x) fslab_vocab_name(FSLAB_VOCAB_TEST, (int)(x))
#define fslab_test_from_string(s) ((enum fslab_test)fslab_vocab_index(FSLAB_VOCAB_TEST, s))
/* IOzone's section title for the test ("Writer report", ...). */
const char *fslab_test_iozone_title(enum fslab_test t);

/* Parses a comma-separated list of test names and family words into a bit
 * mask (bit i = enum fslab_test i): "all" and "iozone" are IOzone's 13,
 * "queued" and "files" the other families' tests.  On an unknown name returns -EINVAL and
 * copies the offending name into bad. */
int fslab_tests_parse(const char *list, unsigned *mask, char *bad, size_t badlen);
/* The message for a list fslab_tests_parse refused: "unknown test 'sing'
 * (known: all, write, rewrite, ...)".  Returns buf. */
char *fslab_tests_problem(const char *bad, char *buf, size_t len);
/* Writes a mask back as a comma-separated list, a whole family by its
 * word ("all" for IOzone's 13, "queued", "files"). */
void fslab_tests_format(unsigned mask, char *buf, size_t len);

/* The words themselves, in enum order (lib/settings.c's rows use them). */
extern const char *const fslab_cache_mode_names[FSLAB_CACHE_MODE_MAX];
extern const char *const fslab_preset_names[FSLAB_PRESET_MAX];

#define fslab_cache_mode_to_string(x) fslab_vocab_name(FSLAB_VOCAB_CACHE_MODE, (int)(x))
#define fslab_cache_mode_from_string(s) ((enum fslab_cache_mode)fslab_vocab_index(FSLAB_VOCAB_CACHE_MODE, s))

#define fslab_purge_to_string(x) fslab_vocab_name(FSLAB_VOCAB_PURGE, (int)(x))
#define fslab_purge_from_string(s) ((enum fslab_purge)fslab_vocab_index(FSLAB_VOCAB_PURGE, s))

#define fslab_preset_to_string(x) fslab_vocab_name(FSLAB_VOCAB_PRESET, (int)(x))
#define fslab_preset_from_string(s) ((enum fslab_preset)fslab_vocab_index(FSLAB_VOCAB_PRESET, s))

/* A queued test's row as CrystalDiskMark names it: "SEQ" (queued_write,
 * queued_read) or "RND" (the random ones), the record ("1M", "128K",
 * "4K"), then Q<depth>T<threads>: "SEQ1M Q8T1", "RND4K Q32T16" (depth and
 * threads 0 are 1).  "" for a test of another family.  Returns buf. */
char *fslab_queue_row_name(enum fslab_test t, unsigned long long record_kib, unsigned iodepth,
			   unsigned jobs, char *buf, size_t len);

#endif
