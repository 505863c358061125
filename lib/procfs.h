/* Reading the kernel's own files: other processes through /proc (which
 * processes there are, what they hold open, their process group,
 * environment and command line, who holds a lock on a file) and a number
 * from a sysfs attribute.  Every reader here tolerates a process that
 * exits while it is being looked at (it is skipped, or reported gone). */
#ifndef FSLAB_PROCFS_H
#define FSLAB_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Calls fn(pid, ctx) for every process in /proc, fslab itself included.
 * A non-zero return from fn stops the walk and is returned.  Returns 0
 * when every process was seen, or -errno when /proc cannot be read. */
int fslab_proc_each_pid(int (*fn)(pid_t pid, void *ctx), void *ctx);

/* Called for one open file descriptor: fdpath is "/proc/PID/fd/N". */
typedef int (*fslab_proc_fd_fn)(pid_t pid, int fd, const char *fdpath, void *ctx);

/* Calls fn for every open fd of every process (a process that is gone or
 * whose fds we may not read has none): 0, fn's non-zero return (which
 * stops the walk), or -errno when /proc cannot be read. */
int fslab_proc_each_open_fd(fslab_proc_fd_fn fn, void *ctx);

/* Is the file behind fdpath (a /proc/PID/fd/N) a block device?  rdev is
 * filled when it is.  Uses the cached attributes: never waits for a FUSE
 * daemon that is busy or stopped. */
bool fslab_proc_fd_blockdev(const char *fdpath, dev_t *rdev);

/* The process's name (/proc/PID/comm, no newline).  0 or -errno (buf is
 * then "?"). */
int fslab_proc_comm(pid_t pid, char *buf, size_t len);

/* The process's command line, words joined by spaces (truncated to len).
 * 0 or -errno (buf is then ""). */
int fslab_proc_cmdline(pid_t pid, char *buf, size_t len);

/* The process group of pid (field 5 of /proc/PID/stat) into *pgrp: 0, or
 * -ESRCH when the process is gone or a zombie, or another -errno. */
int fslab_proc_pgrp(pid_t pid, pid_t *pgrp);

/* The state letter of pid (field 3 of /proc/PID/stat: 'R', 'S', 'T'
 * stopped, 'Z' zombie ...), or '?' when it cannot be read. */
char fslab_proc_state(pid_t pid);

/* Does pid's environment hold the word exactly ("FSLAB_LAB_ID=...")?
 * 1 yes, 0 no, -errno when it cannot be read. */
int fslab_proc_has_env(pid_t pid, const char *word);

/* Does the process exist (a zombie counts)? */
bool fslab_proc_alive(pid_t pid);

/* Kinds of lock in /proc/locks, for fslab_proc_lock_holder. */
enum {
	FSLAB_PROC_LOCK_FLOCK = 1 << 0, /* flock(2) */
	FSLAB_PROC_LOCK_POSIX = 1 << 1, /* fcntl F_SETLK */
	FSLAB_PROC_LOCK_OFD = 1 << 2,   /* fcntl F_OFD_SETLK (no pid known) */
	FSLAB_PROC_LOCK_LEASE = 1 << 3, /* leases and delegations */
	FSLAB_PROC_LOCK_ANY = 0xf,      /* and any kind the kernel adds */
};

/* Who holds a lock of one of the kinds on the file (dev, ino), from
 * /proc/locks (waiters are not holders)?  Locks held by process skip are
 * ignored (0: none ignored).  Returns 1 with *pid the holder (-1 when the
 * kernel names none, as for OFD locks), 0 when nobody holds one, or
 * -errno when /proc/locks cannot be read. */
int fslab_proc_lock_holder(dev_t dev, ino_t ino, unsigned kinds, pid_t skip, pid_t *pid);

/* The whole number in the sysfs attribute dir/attr ("size", "queue/
 * rotational" ...), its trailing newline ignored.  Returns 0, -errno when
 * it cannot be read, or -EINVAL when it holds anything but a number. */
int fslab_sysfs_read_u64(const char *dir, const char *attr, uint64_t *v);

#endif
