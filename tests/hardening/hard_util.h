/* Helpers for the hardening tests (tests/hardening/): a lab environment
 * each test creates and always removes, background fslab processes, and a
 * ptrace stepper that stops a command at its Nth system call so a signal
 * can be delivered at a seeded, reproducible point. */
#ifndef FSLAB_HARD_UTIL_H
#define FSLAB_HARD_UTIL_H

#include "testutil.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HU_MAX_BG 8

/* Everything one test made: a temp dir holding the spec, state, mount root
 * and results, and a loop device over a sparse image in that dir. */
struct hu_lab {
	char dir[512];
	struct ft_loop loop;
	char spec[600];
	char state[600];
	char mnt[600];
	char results[600];
	pid_t bg[HU_MAX_BG];
};

/* The filesystems of the tests' specs: two ext filesystems of 16 MiB
 * (mkfs and mount take milliseconds), a and b. */
#define HU_EXT_FILESYSTEMS "[fs a]\ntype = ext4\nsize = 16M\n[fs b]\ntype = ext2\nsize = 16M\n"
/* The small lab the tests use: those and a sweep of a few cells. */
extern const char hu_small_spec[];
/* Those and a sweep long enough (several seconds, fsync cache) to act on
 * a run while it is going. */
extern const char hu_long_spec[];

/* Creates dir + image + loop device (disk_size bytes) and writes spec_text
 * (NULL: hu_small_spec) to <dir>/spec.ini.  Returns 0 or -errno. */
int hu_lab_create(struct hu_lab *l, const char *prefix, uint64_t disk_size, const char *spec_text);
/* hu_lab_create for an unchecked fixture (runs in the parent process):
 * exits 1 naming the problem when the lab cannot be made. */
void hu_lab_up(struct hu_lab *l, const char *prefix, uint64_t disk_size, const char *spec_text);
/* Kills background processes, unmounts whatever is mounted under dir or
 * from the loop device's partitions, detaches the loop device and removes
 * dir.  Safe on a half-made lab and when called twice. */
void hu_lab_destroy(struct hu_lab *l);

/* After a failed check, so the test can go on: kills the lab's processes,
 * unmounts, removes the state file and mount root and replaces the loop
 * device with a fresh blank one of 64 MiB.  Returns 0 or -errno. */
int hu_lab_reset(struct hu_lab *l);

/* Loop devices other than except whose backing file is inside dir; the
 * first is named in first.  Returns how many. */
int hu_image_loops(const char *dir, const char *except, char *first, size_t len);

/* Replaces @DEV@ @DIR@ @SPEC@ @STATE@ @MNT@ @RESULTS@ in s. */
void hu_expand(const struct hu_lab *l, const char *s, char *out, size_t len);

/* fslab setup --device LOOP --spec SPEC --mount-root MNT --state STATE --yes */
int hu_setup(struct hu_lab *l, struct ft_output *o);
/* fslab teardown --state STATE */
int hu_teardown(struct hu_lab *l, struct ft_output *o);

/* 1 when the lab's disk is clean (no signature blkid can see, no kernel
 * partitions, nothing mounted from it or under the mount root, no state
 * file); 0 otherwise with the reason in why. */
int hu_disk_clean(const struct hu_lab *l, char *why, size_t len);

/* Check assertions for a test body: setup succeeds; teardown succeeds and
 * leaves the disk clean (hu_disk_clean). */
void hu_assert_setup(struct hu_lab *l);
void hu_assert_teardown_clean(struct hu_lab *l);

/* Starts argv in the background with extra environment entries (NAME=VALUE,
 * NULL-terminated; may be NULL), stdout and stderr to log_path.  The pid is
 * recorded in l->bg so hu_lab_destroy kills it. */
pid_t hu_spawn(struct hu_lab *l, const char *const argv[], const char *const env[],
	       const char *log_path);
/* Waits up to timeout_ms; returns the exit status (128+signal when killed)
 * or -ETIMEDOUT.  Forgets the pid in l->bg once it is reaped. */
int hu_wait(struct hu_lab *l, pid_t pid, int timeout_ms);
/* Waits until file path contains text; 0, or -ETIMEDOUT. */
int hu_wait_for_text(const char *path, const char *text, int timeout_ms);
/* Reads a whole file (malloc'd, NUL-terminated) or NULL. */
char *hu_slurp(const char *path);

/* The stepper.  hu_trace_count runs argv to completion under ptrace and
 * returns how many system-call stops it made (its length in steps), or a
 * negative errno; *status gets its exit status.  hu_trace_kill runs argv,
 * stops it at system-call stop number `at` (1-based), sends sig and lets
 * it go: returns 1 when the signal was delivered there, 0 when the command
 * finished first, negative errno on error; *status gets the exit status.
 * Child processes the command starts (mkfs) are not traced. */
long hu_trace_count(const char *const argv[], const char *const env[], const char *log_path,
		    int *status);
int hu_trace_kill(const char *const argv[], const char *const env[], const char *log_path,
		  long at, int sig, int *status);

/* The same, counting only entries into the system calls in nrs (a list
 * ended by -1): hu_trace_count_calls says how many such calls argv makes,
 * hu_trace_kill_call delivers sig when it is about to make the
 * occurrence-th one (e.g. each rename(2): the moments a state file or
 * manifest is published). */
long hu_trace_count_calls(const char *const argv[], const char *const env[], const char *log_path,
			  const long *nrs, int *status);
int hu_trace_kill_call(const char *const argv[], const char *const env[], const char *log_path,
		       const long *nrs, long occurrence, int sig, int *status);

/* rename(2), renameat(2), renameat2(2): the moments a state file or a
 * manifest is published (a list for the functions above, ended by -1). */
extern const long hu_publish_calls[];

/* hu_trace_hold: runs argv, stops it at the first entry into system call
 * number nr (e.g. SYS_umount2) and leaves it stopped; returns its pid (a
 * ptrace child of the caller) or a negative errno (-ESRCH: it finished
 * without making that call).  hu_trace_release lets it run on and waits. */
pid_t hu_trace_hold(const char *const argv[], const char *const env[], const char *log_path,
		    long nr);
/* The same, stopped at the occurrence-th (1-based) entry into any of the
 * system calls in nrs (a list ended by -1). */
pid_t hu_trace_hold_call(const char *const argv[], const char *const env[], const char *log_path,
			 const long *nrs, long occurrence);
int hu_trace_release(pid_t pid);

/* Waits until no live process is left in process group pgid (the commands
 * the stepper starts lead their own group); 0 or -ETIMEDOUT. */
int hu_wait_group(pid_t pgid, int timeout_ms);

/* Seeded points: the i-th of n points over 1..total, one in each of n equal
 * strata, chosen by seed. */
long hu_point(uint64_t seed, unsigned i, unsigned n, long total);

/* How many seeded points per command and signal: $FSLAB_FAULT_POINTS, else
 * def (scripts/ci-sanitize.sh lowers it for the slower sanitizer build). */
unsigned hu_fault_points(unsigned def);

#endif
