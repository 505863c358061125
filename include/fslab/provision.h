/* Provisioning: turn a dedicated disk (or a loop-backed image) into the lab
 * and back.  fslab setup / teardown / status are thin wrappers around these;
 * fslab reproduce calls them in-process.
 *
 * Progress lines and warnings go through lib/progress.h's notes; errors
 * are not printed here.  Every function
 * returns an FSLAB_EXIT_* status: 0 done, 1 failed or refused, 2 bad usage
 * or bad input (nothing changed). */
#ifndef FSLAB_PROVISION_H
#define FSLAB_PROVISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "names.h"
#include "spec.h"
#include "state.h"
#include "target.h"

struct fslab_lab; /* the lab: below */

#define FSLAB_MOUNT_ROOT_DEFAULT "/mnt/fslab"

/* setup --precondition: whether setup writes the disk over twice before
 * partitioning it (provision/precond.c; docs/ssd.md says why not by default). */
enum fslab_precondition_when {
	FSLAB_PRECONDITION_OFF,  /* the default (0): each partition's discard and run's steady state */
	FSLAB_PRECONDITION_AUTO, /* a non-rotational disk yes; an image, a loop device or a hard disk no */
	FSLAB_PRECONDITION_ON,   /* also an image's loop device (tests) and a rotational disk */
	FSLAB_PRECONDITION_MAX,
	FSLAB_PRECONDITION_INVALID = -1,
};

/* "auto", "on", "off"; INVALID for another word. */
enum fslab_precondition_when fslab_precondition_when_from_string(const char *s);

struct fslab_setup_opts {
	const char *device;      /* whole disk, e.g. /dev/sdb; or NULL */
	const char *image;       /* image file (created or reused); or NULL */
	uint64_t image_size;     /* bytes for a new image; 0 = what the spec needs */
	const struct fslab_spec *spec; /* NULL = the built-in default */
	const char *spec_source; /* spec file path for the state, NULL = "built-in" */
	const char *mount_root;  /* NULL = FSLAB_MOUNT_ROOT_DEFAULT */
	const char *state_path;  /* NULL = fslab_state_default_path() */
	bool wipe;               /* allow destroying an existing table/signature */
	bool yes;                /* do not ask for confirmation */
	bool dry_run;            /* print the plan, change nothing */
	bool no_discard;         /* do not BLKDISCARD partitions before mkfs */
	enum fslab_precondition_when precondition;
	/* --purge: how the whole disk is emptied first; not given: trim when
	 * preconditioning, else none. */
	bool purge_given;
	enum fslab_purge purge;
	/* A lab the caller already holds, opened FSLAB_LAB_EXCLUSIVE |
	 * FSLAB_LAB_NEW on state_path (fslab reproduce keeps it from setup to
	 * teardown); NULL: setup opens and releases its own. */
	struct fslab_lab *lab;
};

/* Checks, partitions, formats and mounts; writes the state file before the
 * first write to the disk and after every step, so fslab_teardown can undo
 * any half-finished setup.  SIGINT/SIGTERM stop it at the next safe point. */
int fslab_setup(const struct fslab_setup_opts *o, struct fslab_err *e);

struct fslab_teardown_opts {
	const char *state_path;  /* NULL = fslab_state_default_path() */
	bool keep_image;         /* keep (blank) an image setup created */
	bool discard;            /* BLKDISCARD the whole disk after the wipe */
	/* A lab the caller holds exclusive (state_path is then ignored); NULL:
	 * teardown opens its own. */
	struct fslab_lab *lab;
};

/* Unmounts, wipes the filesystems and the partition table, removes the
 * kernel partitions, detaches the loop device, deletes the image setup
 * created, removes the mount points setup created and the state file.
 * Refuses a disk whose GPT disk GUID differs from the state's. */
int fslab_teardown(const struct fslab_teardown_opts *o, struct fslab_err *e);

struct fslab_status_opts {
	const char *state_path;  /* NULL = fslab_state_default_path() */
	bool json;               /* machine-readable output */
};

/* Prints the lab as it is now; FSLAB_EXIT_FAILURE (naming each problem)
 * when a partition is missing, unmounted or of the wrong type. */
int fslab_status(const struct fslab_status_opts *o, struct fslab_err *e);

/* The lab: one state file, what it names, and the locks that keep fslab
 * commands from acting on it at the same time.  Every command that reads
 * or changes a lab opens it here; provision/ and the commands reach the
 * state only through an open lab.
 *
 * Identity, not names.  The state path is resolved once (symbolic links
 * followed) to the real state file, which must be root's (the caller's),
 * with one link, writable by no one else, in a directory chain no other
 * user can change (fslab_lab_check_path).  NAME.lock beside it is taken
 * first, opened relative to the directory's fd without following links;
 * once the state is loaded, the locks of the lab itself, keyed on its
 * lab_id in the root-only directory /run/fslab (so that a copy of the
 * state or a bind mount of it under another name takes the same ones):
 *   LABID.lock  the lab lock: shared for run and status, exclusive for
 *               setup (from its first save), teardown and reproduce;
 *   LABID.run   the run lease: exclusive for a run, so a second run on the
 *               same lab is refused (naming the running one's pid) unless
 *               both ask to share it (--allow-concurrent);
 *   LABID.mount held exclusive while a mount of the lab changes under a
 *               run (cold-cache remount), shared while status reads them.
 * (A version 1 state, without a lab_id, keeps NAME.run and NAME.mount
 * beside the state.)  After locking, the state file is checked to still be
 * the file the given path names (same st_dev, st_ino).  The locks are
 * flock(2)s: a killed holder releases them, and nothing ever waits for
 * one (a busy lab is refused with the holder named).
 *
 * The setup log NAME.log is opened in that directory the same way:
 * no-follow, a regular file with one link, appended to. */
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

/* Opens the lab of state_path (NULL: fslab_state_default_path()) in mode,
 * command naming us to others ("fslab teardown").  Without FSLAB_LAB_NEW
 * the state is loaded and checked (a version 1 state loads read-only, see
 * fslab_lab_can_undo).  Returns 0 with *labp set, or a negative errno with
 * the reason in e:
 *   -ENOENT       no state file (nothing was created);
 *   -EEXIST       FSLAB_LAB_NEW and a state file is there;
 *   -EWOULDBLOCK  another command holds the lab (or the run lease): err
 *                 names it ("fslab run, pid 1234");
 *   -EINVAL       not a state file fslab wrote, or an unusable lock file;
 *   -ESTALE       the state file changed while we locked it: retry. */
int fslab_lab_open(const char *state_path, enum fslab_lab_mode mode, unsigned flags,
		   const char *command, struct fslab_lab **labp, struct fslab_err *e);

/* Proves the lab is what setup made before it is used: the disk is the
 * lab's (an image: its creation marker, and the recorded loop device
 * backed by it; a disk: its GPT disk GUID), each partition's device is a
 * partition of that disk and, with mounted, is what is mounted at its
 * mount point.  fslab_lab_open does this itself for a run on a ready lab.
 * 0, or a negative errno with the refusal in e. */
int fslab_lab_prove(const struct fslab_lab *lab, bool mounted, struct fslab_err *e);

/* Refuses (-EPERM, reason in e) a state path another user could
 * redirect or replace: the state's directory must be ours (root's) and
 * writable by no one else, every directory above it ours or root's and
 * writable by others only with the sticky bit, and no component of the
 * path as given a symbolic link another user owns.  For a new lab, path's
 * directory may not exist yet: the check starts at its nearest existing
 * ancestor.  fslab_lab_open checks this itself; setup calls it before it
 * resolves the path. */
int fslab_lab_check_path(const char *path, struct fslab_err *e);

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
int fslab_lab_save(struct fslab_lab *lab, unsigned flags, struct fslab_err *e);
/* Reads the state file again (after another function saved it through
 * its own copy).  0 or a negative errno with the reason in e. */
int fslab_lab_reload(struct fslab_lab *lab, struct fslab_err *e);
/* Removes the state file, then the setup log and the lab's lock files,
 * LABID.* and NAME.* beside the state (exclusive mode only; the lab id
 * dies with the lab). */
int fslab_lab_remove_state(struct fslab_lab *lab);

/* True when the state records the identities teardown needs to prove
 * what it undoes (version >= 2); false for an old state, which teardown
 * refuses to undo with instructions for doing it by hand. */
bool fslab_lab_can_undo(const struct fslab_lab *lab);

/* The setup log NAME.log (appended, created 0600, no-follow), owned by the
 * lab: do not close.  Returns the fd or a negative errno. */
int fslab_lab_log_fd(struct fslab_lab *lab);

/* The cold-cache remount, as a callback for bench: unmounts and mounts
 * again the lab partition called name, exactly as setup mounted it, under
 * the exclusive NAME.mount lock.  ctx is the struct fslab_lab; it must be
 * open FSLAB_LAB_RUN or FSLAB_LAB_EXCLUSIVE (a run that shares the lab with
 * another may not pull a filesystem from under it).  Returns 0 or a
 * negative errno with the reason in why (lib/target.h's callback shape;
 * an earlier error of the mount itself goes out as an error note). */
int fslab_lab_remount(void *ctx, const char *name, char *why, size_t whylen);

/* A fresh fusefat for the lab partition called name before a run, so its
 * allocator starts from the volume's first cluster (fslab_lab_mount
 * rewinds FAT32's next-free hint; fusefat keeps the hint in memory while
 * it runs and cannot read a directory it places 2 GiB or more into the
 * partition): a remount as fslab_lab_remount's.  Nothing for a partition
 * not mounted through FUSE, nor when the lab is shared (open
 * FSLAB_LAB_RUN_CONCURRENT: said in a debug line).  Returns 0 or a
 * negative errno with the reason in e. */
int fslab_lab_fuse_refresh(struct fslab_lab *lab, const char *name, struct fslab_err *e);

/* The lab's mounted partitions as fslab run's targets (lib/target.h):
 * each one's mount point, block device, type, options and what setup did
 * (mkfs command, discard, quiet wait, the disk's preconditioning), with
 * fslab_lab_remount as its cold-cache remount; with fresh_fuse (a run
 * about to start; not a dry run, which changes nothing) a FUSE partition
 * is first remounted (fslab_lab_fuse_refresh).  From the state the open
 * lab loaded (by identity, under its lock), not from the path again.
 * only (n_only names; 0: every partition) picks partitions by name.
 * Returns 0 with *targets (malloc'd) and *n set, or a negative errno with
 * the reason in e: -ENOENT (a partition asked for is not mounted, or
 * none is), -ENOMEM, or the FUSE remount's. */
int fslab_lab_targets(struct fslab_lab *lab, const char *const *only, size_t n_only, bool fresh_fuse,
		      struct fslab_target **targets, size_t *n, struct fslab_err *e);

/* Holds NAME.mount shared while reading the lab's mounts (status): waits
 * (bounded, 30 s) for a remount in progress.  Returns an fd for
 * fslab_lab_mounts_release, or a negative errno. */
int fslab_lab_mounts_hold(struct fslab_lab *lab);
void fslab_lab_mounts_release(int fd);

#endif
