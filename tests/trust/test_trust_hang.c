/* Trust, class 3 (issue 22): inputs and mounts that never answer.  A FIFO
 * given where fslab reads a file (a spec, a sweep file, an IOzone report,
 * a state file) and a FUSE daemon that was stopped under a lab's mount.
 * Each asserts that fslab ends within a bound (a hang fails the case by
 * its own clock, not ctest's), exits non-zero and names the problem. */
#include "../provision/provtest.h"
#include "trust_util.h"

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv, killing it after timeout_ms: -ETIMEDOUT when it had to be
 * killed (it hung), else 0 with its output in o. */
static int run_bounded(const char *const argv[], int timeout_ms, struct ft_output *o)
{
	struct ft_proc p;
	int r;

	ck_assert_int_eq(ft_spawn(argv, &p), 0);
	/* a text no command prints: returns when the output closes */
	r = ft_proc_wait_for(&p, "\001never\001", timeout_ms);
	if (r == -ETIMEDOUT)
		kill(p.pid, SIGKILL);
	ck_assert_int_eq(ft_proc_finish(&p, o), 0);
	return r == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

static void assert_refused_quickly(const char *const argv[], const char *what)
{
	struct ft_output o;
	int r = run_bounded(argv, 10000, &o);

	ck_assert_msg(r == 0, "fslab %s hung on a FIFO (killed after 10 s)", argv[1]);
	tu_assert_refused(&o, what);
	tu_assert_refused(&o, "not a regular file");
	ft_output_free(&o);
}

/* Class 3: a FIFO as the spec, the sweep file, the IOzone report and the
 * state file.  Nobody ever writes to it: the old open blocked forever. */
START_TEST(fifo_inputs_are_refused_at_once)
{
	char *fifo = tu_tpath("input.fifo"), *out = tu_tpath("out"), *img = tu_tpath("lab.img");
	char *dir = tu_tpath("dir"), arg[1200];

	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(arg, sizeof(arg), "d=%s", dir);
	{
		const char *a[] = { ft_fslab_bin(), "spec", "--check", fifo, NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "setup", "--image", img, "--spec", fifo,
				    "--dry-run", NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "run", "--dir", arg, "--sweep", fifo,
				    "--out", out, NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "import", "iozone", fifo, "--fs", "ext4",
				    "--out", out, NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "status", "--state", fifo, NULL };
		assert_refused_quickly(a, fifo);
	}
	ck_assert_msg(!tu_exists(img), "a refused setup made %s", img);
	ck_assert_int_eq(unlink(fifo), 0);
	free(fifo);
	free(out);
	free(img);
	free(dir);
}
END_TEST

/* One FAT32 partition: fusefat where the kernel has no vfat. */
static const char fat_spec[] = "[disk]\nalignment = 1M\n[fs fat32]\nsize = 40M\n";

/* The pid of the fusefat serving mountpoint (its command line names it). */
static pid_t fuse_daemon_of(const char *mountpoint)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	ck_assert_ptr_nonnull(d);
	while (!found && (de = readdir(d))) {
		char p[300], buf[8192];
		ssize_t n;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/cmdline", de->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (!strstr(buf, "fusefat"))
			continue;
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
			if (strcmp(buf + i, mountpoint) == 0)
				found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	ck_assert_msg(found > 0, "no fusefat serves %s", mountpoint);
	return found;
}

static void fat_lab(struct pt_env *e, char *mp, size_t len)
{
	pt_env_init(e);
	ck_assert_int_eq(ft_write_file(e->spec, fat_spec), 0);
	pt_setup_image_ok(e);
	snprintf(mp, len, "%s/fat32", e->mnt);
}

static void fslab_bounded(struct ft_output *o, int timeout_s, const char *const argv[])
{
	int r = run_bounded(argv, timeout_s * 1000, o);

	ck_assert_msg(r == 0, "fslab %s hung on the lab's FUSE mount (killed after %d s):\n%s\n%s",
		      argv[1], timeout_s, o->out, o->err);
}

/* Continues pid when this test process ends, however it ends (a failed
 * assertion exits at once): the suite's cleanup would hang on a stopped
 * daemon.  A child that waits for the end of a pipe only we hold. */
static void continue_at_exit(pid_t pid)
{
	int fds[2];
	pid_t w;

	ck_assert_int_eq(pipe(fds), 0);
	w = fork();
	ck_assert_int_ge(w, 0);
	if (w == 0) {
		char c;

		close(fds[1]);
		while (read(fds[0], &c, 1) != 0)
			;
		kill(pid, SIGCONT);
		_exit(0);
	}
	close(fds[0]);
	/* the write end stays open (not close-on-exec is fine: fslab closes
	 * what it spawns above 2) until this process exits */
}

/* Class 3: the lab's fusefat is stopped (SIGSTOP).  status and run end
 * within their bound, exit 1 and name the daemon that does not answer;
 * teardown aborts the connection, says so, unmounts and leaves nothing. */
START_TEST(stopped_fuse_daemon_hangs_nothing)
{
	char mp[1200], pidtxt[64], *out = NULL, *sweep = NULL;
	struct pt_env e;
	struct ft_output o;
	struct stat sb;
	pid_t daemon;

	fat_lab(&e, mp, sizeof(mp));
	daemon = fuse_daemon_of(mp);
	snprintf(pidtxt, sizeof(pidtxt), "pid %d", (int)daemon);
	ck_assert_int_eq(stat(mp, &sb), 0);
	continue_at_exit(daemon);
	ck_assert_int_eq(kill(daemon, SIGSTOP), 0);
	sleep(2); /* past FUSE's attribute cache (1 s): the next stat asks the daemon */
	ck_assert_int_ge(asprintf(&out, "%s/results", e.dir), 0);
	ck_assert_int_ge(asprintf(&sweep, "%s/tiny.ini", e.dir), 0);
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 64K\nrecord_sizes = 64K\n"
					      "trials = 1\ncache = warm\n"), 0);
	{
		const char *a[] = { ft_fslab_bin(), "status", "--state", e.state, NULL };
		fslab_bounded(&o, 30, a);
		tu_assert_refused(&o, "does not answer");
		tu_assert_refused(&o, pidtxt);
		ft_output_free(&o);
	}
	{
		const char *a[] = { ft_fslab_bin(), "run", "--state", e.state, "--out", out,
				    "--sweep", sweep, "--no-device-probe", NULL };
		fslab_bounded(&o, 30, a);
		tu_assert_refused(&o, "does not answer");
		ft_output_free(&o);
	}
	{
		const char *a[] = { ft_fslab_bin(), "teardown", "--state", e.state, NULL };
		fslab_bounded(&o, 90, a);
		pt_assert_result(&o, 0, "aborted");
		ft_output_free(&o);
	}
	kill(daemon, SIGCONT);
	pt_assert_nothing_left(&e, NULL);
	free(out);
	free(sweep);
}
END_TEST

/* Class 3: the lab's fusefat was killed.  The mount is still in the table
 * but serves nothing: status says the lab is damaged and names the
 * daemon; teardown still unmounts and removes it all. */
START_TEST(dead_fuse_daemon_is_damage)
{
	char mp[1200], pidtxt[64];
	struct pt_env e;
	struct ft_output o;
	pid_t daemon;

	fat_lab(&e, mp, sizeof(mp));
	daemon = fuse_daemon_of(mp);
	snprintf(pidtxt, sizeof(pidtxt), "pid %d", (int)daemon);
	ck_assert_int_eq(kill(daemon, SIGKILL), 0);
	for (int i = 0; i < 100 && kill(daemon, 0) == 0; i++)
		usleep(50000);
	{
		const char *a[] = { ft_fslab_bin(), "status", "--state", e.state, NULL };
		fslab_bounded(&o, 30, a);
		tu_assert_refused(&o, "damaged lab");
		tu_assert_refused(&o, "FUSE daemon");
		tu_assert_refused(&o, pidtxt);
		ft_output_free(&o);
	}
	{
		const char *a[] = { ft_fslab_bin(), "teardown", "--state", e.state, NULL };
		fslab_bounded(&o, 90, a);
		pt_assert_result(&o, 0, NULL);
		ft_output_free(&o);
	}
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_hang");
	TCase *tc = ft_tcase(s, "inputs", 0);

	tu_dir_fixtures(tc, "fslab-trust-hang");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fifo_inputs_are_refused_at_once);
	tc = pt_tcase(s, "fuse", FT_LAB, 240);
	tcase_add_test(tc, stopped_fuse_daemon_hangs_nothing);
	tcase_add_test(tc, dead_fuse_daemon_is_damage);
	return ft_suite_run(s, argc, argv);
}
