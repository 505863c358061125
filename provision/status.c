/* fslab status: the lab as it is now, checked against the state. */
#include "device_identity.h"
#include "fshealth.h"
#include "lab_mount.h"
#include "log.h"
#include "prov_int.h"
#include "fslab/provision.h"
#include "size.h"
#include "table.h"
#include "termtext.h"
#include "progress.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

struct status_row {
	bool present;       /* block device there */
	char fs_type[32], fs_version[32];
	bool type_ok;
	bool mounted;       /* the device at its mount point */
	bool free_known;    /* fusefat reports no statfs figures */
	uint64_t size, free;
	char problem[PATH_MAX + 512];
	int health;         /* enum fslab_health, or -errno: could not check */
	char damage[PATH_MAX + 512]; /* what the check found, or why it could not */
};

static void status_check(const struct fslab_state_partition *p, struct status_row *row)
{
	const struct fslab_fs_recipe *rc = fslab_fs_recipe(p->type);
	char where[PATH_MAX];
	struct fslab_err e = FSLAB_ERR_INIT;
	struct stat sb;
	struct statvfs vfs;

	memset(row, 0, sizeof(*row));
	row->present = stat(p->device, &sb) == 0 && S_ISBLK(sb.st_mode);
	if (!row->present) {
		snprintf(row->problem, sizeof(row->problem), "%s is missing", p->device);
		return;
	}
	prov_probe_fs(p->device, row->fs_type, sizeof(row->fs_type), row->fs_version,
		      sizeof(row->fs_version));
	row->type_ok = fslab_fs_recipe_probed(rc, row->fs_type, row->fs_version);
	int found = prov_mount_find_device(p->device, where, sizeof(where));
	row->mounted = found == 1 && strcmp(where, p->mountpoint) == 0;
	row->size = p->size_sectors * 512;
	/* The filesystem's own signs of damage (fshealth.h), read from the
	 * device whether or not its mount answers; a fusefat that holds the
	 * device serves it (or still flushes it after an unmount). */
	if (row->type_ok) {
		bool fuse = p->mount_method == FSLAB_MOUNT_FUSE;
		struct fslab_health_ctx ctx = { .kernel_mounted = found == 1 && !fuse,
						.fuse_mounted = fuse && fslab_lab_device_holder(sb.st_rdev) > 0 };

		row->health = fslab_fs_health(p->device, p->type, &ctx, row->damage, sizeof(row->damage));
	}
	/* bounded: a stopped FUSE daemon would hang a plain statvfs */
	if (row->mounted && fslab_lab_mount_answers(p, &vfs, &e) < 0) {
		snprintf(row->problem, sizeof(row->problem), "%s", fslab_err_msg(&e));
		return;
	}
	if (row->mounted && vfs.f_blocks > 0) {
		row->size = (uint64_t)vfs.f_blocks * vfs.f_frsize;
		row->free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		row->free_known = true;
	}
	if (!row->type_ok)
		snprintf(row->problem, sizeof(row->problem), "%s holds '%s%s%s', expected %s", p->device,
			 row->fs_type[0] ? row->fs_type : "nothing", row->fs_version[0] ? " " : "",
			 row->fs_version, fslab_fs_type_to_string(p->type));
	else if (!row->mounted)
		snprintf(row->problem, sizeof(row->problem), "%s is not mounted at %s", p->device,
			 p->mountpoint);
}

static void status_json_str(struct json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, json_object_new_string(value ? value : ""));
}

/* What status found, for the printers. */
struct status_view {
	const char *path;            /* the state file as named */
	const struct fslab_state *st;
	struct status_row rows[FSLAB_MAX_FS];
	bool disk_ok;                /* the disk is there, a block device */
	bool have_di;
	struct fslab_devinfo di;
	int loop_dio;                /* an image's loop now: 1 direct I/O, 0 buffered, -1 n/a */
	int problems;
};

static struct json_object *status_partition_json(const struct fslab_state_partition *p,
						 const struct status_row *w)
{
	struct json_object *j = json_object_new_object();

	status_json_str(j, "name", p->name);
	status_json_str(j, "type", fslab_fs_type_to_string(p->type));
	status_json_str(j, "device", p->device);
	json_object_object_add(j, "present", json_object_new_boolean(w->present));
	status_json_str(j, "probed_type", w->fs_type);
	status_json_str(j, "probed_version", w->fs_version);
	status_json_str(j, "mountpoint", p->mountpoint);
	status_json_str(j, "mount_method", fslab_mount_method_to_string(p->mount_method));
	json_object_object_add(j, "mounted", json_object_new_boolean(w->mounted));
	json_object_object_add(j, "size_bytes", json_object_new_int64((int64_t)w->size));
	json_object_object_add(j, "free_bytes",
			       w->free_known ? json_object_new_int64((int64_t)w->free) : NULL);
	json_object_object_add(j, "problem", w->problem[0] ? json_object_new_string(w->problem) : NULL);
	status_json_str(j, "fs_check", w->health < 0 ? "failed" : fslab_health_word(w->health));
	json_object_object_add(j, "fs_damage", w->damage[0] ? json_object_new_string(w->damage) : NULL);
	json_object_object_add(j, "quiet", p->quiet[0] ? json_object_new_string(p->quiet) : NULL);
	json_object_object_add(j, "quiet_wait_s", p->quiet[0] ? json_object_new_double(p->quiet_wait_s) : NULL);
	return j;
}

static void status_print_json(const struct status_view *v, FILE *out)
{
	const struct fslab_state *st = v->st;
	struct json_object *root = json_object_new_object(), *parts = json_object_new_array();

	status_json_str(root, "state", v->path);
	status_json_str(root, "phase", fslab_phase_to_string(st->phase));
	status_json_str(root, "disk", st->disk);
	json_object_object_add(root, "disk_present", json_object_new_boolean(v->disk_ok));
	json_object_object_add(root, "device", v->have_di ? fslab_devinfo_to_json(&v->di) : NULL);
	status_json_str(root, "disk_guid", st->disk_guid);
	status_json_str(root, "image", st->image);
	json_object_object_add(root, "loop_io", v->loop_dio < 0 ? NULL :
				   json_object_new_string(v->loop_dio ? "direct" : "buffered"));
	status_json_str(root, "mount_root", st->mount_root);
	json_object_object_add(root, "precondition", fslab_state_precondition_to_json(&st->precondition));
	for (size_t i = 0; i < st->n_partitions; i++)
		json_object_array_add(parts, status_partition_json(&st->partitions[i], &v->rows[i]));
	json_object_object_add(root, "partitions", parts);
	json_object_object_add(root, "ok", json_object_new_boolean(v->problems == 0));
	fslab_put_json(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
	putc('\n', out);
	json_object_put(root);
}

/* "precondition: done, 800.0 MiB (2 x the disk) in 3.0 s, 271 MiB/s;
 * purge trim (a TRIM purge, not a PTS purge): done; drive before: ...". */
static void status_print_precondition(const struct fslab_state_precondition *pc, FILE *out)
{
	char a[32], b[32], c1[128], c2[128];

	if (!pc->status[0])
		return;
	fprintf(out, "precondition: %s", pc->status);
	if (pc->target_bytes)
		fprintf(out, ", %s of %s written in %.1f s, %.0f MiB/s", fslab_size_human(pc->bytes, a, sizeof(a)),
		       fslab_size_human(pc->target_bytes, b, sizeof(b)), pc->seconds, pc->mib_s);
	else if (pc->note[0])
		fprintf(out, " (%s)", pc->note);
	fprintf(out, "; purge %s%s: %s\n", fslab_purge_to_string(pc->purge),
	       pc->purge == FSLAB_PURGE_TRIM ? " (a TRIM purge, not a PTS purge)"
	       : pc->purge == FSLAB_PURGE_SECURE_ERASE ? " (NVMe Format with Secure Erase, a PTS purge)" : "",
	       pc->purge_result[0] ? pc->purge_result : "-");
	if (pc->before.read_at[0])
		fprintf(out, "drive before preconditioning: %s; after: %s\n",
		       fslab_drive_conditions_format(&pc->before, c1, sizeof(c1)),
		       pc->after.read_at[0] ? fslab_drive_conditions_format(&pc->after, c2, sizeof(c2)) : "-");
}

/* The partitions' table.  0 or -1 (said). */
static int status_print_table(const struct status_view *v, FILE *out)
{
	static const struct {
		const char *heading;
		enum fslab_table_align align;
	} cols[] = {
		{ "name", FSLAB_TABLE_LEFT },	 { "type", FSLAB_TABLE_LEFT },
		{ "device", FSLAB_TABLE_LEFT },	 { "probed", FSLAB_TABLE_LEFT },
		{ "mount point", FSLAB_TABLE_LEFT }, { "mounted", FSLAB_TABLE_LEFT },
		{ "size", FSLAB_TABLE_RIGHT },	 { "free", FSLAB_TABLE_RIGHT },
		{ "fs check", FSLAB_TABLE_LEFT },
	};
	const struct fslab_state *st = v->st;
	struct fslab_table *t = fslab_table_new(1);
	char a[32];
	int r;

	if (!t) {
		fslab_note(FSLAB_NOTE_ERROR, "out of memory");
		return -1;
	}
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fslab_table_column(t, cols[c].heading, cols[c].align);
	for (size_t i = 0; i < st->n_partitions; i++) {
		const struct fslab_state_partition *p = &st->partitions[i];
		const struct status_row *w = &v->rows[i];

		fslab_table_row(t);
		fslab_table_cell(t, 0, p->name);
		fslab_table_cell(t, 1, fslab_fs_type_to_string(p->type));
		fslab_table_cell(t, 2, p->device);
		fslab_table_cell(t, 3, w->fs_type[0] ? w->fs_type : "-");
		fslab_table_cell(t, 4, p->mountpoint);
		fslab_table_cell(t, 5, w->mounted ? (p->mount_method == FSLAB_MOUNT_FUSE ? "fuse" : "kernel")
						  : "no");
		fslab_table_cell(t, 6, fslab_size_human(w->size, a, sizeof(a)));
		fslab_table_cell(t, 7, w->free_known ? fslab_size_human(w->free, a, sizeof(a)) : "-");
		fslab_table_cell(t, 8, w->health < 0 ? "failed" : fslab_health_word(w->health));
	}
	r = fslab_table_print(t, out);
	fslab_table_free(t);
	if (r < 0)
		fslab_note(FSLAB_NOTE_ERROR, "cannot print the partitions' table: %s", strerror(-r));
	return r < 0 ? -1 : 0;
}

/* The text report; -1 when it could not be printed (said). */
static int status_print_text(const struct status_view *v, FILE *out)
{
	const struct fslab_state *st = v->st;

	fprintf(out, "lab: %s%s%s (state %s, phase %s, set up %s)\n", st->disk[0] ? st->disk : "(no disk)",
	       st->image[0] ? " backed by " : "", st->image, v->path, fslab_phase_to_string(st->phase),
	       st->created_at);
	if (v->loop_dio >= 0)
		fprintf(out, "loop device: %s\n", v->loop_dio == 1 ? "direct I/O"
			: "buffered: reads of the lab come from this machine's page cache; figures are flagged buffered-loop");
	if (v->have_di) {
		char line[512];

		fslab_devinfo_describe(&v->di, line, sizeof(line));
		fprintf(out, "device: %s\n", line);
	}
	status_print_precondition(&st->precondition, out);
	if (status_print_table(v, out) < 0)
		return -1;
	for (size_t i = 0; i < st->n_partitions; i++) {
		const struct fslab_state_partition *p = &st->partitions[i];

		if (p->quiet[0])
			fprintf(out, "%s after mount: %s in %.1f s (%s)\n", p->name, p->quiet, p->quiet_wait_s,
			       p->quiet_note);
	}
	return 0;
}

/* The report, as one note (its lines); -1 when it could not be made
 * (said). */
static int status_print(const struct status_view *v, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int r = 0;

	if (!out) {
		fslab_note(FSLAB_NOTE_ERROR, "out of memory");
		return -1;
	}
	if (json)
		status_print_json(v, out);
	else
		r = status_print_text(v, out);
	if (fclose(out) != 0)
		r = -1;
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	if (len)
		fslab_note_line("%s", text);
	free(text);
	return r;
}

/* Each problem on stderr, after the report. */
static void status_print_problems(const struct status_view *v)
{
	const struct fslab_state *st = v->st;

	if (!v->disk_ok)
		fslab_note(FSLAB_NOTE_ERROR, "damaged lab: the disk %s is missing", st->disk[0] ? st->disk : "(none recorded)");
	if (st->phase != FSLAB_PHASE_READY)
		fslab_note(FSLAB_NOTE_ERROR, "damaged lab: setup did not finish (stopped at '%s'); run fslab teardown "
			    "--state %s",
			    fslab_phase_to_string(st->phase), v->path);
	for (size_t i = 0; i < st->n_partitions; i++) {
		const struct fslab_state_partition *p = &st->partitions[i];
		const struct status_row *w = &v->rows[i];

		if (w->problem[0])
			fslab_note(FSLAB_NOTE_ERROR, "damaged lab: [%s] %s", p->name, w->problem);
		if (w->health == FSLAB_HEALTH_DAMAGED)
			fslab_note(FSLAB_NOTE_ERROR, "damaged filesystem: [%s] the %s on %s: %s. Its figures cannot be "
				    "trusted: set the lab up again (fslab teardown --state %s, then fslab "
				    "setup), or repair it unmounted (%s)",
				    p->name, fslab_fs_type_to_string(p->type), p->device, w->damage, v->path,
				    p->type == FSLAB_FS_FAT32 ? "fsck.fat -a" : "e2fsck -f");
		else if (w->health < 0)
			fslab_note(FSLAB_NOTE_ERROR, "damaged lab: [%s] %s", p->name, w->damage);
	}
	if (st->version < FSLAB_STATE_VERSION)
		fslab_note_warn("%s is an old state file (version %d): teardown cannot prove what this lab "
			   "created and will say how to remove it by hand",
			   v->path, st->version);
}

/* Looks at the lab as it is: the disk (proven the lab's before anything
 * about it is reported as the lab's), each partition.  0, or -1 when the
 * disk is there but not the lab's (the reason in e). */
static int status_look(struct fslab_lab *lab, struct status_view *v, struct fslab_err *e)
{
	const struct fslab_state *st = v->st;
	struct stat sb;

	v->disk_ok = st->disk[0] && stat(st->disk, &sb) == 0 && S_ISBLK(sb.st_mode);
	if (v->disk_ok && fslab_lab_prove(lab, false, e) < 0)
		return -1;
	for (size_t i = 0; i < st->n_partitions; i++) {
		status_check(&st->partitions[i], &v->rows[i]);
		if (v->rows[i].problem[0])
			v->problems++;
		if (v->rows[i].health < 0 || v->rows[i].health == FSLAB_HEALTH_DAMAGED)
			v->problems++;
	}
	if (st->phase != FSLAB_PHASE_READY)
		v->problems++;
	if (!v->disk_ok)
		v->problems++;
	v->have_di = v->disk_ok && fslab_devinfo_read(st->disk, &v->di, NULL) == 0;
	v->loop_dio = st->image[0] && v->disk_ok ? prov_loop_direct_io(st->disk) : -1;
	if (v->loop_dio < 0)
		v->loop_dio = -1;
	return 0;
}

int fslab_status(const struct fslab_status_opts *o, struct fslab_err *e)
{
	struct fslab_lab *lab = NULL;
	struct status_view *v = calloc(1, sizeof(*v));
	int mounts, r, ret = FSLAB_EXIT_FAILURE;

	if (!v)
		return fslab_note_fail(e, FSLAB_EXIT_FAILURE, "out of memory");
	v->path = o->state_path ? o->state_path : fslab_state_default_path();
	r = fslab_lab_open(v->path, FSLAB_LAB_SHARED, 0, "fslab status", &lab, e);
	if (r == -ENOENT) /* no lab: said without creating the lock file or its directory */
		fslab_err_set(e, r, "no lab: no state file %s (run fslab setup, or give --state FILE)",
			      v->path);
	if (r < 0) {
		free(v);
		return FSLAB_EXIT_FAILURE;
	}
	v->st = fslab_lab_state(lab);
	/* Not in the middle of a cold-cache remount. */
	mounts = fslab_lab_mounts_hold(lab);
	if (status_look(lab, v, e) == 0) {
		int printed = status_print(v, o->json);

		status_print_problems(v);
		ret = v->problems || printed < 0 ? FSLAB_EXIT_FAILURE : FSLAB_EXIT_OK;
	}
	fslab_lab_mounts_release(mounts);
	fslab_lab_close(lab);
	free(v);
	return ret;
}
