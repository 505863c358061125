/* Advisory locks that keep two fslab commands off one lab.  flock(2) on a
 * lock file: the kernel drops it when the holder dies, so a killed fslab
 * never leaves a lock that blocks forever; the holder's pid and command are
 * written into the file only to name it in the refusal. */
#ifndef FSLAB_LOCK_H
#define FSLAB_LOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The lock under the lab's locks (provision/lab.h): locks the file
 * name in the directory dfd with flock(how | LOCK_NB), how LOCK_SH or
 * LOCK_EX.  The file is created 0600 (no-follow) and must be a regular
 * file with a single link, owned by the caller: anything else is refused
 * (-EINVAL), never written.  Every holder writes "command, pid N" into it
 * (of several shared holders, the last one's name stays).  Returns the fd;
 * -EWOULDBLOCK with the holder's line in holder when another process has
 * it; another negative errno otherwise. */
int fslab_lock_at(int dfd, const char *name, int how, const char *command, char *holder,
		  size_t holderlen);

/* Does the "command, pid N" line read from a lock file name a process
 * that still exists?  (The last of several shared holders may have gone.) */
bool fslab_lock_holder_alive(const char *holder);

/* Releases the lock (closes fd); fd < 0 is ignored.  The lock file is left
 * in place: removing it would race with another process opening it. */
void fslab_lock_release(int fd);

#endif
