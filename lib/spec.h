/* The lab spec: one INI file describing the disk layout ([disk], one
 * [fs NAME] per partition, in order) and the sweep ([sweep]).  It is parsed
 * here and only here; setup reads the layout, run reads the sweep.
 *
 *   [disk]            label = gpt, alignment = 1M
 *   [fs NAME]         type = ext4|ext2|xfs|fat32|btrfs (default: NAME when
 *                     NAME is a type), size = 20G, mkfs_options = ...,
 *                     mount_options = ... (only the options spec_options.h
 *                     allows for the type)
 *   [sweep]           the keys of lib/settings.c's rows that have one
 *                     (file_sizes = 64K-2G, cache = cold, ...), parsed and
 *                     checked by that table
 *
 * The built-in default reproduces the 2023 experiment: ext4, ext2, xfs,
 * fat32, btrfs, 20 GiB each, and an empty [sweep] (the run's preset
 * decides). */
#ifndef FSLAB_SPEC_H
#define FSLAB_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "names.h"
#include "settings.h"     /* the [sweep] keys are rows of fslab run's settings */
#include "spec_options.h" /* mkfs_options and mount_options: an allowlist per type */

#define FSLAB_MAX_FS 16
#define FSLAB_FS_NAME_MAX 32 /* including the NUL; [A-Za-z0-9_-]+ */
#define FSLAB_OPTIONS_MAX 256
/* A mkfs command line as setup ran it and records it (state, manifest). */
#define FSLAB_MKFS_COMMAND_MAX 1024
#define FSLAB_MKFS_VERSION_MAX 128

struct fslab_disk_spec {
	char label[8];      /* "gpt": the only label fslab writes */
	uint64_t alignment; /* bytes; power of two, 4K..1G; default 1M */
};

struct fslab_fs_spec {
	char name[FSLAB_FS_NAME_MAX]; /* partition name, mount dir, CSV name */
	enum fslab_fs_type type;
	uint64_t size; /* bytes */
	char mkfs_options[FSLAB_OPTIONS_MAX];  /* extra mkfs words, split on blanks */
	char mount_options[FSLAB_OPTIONS_MAX]; /* libmount options string */
};

struct fslab_spec {
	struct fslab_disk_spec disk;
	size_t n_fs;
	struct fslab_fs_spec fs[FSLAB_MAX_FS];
	struct fslab_sweep_spec sweep;
	/* The [sweep] section as the settings layer it is (lib/settings.h):
	 * the keys given, with their set bits; sweep above is this layer
	 * merged over the seed preset's values.  fslab run merges it over its
	 * own preset. */
	struct fslab_settings sweep_given;
};

/* The [sweep] values of the `seed` preset (the 2023 experiment: files
 * 64K-2G, records 4K-16M, all tests, 1 trial, warm, seed 1, small records
 * skipped, shuffled order), nothing marked set.  The presets start here. */
void fslab_sweep_defaults(struct fslab_sweep_spec *s);

/* SplitMix64: the next of the sequence whose state is *s. */
uint64_t fslab_splitmix64(uint64_t *s);
/* The order in which a run visits its n filesystems (indices 0..n-1 of the
 * run's list, into order[]) in one trial (1-based): a function of (seed,
 * trial) only, so a resumed run visits them in the same order and a report
 * can tell each row's position from the manifest (its seed, its "order"
 * and its filesystems, in the run's order).  shuffle false: 0..n-1. */
void fslab_sweep_trial_order(uint64_t seed, bool shuffle, unsigned trial, size_t n, size_t *order);

/* The built-in default (the 2023 layout). */
void fslab_spec_default(struct fslab_spec *spec);

/* Parses INI text.  Returns 0, or -EINVAL with a message in e such as
 * "line 12: unknown key 'foo' in [sweep] (known: ...)".  name is used in
 * messages ("spec.ini:12: ..."); may be NULL. */
int fslab_spec_parse_string(const char *text, const char *name, struct fslab_spec *spec,
			    struct fslab_err *e);

/* The same for a sweep file (fslab run --sweep FILE): the [sweep] section is
 * what counts, and [disk] and [fs NAME] sections may be absent (a whole spec
 * is a sweep file too). */
int fslab_sweep_parse_string(const char *text, const char *name, struct fslab_spec *spec,
			     struct fslab_err *e);

/* Reads and parses a file.  Errors: -ENOENT etc. from reading, -EINVAL from
 * parsing; e holds the message with the file name. */
int fslab_spec_load(const char *path, struct fslab_spec *spec, struct fslab_err *e);

/* Writes the spec as an INI file that fslab_spec_parse_string reads back to
 * the same spec.  Unset [sweep] keys are written as comments showing the
 * `seed` preset's values. */
int fslab_spec_write(FILE *out, const struct fslab_spec *spec);

/* True when name is a valid [fs NAME]: 1..31 of [A-Za-z0-9_-], not "." / "..". */
bool fslab_fs_name_valid(const char *name);

#endif
