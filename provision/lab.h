/* The lab: one state file, what it names, and the locks that keep fslab
 * commands from acting on it at the same time.  Every command that reads
 * or changes a lab opens it here; provision/ and the commands reach the
 * state only through an open lab.
 *
 * Identity, not names.  The state path is resolved once (symbolic links
 * followed) to the real state file; its locks are files beside that real
 * file, opened relative to the directory's fd without following links:
 *   NAME.lock   the lab lock: shared for run and status, exclusive for
 *               setup, teardown and reproduce;
 *   NAME.run    the run lease: exclusive for a run, so a second run on the
 *               same lab is refused (naming the running one's pid) unless
 *               both ask to share it (--allow-concurrent);
 *   NAME.mount  held exclusive while a mount of the lab changes under a
 *               run (cold-cache remount), shared while status reads them.
 * After locking, the state file is checked to still be the file the given
 * path names (same st_dev, st_ino), so a path that is a symbolic link to
 * the state and the state's own path take the same locks.  The locks are
 * flock(2)s: a killed holder releases them, and nothing ever waits for
 * one (a busy lab is refused with the holder named).
 *
 * The setup log NAME.log is opened in that directory the same way:
 * no-follow, a regular file with one link, appended to. */
#ifndef FSLAB_LAB_H
#define FSLAB_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include "state.h"

enum fslab_lab_mode {
	FSLAB_LAB_SHARED,         /* status: shared lab lock */
	FSLAB_LAB_RUN,            /* run: shared lab lock + the run lease alone */
	FSLAB_LAB_RUN_CONCURRENT, /* run --allow-concurrent: shared lock, shared lease */
	FSLAB_LAB_EXCLUSIVE,      /* setup, teardown, reproduce: alone */
};

/* fslab_lab_open flags. */
enum {
	/* Setup: the state file must not exist yet (-EEXIST if it does); its
	 * directory is created (0755) when missing. */
	FSLAB_LAB_NEW = 1 << 0,
};

struct fslab_lab;

/* Opens the lab of state_path (NULL: fslab_state_default_path()) in mode,
 * command naming us to others ("fslab teardown").  Without FSLAB_LAB_NEW
 * the state is loaded and checked (a version 1 state loads read-only, see
 * fslab_lab_can_undo).  Returns 0 with *labp set, or a negative errno with
 * the reason in err:
 *   -ENOENT       no state file (nothing was created);
 *   -EEXIST       FSLAB_LAB_NEW and a state file is there;
 *   -EWOULDBLOCK  another command holds the lab (or the run lease): err
 *                 names it ("fslab run, pid 1234");
 *   -EINVAL       not a state file fslab wrote, or an unusable lock file;
 *   -ESTALE       the state file changed while we locked it: retry. */
int fslab_lab_open(const char *state_path, enum fslab_lab_mode mode, unsigned flags,
		   const char *command, struct fslab_lab **labp, char *err, size_t errlen);

/* Releases every lock and frees lab (NULL is ignored). */
void fslab_lab_close(struct fslab_lab *lab);

/* The state as loaded (or as setup is building it). */
struct fslab_state *fslab_lab_state(struct fslab_lab *lab);
/* The real path of the state file (symbolic links resolved). */
const char *fslab_lab_path(const struct fslab_lab *lab);
/* True when a state file exists (always, unless opened FSLAB_LAB_NEW and
 * not saved yet). */
bool fslab_lab_has_state(const struct fslab_lab *lab);

/* Writes the state (exclusive mode only): atomic, durable unless flags has
 * FSLAB_STATE_SAVE_NOSYNC.  0 or a negative errno. */
int fslab_lab_save(struct fslab_lab *lab, unsigned flags);
/* Reads the state file again (after another function saved it through
 * its own copy).  0 or a negative errno with the reason in err. */
int fslab_lab_reload(struct fslab_lab *lab, char *err, size_t errlen);
/* Removes the state file and the setup log (exclusive mode only); the lock
 * files stay (removing them would race with a process opening them). */
int fslab_lab_remove_state(struct fslab_lab *lab);

/* True when the state records the identities teardown needs to prove
 * what it undoes (version >= 2); false for an old state, which teardown
 * refuses to undo with instructions for doing it by hand. */
bool fslab_lab_can_undo(const struct fslab_lab *lab);

/* The setup log NAME.log (appended, created 0600, no-follow), owned by the
 * lab: do not close.  Returns the fd or a negative errno. */
int fslab_lab_log_fd(struct fslab_lab *lab);
/* Its path, for messages. */
const char *fslab_lab_log_path(const struct fslab_lab *lab);

/* The cold-cache remount, as a callback for bench: unmounts and mounts
 * again the lab partition called name, exactly as setup mounted it, under
 * the exclusive NAME.mount lock.  ctx is the struct fslab_lab; it must be
 * open FSLAB_LAB_RUN or FSLAB_LAB_EXCLUSIVE (a run that shares the lab with
 * another may not pull a filesystem from under it).  Returns 0 or a
 * negative errno with the reason in why. */
int fslab_lab_remount(void *ctx, const char *name, char *why, size_t whylen);

/* Holds NAME.mount shared while reading the lab's mounts (status): waits
 * (bounded, 30 s) for a remount in progress.  Returns an fd for
 * fslab_lab_mounts_release, or a negative errno. */
int fslab_lab_mounts_hold(struct fslab_lab *lab);
void fslab_lab_mounts_release(int fd);

#endif
