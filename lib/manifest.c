/* manifest.json in memory (manifest.h): building one, and whether a run
 * can be continued from it; its keys, their reader and writer, and the
 * file's reading and writing are manifest_read.c, which builds on this. */
#include "manifest.h"
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* ---- building a manifest in memory ---- */

struct fslab_manifest *fslab_manifest_new(enum fslab_manifest_kind kind)
{
	struct fslab_manifest *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->kind = kind;
	m->cache = FSLAB_CACHE_MODE_INVALID;
	m->sessions = 1;
	m->sweep.shuffle = true;
	return m;
}

static void mf_free_words(char **w, size_t n)
{
	for (size_t i = 0; w && i < n; i++)
		free(w[i]);
	free(w);
}

void fslab_manifest_free(struct fslab_manifest *m)
{
	if (!m)
		return;
	mf_free_words(m->command, m->n_command);
	mf_free_words(m->resumed_with, m->n_resumed_with);
	mf_free_words(m->notes, m->n_notes);
	for (size_t i = 0; i < m->n_fs; i++)
		json_object_put(m->fs[i].device_info), json_object_put(m->fs[i].live);
	free(m->fs);
	free(m->spec_text);
	json_object_put(m->stopping);
	json_object_put(m->json);
	free(m);
}

struct fslab_manifest_fs *fslab_manifest_add_fs(struct fslab_manifest *m)
{
	struct fslab_manifest_fs *fs;

	if (m->n_fs >= FSLAB_MANIFEST_FS_MAX)
		return NULL;
	fs = realloc(m->fs, (m->n_fs + 1) * sizeof(*fs));
	if (!fs)
		return NULL;
	m->fs = fs;
	fs = &m->fs[m->n_fs++];
	memset(fs, 0, sizeof(*fs));
	fs->setup_discarded = -1;
	fslab_drive_conditions_unknown(&fs->drive.before);
	fslab_drive_conditions_unknown(&fs->drive.after);
	return fs;
}

int fslab_manifest_find_fs(const struct fslab_manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n_fs; i++)
		if (strcmp(m->fs[i].name, name) == 0)
			return (int)i;
	return -1;
}

void fslab_manifest_remove_fs(struct fslab_manifest *m, size_t i)
{
	if (i >= m->n_fs)
		return;
	json_object_put(m->fs[i].device_info), json_object_put(m->fs[i].live);
	memmove(&m->fs[i], &m->fs[i + 1], (m->n_fs - i - 1) * sizeof(m->fs[0]));
	m->n_fs--;
}

int fslab_manifest_set_words(char ***words, size_t *n_words, size_t n, const char *const *src)
{
	char **w = calloc(n + 1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		w[i] = strdup(src[i] ? src[i] : "");
		if (!w[i]) {
			mf_free_words(w, i);
			return -ENOMEM;
		}
	}
	mf_free_words(*words, *n_words);
	*words = w;
	*n_words = n;
	return 0;
}

int fslab_manifest_add_note(struct fslab_manifest *m, const char *note)
{
	char **w;

	if (m->n_notes >= FSLAB_MANIFEST_NOTES_MAX)
		return -E2BIG;
	w = realloc(m->notes, (m->n_notes + 2) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	m->notes = w;
	w[m->n_notes] = strndup(note, FSLAB_MANIFEST_TEXT_MAX - 1);
	if (!w[m->n_notes])
		return -ENOMEM;
	w[++m->n_notes] = NULL;
	return 0;
}

int fslab_manifest_check_resumable(const struct fslab_manifest *m, const char *name,
				   struct fslab_err *e)
{
	const char *missing = NULL;

	if (m->kind != FSLAB_MANIFEST_RUN || !m->run_id[0])
		return fslab_err_set(e, -EINVAL, "%s: no run_id: written by an fslab before run ids, or not by fslab; a run can be continued only by proving the manifest is this directory's",
				     name);
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
	if (missing)
		return fslab_err_set(e, -EINVAL, "%s: %s is missing; fslab run records it in every run", name,
				     missing);
	return 0;
}
