/* mkfs and mount options a spec may use: one allowlist per filesystem
 * type, as data.  See spec_options.h for why; docs/fslab.1 (SPEC OPTIONS)
 * documents the same tables for users, and test_spec checks that every
 * option allowed here is named there. */
#include "spec_options.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum opt_value {
	V_NONE,     /* a flag: no value */
	V_NUM,      /* a whole number */
	V_DEC,      /* a number with an optional fraction: 0.5 */
	V_SIZE,     /* a whole number with an optional K, M, G or T */
	V_WORD,     /* one of the words in arg */
	V_LABEL,    /* a new filesystem's label: 1..max safe characters */
	V_COMPRESS, /* btrfs: ALGORITHM[:LEVEL] */
	V_SUB,      /* a comma list checked against the table in arg */
	V_FEATURES, /* a comma list of flags from the table in arg, each may be ^negated */
	V_REFUSED,  /* never allowed; why says why */
};

struct opt_table;

struct opt_rule {
	const char *name;  /* "-b", "--nodesize", "noatime", "stride" */
	const char *alias; /* another spelling ("--nodesize" beside "-n") or NULL */
	enum opt_value value;
	const void *arg;  /* V_WORD, V_COMPRESS: const char *const[]; V_SUB, V_FEATURES: struct opt_table */
	unsigned max;     /* V_LABEL: longest label */
	const char *meta; /* what the value is called in the allowed list; for
			   * V_REFUSED: non-NULL when the option takes a value */
	const char *why;  /* V_REFUSED: the reason; otherwise: the value may be left out */
};

struct opt_table {
	const struct opt_rule *rules;
	size_t n;
};

#define TABLE(rules) { rules, sizeof(rules) / sizeof(rules[0]) }
static const char VALUE_OPTIONAL[] = "the value may be left out";

/* Reasons, so a refusal says what the option would have done. */
static const char WHY_DEVICE[] = "it names another device";
static const char WHY_FILE[] = "it names a file";
static const char WHY_UUID[] = "it sets or names a UUID; fslab identifies its partitions by theirs";
static const char WHY_SOURCE[] = "it changes how the source device is found";
static const char WHY_WHAT[] = "it changes what is mounted";
static const char WHY_FORCE[] = "it forces mkfs past its checks; fslab clears the partition itself";
static const char WHY_TYPE[] = "fslab chooses the filesystem type from the spec's type";
static const char WHY_NOTFS[] = "mkfs would not make the filesystem fslab then mounts";
static const char WHY_RO[] = "the benchmark writes: a read-only lab cannot be measured";
static const char WHY_FUSE[] = "fslab sets the FUSE mount's own options itself";
static const char WHY_USERS[] = "it lets other users mount, unmount or reach the lab";
static const char WHY_REMOUNT[] = "it changes an existing mount";
static const char WHY_HELPER[] = "it runs a mount helper program";
static const char WHY_EXT3[] = "a journal makes ext3, not ext2; use type = ext4";
static const char WHY_OFFSET[] = "it moves the filesystem away from the start of its partition";

static const char *const w_bool[] = { "0", "1", NULL };
/* Not "panic": a benchmark must never be able to take the host down. */
static const char *const w_errors[] = { "continue", "remount-ro", NULL };

/* ---- mke2fs (ext4, ext2) ---- */

static const char *const e2fs_usage_types[] = { "default", "floppy", "small", "big", "huge",
						"news", "largefile", "largefile4", NULL };
static const char *const e2fs_backup_sb[] = { "0", "1", "2", NULL };

static const struct opt_rule e2fs_features_rules[] = {
	{ .name = "64bit" }, { .name = "bigalloc" }, { .name = "dir_index" }, { .name = "dir_nlink" }, { .name = "ea_inode" },
	{ .name = "encrypt" }, { .name = "ext_attr" }, { .name = "extent" }, { .name = "extents" }, { .name = "extra_isize" },
	{ .name = "fast_commit" }, { .name = "filetype" }, { .name = "flex_bg" }, { .name = "has_journal" }, { .name = "huge_file" },
	{ .name = "inline_data" }, { .name = "large_dir" }, { .name = "large_file" }, { .name = "meta_bg" }, { .name = "metadata_csum" },
	{ .name = "metadata_csum_seed" }, { .name = "mmp" }, { .name = "orphan_file" }, { .name = "project" }, { .name = "quota" },
	{ .name = "resize_inode" }, { .name = "sparse_super" }, { .name = "sparse_super2" }, { .name = "stable_inodes" },
	{ .name = "uninit_bg" }, { .name = "verity" },
	{ "journal_dev", .value = V_REFUSED, .why = "it makes an external journal device, not a filesystem" },
};
static const struct opt_table e2fs_features = TABLE(e2fs_features_rules);

static const struct opt_rule e2fs_extended_rules[] = {
	{ "stride", .value = V_NUM, .meta = "N" },
	{ "stripe_width", "stripe-width", V_NUM, .meta = "N" },
	{ "resize", .value = V_NUM, .meta = "N" },
	{ "lazy_itable_init", .value = V_WORD, w_bool, .meta = "0|1", .why = VALUE_OPTIONAL },
	{ "lazy_journal_init", .value = V_WORD, w_bool, .meta = "0|1", .why = VALUE_OPTIONAL },
	{ "packed_meta_blocks", .value = V_WORD, w_bool, .meta = "0|1", .why = VALUE_OPTIONAL },
	{ "assume_storage_prezeroed", .value = V_WORD, w_bool, .meta = "0|1", .why = VALUE_OPTIONAL },
	{ "num_backup_sb", .value = V_WORD, e2fs_backup_sb, .meta = "0|1|2" },
	{ "orphan_file_size", .value = V_SIZE, .meta = "SIZE" },
	{ .name = "discard" },
	{ .name = "nodiscard" },
	{ "offset", .value = V_REFUSED, .meta = "N", .why = WHY_OFFSET },
	{ "root_owner", .value = V_REFUSED, .meta = "UID:GID", .why = "fslab's lab directories belong to root" },
	{ "hash_seed", .value = V_REFUSED, .meta = "UUID", .why = WHY_UUID },
};
static const struct opt_table e2fs_extended = TABLE(e2fs_extended_rules);

static const struct opt_rule e2fs_journal_rules[] = {
	{ "size", .value = V_NUM, .meta = "MiB" },
	{ "fast_commit_size", .value = V_NUM, .meta = "KiB" },
	{ "device", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_DEVICE },
	{ "location", .value = V_REFUSED, .meta = "WHERE", .why = "fslab keeps the journal where mke2fs puts it" },
};
static const struct opt_table e2fs_journal = TABLE(e2fs_journal_rules);

#define E2FS_COMMON_RULES                                                                        \
	{ "-b", .value = V_SIZE, .meta = "SIZE" }, { "-C", .value = V_SIZE, .meta = "SIZE" },     \
	{ "-E", .value = V_SUB, &e2fs_extended, .meta = "EXTENDED" },                            \
	{ "-e", .value = V_WORD, w_errors, .meta = "continue|remount-ro" },                 \
	{ "-g", .value = V_NUM, .meta = "N" }, { "-G", .value = V_NUM, .meta = "N" },             \
	{ "-i", .value = V_NUM, .meta = "N" }, { "-I", .value = V_NUM, .meta = "N" },             \
	{ "-L", .value = V_LABEL, .max = 16, .meta = "LABEL" },                                  \
	{ "-m", .value = V_DEC, .meta = "PERCENT" }, { "-N", .value = V_NUM, .meta = "N" },       \
	{ "-O", .value = V_FEATURES, &e2fs_features, .meta = "FEATURES" },                       \
	{ "-T", .value = V_WORD, e2fs_usage_types, .meta = "TYPE" }, { .name = "-q" }, { .name = "-v" },         \
	{ "-c", .value = V_REFUSED, .why = "it runs badblocks over the partition" },             \
	{ "-d", .value = V_REFUSED, .meta = "DIR", .why = WHY_FILE },                            \
	{ "-D", .value = V_REFUSED, .why = "fslab leaves the I/O mode to mke2fs" },               \
	{ "-F", .value = V_REFUSED, .why = WHY_FORCE },                                          \
	{ "-l", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },                           \
	{ "-M", .value = V_REFUSED, .meta = "DIR", .why = WHY_FILE },                            \
	{ "-n", .value = V_REFUSED, .why = WHY_NOTFS },                                          \
	{ "-S", .value = V_REFUSED, .why = WHY_NOTFS },                                          \
	{ "-t", .value = V_REFUSED, .meta = "TYPE", .why = WHY_TYPE },                           \
	{ "-U", .value = V_REFUSED, .meta = "UUID", .why = WHY_UUID },                           \
	{ "-V", .value = V_REFUSED, .why = WHY_NOTFS },                                          \
	{ "-z", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE }

static const struct opt_rule ext4_mkfs_rules[] = {
	E2FS_COMMON_RULES,
	{ .name = "-j" },
	{ "-J", .value = V_SUB, &e2fs_journal, .meta = "size=N" },
};

static const struct opt_rule ext2_mkfs_rules[] = {
	E2FS_COMMON_RULES,
	{ "-j", .value = V_REFUSED, .why = WHY_EXT3 },
	{ "-J", .value = V_REFUSED, .meta = "JOURNAL", .why = WHY_EXT3 },
};

/* ---- mkfs.xfs ---- */

static const struct opt_rule xfs_b_rules[] = { { "size", .value = V_SIZE, .meta = "SIZE" } };
static const struct opt_rule xfs_m_rules[] = {
	{ "crc", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "finobt", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "reflink", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "bigtime", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "inobtcount", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "rmapbt", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "uuid", .value = V_REFUSED, .meta = "UUID", .why = WHY_UUID },
};
static const struct opt_rule xfs_i_rules[] = {
	{ "size", .value = V_SIZE, .meta = "SIZE" },
	{ "maxpct", .value = V_NUM, .meta = "N" },
	{ "align", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "sparse", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "projid32bit", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "nrext64", .value = V_WORD, w_bool, .meta = "0|1" },
};
static const char *const xfs_log_versions[] = { "1", "2", NULL };
static const char *const xfs_internal[] = { "1", NULL };
static const struct opt_rule xfs_l_rules[] = {
	{ "size", .value = V_SIZE, .meta = "SIZE" },
	{ "version", .value = V_WORD, xfs_log_versions, .meta = "1|2" },
	{ "lazy-count", .value = V_WORD, w_bool, .meta = "0|1" },
	{ "sunit", .value = V_NUM, .meta = "N" },
	{ "su", .value = V_SIZE, .meta = "SIZE" },
	{ "internal", .value = V_WORD, xfs_internal, .meta = "1" },
	{ "logdev", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_DEVICE },
	{ "file", .value = V_REFUSED, .meta = "0|1", .why = WHY_FILE },
	{ "name", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },
};
static const struct opt_rule xfs_d_rules[] = {
	{ "agcount", .value = V_NUM, .meta = "N" },
	{ "agsize", .value = V_SIZE, .meta = "SIZE" },
	{ "su", .value = V_SIZE, .meta = "SIZE" },
	{ "sw", .value = V_NUM, .meta = "N" },
	{ "sunit", .value = V_NUM, .meta = "N" },
	{ "swidth", .value = V_NUM, .meta = "N" },
	{ .name = "noalign" },
	{ "file", .value = V_REFUSED, .meta = "0|1", .why = WHY_FILE },
	{ "name", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },
	{ "size", .value = V_REFUSED, .meta = "SIZE", .why = "fslab sizes the filesystem from [fs] size" },
};
static const char *const xfs_n_versions[] = { "2", "ci", NULL };
static const struct opt_rule xfs_n_rules[] = {
	{ "size", .value = V_SIZE, .meta = "SIZE" },
	{ "version", .value = V_WORD, xfs_n_versions, .meta = "2|ci" },
	{ "ftype", .value = V_WORD, w_bool, .meta = "0|1" },
};
static const struct opt_rule xfs_s_rules[] = { { "size", .value = V_SIZE, .meta = "SIZE" } };
static const struct opt_table xfs_b = TABLE(xfs_b_rules), xfs_m = TABLE(xfs_m_rules),
			      xfs_i = TABLE(xfs_i_rules), xfs_l = TABLE(xfs_l_rules),
			      xfs_d = TABLE(xfs_d_rules), xfs_n = TABLE(xfs_n_rules),
			      xfs_s = TABLE(xfs_s_rules);

static const struct opt_rule xfs_mkfs_rules[] = {
	{ "-b", .value = V_SUB, &xfs_b, .meta = "size=SIZE" },
	{ "-m", .value = V_SUB, &xfs_m, .meta = "META" },
	{ "-i", .value = V_SUB, &xfs_i, .meta = "INODE" },
	{ "-l", .value = V_SUB, &xfs_l, .meta = "LOG" },
	{ "-d", .value = V_SUB, &xfs_d, .meta = "DATA" },
	{ "-n", .value = V_SUB, &xfs_n, .meta = "NAMING" },
	{ "-s", .value = V_SUB, &xfs_s, .meta = "size=SIZE" },
	{ "-L", .value = V_LABEL, .max = 12, .meta = "LABEL" },
	{ .name = "-K" },
	{ .name = "-q" },
	{ "-c", .value = V_REFUSED, .meta = "options=FILE", .why = WHY_FILE },
	{ "-f", .value = V_REFUSED, .why = WHY_FORCE },
	{ "-N", .value = V_REFUSED, .why = WHY_NOTFS },
	{ "-p", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },
	{ "-r", .value = V_REFUSED, .meta = "rtdev=DEVICE", .why = WHY_DEVICE },
	{ "-V", .value = V_REFUSED, .why = WHY_NOTFS },
};

/* ---- mkfs.btrfs (one device: single or dup profiles only) ---- */

static const char *const btrfs_profiles[] = { "single", "dup", NULL };
static const char *const btrfs_csums[] = { "crc32c", "xxhash", "sha256", "blake2", NULL };
static const struct opt_rule btrfs_features_rules[] = {
	{ .name = "mixed-bg" }, { .name = "extref" }, { .name = "skinny-metadata" }, { .name = "no-holes" },
	{ .name = "free-space-tree" }, { .name = "block-group-tree" }, { .name = "raid56" }, { .name = "raid1c34" },
	{ "zoned", .value = V_REFUSED, .why = "a loop or plain disk is not zoned" },
	{ "list-all", .value = V_REFUSED, .why = WHY_NOTFS },
};
static const struct opt_rule btrfs_runtime_rules[] = {
	{ .name = "quota" }, { .name = "free-space-tree" },
	{ "list-all", .value = V_REFUSED, .why = WHY_NOTFS },
};
static const struct opt_table btrfs_features = TABLE(btrfs_features_rules),
			      btrfs_runtime = TABLE(btrfs_runtime_rules);

static const struct opt_rule btrfs_mkfs_rules[] = {
	{ "-n", "--nodesize", V_SIZE, .meta = "SIZE" },
	{ "-s", "--sectorsize", V_SIZE, .meta = "SIZE" },
	{ "-m", "--metadata", V_WORD, btrfs_profiles, .meta = "single|dup" },
	{ "-d", "--data", V_WORD, btrfs_profiles, .meta = "single|dup" },
	{ "-O", "--features", V_FEATURES, &btrfs_features, .meta = "FEATURES" },
	{ "-R", "--runtime-features", V_FEATURES, &btrfs_runtime, .meta = "FEATURES" },
	{ "-L", "--label", V_LABEL, .max = 64, .meta = "LABEL" },
	{ .name = "-K", .alias = "--nodiscard" },
	{ .name = "-M", .alias = "--mixed" },
	{ "-b", "--byte-count", V_SIZE, .meta = "SIZE" },
	{ "--csum", "--checksum", V_WORD, btrfs_csums, .meta = "crc32c|xxhash|sha256|blake2" },
	{ .name = "-q", .alias = "--quiet" },
	{ .name = "-v", .alias = "--verbose" },
	{ "-f", "--force", V_REFUSED, .why = WHY_FORCE },
	{ "-r", "--rootdir", V_REFUSED, .meta = "DIR", .why = WHY_FILE },
	{ "--shrink", NULL, V_REFUSED, .why = "it belongs to --rootdir, which names a directory" },
	{ "-U", "--uuid", V_REFUSED, .meta = "UUID", .why = WHY_UUID },
	{ "--device-uuid", NULL, V_REFUSED, .meta = "UUID", .why = WHY_UUID },
	{ "-V", "--version", V_REFUSED, .why = WHY_NOTFS },
};

/* ---- mkfs.fat (fslab passes -F 32 itself) ---- */

static const struct opt_rule fat_mkfs_rules[] = {
	{ "-S", .value = V_NUM, .meta = "SECTOR-SIZE" },
	{ "-s", .value = V_NUM, .meta = "SECTORS-PER-CLUSTER" },
	{ "-n", .value = V_LABEL, .max = 11, .meta = "LABEL" },
	{ "-f", .value = V_NUM, .meta = "FATS" },
	{ "-r", .value = V_NUM, .meta = "ROOT-ENTRIES" },
	{ "-R", .value = V_NUM, .meta = "RESERVED" },
	{ "-h", .value = V_NUM, .meta = "HIDDEN" },
	{ .name = "-a" },
	{ .name = "-v" },
	{ "--codepage", NULL, V_NUM, .meta = "N" },
	{ "-B", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },
	{ "-C", .value = V_REFUSED, .why = "it creates a file instead of using the partition" },
	{ "-c", .value = V_REFUSED, .why = "it runs a bad block check over the partition" },
	{ "-F", .value = V_REFUSED, .meta = "BITS", .why = "fslab makes FAT32 (-F 32) itself" },
	{ "-i", .value = V_REFUSED, .meta = "VOLUME-ID", .why = WHY_UUID },
	{ "-I", .value = V_REFUSED, .why = WHY_FORCE },
	{ "-l", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },
	{ "--mbr", NULL, V_REFUSED, .meta = "y|n|a", .why = "it writes a partition table inside the partition" },
};

/* ---- mount options ---- */

static const struct opt_rule mount_common_rules[] = {
	{ .name = "noatime" }, { .name = "relatime" }, { .name = "lazytime" }, { .name = "nodiratime" },
	{ .name = "strictatime" }, { .name = "sync" }, { .name = "dirsync" }, { .name = "nodev" },
	{ .name = "nosuid" }, { .name = "noexec" }, { .name = "defaults" }, { .name = "rw" },
	{ .name = "async" }, { .name = "atime" }, { .name = "norelatime" }, { .name = "nolazytime" },
	{ "ro", .value = V_REFUSED, .why = WHY_RO },
	{ "loop", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_SOURCE },
	{ "offset", .value = V_REFUSED, .meta = "N", .why = WHY_SOURCE },
	{ "sizelimit", .value = V_REFUSED, .meta = "N", .why = WHY_SOURCE },
	{ "source", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_SOURCE },
	{ "bind", .value = V_REFUSED, .why = WHY_SOURCE },
	{ "rbind", .value = V_REFUSED, .why = WHY_SOURCE },
	{ "move", .value = V_REFUSED, .why = WHY_SOURCE },
	{ "remount", .value = V_REFUSED, .why = WHY_REMOUNT },
	{ "helper", .value = V_REFUSED, .meta = "TYPE", .why = WHY_HELPER },
	{ "uhelper", .value = V_REFUSED, .meta = "TYPE", .why = WHY_HELPER },
	{ "encryption", .value = V_REFUSED, .meta = "KIND", .why = WHY_SOURCE },
	{ "user", .value = V_REFUSED, .why = WHY_USERS },
	{ "users", .value = V_REFUSED, .why = WHY_USERS },
	{ "owner", .value = V_REFUSED, .why = WHY_USERS },
	{ "group", .value = V_REFUSED, .why = WHY_USERS },
	{ "fsname", .value = V_REFUSED, .meta = "NAME", .why = WHY_FUSE },
	{ "subtype", .value = V_REFUSED, .meta = "NAME", .why = WHY_FUSE },
	{ "allow_other", .value = V_REFUSED, .why = WHY_USERS },
	{ "allow_root", .value = V_REFUSED, .why = WHY_USERS },
	{ "blkdev", .value = V_REFUSED, .why = WHY_FUSE },
	{ "rw+", .value = V_REFUSED, .why = WHY_FUSE },
	/* device options of one type, refused by name for every type */
	{ "device", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_DEVICE },
	{ "logdev", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_DEVICE },
	{ "rtdev", .value = V_REFUSED, .meta = "DEVICE", .why = WHY_DEVICE },
	{ "journal_dev", .value = V_REFUSED, .meta = "N", .why = WHY_DEVICE },
	{ "journal_path", .value = V_REFUSED, .meta = "PATH", .why = WHY_DEVICE },
};

static const char *const ext4_data_modes[] = { "ordered", "writeback", "journal", NULL };
#define EXT_MOUNT_REFUSED_RULES                                                          \
	{ "usrjquota", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },           \
	{ "grpjquota", .value = V_REFUSED, .meta = "FILE", .why = WHY_FILE },           \
	{ "sb", .value = V_REFUSED, .meta = "N", .why = "it mounts an old backup superblock" }

static const struct opt_rule ext4_mount_rules[] = {
	{ "data", .value = V_WORD, ext4_data_modes, .meta = "ordered|writeback|journal" },
	{ "barrier", .value = V_WORD, w_bool, .meta = "0|1", .why = VALUE_OPTIONAL },
	{ .name = "nobarrier" },
	{ "commit", .value = V_NUM, .meta = "N" },
	{ .name = "journal_checksum" }, { .name = "nojournal_checksum" }, { .name = "journal_async_commit" },
	{ "auto_da_alloc", .value = V_WORD, w_bool, .meta = "0|1", .why = VALUE_OPTIONAL },
	{ .name = "noauto_da_alloc" }, { .name = "delalloc" }, { .name = "nodelalloc" },
	{ .name = "dioread_nolock" }, { .name = "dioread_lock" },
	{ "inode_readahead_blks", .value = V_NUM, .meta = "N" },
	{ "stripe", .value = V_NUM, .meta = "N" },
	{ "max_batch_time", .value = V_NUM, .meta = "N" },
	{ "min_batch_time", .value = V_NUM, .meta = "N" },
	{ "init_itable", .value = V_NUM, .meta = "N", .why = VALUE_OPTIONAL },
	{ .name = "noinit_itable" },
	{ "errors", .value = V_WORD, w_errors, .meta = "continue|remount-ro" },
	{ .name = "discard" }, { .name = "nodiscard" }, { .name = "block_validity" }, { .name = "noblock_validity" },
	{ .name = "i_version" }, { .name = "acl" }, { .name = "noacl" }, { .name = "user_xattr" }, { .name = "nombcache" },
	{ .name = "prefetch_block_bitmaps" }, { .name = "no_prefetch_block_bitmaps" },
	EXT_MOUNT_REFUSED_RULES,
};

static const struct opt_rule ext2_mount_rules[] = {
	{ "errors", .value = V_WORD, w_errors, .meta = "continue|remount-ro" },
	{ .name = "acl" }, { .name = "noacl" }, { .name = "user_xattr" }, { .name = "nouser_xattr" },
	{ .name = "grpid" }, { .name = "bsdgroups" }, { .name = "nogrpid" }, { .name = "sysvgroups" },
	{ .name = "bsddf" }, { .name = "minixdf" }, { .name = "nouid32" },
	{ "resuid", .value = V_NUM, .meta = "N" },
	{ "resgid", .value = V_NUM, .meta = "N" },
	EXT_MOUNT_REFUSED_RULES,
};

static const struct opt_rule xfs_mount_rules[] = {
	{ "allocsize", .value = V_SIZE, .meta = "SIZE" },
	{ .name = "attr2" }, { .name = "noattr2" }, { .name = "discard" }, { .name = "nodiscard" },
	{ .name = "inode32" }, { .name = "inode64" }, { .name = "largeio" }, { .name = "nolargeio" },
	{ "logbufs", .value = V_NUM, .meta = "N" },
	{ "logbsize", .value = V_SIZE, .meta = "SIZE" },
	{ .name = "noalign" }, { .name = "swalloc" },
	{ "sunit", .value = V_NUM, .meta = "N" },
	{ "swidth", .value = V_NUM, .meta = "N" },
	{ .name = "wsync" }, { .name = "grpid" }, { .name = "bsdgroups" }, { .name = "nogrpid" }, { .name = "sysvgroups" },
	{ .name = "filestreams" }, { .name = "ikeep" }, { .name = "noikeep" },
	{ "norecovery", .value = V_REFUSED, .why = WHY_RO },
};

static const char *const btrfs_compress[] = { "zlib", "lzo", "zstd", "no", NULL };
static const char *const btrfs_space_cache[] = { "v1", "v2", NULL };
static const char *const btrfs_discard[] = { "sync", "async", NULL };
static const char *const btrfs_fatal[] = { "bug", NULL };
static const struct opt_rule btrfs_mount_rules[] = {
	{ "compress", .value = V_COMPRESS, btrfs_compress, .meta = "ALG[:LEVEL]", .why = VALUE_OPTIONAL },
	{ "compress-force", .value = V_COMPRESS, btrfs_compress, .meta = "ALG[:LEVEL]", .why = VALUE_OPTIONAL },
	{ "space_cache", .value = V_WORD, btrfs_space_cache, .meta = "v1|v2", .why = VALUE_OPTIONAL },
	{ .name = "nospace_cache" },
	{ .name = "ssd" }, { .name = "nossd" }, { .name = "ssd_spread" }, { .name = "nossd_spread" },
	{ .name = "autodefrag" }, { .name = "noautodefrag" },
	{ "commit", .value = V_NUM, .meta = "N" },
	{ .name = "datacow" }, { .name = "nodatacow" }, { .name = "datasum" }, { .name = "nodatasum" },
	{ "discard", .value = V_WORD, btrfs_discard, .meta = "sync|async", .why = VALUE_OPTIONAL },
	{ .name = "nodiscard" },
	{ "thread_pool", .value = V_NUM, .meta = "N" },
	{ .name = "flushoncommit" }, { .name = "noflushoncommit" },
	{ .name = "barrier" }, { .name = "nobarrier" },
	{ "max_inline", .value = V_SIZE, .meta = "SIZE" },
	{ "metadata_ratio", .value = V_NUM, .meta = "N" },
	{ .name = "treelog" }, { .name = "notreelog" }, { .name = "acl" }, { .name = "noacl" },
	{ .name = "enospc_debug" }, { .name = "noenospc_debug" },
	{ "fatal_errors", .value = V_WORD, btrfs_fatal, .meta = "bug" },
	{ "subvol", .value = V_REFUSED, .meta = "PATH", .why = WHY_WHAT },
	{ "subvolid", .value = V_REFUSED, .meta = "ID", .why = WHY_WHAT },
	{ "degraded", .value = V_REFUSED, .why = "it mounts a filesystem with devices missing" },
	{ "usebackuproot", .value = V_REFUSED, .why = WHY_WHAT },
	{ "rescue", .value = V_REFUSED, .meta = "MODE", .why = WHY_WHAT },
};

/* The kernel's vfat driver.  Here FAT32 is mounted with fusefat (this
 * kernel has no vfat), which understands only a few of the common ones. */
static const char *const fat_shortname[] = { "lower", "win95", "winnt", "mixed", NULL };
static const char *const fat_iocharset[] = { "utf8", "ascii", "iso8859-1", "iso8859-15",
					     "cp437", NULL };
static const char *const fat_tz[] = { "UTC", NULL };
static const struct opt_rule fat_mount_rules[] = {
	{ .name = "flush" }, { .name = "utf8" }, { .name = "quiet" }, { .name = "showexec" },
	{ "shortname", .value = V_WORD, fat_shortname, .meta = "lower|win95|winnt|mixed" },
	{ "codepage", .value = V_NUM, .meta = "N" },
	{ "iocharset", .value = V_WORD, fat_iocharset, .meta = "utf8|ascii|iso8859-1|iso8859-15|cp437" },
	{ "errors", .value = V_WORD, w_errors, .meta = "continue|remount-ro" },
	{ "tz", .value = V_WORD, fat_tz, .meta = "UTC" },
};

static const struct opt_table mount_common = TABLE(mount_common_rules);

struct type_tables {
	struct opt_table mkfs, mount;
};

static const struct type_tables tables[FSLAB_FS_TYPE_MAX] = {
	[FSLAB_FS_EXT4] = { TABLE(ext4_mkfs_rules), TABLE(ext4_mount_rules) },
	[FSLAB_FS_EXT2] = { TABLE(ext2_mkfs_rules), TABLE(ext2_mount_rules) },
	[FSLAB_FS_XFS] = { TABLE(xfs_mkfs_rules), TABLE(xfs_mount_rules) },
	[FSLAB_FS_FAT32] = { TABLE(fat_mkfs_rules), TABLE(fat_mount_rules) },
	[FSLAB_FS_BTRFS] = { TABLE(btrfs_mkfs_rules), TABLE(btrfs_mount_rules) },
};

/* ---- checking ---- */

struct check {
	enum fslab_fs_type type;
	enum fslab_spec_options_kind kind;
	char *err;
	size_t errlen;
};

const char *fslab_spec_options_key(enum fslab_spec_options_kind kind)
{
	return kind == FSLAB_SPEC_MOUNT_OPTIONS ? "mount_options" : "mkfs_options";
}

static const struct opt_rule *table_find(const struct opt_table *t, const char *name, size_t len)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct opt_rule *r = &t->rules[i];
		if ((strlen(r->name) == len && strncmp(r->name, name, len) == 0) ||
		    (r->alias && strlen(r->alias) == len && strncmp(r->alias, name, len) == 0))
			return r;
	}
	return NULL;
}

static size_t list_append(char *buf, size_t len, size_t at, const char *s)
{
	size_t n = strlen(s);

	if (at < len)
		snprintf(buf + at, len - at, "%s", s);
	return at + n;
}

static size_t list_table(const struct opt_table *t, enum fslab_spec_options_kind kind, char *buf,
			 size_t len, size_t at)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct opt_rule *r = &t->rules[i];

		if (r->value == V_REFUSED)
			continue;
		if (at)
			at = list_append(buf, len, at, ", ");
		at = list_append(buf, len, at, r->name);
		if (r->value == V_NONE)
			continue;
		if (kind == FSLAB_SPEC_MOUNT_OPTIONS) {
			at = list_append(buf, len, at, r->why == VALUE_OPTIONAL ? "[=]" : "=");
		} else {
			at = list_append(buf, len, at, r->name[1] == '-' ? "=" : " ");
			at = list_append(buf, len, at, r->meta);
		}
	}
	return at;
}

int fslab_spec_options_allowed(enum fslab_fs_type type, enum fslab_spec_options_kind kind,
			       char *buf, size_t len)
{
	size_t at = 0;

	if (type < 0 || type >= FSLAB_FS_TYPE_MAX)
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	if (kind == FSLAB_SPEC_MOUNT_OPTIONS) {
		at = list_table(&mount_common, kind, buf, len, at);
		at = list_table(&tables[type].mount, kind, buf, len, at);
	} else {
		at = list_table(&tables[type].mkfs, kind, buf, len, at);
	}
	return (int)at;
}

/* Words that make any option or value dangerous, whatever the table says. */
static const char *danger(const char *s, size_t n)
{
	static const char *const names[] = { "LABEL=", "UUID=", "PARTUUID=", "PARTLABEL=" };

	if (memchr(s, '/', n))
		return "it names a path";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t k = strlen(names[i]);
		for (size_t j = 0; j + k <= n; j++)
			if (strncasecmp(s + j, names[i], k) == 0)
				return "it names a device by label or UUID";
	}
	return NULL;
}

/* The refusal: the option as the user wrote it, why (a printf format),
 * what is allowed. */
static int refuse(struct check *c, const char *shown, size_t shown_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(struct check *c, const char *shown, size_t shown_len, const char *fmt, ...)
{
	char list[232], safe[72], why[200];
	size_t n = 0;
	va_list ap;
	int need;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);

	for (size_t i = 0; i < shown_len && n < sizeof(safe) - 4; i++)
		safe[n++] = iscntrl((unsigned char)shown[i]) ? '?' : shown[i];
	if (n < shown_len)
		n += (size_t)snprintf(safe + n, sizeof(safe) - n, "...");
	safe[n] = '\0';
	need = fslab_spec_options_allowed(c->type, c->kind, list, sizeof(list));
	if (need >= (int)sizeof(list)) {
		/* cut at the last whole option */
		char *cut = list + sizeof(list) - 6;
		while (cut > list && strncmp(cut, ", ", 2) != 0)
			cut--;
		snprintf(cut, 6, ", ...");
	}
	snprintf(c->err, c->errlen, "%s: '%s' is not allowed (%s); allowed for %s: %s (see man fslab, SPEC OPTIONS)",
		 fslab_spec_options_key(c->kind), safe, why, fslab_fs_type_to_string(c->type), list);
	return -EINVAL;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0 || n > 12)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool in_words(const char *const *words, const char *s, size_t n)
{
	for (size_t i = 0; words[i]; i++)
		if (strlen(words[i]) == n && strncmp(words[i], s, n) == 0)
			return true;
	return false;
}

static void words_text(const char *const *words, char *buf, size_t len)
{
	int n = 0;

	while (words[n])
		n++;
	fslab_names_join(words, n, ", ", " or ", buf, len);
}

static int check_list(struct check *c, const struct opt_table *t, bool features, const char *opt,
		      const char *shown, size_t shown_len, const char *v, size_t n);

/* Checks value v (n bytes) of rule r.  0, or a refusal naming shown. */
static int check_value(struct check *c, const struct opt_rule *r, const char *shown,
		       size_t shown_len, const char *v, size_t n)
{
	char words[120];
	const char *bad;

	/* A list's items are checked one by one, with their own reasons. */
	if (r->value != V_SUB && r->value != V_FEATURES && (bad = danger(v, n)))
		return refuse(c, shown, shown_len, "%s", bad);
	switch (r->value) {
	case V_NONE:
	case V_REFUSED:
		break;
	case V_NUM:
		if (all_digits(v, n))
			return 0;
		return refuse(c, shown, shown_len, "%s takes a whole number", r->name);
	case V_DEC: {
		const char *dot = memchr(v, '.', n);
		if (dot ? all_digits(v, (size_t)(dot - v)) && all_digits(dot + 1, n - (size_t)(dot - v) - 1)
			: all_digits(v, n))
			return 0;
		return refuse(c, shown, shown_len, "%s takes a number such as 5 or 0.5", r->name);
	}
	case V_SIZE:
		if (all_digits(v, n) || (n > 1 && strchr("kKmMgGtT", v[n - 1]) && all_digits(v, n - 1)))
			return 0;
		return refuse(c, shown, shown_len,
			      "%s takes a size: a whole number with an optional K, M, G or T", r->name);
	case V_WORD:
		if (in_words(r->arg, v, n))
			return 0;
		words_text(r->arg, words, sizeof(words));
		return refuse(c, shown, shown_len, "%s takes %s", r->name, words);
	case V_LABEL: {
		bool ok = n >= 1 && n <= r->max && v[0] != '-';
		for (size_t i = 0; ok && i < n; i++)
			ok = isalnum((unsigned char)v[i]) || v[i] == '_' || v[i] == '.' || v[i] == '-';
		if (ok)
			return 0;
		return refuse(c, shown, shown_len,
			      "a label here is 1 to %u letters, digits, '_', '.' or '-', not starting with '-'", r->max);
	}
	case V_COMPRESS: {
		const char *colon = memchr(v, ':', n);
		size_t alg = colon ? (size_t)(colon - v) : n;
		if (in_words(r->arg, v, alg) &&
		    (!colon || (all_digits(colon + 1, n - alg - 1) && n - alg - 1 <= 2 &&
				(strncmp(v, "zlib", alg) == 0 || strncmp(v, "zstd", alg) == 0))))
			return 0;
		return refuse(c, shown, shown_len,
			      "%s takes zlib, lzo, zstd or no; zlib and zstd may add :LEVEL", r->name);
	}
	case V_SUB:
		return check_list(c, r->arg, false, r->name, shown, shown_len, v, n);
	case V_FEATURES:
		return check_list(c, r->arg, true, r->name, shown, shown_len, v, n);
	}
	return 0;
}

/* An unknown option: the most specific reason there is. */
static const char *unknown_why(const char *s, size_t n)
{
	const char *bad = danger(s, n);

	return bad ? bad : "fslab does not know it to be safe";
}

/* NAME[=VALUE] against rule table t (a mount option list, an -E or -d
 * list, a feature list): items separated by commas. */
static int check_list(struct check *c, const struct opt_table *t, bool features, const char *opt,
		      const char *shown, size_t shown_len, const char *v, size_t n)
{
	size_t i = 0;

	if (n == 0)
		return refuse(c, shown, shown_len, "%s needs a value", opt ? opt : "the option");
	while (i <= n) {
		const char *item = v + i;
		size_t len = strcspn(item, ",");
		const char *eq, *name = item;
		size_t name_len;
		const struct opt_rule *r = NULL;
		const char *item_shown = opt ? shown : item;
		size_t item_shown_len;

		if (i + len > n)
			len = n - i;
		item_shown_len = opt ? shown_len : len;
		if (len == 0)
			return refuse(c, opt ? shown : v, opt ? shown_len : n,
				      "an empty item: separate options with one comma, without blanks");
		eq = memchr(item, '=', len);
		name_len = eq ? (size_t)(eq - item) : len;
		if (features && name_len && name[0] == '^') {
			name++;
			name_len--;
		}
		if (features && eq)
			return refuse(c, item_shown, item_shown_len, "%s takes feature names, without '='", opt);
		if (!opt) { /* mount options: the type's table, then the common one */
			r = table_find(t, name, name_len);
			if (!r)
				r = table_find(&mount_common, name, name_len);
			if (!r && name_len >= 2 &&
			    (strncasecmp(name, "x-", 2) == 0 || strncmp(name, "verity.", 7) == 0))
				return refuse(c, item_shown, item_shown_len,
					      "it passes instructions to mount itself (x-, X-mount., verity.)");
		} else {
			r = table_find(t, name, name_len);
		}
		if (!r)
			return refuse(c, item_shown, item_shown_len, "%s", unknown_why(item, len));
		if (r->value == V_REFUSED)
			return refuse(c, item_shown, item_shown_len, "%s", r->why);
		if (r->value == V_NONE || features) {
			if (eq)
				return refuse(c, item_shown, item_shown_len, "%s takes no value", r->name);
		} else if (!eq) {
			if (r->why != VALUE_OPTIONAL)
				return refuse(c, item_shown, item_shown_len, "%s needs a value: %s=%s", r->name,
					      r->name, r->meta);
		} else {
			int e = check_value(c, r, item_shown, item_shown_len, eq + 1,
					    len - name_len - 1);
			if (e < 0)
				return e;
		}
		i += len + 1;
	}
	return 0;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* mkfs words, read the way getopt(3) reads them: "-X VALUE", "-XVALUE",
 * "--long VALUE", "--long=VALUE".  Combined flags (-qv), abbreviated long
 * options and anything that is not an option are refused. */
static int check_mkfs(struct check *c, const char *s)
{
	const struct opt_table *t = &tables[c->type].mkfs;

	while (*s) {
		const char *w, *v = NULL, *end;
		size_t wl, nl, vl = 0;
		const struct opt_rule *r;

		while (blank(*s))
			s++;
		if (!*s)
			break;
		w = s;
		wl = strcspn(w, " \t");
		end = w + wl;
		if (w[0] != '-' || wl == 1)
			return refuse(c, w, wl, "%s",
				      danger(w, wl) ? danger(w, wl)
						    : "not an option: mkfs would take a bare word as a device or file; fslab passes the partition itself");
		if (wl == 2 && w[1] == '-')
			return refuse(c, w, wl, "after '--' every word is a device or file to mkfs");
		if (w[1] == '-') {
			const char *eq = memchr(w, '=', wl);
			nl = eq ? (size_t)(eq - w) : wl;
			if (eq) {
				v = eq + 1;
				vl = wl - nl - 1;
			}
		} else {
			nl = 2;
			if (wl > 2) {
				v = w + 2;
				vl = wl - 2;
			}
		}
		r = table_find(t, w, nl);
		if (!r)
			return refuse(c, w, wl, "%s", unknown_why(w, wl));
		if (r->value == V_NONE) {
			if (v)
				return refuse(c, w, wl, w[1] == '-' ? "%.*s takes no value"
					      : "%.*s takes no value; give each option as a word of its own", (int)nl, w);
		} else if (!v && (r->value != V_REFUSED || r->meta)) {
			/* the value is the next word, whatever it looks like */
			const char *n = end;
			while (blank(*n))
				n++;
			if (!*n && r->value != V_REFUSED)
				return refuse(c, w, wl, "%.*s needs a value (%s)", (int)nl, w, r->meta);
			v = n;
			vl = strcspn(n, " \t");
			end = v + vl;
		}
		if (r->value == V_REFUSED)
			return refuse(c, w, (size_t)(end - w), "%s", r->why);
		if (r->value != V_NONE) {
			int e = check_value(c, r, w, (size_t)(end - w), v, vl);
			if (e < 0)
				return e;
		}
		s = end;
	}
	return 0;
}

int fslab_spec_options_check(enum fslab_fs_type type, enum fslab_spec_options_kind kind,
			     const char *text, char *err, size_t errlen)
{
	struct check c = { type, kind, err, errlen };

	if (errlen)
		err[0] = '\0';
	if (type < 0 || type >= FSLAB_FS_TYPE_MAX) {
		snprintf(err, errlen, "%s: unknown filesystem type", fslab_spec_options_key(kind));
		return -EINVAL;
	}
	if (!text || !*text)
		return 0;
	for (const char *p = text; *p; p++) {
		if (*p == '"' || *p == '\'' || *p == '\\')
			return refuse(&c, p, 1, "quotes and backslashes are not part of any allowed option");
		if (iscntrl((unsigned char)*p) && *p != '\t')
			return refuse(&c, p, 1, "a control character");
	}
	if (kind == FSLAB_SPEC_MKFS_OPTIONS)
		return check_mkfs(&c, text);
	for (const char *p = text; *p; p++)
		if (blank(*p))
			return refuse(&c, text, strlen(text),
				      "mount options are separated by commas, without blanks");
	return check_list(&c, &tables[type].mount, false, NULL, NULL, 0, text, strlen(text));
}
