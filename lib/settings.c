/* fslab run's settings table (settings.h): one row per setting, and the
 * parse, the checks and the merge that follow from it. */
#include "settings.h"
#include "names.h"
#include "size.h"
#include "spec.h"
#include "stats.h"
#include "termtext.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Words of the enum rows that have no other home (cache modes and presets
 * are lib/names.c's).  Their order is the C enum's (lib/names.h):
 * fslab_io_mode, fslab_sync_policy, fslab_file_sync (the engine's names
 * are these), fslab_stop_rule (the run's), fslab_steady_mode
 * (lib/steady.h); small_records and order are a bool's place
 * (keep true; order's shuffle true: inverted). */
static const char *const small_records_words[] = { "skip", "keep" };
static const char *const order_words[] = { "shuffle", "fixed" };
static const char *const stop_words[] = { "decided", "ci", "fixed" };
static const char *const io_words[] = { "seek", "positional" };
static const char *const sync_words[] = { "fs", "global" };
static const char *const file_sync_words[] = { "none", "fsync", "fdatasync" };
static const char *const steady_words[] = { "auto", "on", "off" };

#define WORDS(a) .words = (a), .n_words = (int)(sizeof(a) / sizeof((a)[0]))
/* A row's place in struct fslab_run_config: a field, or a range's two
 * ends (lo, then hi right after it) */
#define AT(f) .offset = offsetof(struct fslab_run_config, f), \
	      .size = sizeof(((struct fslab_run_config *)0)->f)
#define AT_ENDS(lo) .offset = offsetof(struct fslab_run_config, lo), .size = 2 * sizeof(uint64_t)
#define AT_SIZES(lo) .offset = offsetof(struct fslab_run_config, lo), .size = (2 + FSLAB_SIZE_LIST_MAX) * sizeof(uint64_t)

const struct fslab_run_config fslab_run_config_default = {
	.preset = FSLAB_PRESET_LAB, /* without --sweep: numbers a reviewer accepts (its row's help) */
	.stop_rule = FSLAB_STOP_RULE_FIXED,
	.max_trials = FSLAB_DEFAULT_MAX_TRIALS,
	.io_mode = FSLAB_IO_SEEK,
	.sync_policy = FSLAB_SYNC_FS,
	.file_sync = FSLAB_FILE_SYNC_FSYNC,
	.steady_mode = FSLAB_STEADY_AUTO,
	.steady_round_bytes = FSLAB_STEADY_ROUND_DEFAULT,
};

/* The table.  Help texts are the --help column; the bounds, the words
 * and the default are the row's own fields, which --help's synopsis, the
 * checks and tests/unit/test_settings.c read. */
static const struct fslab_setting_row rows[FSLAB_SETTING_MAX] = {
	[FSLAB_SETTING_PRESET] = {
		.flag = "sweep", .arg = "PRESET|FILE", .manifest_key = "sweep.preset",
		.type = FSLAB_STYPE_ENUM, .words = fslab_preset_names, .n_words = FSLAB_PRESET_MAX,
		AT(preset),
		.words_help = "lab (the default), quick, seed, cdm or cdm-nvme, or a sweep file",
		.default_text = "lab",
		.heading = "Sweep (preset < the [sweep] section of --sweep FILE < these flags):",
		.help = "lab (the default): files 64K-2G (halved until the largest fits every "
			"filesystem), all 13 tests, cold, 3 trials, and (unless --cache or --trials is "
			"given) --stop decided --max-trials " FSLAB_DEFAULT_MAX_TRIALS_TEXT "; records "
			"4K, 64K, 1M, 16M on files < 128M (none < 64K on files > 16M), 1M and no stdio "
			"test on larger ones; --file-sizes or --record-sizes: their whole grid\n"
			"seed: the 2023 experiment: files 64K-2G, 1 trial, warm\n"
			"quick: the seed sweep with files up to 64M (1 trial, warm)\n"
			"cdm: CrystalDiskMark 8's rows, each a read and a write test: SEQ1M Q8T1, "
			"SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1 (queued tests: sequential or random, "
			"record, queue depth, threads) on one file of --cdm-size, passes of 5 s after "
			"a discarded warm-up pass, 5 trials (the minimum under --stop too), cold\n"
			"cdm-nvme: the same with its NVMe SSD rows: SEQ1M Q8T1, SEQ128K Q32T1, "
			"RND4K Q32T16, RND4K Q1T1\n"
			"FILE: a spec file (fslab spec --print); its [sweep] applies",
	},
	[FSLAB_SETTING_CDM_SIZE] = {
		.flag = "cdm-size", .arg = "SIZE", .manifest_key = "sweep.file_min_kib sweep.file_max_kib",
		.type = FSLAB_STYPE_SIZE, .min = 16 * FSLAB_MiB, .max = FSLAB_SIZE_MAX, .pow2 = true,
		AT_ENDS(sweep.file_min),
		.default_text = "1G",
		.help = "--sweep cdm and cdm-nvme: the test file of every row (default 1G, as "
			"CrystalDiskMark; a power of two), at most the free space of each filesystem",
	},
	[FSLAB_SETTING_CDM_TIME] = {
		.flag = "cdm-time", .arg = "S", .manifest_key = "sweep.pass_s", .type = FSLAB_STYPE_COUNT,
		AT(sweep.pass_s),
		.min = 1, .max = 60, .default_text = "5",
		.help = "--sweep cdm and cdm-nvme: the seconds of each pass (default 5, "
			"CrystalDiskMark's measure time)",
	},
	[FSLAB_SETTING_TESTS] = {
		.flag = "tests", .short_name = 't', .arg = "LIST", .sweep_key = "tests",
		.manifest_key = "sweep.tests", .type = FSLAB_STYPE_TESTS, .default_text = "all",
		AT(sweep.tests),
		.help = "all, or e.g. write,read,random_read",
	},
	[FSLAB_SETTING_IODEPTH] = {
		.flag = "iodepth", .arg = "N", .sweep_key = "iodepth", .manifest_key = "sweep.iodepth",
		.type = FSLAB_STYPE_COUNT, .min = 1, .max = 256, .default_text = "1", .list = true,
		.offset = offsetof(struct fslab_run_config, sweep.iodepth), .size = sizeof(unsigned) * (1 + FSLAB_SIZE_LIST_MAX),
		.help = "the queued tests (--tests queued): io_uring requests in flight per thread; "
			"a list (1,32): one cell per depth (--sweep cdm and cdm-nvme: each row's own Q)",
	},
	[FSLAB_SETTING_JOBS] = {
		.flag = "jobs", .arg = "N", .sweep_key = "jobs", .manifest_key = "sweep.jobs",
		.type = FSLAB_STYPE_COUNT, .min = 1, .max = 64, .default_text = "1",
		AT(sweep.jobs),
		.help = "the queued tests: threads, each with its own fd, ring and region of the "
			"file (--sweep cdm and cdm-nvme: each row's own T)",
	},
	[FSLAB_SETTING_FILE_SYNC] = {
		.flag = "file-sync", .arg = "HOW", .manifest_key = "file_sync",
		.type = FSLAB_STYPE_ENUM, WORDS(file_sync_words),
		AT(file_sync),
		.words_help = "none, fsync (the default) or fdatasync", .default_text = "fsync",
		.help = "the many-files tests (--tests files): what each created file gets before "
			"its close, inside the timer: fsync (the default, as fs_mark), fdatasync or none",
	},
	[FSLAB_SETTING_FILE_SIZES] = {
		.flag = "file-sizes", .arg = "R", .sweep_key = "file_sizes",
		.manifest_key = "sweep.file_min_kib sweep.file_max_kib", .type = FSLAB_STYPE_RANGE,
		AT_SIZES(sweep.file_min),
		.min = FSLAB_SWEEP_SIZE_MIN, .max = FSLAB_SIZE_MAX, .pow2 = true,
		.default_text = "64K-2G", .help = "MIN-MAX doubling from MIN (64K-1G), or a list (48M,1G)",
	},
	[FSLAB_SETTING_RECORD_SIZES] = {
		.flag = "record-sizes", .arg = "R", .sweep_key = "record_sizes",
		.manifest_key = "sweep.record_min_kib sweep.record_max_kib", .type = FSLAB_STYPE_RANGE,
		AT_SIZES(sweep.record_min),
		.min = FSLAB_SWEEP_SIZE_MIN, .max = FSLAB_SIZE_MAX, .pow2 = true,
		.default_text = "4K-16M",
		.help = "4K-16M, or a list (4K,16K,1M); a record that does not divide a file is skipped on it",
	},
	[FSLAB_SETTING_SMALL_RECORDS] = {
		.flag = "small-records", .arg = "M", .sweep_key = "small_records",
		.manifest_key = "sweep.keep_small_records", .type = FSLAB_STYPE_ENUM,
		AT(sweep.keep_small_records),
		WORDS(small_records_words), .words_help = "skip (IOzone's default) or keep (iozone -z)",
		.default_text = "skip",
		.help = "skip (IOzone's default: records < 64K on files > 16M, for IOzone's 13 tests "
			"only) or keep (iozone -z)",
	},
	[FSLAB_SETTING_ORDER] = {
		.sweep_key = "order", .manifest_key = "sweep.order", .type = FSLAB_STYPE_ENUM,
		AT(sweep.shuffle), .invert = true,
		WORDS(order_words), .words_help = "shuffle or fixed", .default_text = "shuffle",
		.help = "the filesystems' order in each trial: shuffled by the seed, or as listed; "
			"rotated by one place per cell",
	},
	[FSLAB_SETTING_CACHE] = {
		.flag = "cache", .arg = "MODE", .sweep_key = "cache", .manifest_key = "cache_mode",
		.type = FSLAB_STYPE_ENUM, .words = fslab_cache_mode_names,
		AT(sweep.cache),
		.n_words = FSLAB_CACHE_MODE_MAX, .words_help = "warm, fsync, direct or cold",
		.default_text = "cold",
		.help = "warm: buffered, nothing flushed (IOzone's default)\n"
			"fsync: fsync and close inside the timer (iozone -e -c)\n"
			"direct: O_DIRECT; stdio tests run buffered (flagged)\n"
			"cold (the default): writers timed with their fsync (iozone -e); the file's "
			"pages dropped before each first read pass (reread/freread re-read what it "
			"cached)",
	},
	[FSLAB_SETTING_TRIALS] = {
		.flag = "trials", .arg = "N", .sweep_key = "trials", .manifest_key = "trials",
		.type = FSLAB_STYPE_COUNT, .min = 1, .max = FSLAB_TRIALS_MAX, .default_text = "3",
		AT(sweep.trials),
		.help = "repeat the whole plan N times (each cell's filesystems back to back, "
			"their order shuffled per trial and rotated per cell)",
	},
	[FSLAB_SETTING_SEED] = {
		.flag = "seed", .arg = "N", .sweep_key = "seed", .manifest_key = "seed",
		.type = FSLAB_STYPE_COUNT, .min = 0, .max = UINT64_MAX, .default_text = "1",
		AT(sweep.seed),
		.help = "seed of that shuffle (default 1)",
	},
	[FSLAB_SETTING_STOP] = {
		.flag = "stop", .arg = "RULE", .manifest_key = "stop", .type = FSLAB_STYPE_ENUM,
		AT(stop_rule),
		WORDS(stop_words),
		.words_help = "decided (the default), ci (as --until-ci) or fixed (--trials N exactly)",
		.default_text = "decided",
		.help = "decided (the lab preset's default): past --trials (the minimum, default "
			FSLAB_DEFAULT_MIN_TRIALS_TEXT "), "
			"run a test of a cell again only while a comparison between the filesystems "
			"is neither decided (slower, faster or equivalent within 5%, on intervals "
			"corrected for looking after every trial) nor undecidable by the 8th trial, "
			"or, up to --max-trials within 45 minutes, while its band of file sizes is "
			"resolved only beyond 10%; tests sharing the test file run together\n"
			"ci: as --until-ci (" FSLAB_DEFAULT_UNTIL_CI_TEXT " when not given)\n"
			"fixed: exactly --trials trials",
	},
	[FSLAB_SETTING_UNTIL_CI] = {
		.flag = "until-ci", .arg = "PCT", .manifest_key = "until_ci_pct",
		.type = FSLAB_STYPE_PERCENT, .default_text = FSLAB_DEFAULT_UNTIL_CI_TEXT,
		AT(until_ci_pct),
		.help = "--stop ci: repeat each file x record cell until the 95% confidence interval "
			"(Student's t) of each test is within PCT percent of its mean; --trials is "
			"then the minimum (at least 2)",
	},
	[FSLAB_SETTING_MAX_TRIALS] = {
		.flag = "max-trials", .arg = "N", .manifest_key = "max_trials",
		.type = FSLAB_STYPE_COUNT, .min = 2, .max = FSLAB_TRIALS_MAX, .default_text = FSLAB_DEFAULT_MAX_TRIALS_TEXT,
		AT(max_trials),
		.help = "the cap of --stop decided and ci (default " FSLAB_DEFAULT_MAX_TRIALS_TEXT ")",
	},
	[FSLAB_SETTING_IO] = {
		.flag = "io", .arg = "MODE", .manifest_key = "io_mode", .type = FSLAB_STYPE_ENUM,
		AT(io_mode),
		WORDS(io_words),
		.words_help = "seek (IOzone's lseek + read/write) or positional (pread/pwrite)",
		.default_text = "seek",
		.help = "seek: lseek + read/write per record in the positioned tests, IOzone's calls "
			"(the default); positional: one pread/pwrite per record (recorded in the "
			"manifest)",
	},
	[FSLAB_SETTING_SYNC] = {
		.flag = "sync", .arg = "POLICY", .manifest_key = "sync_policy",
		.type = FSLAB_STYPE_ENUM, WORDS(sync_words),
		AT(sync_policy),
		.words_help = "fs (syncfs + fsync of the block device) or global (sync() twice, as IOzone)",
		.default_text = "fs",
		.help = "before each cell, fs: syncfs + fsync of the lab's block device (the default; "
			"--dir: syncfs only); global: sync() twice, as IOzone",
	},
	[FSLAB_SETTING_LATENCY] = {
		.flag = "latency", .manifest_key = "latency", .type = FSLAB_STYPE_BOOL,
		AT(latency),
		.default_text = "off",
		.help = "per-cell p50/p99/p99.9/p99.99/max latency of one operation (a clock read and a "
			"histogram bucket per operation) as five more CSV columns: lat_p50_us, lat_p99_us, "
			"lat_p999_us, lat_p9999_us, lat_max_us",
	},
	[FSLAB_SETTING_PASS_GAP] = {
		.flag = "pass-gap", .arg = "MS", .manifest_key = "pass_gap_ms", .type = FSLAB_STYPE_COUNT,
		AT(pass_gap_ms),
		.min = 0, .max = FSLAB_PASS_GAP_MS_MAX, .default_text = "0",
		.help = "an untimed pause of MS milliseconds before each timed pass, "
			"after its cache drop (default 0: a pass starts as soon as the one before it is "
			"done, as in IOzone); time for the system to finish with the last pass's writes "
			"before the next is timed",
	},
	[FSLAB_SETTING_NO_PROBE] = {
		.flag = "no-device-probe", .manifest_key = "device_probe", .type = FSLAB_STYPE_BOOL,
		AT(no_device_probe),
		.default_text = "off", .heading = "Honesty:",
		.help = "skip the probe of each device; without it no cell is flagged as faster than "
			FSLAB_PAGE_CACHE_FACTOR_TEXT "x the device (beyond-device, or page-cache where "
			"the device has no counters)",
	},
	[FSLAB_SETTING_PROBE_SIZE] = {
		.flag = "probe-size", .arg = "SIZE", .manifest_key = "filesystems[].device_probe_bytes",
		.type = FSLAB_STYPE_SIZE, .min = 4 * FSLAB_MiB, .max = FSLAB_SIZE_MAX,
		AT(probe_bytes),
		.default_text = "64M",
		.help = "the probe's scratch file (default 64M, 1M records)",
	},
	[FSLAB_SETTING_STEADY] = {
		.flag = "steady-state", .arg = "MODE", .manifest_key = "steady_state",
		.type = FSLAB_STYPE_ENUM, WORDS(steady_words),
		AT(steady_mode),
		.words_help = "auto (on for a lab on a real disk), on or off", .default_text = "auto",
		.help = "before each filesystem's sweep, write it until the drive is steady (SNIA "
			"PTS: 4K random-write throughput of 5 rounds within 20% of their mean and its "
			"fitted line within 10%; at most 25 rounds of 1M sequential + 4K random "
			"O_DIRECT writes on a file of 4 rounds' bytes, at most 4G and a quarter of the "
			"free space): auto (the default: on for "
			"a lab on a real SSD, off for an image lab, a rotational disk or --dir), on, "
			"off; recorded per filesystem in the manifest",
	},
	[FSLAB_SETTING_STEADY_ROUND] = {
		.flag = "steady-state-round", .arg = "SIZE", .manifest_key = "steady_state_round_kib",
		.type = FSLAB_STYPE_SIZE, .min = FSLAB_MiB, .max = FSLAB_SIZE_MAX,
		AT(steady_round_bytes),
		.multiple = FSLAB_MiB, .default_text = "256M",
		.help = "bytes each workload writes per round (default 256M)",
	},
	[FSLAB_SETTING_LABEL] = {
		.flag = "label", .arg = "NAME", .manifest_key = "label", .type = FSLAB_STYPE_NAME,
		AT(label),
		.default_text = "none", .heading = "Output:",
		.help = "name the run (e.g. the host it runs on; letters, digits, . _ -): recorded in "
			"the manifest, fslab report tags the run with it (hostA/ext4)",
	},
};

const enum fslab_setting fslab_settings_help_order[FSLAB_SETTING_MAX] = {
	FSLAB_SETTING_PRESET, FSLAB_SETTING_CDM_SIZE, FSLAB_SETTING_CDM_TIME, FSLAB_SETTING_TESTS,
	FSLAB_SETTING_IODEPTH, FSLAB_SETTING_JOBS, FSLAB_SETTING_FILE_SYNC, FSLAB_SETTING_FILE_SIZES,
	FSLAB_SETTING_RECORD_SIZES, FSLAB_SETTING_SMALL_RECORDS, FSLAB_SETTING_ORDER,
	FSLAB_SETTING_CACHE, FSLAB_SETTING_TRIALS, FSLAB_SETTING_SEED, FSLAB_SETTING_STOP,
	FSLAB_SETTING_UNTIL_CI, FSLAB_SETTING_MAX_TRIALS, FSLAB_SETTING_IO, FSLAB_SETTING_SYNC,
	FSLAB_SETTING_LATENCY, FSLAB_SETTING_PASS_GAP, FSLAB_SETTING_NO_PROBE, FSLAB_SETTING_PROBE_SIZE,
	FSLAB_SETTING_STEADY, FSLAB_SETTING_STEADY_ROUND, FSLAB_SETTING_LABEL,
};

_Static_assert(FSLAB_SETTING_MAX <= 32, "set bits fit an unsigned");
/* the places put_value writes: a bool, an unsigned-sized enum or count,
 * a uint64_t or a range's two */
#define ENDS(lo, hi) (offsetof(struct fslab_sweep_spec, hi) == offsetof(struct fslab_sweep_spec, lo) + sizeof(uint64_t))
_Static_assert(ENDS(file_min, file_max) && ENDS(file_max, files) && ENDS(record_min, record_max) &&
	       ENDS(record_max, records) && offsetof(struct fslab_sweep_spec, depths) ==
	       offsetof(struct fslab_sweep_spec, iodepth) + sizeof(unsigned), "a range's ends and list in a row");
_Static_assert(sizeof(enum fslab_cache_mode) == sizeof(unsigned) && sizeof(enum fslab_preset) == sizeof(unsigned) &&
	       sizeof(enum fslab_stop_rule) == sizeof(unsigned) && sizeof(enum fslab_io_mode) == sizeof(unsigned) &&
	       sizeof(enum fslab_sync_policy) == sizeof(unsigned) && sizeof(enum fslab_file_sync) == sizeof(unsigned) &&
	       sizeof(enum fslab_steady_mode) == sizeof(unsigned) && sizeof(bool) != sizeof(unsigned),
	       "an enum's place is an unsigned's");

const struct fslab_setting_row *fslab_setting_row(enum fslab_setting id)
{
	return id >= 0 && id < FSLAB_SETTING_MAX ? &rows[id] : NULL;
}

int fslab_setting_by_sweep_key(const char *key)
{
	for (int i = 0; key && i < FSLAB_SETTING_MAX; i++)
		if (rows[i].sweep_key && strcmp(rows[i].sweep_key, key) == 0)
			return i;
	return -1;
}

int fslab_setting_word_index(enum fslab_setting id, const char *word)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);

	return r && r->type == FSLAB_STYPE_ENUM ? fslab_name_index(r->words, r->n_words, word) : -1;
}

const char *fslab_setting_word(enum fslab_setting id, int i)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);

	return r && r->type == FSLAB_STYPE_ENUM && i >= 0 && i < r->n_words ? r->words[i] : NULL;
}

char *fslab_setting_words(enum fslab_setting id, const char *sep, char *buf, size_t len)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);
	bool words = r && r->type == FSLAB_STYPE_ENUM;

	return fslab_names_join(words ? r->words : NULL, words ? r->n_words : 0, sep, sep, buf, len);
}

const char *fslab_setting_mkey(enum fslab_setting id, int k)
{
	static char names[FSLAB_SETTING_MAX][2][48];
	const char *p = id >= 0 && id < FSLAB_SETTING_MAX && (k == 0 || k == 1) ? rows[id].manifest_key : NULL;
	size_t n;

	if (p && k && (p = strchr(p, ' ')))
		p++;
	if (!p)
		return "";
	/* word k, without its path */
	n = strcspn(p, " ");
	for (const char *dot; (dot = memchr(p, '.', n)); p = dot + 1)
		n -= (size_t)(dot + 1 - p);
	if (!names[id][k][0])
		snprintf(names[id][k], sizeof(names[id][k]), "%.*s", (int)n, p);
	return names[id][k];
}

char *fslab_setting_bounds(enum fslab_setting id, char *buf, size_t len)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);
	char a[32];

	buf[0] = '\0';
	if (!r)
		return buf;
	switch (r->type) {
	case FSLAB_STYPE_COUNT:
		if (r->max != UINT64_MAX)
			snprintf(buf, len, "%llu to %llu", (unsigned long long)r->min,
				 (unsigned long long)r->max);
		break;
	case FSLAB_STYPE_SIZE:
		fslab_size_format(r->min, a, sizeof(a));
		snprintf(buf, len, "at least %s%s", a,
			 r->multiple == FSLAB_MiB ? ", whole MiB" : r->pow2 ? ", a power of two" : "");
		break;
	case FSLAB_STYPE_RANGE:
		snprintf(buf, len, "multiples of 4K from %s", fslab_size_format(r->min, a, sizeof(a)));
		break;
	case FSLAB_STYPE_PERCENT:
		snprintf(buf, len, "above 0, at most 100");
		break;
	default:
		break;
	}
	return buf;
}

char *fslab_setting_sweep_keys(char *buf, size_t len)
{
	const char *keys[FSLAB_SETTING_MAX];
	int n = 0;

	for (int i = 0; i < FSLAB_SETTING_MAX; i++)
		if (rows[i].sweep_key)
			keys[n++] = rows[i].sweep_key;
	return fslab_names_join(keys, n, ", ", ", ", buf, len);
}

/* A whole number (lo; a range's ends lo and hi) at a row's place: a bool
 * (not 0, unless invert), an unsigned-sized enum or count, a uint64_t or
 * two (a size given for both ends). */
static void store(const struct fslab_setting_row *r, char *at, uint64_t lo, uint64_t hi)
{
	uint64_t ends[2] = { lo, r->type == FSLAB_STYPE_RANGE ? hi : lo };
	unsigned u = (unsigned)lo;
	bool b = (lo != 0) != r->invert;

	memset(at, 0, r->size); /* a list's: none */
	if (r->size == sizeof(b))
		memcpy(at, &b, sizeof(b));
	else if (r->size == sizeof(u) || r->list)
		memcpy(at, &u, sizeof(u));
	else
		memcpy(at, ends, r->size < sizeof(ends) ? r->size : sizeof(ends));
}

/* A list "4K,16K,1M" (sizes) or "1,32" (whole numbers of r's bounds)
 * into v[0..n): n, or -EINVAL naming the value and the rule. */
static int parse_list(const struct fslab_setting_row *r, const char *text, const char *origin,
		      const char *esc, bool sizes, uint64_t *v, struct fslab_err *e)
{
	char copy[256], *save = NULL, why[96];
	const char *size_why = NULL;
	int n = 0, rc;

	snprintf(copy, sizeof(copy), "%s", text);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
		rc = n == FSLAB_SIZE_LIST_MAX ? -E2BIG : sizes ? fslab_size_parse(t, &v[n], &size_why)
			: fslab_parse_uint(t, r->min, r->max, &v[n]);
		if (rc < 0 || (n && v[n] <= v[n - 1]))
			return fslab_err_set(e, -EINVAL, "%s '%s': %s: %s", origin, esc, t, rc == -E2BIG ? "more than "
					     FSLAB_SETTING_TEXT(FSLAB_SIZE_LIST_MAX) " values" : rc == 0
					     ? "give the values in ascending order, each once (e.g. 4K,16K,1M or 1,32)"
					     : sizes ? size_why : fslab_uint_problem(rc, r->min, r->max, why, sizeof(why)));
	}
	return n;
}

/* MIN-MAX or a list: each size obeys the row's bounds and the sweep's
 * size rule; the message names the size, the rule and an example. */
static int parse_range(const struct fslab_setting_row *r, const char *text, const char *origin,
		       const char *esc, char *at, struct fslab_err *e)
{
	const char *why = NULL, *example = r == &rows[FSLAB_SETTING_RECORD_SIZES] ? "4K-2M or 4K,16K,1M" : "64K-2G or 48M,1G";
	uint64_t v[2 + FSLAB_SIZE_LIST_MAX] = { 0 };
	int n = 0;
	char z[32];

	if (strchr(text, ',') && (n = parse_list(r, text, origin, esc, true, v + 2, e)) < 0)
		return -EINVAL;
	if (!n && fslab_size_range_parse(text, &v[0], &v[1], &why) < 0)
		return fslab_err_set(e, -EINVAL, "%s '%s': %s (e.g. %s)", origin, esc,
			      why ? why : "not a size range", example);
	v[0] = n ? v[2] : v[0]; /* a list's ends */
	v[1] = n ? v[n + 1] : v[1];
	for (int i = 0; i < 2 + n; i++) {
		const char *problem = r->pow2 ? fslab_sweep_size_problem(v[i]) : NULL;

		if (!problem && (v[i] < r->min || v[i] > r->max))
			problem = "is out of range";
		if (problem)
			return fslab_err_set(e, -EINVAL, "%s '%s': %s %s (e.g. %s)", origin, esc,
				      fslab_size_format(v[i], z, sizeof(z)), problem, example);
	}
	memcpy(at, v, r->size);
	return 0;
}

/* "whole MiB, at least 1M" or "a size of at least 4M". */
static const char *size_rule(const struct fslab_setting_row *r, char *buf, size_t len)
{
	char a[32];

	fslab_size_format(r->min, a, sizeof(a));
	if (r->multiple == FSLAB_MiB)
		snprintf(buf, len, "whole MiB, at least %s", a);
	else if (r->pow2)
		snprintf(buf, len, "a power of two, at least %s", a);
	else
		snprintf(buf, len, "a size of at least %s", a);
	return buf;
}

static int parse_size(const struct fslab_setting_row *r, const char *text, const char *origin,
		      const char *esc, char *at, struct fslab_err *e)
{
	const char *why = NULL;
	char bounds[64];
	uint64_t b;

	if (fslab_size_parse(text, &b, &why) < 0)
		return fslab_err_set(e, -EINVAL, "%s '%s': %s", origin, esc,
			      why ? why : "not a size (e.g. 512M, 20G)");
	if (b < r->min || b > r->max || (r->multiple && b % r->multiple) ||
	    (r->pow2 && !fslab_is_pow2(b)))
		return fslab_err_set(e, -EINVAL, "%s '%s': give %s (e.g. %s)", origin, esc,
			      size_rule(r, bounds, sizeof(bounds)), r->default_text);
	store(r, at, b, b);
	return 0;
}

/* The value of text at its row's place at; nothing written on an error. */
static int parse_value(const struct fslab_setting_row *r, const char *text, const char *origin,
		       char *at, struct fslab_err *e)
{
	char esc[FSLAB_ESCAPE_SIZE(64)], why[320], bad[64];
	double real;
	uint64_t u;
	unsigned mask;
	int i, rc;

	fslab_escape_ctrl(text, esc, sizeof(esc));
	switch (r->type) {
	case FSLAB_STYPE_ENUM:
		i = fslab_name_index(r->words, r->n_words, text);
		if (i < 0)
			return fslab_err_set(e, -EINVAL, "%s '%s': use %s", origin, esc, r->words_help);
		store(r, at, (uint64_t)i, 0);
		return 0;
	case FSLAB_STYPE_RANGE:
		return parse_range(r, text, origin, esc, at, e);
	case FSLAB_STYPE_COUNT:
		if (r->list && strchr(text, ',')) {
			uint64_t v[FSLAB_SIZE_LIST_MAX];
			unsigned d[1 + FSLAB_SIZE_LIST_MAX] = { 0 };

			if ((rc = parse_list(r, text, origin, esc, false, v, e)) < 0)
				return -EINVAL;
			for (i = 0; i < rc; i++)
				d[i + 1] = (unsigned)v[i];
			d[0] = d[1];
			memcpy(at, d, sizeof(d));
			return 0;
		}
		rc = fslab_parse_uint(text, r->min, r->max, &u);
		if (rc < 0)
			return fslab_err_set(e, -EINVAL, "%s '%s': %s", origin, esc,
				      fslab_uint_problem(rc, r->min, r->max, why, sizeof(why)));
		store(r, at, u, 0);
		return 0;
	case FSLAB_STYPE_SIZE:
		return parse_size(r, text, origin, esc, at, e);
	case FSLAB_STYPE_PERCENT:
		if (fslab_parse_decimal(text, &real) < 0 || !(real > 0) || real > 100)
			return fslab_err_set(e, -EINVAL, "%s '%s': give a percentage above 0 and at most 100, e.g. 5",
				      origin, esc);
		memcpy(at, &real, sizeof(real));
		return 0;
	case FSLAB_STYPE_TESTS:
		if (fslab_tests_parse(text, &mask, bad, sizeof(bad)) < 0)
			return fslab_err_set(e, -EINVAL, "%s '%s': %s", origin, esc,
				      fslab_tests_problem(bad, why, sizeof(why)));
		if (mask == 0)
			return fslab_err_set(e, -EINVAL, "%s '%s': no test named; give all or e.g. write,read",
				      origin, esc);
		store(r, at, mask, 0);
		return 0;
	case FSLAB_STYPE_NAME:
		u = strlen(text);
		if (u == 0 || u >= r->size || text[0] == '-' ||
		    strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != u)
			return fslab_err_set(e, -EINVAL, "%s '%s': give 1 to %zu letters, digits, '.', '_' or '-', not starting with '-' (e.g. the host's name)",
				      origin, esc, r->size - 1);
		snprintf(at, r->size, "%s", text);
		return 0;
	case FSLAB_STYPE_BOOL:
		store(r, at, 1, 0);
		return 0;
	}
	return fslab_err_set(e, -EINVAL, "%s: not a setting", origin);
}

int fslab_setting_parse(struct fslab_settings *s, enum fslab_setting id, const char *text,
			const char *origin, struct fslab_err *e)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);

	if (!r)
		return fslab_err_set(e, -EINVAL, "%s: not a setting", origin);
	if (r->type != FSLAB_STYPE_BOOL && !text)
		return fslab_err_set(e, -EINVAL, "%s needs a value", origin);
	if (parse_value(r, text ? text : "", origin, (char *)&s->v + r->offset, e) < 0)
		return -EINVAL;
	s->set |= FSLAB_SETTING_BIT(id);
	return 0;
}

void fslab_settings_put(struct fslab_settings *s, enum fslab_setting id, uint64_t lo, uint64_t hi)
{
	store(&rows[id], (char *)&s->v + rows[id].offset, lo, hi);
	s->set |= FSLAB_SETTING_BIT(id);
}

void fslab_settings_put_real(struct fslab_settings *s, enum fslab_setting id, double v)
{
	memcpy((char *)&s->v + rows[id].offset, &v, sizeof(v));
	s->set |= FSLAB_SETTING_BIT(id);
}

void fslab_settings_merge(struct fslab_run_config *cfg, const struct fslab_settings *s, unsigned mask)
{
	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		if (!(s->set & mask & FSLAB_SETTING_BIT(i)))
			continue;
		memcpy((char *)cfg + rows[i].offset, (const char *)&s->v + rows[i].offset, rows[i].size);
		if (rows[i].sweep_key)
			cfg->sweep.set |= FSLAB_SETTING_BIT(i);
	}
}

char *fslab_setting_format(enum fslab_setting id, const struct fslab_run_config *cfg, char *buf, size_t len)
{
	const struct fslab_setting_row *r = &rows[id];
	const char *at = (const char *)cfg + r->offset;
	uint64_t v[2 + FSLAB_SIZE_LIST_MAX] = { 0 };
	unsigned u[1 + FSLAB_SIZE_LIST_MAX];
	bool b;
	char lo[32], hi[32];

	if (r->size == sizeof(b)) {
		memcpy(&b, at, sizeof(b));
		v[0] = b != r->invert;
	} else if (r->size == sizeof(u[0]) || r->list) {
		memcpy(u, at, r->size);
		for (size_t i = 0; i < r->size / sizeof(u[0]); i++)
			v[i ? i + 1 : 0] = u[i];
	} else if (r->type != FSLAB_STYPE_NAME) {
		memcpy(v, at, r->size);
	}
	if (v[2]) { /* a list */
		buf[0] = '\0';
		for (size_t i = 2; i < sizeof(v) / sizeof(v[0]) && v[i]; i++) {
			snprintf(lo, sizeof(lo), "%llu", (unsigned long long)v[i]);
			fslab_catf(buf, len, "%s%s", i > 2 ? "," : "", r->type == FSLAB_STYPE_RANGE ?
				   fslab_size_format(v[i], lo, sizeof(lo)) : lo);
		}
	} else if (r->type == FSLAB_STYPE_ENUM)
		snprintf(buf, len, "%s", v[0] < (uint64_t)r->n_words ? r->words[v[0]] : "");
	else if (r->type == FSLAB_STYPE_RANGE)
		snprintf(buf, len, "%s%s%s", fslab_size_format(v[0], lo, sizeof(lo)), v[1] == v[0] ? "" : "-",
			 v[1] == v[0] ? "" : fslab_size_format(v[1], hi, sizeof(hi)));
	else if (r->type == FSLAB_STYPE_SIZE)
		fslab_size_format(v[0], buf, len);
	else if (r->type == FSLAB_STYPE_TESTS)
		fslab_tests_format((unsigned)v[0], buf, len);
	else if (r->type == FSLAB_STYPE_PERCENT)
		snprintf(buf, len, "%g", *(const double *)at);
	else if (r->type == FSLAB_STYPE_NAME)
		snprintf(buf, len, "%s", at);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v[0]);
	return buf;
}
