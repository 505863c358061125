/* Provisioning: turn a dedicated disk (or a loop-backed image) into the lab
 * and back.  fslab setup / teardown / status are thin wrappers around these;
 * fslab reproduce calls them in-process.
 *
 * Progress lines and warnings go through lib/progress.h's notes (the sink
 * the command installs); errors are not printed here.  Every function
 * returns an FSLAB_EXIT_* status: 0 done, 1 failed or refused, 2 bad usage
 * or bad input (nothing changed). */
#ifndef FSLAB_PROVISION_H
#define FSLAB_PROVISION_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "names.h"
#include "spec.h"

struct fslab_lab; /* lab.h */

#define FSLAB_MOUNT_ROOT_DEFAULT "/mnt/fslab"

/* setup --precondition: whether setup writes the disk over twice before
 * partitioning it (provision/precond.c). */
enum fslab_precondition_when {
	FSLAB_PRECONDITION_AUTO, /* the default: a non-rotational disk yes; an image, a loop
				    device or a rotational disk no */
	FSLAB_PRECONDITION_ON,   /* also an image's loop device (tests) and a rotational disk */
	FSLAB_PRECONDITION_OFF,
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
	bool yes;                /* reserved: teardown only undoes what setup did */
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

#endif
