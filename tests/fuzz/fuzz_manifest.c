/* Fuzz target: the manifest.json reader (lib/manifest.h), which
 * `fslab run --resume`, `fslab report`, `fslab import` and `fslab
 * reproduce` trust with a file a user may have edited.  Properties checked
 * on every input:
 *  - parse returns 0, -EINVAL (with a message naming the file) or -ENOMEM;
 *    nothing is read past the input (ASan);
 *  - every value it accepts is within what fslab writes: sizes powers of
 *    two up to FSLAB_MANIFEST_SIZE_KIB_MAX with min <= max (so the plan's
 *    doubling from min cannot wrap), trials and sessions in range, figures
 *    finite and not negative, filesystem names valid and unique, strings
 *    terminated inside their fields;
 *  - what it accepts, written back with fslab_manifest_format, reads back
 *    to the same text (the writer and reader agree on every field; an
 *    import's manifest keeps the import's keys only). */
#include "fuzz_check.h"
#include "manifest.h"

#include <errno.h>
#include <math.h>

static void check_str(const char *s, size_t size)
{
	FUZZ_CHECK(memchr(s, '\0', size) != NULL);
}

static void check_sweep(const struct fslab_manifest *m)
{
	const uint64_t v[] = { m->sweep.file_min_kib, m->sweep.file_max_kib, m->sweep.record_min_kib,
			       m->sweep.record_max_kib };

	/* any size in range: a list's ends need not be powers of two */
	for (size_t i = 0; i < 4; i++)
		FUZZ_CHECK(v[i] <= FSLAB_MANIFEST_SIZE_KIB_MAX);
	FUZZ_CHECK(!m->sweep.record_min_kib || m->sweep.record_min_kib >= 4);
	FUZZ_CHECK(!m->sweep.file_max_kib || m->sweep.file_min_kib <= m->sweep.file_max_kib);
	FUZZ_CHECK(!m->sweep.record_max_kib || m->sweep.record_min_kib <= m->sweep.record_max_kib);
	FUZZ_CHECK((m->sweep.tests & ~FSLAB_TESTS_EVERY) == 0);
	/* the plan doubles from min while <= max, in bytes: no wrap */
	FUZZ_CHECK(m->sweep.file_max_kib * 1024 * 2 > m->sweep.file_max_kib * 1024 || !m->sweep.file_max_kib);
	FUZZ_CHECK(m->sweep.record_max_kib * 1024 * 2 > m->sweep.record_max_kib * 1024 ||
		   !m->sweep.record_max_kib);
}

static void check_fs(const struct fslab_manifest *m, size_t i)
{
	const struct fslab_manifest_fs *f = &m->fs[i];
	const double d[] = { f->device_write_kib_s, f->device_read_kib_s, f->timed_s, f->untimed_io_s,
			     f->cache_drop_s, f->wall_s };

	FUZZ_CHECK(fslab_fs_name_valid(f->name));
	for (size_t k = 0; k < i; k++)
		FUZZ_CHECK(strcmp(m->fs[k].name, f->name) != 0);
	check_str(f->type, sizeof(f->type));
	check_str(f->path, sizeof(f->path));
	check_str(f->device_probe_note, sizeof(f->device_probe_note));
	check_str(f->iozone_report, sizeof(f->iozone_report));
	for (size_t k = 0; k < sizeof(d) / sizeof(d[0]); k++)
		FUZZ_CHECK(isfinite(d[k]) && d[k] >= 0);
	FUZZ_CHECK(f->probe_runs <= FSLAB_MANIFEST_PROBE_RUNS);
	for (unsigned k = 0; k < f->probe_runs; k++)
		FUZZ_CHECK(f->probe_write_kib_s[k] >= 0 && f->probe_read_kib_s[k] >= 0);
	FUZZ_CHECK(f->setup_discarded >= -1 && f->setup_discarded <= 1);
	FUZZ_CHECK(f->cells_ok <= FSLAB_MANIFEST_COUNT_MAX && f->device_size_bytes <= (UINT64_C(1) << 60));
}

static void check_manifest(const struct fslab_manifest *m)
{
	FUZZ_CHECK(m->kind == FSLAB_MANIFEST_RUN || m->kind == FSLAB_MANIFEST_IMPORT);
	FUZZ_CHECK(m->trials <= FSLAB_TRIALS_MAX && m->max_trials <= FSLAB_TRIALS_MAX);
	FUZZ_CHECK(m->sessions >= 1 && m->sessions <= FSLAB_MANIFEST_SESSIONS_MAX);
	FUZZ_CHECK(m->cache == FSLAB_CACHE_MODE_INVALID || (m->cache >= 0 && m->cache < FSLAB_CACHE_MODE_MAX));
	FUZZ_CHECK(isfinite(m->until_ci_pct) && m->until_ci_pct >= 0 && m->until_ci_pct <= 100);
	FUZZ_CHECK(isfinite(m->page_cache_factor) && m->page_cache_factor >= 0);
	FUZZ_CHECK(!m->run_id[0] || strlen(m->run_id) == FSLAB_MANIFEST_RUN_ID_LEN);
	check_str(m->label, sizeof(m->label));
	check_str(m->state_path, sizeof(m->state_path));
	FUZZ_CHECK(m->n_command <= FSLAB_MANIFEST_WORDS_MAX && m->n_notes <= FSLAB_MANIFEST_NOTES_MAX);
	for (size_t i = 0; i < m->n_command; i++)
		FUZZ_CHECK(m->command[i] != NULL);
	check_sweep(m);
	FUZZ_CHECK(m->n_fs <= FSLAB_MANIFEST_FS_MAX);
	for (size_t i = 0; i < m->n_fs; i++)
		check_fs(m, i);
}

static void check_round_trip(const struct fslab_manifest *m)
{
	struct fslab_manifest *b = NULL;
	char *t1 = NULL, *t2 = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;
	size_t l1 = 0, l2 = 0;

	FUZZ_CHECK(fslab_manifest_format(m, &t1, &l1) == 0);
	if (fslab_manifest_parse(t1, l1, "written", &b, &fe) != 0) {
		fprintf(stderr, "written manifest does not read back: %s\n--- written:\n%s", fe.msg, t1);
		abort();
	}
	FUZZ_CHECK(b->kind == m->kind && b->n_fs == m->n_fs && b->trials == m->trials);
	/* an import's manifest holds the import's keys only */
	FUZZ_CHECK(m->kind == FSLAB_MANIFEST_IMPORT ||
		   (b->sweep.file_max_kib == m->sweep.file_max_kib && b->seed == m->seed &&
		    b->sessions == m->sessions && b->sweep.tests == m->sweep.tests));
	FUZZ_CHECK(fslab_manifest_format(b, &t2, &l2) == 0);
	if (l1 != l2 || memcmp(t1, t2, l1) != 0) {
		fprintf(stderr, "manifest changed on a second round trip:\n%s\n---\n%s", t1, t2);
		abort();
	}
	fslab_manifest_free(b);
	free(t1);
	free(t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fslab_manifest *m = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;
	int r = fslab_manifest_parse((const char *)data, size, "fuzz.json", &m, &fe);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		FUZZ_CHECK(m == NULL);
		FUZZ_CHECK(strncmp(fe.msg, "fuzz.json", 9) == 0);
		return 0;
	}
	check_manifest(m);
	(void)fslab_manifest_check_resumable(m, "fuzz.json", &fe);
	check_round_trip(m);
	fslab_manifest_free(m);
	return 0;
}
