/* The lab's state file: what setup made, so that status, run and teardown
 * act on exactly that and nothing else.  JSON (json-c), written atomically
 * with mode 0600.  Default path /var/lib/fslab/state.json, overridden by
 * $FSLAB_STATE and by --state.
 *
 * provision/ owns the meaning of the fields and keeps them current through
 * every step of setup (so teardown can undo a half-finished setup); bench/
 * reads only the partitions' name, type, device, mountpoint and
 * mount_method. */
#ifndef FSLAB_STATE_H
#define FSLAB_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivetemp.h"
#include "err.h"
#include "fileutil.h"
#include "names.h"
#include "spec.h"

struct json_object;

/* Version 2 records the identity of everything setup created (see struct
 * fslab_state_id and lab_id).  A version 1 state is still loaded, read-only:
 * status and run use it, teardown refuses to undo what it cannot prove and
 * says how to clean up by hand. */
#define FSLAB_STATE_VERSION 2
#define FSLAB_STATE_VERSION_MIN 1
#define FSLAB_STATE_DEFAULT_PATH "/var/lib/fslab/state.json"

enum fslab_mount_method {
	FSLAB_MOUNT_NONE,   /* not mounted by setup (yet) */
	FSLAB_MOUNT_KERNEL, /* mount(2) through libmount */
	FSLAB_MOUNT_FUSE,   /* fusefat daemon */
	FSLAB_MOUNT_METHOD_MAX,
	FSLAB_MOUNT_METHOD_INVALID = -1,
};

const char *fslab_mount_method_to_string(enum fslab_mount_method m);

/* Setup's progress markers, in order, then teardown's.  The state file
 * keeps the name (fslab_phase_to_string); loading a state turns it into
 * the enum once and refuses a name fslab does not write. */
enum fslab_phase {
	FSLAB_PHASE_NONE,         /* "" : nothing recorded yet */
	FSLAB_PHASE_CLAIMED,      /* state written; nothing else changed */
	FSLAB_PHASE_ATTACHED,     /* image attached to a loop device */
	FSLAB_PHASE_PARTITIONING, /* about to write the GPT named by disk_guid */
	FSLAB_PHASE_PARTITIONED,  /* GPT written, kernel partitions made */
	FSLAB_PHASE_FORMATTED,    /* every partition formatted */
	FSLAB_PHASE_READY,        /* mounted: the lab is usable */
	FSLAB_PHASE_WIPING,       /* teardown is wiping the disk */
	FSLAB_PHASE_WIPED,        /* teardown wiped the disk */
	FSLAB_PHASE_MAX,
	FSLAB_PHASE_INVALID = -1,
};

const char *fslab_phase_to_string(enum fslab_phase p);

/* The identity of something setup created, recorded when it made it:
 * (st_dev, st_ino) of a file or directory.  known is false until then
 * (and in version 1 states). */
struct fslab_state_id {
	bool known;
	uint64_t dev;
	uint64_t ino;
};

struct fslab_state_partition {
	char name[FSLAB_FS_NAME_MAX];
	enum fslab_fs_type type;
	unsigned number;          /* 1-based partition number */
	char device[64];          /* /dev/loop0p1, /dev/sdb1 */
	char partuuid[40];
	uint64_t start_sector;    /* 512-byte sectors */
	uint64_t size_sectors;
	char mkfs_options[FSLAB_OPTIONS_MAX];
	/* The mkfs command setup ran, word for word (fslab's own words, such
	 * as ext4's lazy-init ones, with the spec's); "" before it ran. */
	char mkfs_command[FSLAB_MKFS_COMMAND_MAX];
	/* What that mkfs said its version was ("mke2fs 1.47.0 (5-Feb-2023)");
	 * "" before it ran, or for a lab made before fslab recorded it. */
	char mkfs_version[FSLAB_MKFS_VERSION_MAX];
	char mount_options[FSLAB_OPTIONS_MAX];
	char mountpoint[PATH_MAX];
	bool mountpoint_created;  /* setup made the directory: teardown removes it */
	struct fslab_state_id mountpoint_id; /* the directory setup made */
	bool formatted;           /* mkfs finished and blkid agreed */
	bool discarded;           /* setup discarded it (BLKDISCARD) before mkfs */
	enum fslab_mount_method mount_method; /* NONE until mounted */
	/* A FUSE mount's daemon (the process holding the device open) and
	 * its connection, /sys/fs/fuse/connections/<fuse_conn> (the mount's
	 * minor device number): how a stopped or dead daemon is named and
	 * its connection aborted.  0: not FUSE, or not known. */
	int64_t fuse_pid;
	unsigned fuse_conn;
	/* After mount, setup waited for the filesystem's own background
	 * work (provision/quiet.c): "quiet", "timeout" or "" (not waited);
	 * what it waited for, in words, and for how long. */
	char quiet[16];
	char quiet_note[160];
	double quiet_wait_s;
};

/* setup's purge and preconditioning of the whole disk, before it was
 * partitioned (provision/precond.c).  status "" means setup was not
 * asked to (a state of an older fslab, or --precondition off and no
 * --purge): written as null. */
struct fslab_state_precondition {
	/* "done" (every byte written), "interrupted" (by a signal: the disk
	 * was left unpartitioned), "failed", "skipped" (why: note), "off". */
	char status[16];
	char note[160];
	enum fslab_purge purge;   /* the method asked */
	/* "done", "not supported", "not asked" (purge none); "" before */
	char purge_result[32];
	uint64_t target_bytes;    /* 2 x the disk's capacity */
	uint64_t bytes;           /* written (and flushed) */
	uint64_t block_bytes;     /* each write: 128 KiB, O_DIRECT, sequential */
	double seconds;           /* of the writes */
	double mib_s;             /* bytes / seconds, MiB/s */
	struct fslab_drive_conditions before, after; /* around the writes */
};

struct fslab_state {
	int version;              /* of the file as loaded: < FSLAB_STATE_VERSION is read-only */
	enum fslab_phase phase;   /* provision's progress marker; the file keeps its name */
	/* Random UUID made by setup before it creates anything: the creation
	 * marker.  Setup stores it in the "trusted.fslab.lab" extended
	 * attribute of the image and of every directory it creates (only
	 * root can set trusted.* attributes), and in the environment of the
	 * mkfs it runs (FSLAB_LAB_ID); teardown undoes only what carries it. */
	char lab_id[40];
	uint64_t disk_rdev;       /* st_rdev of disk when setup claimed it; 0 unknown */
	struct fslab_state_id image_id; /* the image file (reused or created) */
	char disk[64];            /* whole disk: /dev/sdb or /dev/loop0 */
	char disk_guid[40];       /* GPT disk GUID written by setup */
	/* The disk's own identity beside its GUID, which a clone of its
	 * contents carries too: the serial number and world wide id it
	 * reports ("" when none), and for a loop device given as the disk,
	 * its backing file's inode. */
	char disk_serial[128];
	char disk_wwid[160];
	struct fslab_state_id disk_backing_id;
	char image[PATH_MAX];     /* backing file when --image, else "" */
	bool image_created;       /* setup created the image: teardown deletes it */
	/* The image's loop device as setup attached it: "direct" (direct I/O)
	 * or "buffered" (through the host's page cache); "" for a disk. */
	char loop_io[16];
	char mount_root[PATH_MAX];
	bool mount_root_created;
	struct fslab_state_id mount_root_id;
	/* A running mkfs (its own process group, leader mkfs_pid); 0 none.
	 * Teardown kills what is left of that group (processes carrying
	 * FSLAB_LAB_ID=lab_id) before it touches the disk. */
	int64_t mkfs_pid;
	char spec_source[PATH_MAX]; /* spec file path, or "built-in" */
	char created_at[32];      /* UTC, ISO 8601 */
	struct fslab_state_precondition precondition;
	size_t n_partitions;
	struct fslab_state_partition partitions[FSLAB_MAX_FS];
};

/* $FSLAB_STATE, else FSLAB_STATE_DEFAULT_PATH. */
const char *fslab_state_default_path(void);

/* Returns 0; -ENOENT when there is no state file (no lab); -EINVAL with a
 * message in e when it is not a state file fslab wrote (a version, phase,
 * type or mount method fslab does not write included). */
int fslab_state_load(const char *path, struct fslab_state *st, struct fslab_err *e);

/* fslab_state_load reading the state file name in the directory dfd
 * without following a symlink (label names it in messages). */
int fslab_state_load_at(int dfd, const char *name, const char *label, struct fslab_state *st,
			struct fslab_err *e);
/* Writes the state as name in dfd (a single component, replaced
 * atomically, never written through a symlink), mode 0600.  flags 0, or
 * FSLAB_STATE_SAVE_NOSYNC: without the fsyncs, for the many intermediate
 * saves of setup and teardown (those before the first write to a disk and
 * at the end are durable). */
#define FSLAB_STATE_SAVE_NOSYNC FSLAB_WRITE_NOSYNC
int fslab_state_save_at(int dfd, const char *name, const struct fslab_state *st, unsigned flags);

/* The precondition record as JSON (null when status is ""), and back:
 * the one encoding of the state file, fslab status --json and the
 * manifest.  from_json: 0, or -EINVAL with a message in err. */
struct json_object *fslab_state_precondition_to_json(const struct fslab_state_precondition *pc);
int fslab_state_precondition_from_json(struct json_object *o, struct fslab_state_precondition *pc,
				       char *err, size_t errlen);

/* Lookup by name; NULL when absent. */
const struct fslab_state_partition *fslab_state_find(const struct fslab_state *st,
						     const char *name);

#endif
