/* A lab's mounted partitions as fslab run's targets (include/fslab/provision.h). */
#include "fslab/provision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool lab_target_wanted(const char *name, const char *const *only, size_t n_only)
{
	if (n_only == 0)
		return true;
	for (size_t j = 0; j < n_only; j++)
		if (strcmp(only[j], name) == 0)
			return true;
	return false;
}

static void lab_target_fill(struct fslab_lab *lab, const struct fslab_state *st,
			    const struct fslab_state_partition *p, struct fslab_target *t)
{
	const char *type = fslab_fs_type_to_string(p->type);

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", p->name);
	snprintf(t->path, sizeof(t->path), "%s", p->mountpoint);
	t->lab = true;
	snprintf(t->device, sizeof(t->device), "%s", p->device);
	snprintf(t->type, sizeof(t->type), "%s", type ? type : "");
	t->fuse = p->mount_method == FSLAB_MOUNT_FUSE;
	snprintf(t->mount_options, sizeof(t->mount_options), "%s", p->mount_options);
	snprintf(t->mkfs_options, sizeof(t->mkfs_options), "%s", p->mkfs_options);
	snprintf(t->mkfs_command, sizeof(t->mkfs_command), "%s", p->mkfs_command);
	snprintf(t->mkfs_version, sizeof(t->mkfs_version), "%s", p->mkfs_version);
	t->discarded = p->discarded;
	snprintf(t->mount_quiet, sizeof(t->mount_quiet), "%s", p->quiet);
	t->mount_quiet_wait_s = p->quiet_wait_s;
	t->image = st->image[0] != '\0';
	t->precondition = st->precondition;
	t->remount = fslab_lab_remount;
	t->remount_ctx = lab;
}

int fslab_lab_targets(struct fslab_lab *lab, const char *const *only, size_t n_only, bool fresh_fuse,
		      struct fslab_target **targets, size_t *n, struct fslab_err *e)
{
	const struct fslab_state *st = fslab_lab_state(lab);
	struct fslab_target *out = calloc(st->n_partitions + 1, sizeof(*out));
	size_t k = 0;

	*targets = NULL;
	*n = 0;
	if (!out)
		return fslab_err_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < st->n_partitions; i++) {
		const struct fslab_state_partition *p = &st->partitions[i];

		if (!lab_target_wanted(p->name, only, n_only))
			continue;
		if (p->mount_method == FSLAB_MOUNT_NONE || !p->mountpoint[0]) {
			free(out);
			return fslab_err_set(e, -ENOENT, "%s (%s) is not mounted by the lab; run 'fslab status' "
					     "to see why", p->name, p->device);
		}
		int r = fresh_fuse ? fslab_lab_fuse_refresh(lab, p->name, e) : 0;

		if (r < 0) {
			free(out);
			return r;
		}
		lab_target_fill(lab, st, p, &out[k++]);
	}
	if (k == 0) {
		free(out);
		return fslab_err_set(e, -ENOENT, "the lab in %s has no mounted filesystem to benchmark",
				     fslab_lab_path(lab));
	}
	*targets = out;
	*n = k;
	return 0;
}
