/* The run's context: made, filled with the settings (lib/run_config.c)
 * and the filesystems the caller gave (their records taken back from the
 * manifest when resumed), released.
 * Under every file of the run that makes one (run.c, run_cost.c's
 * --dry-run, run_results.c's resume check). */
#include "run_int.h"

#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One target into the run: checked (its name, a writable directory) and
 * its record filled from it and from what it sits on (fsinfo.c).  A
 * resumed run's record is taken back whole from its manifest first: the
 * probe figures, the accounting, the steady-state phase and the quiet
 * drive carry on; what this session finds or counts again starts empty. */
static int run_add_fs(struct fslab_run_ctx *c, const struct fslab_target *t)
{
	struct fslab_bench_fs *fs;
	int r;

	if (!fslab_fs_name_valid(t->name)) {
		fslab_note(FSLAB_NOTE_ERROR, "'%s' is not a valid filesystem name: use 1 to 31 of A-Z a-z 0-9 _ -", fslab_esc(t->name));
		return -EINVAL;
	}
	for (size_t i = 0; i < c->n_fs; i++)
		if (strcmp(c->fs[i].rec.name, t->name) == 0) {
			fslab_note(FSLAB_NOTE_ERROR, "the name '%s' is given twice; each filesystem needs its own name (it names the CSV)",
				    fslab_esc(t->name));
			return -EINVAL;
		}
	if (!t->path[0] || strnlen(t->path, sizeof(t->path)) >= sizeof(t->path)) {
		fslab_note(FSLAB_NOTE_ERROR, "%s: give the directory to benchmark", fslab_esc(t->name));
		return -EINVAL;
	}
	fs = &c->fs[c->n_fs];
	memset(fs, 0, sizeof(*fs));
	fs->dir_fd = fs->work_fd = -1;
	if (c->resumed) {
		int j = fslab_manifest_find_fs(c->resumed, t->name);

		if (j < 0) {
			fslab_note(FSLAB_NOTE_ERROR, "--resume %s: the run has no filesystem '%s' (its manifest names the filesystems it continues); nothing was changed",
				    fslab_esc(c->out_dir), fslab_esc(t->name));
			return -ENOENT;
		}
		fs->rec = c->resumed->fs[j];
		fs->rec.device_info = fs->rec.live = NULL; /* the read manifest's; derived again when written */
		fs->rec.mount_options_at_end[0] = '\0';
		fs->rec.vanished = false;
		fs->rec.cells_ok = fs->rec.cells_failed = fs->rec.cells_skipped = 0;
		fslab_manifest_take_probe(&fs->rec, &fs->probe);
	}
	fs->t = t;
	snprintf(fs->rec.name, sizeof(fs->rec.name), "%s", t->name);
	snprintf(fs->rec.path, sizeof(fs->rec.path), "%s", t->path);
	fs->rec.setup_discarded = -1;
	r = fslab_fsinfo_fill(fs);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s (%s): %s; give an existing directory", t->name, fslab_esc(t->path), strerror(-r));
		return r;
	}
	if (access(t->path, W_OK) != 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s (%s): not writable: %s", t->name, fslab_esc(t->path), strerror(errno));
		return -EACCES;
	}
	c->n_fs++;
	return 0;
}

void run_ctx_free(struct fslab_run_ctx *c)
{
	for (size_t i = 0; i < c->n_fs; i++) {
		if (c->fs[i].csv)
			fclose(c->fs[i].csv);
		run_workdir_remove(&c->fs[i]);
	}
	if (c->out_fd >= 0)
		close(c->out_fd);
	run_stop_end(c);
	free(c->spec_text);
	fslab_manifest_free(c->resumed);
	free(c->fs);
	for (size_t i = 0; i < c->n_first_command; i++)
		free(c->first_command[i]);
	free(c->first_command);
	free(c);
}

/* A run context with nothing open yet. */
struct fslab_run_ctx *run_ctx_new(void)
{
	struct fslab_run_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out_fd = -1;
	c->cfg.preset = FSLAB_PRESET_SEED;
	return c;
}

int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	int r = o->resume_dir ? fslab_run_config_resume_check(&o->given, o->sweep_file != NULL, o->out_dir != NULL, &e)
			      : fslab_run_config_resolve(&c->cfg, &o->given, o->sweep_file, &c->spec_text, &e);

	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s", e.msg);
		return r;
	}
	if (c->spec_text)
		snprintf(c->spec_text_source, sizeof(c->spec_text_source), "%s", o->sweep_file);
	return 0;
}

/* The run's filesystems: the targets the caller made (--dir directories
 * or a lab's partitions, one path for both); a resumed run's take their
 * records back from its manifest.  Returns an exit status:
 * FSLAB_EXIT_OK, _USAGE or _FAILURE. */
int run_pick_filesystems(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	if (o->n_targets == 0) {
		fslab_note(FSLAB_NOTE_ERROR, "no filesystem to benchmark: run 'fslab setup' first, or benchmark directories with --dir NAME=PATH");
		return FSLAB_EXIT_USAGE;
	}
	if (o->n_targets > FSLAB_MAX_FS) {
		fslab_note(FSLAB_NOTE_ERROR, "%zu filesystems: at most %d per run", o->n_targets, FSLAB_MAX_FS);
		return FSLAB_EXIT_USAGE;
	}
	c->fs = calloc(o->n_targets, sizeof(*c->fs));
	if (!c->fs) {
		fslab_note(FSLAB_NOTE_ERROR, "out of memory");
		return FSLAB_EXIT_FAILURE;
	}
	if (!o->resume_dir)
		snprintf(c->state_path, sizeof(c->state_path), "%s", o->state_path ? o->state_path : "");
	for (size_t i = 0; i < o->n_targets; i++)
		if (run_add_fs(c, &o->targets[i]) < 0)
			return c->resumed || o->targets[i].lab ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_USAGE;
	fslab_manifest_free(c->resumed);
	c->resumed = NULL;
	return FSLAB_EXIT_OK;
}
