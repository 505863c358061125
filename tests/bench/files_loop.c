/* The many-files tests' calls as a plain loop, for scripts/bench-engine.sh
 * part 7: what fslab's files_create, files_stat, files_read and
 * files_unlink should cost when they add nothing to the system calls.
 * Not a test; a yardstick (Debian has no fs_mark package).
 *
 *   files_loop DIR FILE_BYTES RECORD_BYTES none|fsync|fdatasync
 *
 * In DIR (which must exist and be empty of LOOP.TRE): N = 64 MiB / S files
 * (16 to 16384, as bench/engine/engine.h), 256 a directory, made, stat'ed, read
 * and removed with the same calls in the same order as bench/engine/files.c, each
 * phase timed with CLOCK_MONOTONIC from its first call to its last.  No
 * cache drop: compare with fslab run --cache warm.  Prints one line:
 *   create_s=... stat_s=... read_s=... unlink_s=... files=N
 * and exits 0, or says which call failed and exits 1. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PER_DIR 256
#define PHASE_BYTES (64ull << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, uint64_t i)
{
	fprintf(stderr, "files_loop: %s (file %llu): %s\n", what, (unsigned long long)i, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	uint64_t s, rec, n, ndirs;
	int sync_mode, top, tree, dirs[PHASE_BYTES / 4096 / PER_DIR];
	char name[16];
	void *buf;
	double t0, t_create, t_stat, t_read, t_unlink;

	if (argc != 5) {
		fprintf(stderr, "usage: files_loop DIR FILE_BYTES RECORD_BYTES none|fsync|fdatasync\n");
		return 2;
	}
	s = strtoull(argv[2], NULL, 10);
	rec = strtoull(argv[3], NULL, 10);
	sync_mode = strcmp(argv[4], "fsync") == 0 ? 1 : strcmp(argv[4], "fdatasync") == 0 ? 2 : 0;
	if (!s || !rec || s % rec || rec > (1u << 30)) {
		fprintf(stderr, "files_loop: FILE_BYTES must be a multiple of RECORD_BYTES\n");
		return 2;
	}
	n = PHASE_BYTES / s;
	n = n < 16 ? 16 : n > 16384 ? 16384 : n;
	ndirs = (n + PER_DIR - 1) / PER_DIR;
	if (posix_memalign(&buf, 4096, rec) != 0)
		return 1;
	memset(buf, 0xa5, rec);
	top = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (top < 0 || mkdirat(top, "LOOP.TRE", 0700) < 0)
		die("mkdir LOOP.TRE", 0);
	tree = openat(top, "LOOP.TRE", O_RDONLY | O_DIRECTORY);
	if (tree < 0)
		die("open LOOP.TRE", 0);

	t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		int fd;

		if (i % PER_DIR == 0) {
			snprintf(name, sizeof(name), "D%03u", (unsigned)(i / PER_DIR));
			if (mkdirat(tree, name, 0700) < 0)
				die("mkdir", i);
			dirs[i / PER_DIR] = openat(tree, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (dirs[i / PER_DIR] < 0)
				die("open directory", i);
		}
		snprintf(name, sizeof(name), "F%05u", (unsigned)i);
		fd = openat(dirs[i / PER_DIR], name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			die("create", i);
		for (uint64_t k = 0; k < s / rec; k++)
			if (write(fd, buf, rec) != (ssize_t)rec)
				die("write", i);
		if ((sync_mode == 1 && fsync(fd) < 0) || (sync_mode == 2 && fdatasync(fd) < 0))
			die("sync", i);
		if (close(fd) < 0)
			die("close", i);
	}
	t_create = now() - t0;

	t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		struct stat st;

		snprintf(name, sizeof(name), "F%05u", (unsigned)i);
		if (fstatat(dirs[i / PER_DIR], name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (uint64_t)st.st_size != s)
			die("stat", i);
	}
	t_stat = now() - t0;

	t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		int fd;

		snprintf(name, sizeof(name), "F%05u", (unsigned)i);
		fd = openat(dirs[i / PER_DIR], name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			die("open", i);
		for (uint64_t k = 0; k < s / rec; k++)
			if (read(fd, buf, rec) != (ssize_t)rec)
				die("read", i);
		if (close(fd) < 0)
			die("close", i);
	}
	t_read = now() - t0;

	t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "F%05u", (unsigned)i);
		if (unlinkat(dirs[i / PER_DIR], name, 0) < 0)
			die("unlink", i);
		if (i % PER_DIR == PER_DIR - 1 || i == n - 1) {
			snprintf(name, sizeof(name), "D%03u", (unsigned)(i / PER_DIR));
			if (unlinkat(tree, name, AT_REMOVEDIR) < 0)
				die("rmdir", i);
		}
	}
	t_unlink = now() - t0;

	for (uint64_t k = 0; k < ndirs; k++)
		close(dirs[k]);
	close(tree);
	if (unlinkat(top, "LOOP.TRE", AT_REMOVEDIR) < 0)
		die("rmdir LOOP.TRE", 0);
	close(top);
	free(buf);
	printf("create_s=%.6f stat_s=%.6f read_s=%.6f unlink_s=%.6f files=%llu\n", t_create, t_stat, t_read,
	       t_unlink, (unsigned long long)n);
	return 0;
}
