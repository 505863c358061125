/* lib/procfs: what fslab reads about other processes.  Each test makes
 * the fact it looks for (a child in its own process group with a word in
 * its environment, an open block device, a flock, an OFD lock) and checks
 * that the reader finds it, and does not find it where it is not. */
#include "procfs.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir;

static void fx_setup(void)
{
	tmpdir = ft_mkdtemp("fslab-procfs");
	ck_assert_ptr_nonnull(tmpdir);
}

static void fx_teardown(void)
{
	ft_rm_rf(tmpdir);
	free(tmpdir);
}

/* "sleep 60" in its own process group with FSLAB_T_WORD=yes added; its
 * output goes to /dev/null, so that one left behind by a failed test does
 * not hold the test's output open.  Returns once the kernel shows the new
 * program's command line (posix_spawn returns as soon as the exec is under
 * way, before /proc/PID/environ and cmdline are the new program's). */
static pid_t spawn_sleeper(void)
{
	char *const argv[] = { "sleep", "60", NULL };
	char *envp[] = { "FSLAB_T_WORD=yes", "PATH=/usr/bin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char cmd[64] = "";
	pid_t pid;

	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0), 0);
	ck_assert_int_eq(posix_spawnattr_init(&at), 0);
	ck_assert_int_eq(posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP), 0);
	ck_assert_int_eq(posix_spawnattr_setpgroup(&at, 0), 0);
	ck_assert_int_eq(posix_spawn(&pid, "/bin/sleep", &fa, &at, argv, envp), 0);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < 1000 && strcmp(cmd, "sleep 60") != 0; i++) {
		if (fslab_proc_cmdline(pid, cmd, sizeof(cmd)) < 0 || strcmp(cmd, "sleep 60") != 0)
			usleep(10000);
	}
	ck_assert_str_eq(cmd, "sleep 60");
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

START_TEST(pgrp_env_comm_cmdline_of_a_child)
{
	pid_t pid = spawn_sleeper(), g = 0;
	char buf[256];

	ck_assert_int_eq(fslab_proc_pgrp(pid, &g), 0);
	ck_assert_int_eq(g, pid);
	ck_assert_int_eq(fslab_proc_pgrp(getpid(), &g), 0);
	ck_assert_int_eq(g, getpgrp());
	ck_assert_int_eq(fslab_proc_has_env(pid, "FSLAB_T_WORD=yes"), 1);
	ck_assert_int_eq(fslab_proc_has_env(pid, "FSLAB_T_WORD=y"), 0);
	ck_assert_int_eq(fslab_proc_has_env(pid, "FSLAB_T_WORD"), 0);
	ck_assert_int_eq(fslab_proc_comm(pid, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "sleep");
	ck_assert_int_eq(fslab_proc_cmdline(pid, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "sleep 60");
	ck_assert(fslab_proc_alive(pid));
	kill(pid, SIGKILL);
	/* a zombie has no process group any more; reaped, it is gone */
	for (int i = 0; i < 1000 && fslab_proc_pgrp(pid, &g) == 0; i++)
		usleep(10000);
	ck_assert_int_eq(fslab_proc_pgrp(pid, &g), -ESRCH);
	waitpid(pid, NULL, 0);
	ck_assert(!fslab_proc_alive(pid));
	ck_assert_int_eq(fslab_proc_pgrp(pid, &g), -ESRCH);
	ck_assert_int_lt(fslab_proc_comm(pid, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "?");
}
END_TEST

struct find_pid {
	pid_t want;
	int seen;
};

static int find_pid_step(pid_t pid, void *ctx)
{
	struct find_pid *f = ctx;

	if (pid == f->want)
		f->seen++;
	return 0;
}

START_TEST(each_pid_sees_a_child_once)
{
	struct find_pid f = { .want = spawn_sleeper() };

	ck_assert_int_eq(fslab_proc_each_pid(find_pid_step, &f), 0);
	ck_assert_int_eq(f.seen, 1);
	reap(f.want);
}
END_TEST

struct find_fd {
	int want_fd;
	bool found_fd;
	dev_t want_rdev;
	bool found_blk;
};

static int find_fd_step(pid_t pid, int fd, const char *fdpath, void *ctx)
{
	struct find_fd *f = ctx;
	dev_t rdev;

	if (pid != getpid())
		return 0;
	if (fd == f->want_fd)
		f->found_fd = true;
	if (fslab_proc_fd_blockdev(fdpath, &rdev) && rdev == f->want_rdev)
		f->found_blk = true;
	return 0;
}

/* An open file is listed, and is not a block device; /dev/null (a
 * character device) is not one either. */
START_TEST(each_fd_lists_ours_and_tells_block_devices)
{
	char path[4100];
	struct find_fd f = { .want_rdev = makedev(1, 3) }; /* what /dev/null would be */
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	snprintf(path, sizeof(path), "%s/f", tmpdir);
	ck_assert_int_eq(ft_write_file(path, "x"), 0);
	f.want_fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(f.want_fd, 0);
	ck_assert_int_ge(nul, 0);
	ck_assert_int_eq(fslab_proc_each_open_fd(find_fd_step, &f), 0);
	ck_assert(f.found_fd);
	ck_assert(!f.found_blk);
	close(f.want_fd);
	close(nul);
}
END_TEST

static int stop_at_first(pid_t pid, int fd, const char *fdpath, void *ctx)
{
	(void)pid;
	(void)fd;
	(void)fdpath;
	++*(int *)ctx;
	return 42;
}

START_TEST(walk_stops_with_the_callbacks_value)
{
	int calls = 0;

	ck_assert_int_eq(fslab_proc_each_open_fd(stop_at_first, &calls), 42);
	ck_assert_int_eq(calls, 1);
}
END_TEST

/* A flock held by a child is found with its pid; skipping that pid, or
 * asking for POSIX locks only, finds none; an OFD lock has no pid. */
START_TEST(lock_holder_from_proc_locks)
{
	char path[4100];
	struct stat st;
	pid_t holder = 0, child;
	int fd, p[2];
	char c;

	snprintf(path, sizeof(path), "%s/lock", tmpdir);
	ck_assert_int_eq(ft_write_file(path, ""), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_ANY, 0, &holder),
			 0);
	ck_assert_int_eq(pipe(p), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		int lfd = open(path, O_RDONLY);

		if (lfd < 0 || flock(lfd, LOCK_EX) < 0 || write(p[1], "k", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	ck_assert_int_eq(fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_FLOCK, 0, &holder),
			 1);
	ck_assert_int_eq(holder, child);
	ck_assert_int_eq(fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_FLOCK, child,
						&holder),
			 0);
	ck_assert_int_eq(fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_POSIX, 0, &holder),
			 0);
	reap(child);

	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	{
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		ck_assert_int_eq(fcntl(fd, F_OFD_SETLK, &fl), 0);
	}
	ck_assert_int_eq(fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_ANY, 0, &holder),
			 1);
	ck_assert_int_eq(holder, -1);
	close(fd);
	ck_assert_int_eq(fslab_proc_lock_holder(st.st_dev, st.st_ino, FSLAB_PROC_LOCK_ANY, 0, &holder),
			 0);
}
END_TEST

/* A sysfs attribute as the kernel writes it ("976773168\n"), a bare
 * number, one that is not a number, and one that is not there. */
START_TEST(sysfs_number_with_its_newline)
{
	static const struct {
		const char *attr, *text;
		int r;
		uint64_t v;
	} cases[] = {
		{ "size", "976773168\n", 0, 976773168 },
		{ "rotational", "0", 0, 0 },
		{ "max", "18446744073709551615\n", 0, UINT64_MAX },
		{ "model", "Samsung SSD\n", -EINVAL, 7 },
		{ "neg", "-1\n", -EINVAL, 7 },
		{ "empty", "\n", -EINVAL, 7 },
	};
	char path[4096];
	uint64_t v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, cases[i].attr);
		ck_assert_int_eq(ft_write_file(path, cases[i].text), 0);
		v = 7;
		ck_assert_msg(fslab_sysfs_read_u64(tmpdir, cases[i].attr, &v) == cases[i].r &&
				      v == cases[i].v,
			      "%s = '%s': got %llu", cases[i].attr, cases[i].text, (unsigned long long)v);
	}
	ck_assert_int_eq(fslab_sysfs_read_u64(tmpdir, "absent", &v), -ENOENT);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("procfs");
	TCase *tc = ft_tcase(s, "procfs", 0);

	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
	tcase_add_test(tc, pgrp_env_comm_cmdline_of_a_child);
	tcase_add_test(tc, each_pid_sees_a_child_once);
	tcase_add_test(tc, each_fd_lists_ours_and_tells_block_devices);
	tcase_add_test(tc, walk_stops_with_the_callbacks_value);
	tcase_add_test(tc, lock_holder_from_proc_locks);
	tcase_add_test(tc, sysfs_number_with_its_newline);
	return ft_suite_run(s, argc, argv);
}
