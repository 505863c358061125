/* fslab reproduce: reading and annotating a stage's manifest.json, through
 * lib/manifest (the same checked reader as run --resume and the report). */
#include "fileutil.h"
#include "log.h"
#include "manifest.h"
#include "fslab/reproduce.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* The manifest of the results directory dir, or NULL (a warning says why;
 * *dfd then -1; none is no news). */
static struct fslab_manifest *repro_manifest_load(const char *dir, int *dfd)
{
	struct fslab_manifest *m = NULL;
	struct fslab_err err = FSLAB_ERR_INIT;
	int fd, r;

	/* a stage that stopped before its manifest has none: nothing to say */
	*dfd = fslab_dir_open(dir);
	if (*dfd < 0) {
		if (*dfd != -ENOENT)
			fslab_warn("%s: %s", dir, strerror(-*dfd));
		return NULL;
	}
	fd = fslab_manifest_open_at(*dfd);
	if (fd < 0) {
		if (fd != -ENOENT)
			fslab_warn("%s/%s: %s", dir, FSLAB_MANIFEST_NAME, strerror(-fd));
		goto fail;
	}
	r = fslab_manifest_read_fd(fd, FSLAB_MANIFEST_NAME, &m, &err);
	close(fd);
	if (r == 0)
		return m;
	fslab_warn("%s/%s", dir, err.msg);
fail:
	close(*dfd);
	*dfd = -1;
	return NULL;
}

void repro_read_manifest(const char *dir, bool *interrupted, double *device_kib_s)
{
	int dfd;
	struct fslab_manifest *m = repro_manifest_load(dir, &dfd);

	*interrupted = false;
	*device_kib_s = 0;
	if (!m)
		return;
	*interrupted = m->interrupted;
	for (size_t i = 0; i < m->n_fs; i++) {
		double w = m->fs[i].device_write_kib_s, r = m->fs[i].device_read_kib_s;
		double slow = (w > 0 && r > 0) ? fmin(w, r) : fmax(w, r);

		if (slow > 0 && (*device_kib_s == 0 || slow < *device_kib_s))
			*device_kib_s = slow;
	}
	fslab_manifest_free(m);
	close(dfd);
}

void repro_add_note(const char *dir, const char *note)
{
	int dfd, r;
	struct fslab_manifest *m = repro_manifest_load(dir, &dfd);

	if (!m)
		return;
	r = fslab_manifest_add_note(m, note);
	if (r == 0)
		r = fslab_manifest_write_at(dfd, m);
	if (r < 0)
		fslab_warn("cannot add a note to %s/%s: %s", dir, FSLAB_MANIFEST_NAME, strerror(-r));
	fslab_manifest_free(m);
	close(dfd);
}
