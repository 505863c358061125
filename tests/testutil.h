/* Helpers shared by fslab's Check tests.  Add to this file; do not change
 * what is here (other tests rely on it). */
#ifndef FSLAB_TESTUTIL_H
#define FSLAB_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSLAB_TEST_SKIP 77

/* ---- What a test program needs, and honest skips ----
 *
 * Each test program's main() creates its TCases with ft_tcase(), saying
 * what each needs from the machine, and runs them with ft_suite_run().
 * A TCase whose needs are not met is not run: its name and the reason are
 * printed ("SKIP suite/tcase: needs root").  When nothing could run, the
 * program exits 77, which ctest reports as skipped (SKIP_RETURN_CODE).
 *
 * A program with both kinds of TCase is registered twice in ctest (CMake:
 * fslab_check_test(... ROOT_PART)): "--part user" runs the TCases that do
 * not need root, "--part root" those that do, so a non-root run shows the
 * root part as skipped instead of counting it as passed.  With no argument
 * every TCase whose needs are met runs.  CK_RUN_CASE still narrows it. */
enum ft_need {
	FT_ROOT = 1u << 0, /* euid 0: loop devices, mkfs, mount */
	FT_FUSE = 1u << 1, /* fusefat on the tool path and /dev/fuse */
	FT_MKFS_EXT = 1u << 2, /* mkfs.ext4 and mkfs.ext2 on the tool path */
	FT_MKFS_ALL = 1u << 3, /* and mkfs.xfs, mkfs.fat, mkfs.btrfs */
};
/* A lab of the five filesystems (ext4, ext2, xfs, fat32 through fusefat,
 * btrfs) on a loop device. */
#define FT_LAB (FT_ROOT | FT_MKFS_EXT | FT_MKFS_ALL | FT_FUSE)
/* A lab of ext filesystems only (the hardening tests' small spec). */
#define FT_EXT_LAB (FT_ROOT | FT_MKFS_EXT)

struct ft_suite;
/* A suite for main(); exits the program when out of memory. */
struct ft_suite *ft_suite_new(const char *name);
/* A TCase of the suite needing `needs` (enum ft_need; 0: nothing). */
TCase *ft_tcase(struct ft_suite *fs, const char *name, unsigned needs);
/* Runs the suite in the calling process (CK_NOFORK), for tests that must
 * see each other's state; by default each test is forked (CK_FORK=no
 * in the environment also runs them in-process). */
void ft_suite_nofork(struct ft_suite *fs);
/* Runs the TCases argv selects (see above) whose needs are met, frees the
 * suite, and returns main()'s exit status: 0 all passed, 1 a test failed
 * (2: bad arguments), 77 nothing could run. */
int ft_suite_run(struct ft_suite *fs, int argc, char **argv);
/* NULL when every need is met, else why not ("needs root"). */
const char *ft_unmet(unsigned needs, char *why, size_t len);

/* Asserts (Check) that the test runs as root: for the few helpers that are
 * only valid in a FT_ROOT TCase.  Never exits: a test never skips itself. */
void ft_require_root(void);

/* Path of the fslab binary under test ($FSLAB_BIN). */
const char *ft_fslab_bin(void);

struct ft_output {
	int status;    /* exit status; 128+signal when killed */
	char *out;     /* stdout, NUL-terminated (malloc'd) */
	char *err;     /* stderr */
};

/* Runs argv (argv[0] a path or a name on $PATH) with optional stdin text;
 * captures output.  Returns 0 or a negative errno. */
int ft_run(const char *const argv[], const char *stdin_text, struct ft_output *o);
/* ft_run of the fslab binary: ft_fslab(&o, "setup", "--image", x, NULL). */
int ft_fslab(struct ft_output *o, ...) __attribute__((sentinel));
void ft_output_free(struct ft_output *o);

/* mkdtemp under $TMPDIR or /tmp; returns a malloc'd path. */
char *ft_mkdtemp(const char *prefix);
/* rm -rf of a directory the test created (never follows symlinks out). */
void ft_rm_rf(const char *path);
/* ft_mkdtemp, and the directory opened (O_DIRECTORY) into *fd; the test
 * fails when either cannot be done.  ft_rmdir_fd closes the fd, removes
 * the tree and frees the path. */
char *ft_mkdtemp_fd(const char *prefix, int *fd);
void ft_rmdir_fd(char *path, int *fd);

/* A sparse image attached to a loop device with partition scanning, made
 * and removed by the test itself. */
struct ft_loop {
	char image[512];
	char device[64]; /* /dev/loopN */
};
/* Creates `size` bytes sparse in dir and attaches it.  Returns 0 or a
 * negative errno. */
int ft_loop_create(struct ft_loop *l, const char *dir, uint64_t size);
/* Detaches (if attached) and deletes the image.  Safe to call twice. */
void ft_loop_destroy(struct ft_loop *l);

/* Copies the first and last MiB of a block device or file into fp (which
 * must hold 2 MiB) so a test can show a refused command wrote nothing. */
int ft_disk_fingerprint(const char *dev, unsigned char *fp);
#define FT_FINGERPRINT_SIZE (2u << 20)

/* The text of a file of the source tree ($FSLAB_SOURCE_DIR/rel), malloc'd;
 * the test fails when it cannot be read. */
char *ft_source_file(const char *rel);
/* The text of the file at path, malloc'd; the test fails when it cannot
 * be read. */
char *ft_read_text(const char *path);
/* The part of text from the first occurrence of start to the next end (or
 * the end of text), malloc'd; the test fails when start is absent. */
char *ft_text_section(const char *text, const char *start, const char *end);

/* Writes text to path (truncating). */
int ft_write_file(const char *path, const char *text);

/* A child process whose stdout and stderr are read while it runs, so a
 * test can wait for a line and then signal it. */
struct ft_proc {
	int pid;
	int out_fd, err_fd;
	char *out, *err; /* what was read so far (NUL-terminated) */
	size_t out_len, err_len;
};
/* Starts argv (argv[0] a path or a name on $PATH), stdin /dev/null. */
int ft_spawn(const char *const argv[], struct ft_proc *p);
/* Reads output until stderr or stdout contains text (0), the process
 * closes its output (-EPIPE) or timeout_ms passes (-ETIMEDOUT). */
int ft_proc_wait_for(struct ft_proc *p, const char *text, int timeout_ms);
/* Reads the rest, reaps the child and moves everything into o. */
int ft_proc_finish(struct ft_proc *p, struct ft_output *o);
/* ft_spawn of an fslab command held at `step` by its test hook
 * (FSLAB_TEST_PAUSE_AT=step): returns once it says "paused at <step>";
 * asserts (with its output) when it never gets there. */
void ft_spawn_paused(const char *const argv[], const char *step, struct ft_proc *p);

/* Number of mounts whose mount point is root or below it. */
int ft_mounts_under(const char *root);
/* Number of loop devices whose backing file is below root. */
int ft_loops_under(const char *root);
/* The same, their paths (/dev/loopN) in list: how many (at most max). */
int ft_loops_list(const char *root, char list[][64], int max);
/* The backing file of loop device dev (/dev/loopN or loopN) from sysfs.
 * Returns 0 or a negative errno. */
int ft_loop_backing_file(const char *dev, char *buf, size_t len);
/* Best-effort cleanup of everything a test made below root, also after a
 * failed test: unmounts (deepest first) every mount below root, detaches
 * every loop device backed by a file below root, then removes root.  Never
 * touches anything outside root. */
void ft_cleanup_under(const char *root);
/* ft_cleanup_under without removing anything: unmounts and detaches only
 * (what a reboot does to a lab below root). */
void ft_cleanup_under_keep(const char *root);
/* Makes the kernel see partition pno (start, length in bytes) of a whole
 * disk with BLKPG, as setup does.  Returns 0 or a negative errno. */
int ft_blkpg_add(const char *disk, int pno, long long start, long long length);
/* Removes partition pno from the kernel's view of disk (BLKPG). */
int ft_blkpg_del(const char *disk, int pno);
/* The entries of directory dir besides . and .. (asserts dir opens). */
int ft_dir_entries(const char *dir);
/* A FAT32 image of size ("40M") at img, mounted read-write through
 * fusefat on the directory mnt (made here); asserts each step. */
void ft_fusefat_mount(const char *img, const char *size, const char *mnt);
/* The same, with the FSInfo sector's next-free hint set first to the
 * cluster that starts at byte at of the image (rounded down): fusefat
 * hands out clusters upwards from there, as after that many bytes were
 * written since its mount.  at 0: mkfs.fat's hint. */
void ft_fusefat_mount_at(const char *img, const char *size, const char *mnt, uint64_t at);
/* fslab with the arguments (NULL-terminated), then the entries it left in
 * dir and the unmount of mnt (NULL: none), before anything is asserted,
 * so a failure leaves no mount behind; asserts fslab exited 0 and left
 * nothing in dir. */
void ft_fslab_then_umount(const char *dir, const char *mnt, ...) __attribute__((sentinel));

/* fslab_spec_parse_string with its message in a buffer, as the spec
 * and plan tests print it. */
struct fslab_state;
/* Writes st at path as setup does (fslab_state_save_at), creating the
 * parent directory (0755) when missing: 0 or a negative errno. */
int ft_state_save(const char *path, const struct fslab_state *st);

struct fslab_spec;
int ft_spec_parse(const char *text, const char *name, struct fslab_spec *spec, char *err,
		  size_t len);

#endif
