/* Trust, classes 1, 4 (results directory), 7 (SIGSTOP) and 8 (modes,
 * terminal escapes) of issue 9: what fslab run writes, where, and what it
 * records.  Each case is set up as the attack a local user could mount on a
 * root fslab run (symlinks planted where fslab writes, a foreign manifest,
 * two resumes at once, a stop in the middle of a timed test) and asserts
 * that the victim is byte-identical afterwards and that fslab either
 * refuses naming the problem or does its work without touching the victim.
 * Root: the attacker's files are owned by another user, and tmpfs mounts
 * give the SIGSTOP case a fast filesystem. */
#include "names.h"
#include "results.h"
#include "testutil.h"
#include "trust_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define NOBODY 65534
#define VICTIM_TEXT "thesis chapter 3: do not lose\n"

/* The victim: a file of another user's, outside everything fslab is
 * given. */
static char *make_victim(const char *name)
{
	char *v = tu_tpath(name);

	ck_assert_int_eq(ft_write_file(v, VICTIM_TEXT), 0);
	ck_assert_int_eq(chown(v, NOBODY, NOBODY), 0);
	return v;
}

static void assert_victim_intact(const char *v)
{
	char *got = tu_slurp(v);
	struct stat st;

	ck_assert_msg(strcmp(got, VICTIM_TEXT) == 0, "the victim %s was changed: '%s'", v, got);
	ck_assert_int_eq(lstat(v, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	free(got);
}

/* A directory every user may write (no sticky bit: the worst case). */
static char *world_writable_dir(const char *name)
{
	char *d = tu_tpath(name);

	ck_assert_int_eq(mkdir(d, 0777), 0);
	ck_assert_int_eq(chmod(d, 0777), 0);
	return d;
}

/* Plants a symlink as the attacker (owned by nobody). */
static void plant_symlink(const char *target, const char *dir, const char *name)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
	ck_assert_int_eq(lchown(p, NOBODY, NOBODY), 0);
}

static int count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* A tiny sweep: 2 file sizes x 1 record x 13 tests. */
static char *tiny_sweep(void)
{
	char *s = tu_tpath("tiny.ini");

	ck_assert_int_eq(ft_write_file(s, "[sweep]\nfile_sizes = 64K-128K\nrecord_sizes = 64K\ntrials = 1\ncache = warm\n"), 0);
	return s;
}

/* Rows of a CSV, and whether any cell appears twice. */
static size_t csv_rows(const char *csv, size_t *dups, size_t *redone, double *max_ok_elapsed)
{
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	char (*keys)[96] = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;
	size_t n = 0;
	int r;

	*dups = 0;
	if (redone)
		*redone = 0;
	if (max_ok_elapsed)
		*max_ok_elapsed = 0;
	r = fslab_results_open(csv, &rd, &fe);
	ck_assert_msg(r == 0, "%s", fe.msg);
	while ((r = fslab_results_next(rd, &row, &fe)) == 1) {
		keys = realloc(keys, (n + 1) * sizeof(*keys));
		snprintf(keys[n], sizeof(keys[n]), "%s %llu %llu %u", fslab_test_to_string(row.test),
			 (unsigned long long)row.file_kib, (unsigned long long)row.record_kib, row.trial);
		for (size_t i = 0; i < n; i++)
			*dups += strcmp(keys[i], keys[n]) == 0;
		n++;
		if (redone && strstr(row.flag, "redone-stopped"))
			(*redone)++;
		if (max_ok_elapsed && fslab_result_ok(&row) && row.elapsed_s > *max_ok_elapsed)
			*max_ok_elapsed = row.elapsed_s;
	}
	ck_assert_msg(r == 0, "%s", fe.msg);
	fslab_results_close(rd);
	free(keys);
	return n;
}

static int ns_last_pid(void)
{
	char *s = tu_slurp("/proc/sys/kernel/ns_last_pid");
	int v = atoi(s);

	free(s);
	return v;
}

/* Class 1: every name fslab ever used for its scratch files in a directory
 * under test (fslab-testfile.<pid>, .fslab-probe-<pid> for the pids the
 * run is about to get; testfile and probe), and the names of its private
 * directories (a symlink, another user's directory, one of root's with the
 * wrong mode), planted by another user in a world-writable directory.  The
 * run works; the victim and the attacker's things are untouched. */
START_TEST(planted_symlinks_in_benchmark_dir)
{
	char *victim = make_victim("victim"), *shared = world_writable_dir("shared");
	char *out = tu_tpath("out"), *sweep = tiny_sweep(), arg[4200], name[64], p[4200];
	char *vdir = tu_tpath("victim-dir");
	struct ft_output o;
	int base = ns_last_pid() + 200;

	for (int pid = base + 1; pid <= base + 80; pid++) {
		snprintf(name, sizeof(name), "fslab-testfile.%d", pid);
		plant_symlink(victim, shared, name);
		snprintf(name, sizeof(name), ".fslab-probe-%d", pid);
		plant_symlink(victim, shared, name);
	}
	plant_symlink(victim, shared, "testfile");
	plant_symlink(victim, shared, "probe");
	/* fslab-run.* look-alikes: a symlink to a directory of the victim's,
	 * another user's directory, root's with mode 0755 */
	ck_assert_int_eq(mkdir(vdir, 0755), 0);
	snprintf(p, sizeof(p), "%s/data", vdir);
	ck_assert_int_eq(ft_write_file(p, VICTIM_TEXT), 0);
	plant_symlink(vdir, shared, "fslab-run.aaaaaa");
	snprintf(p, sizeof(p), "%s/fslab-run.bbbbbb", shared);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(chown(p, NOBODY, NOBODY), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.cccccc", shared);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.cccccc/keep", shared);
	ck_assert_int_eq(ft_write_file(p, VICTIM_TEXT), 0);

	snprintf(arg, sizeof(arg), "s=%s", shared);
	/* the run's pid is next after base (as far as other processes allow) */
	char pidtxt[32];
	snprintf(pidtxt, sizeof(pidtxt), "%d", base);
	ft_write_file("/proc/sys/kernel/ns_last_pid", pidtxt);
	/* the probe writes its file here */
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--probe-size", "4M",
				  "--out", out, "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "run failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
	assert_victim_intact(victim);
	snprintf(p, sizeof(p), "%s/data", vdir);
	assert_victim_intact(p);
	snprintf(p, sizeof(p), "%s/fslab-run.cccccc/keep", shared);
	assert_victim_intact(p);
	/* the attacker's entries are all still there; fslab's own dir is gone */
	ck_assert_int_eq(count_prefix(shared, "fslab-testfile."), 80);
	ck_assert_int_eq(count_prefix(shared, "fslab-run."), 3);
	size_t dups;
	snprintf(p, sizeof(p), "%s/s.csv", out);
	ck_assert_uint_eq(csv_rows(p, &dups, NULL, NULL), 2 * 13);
	free(victim);
	free(shared);
	free(out);
	free(sweep);
	free(vdir);
}
END_TEST

/* A private directory a killed run left (root's, 0700, nobody holds it) is
 * removed by the next run; a live run's is not (two runs at once on one
 * directory both finish). */
START_TEST(stale_private_dir_removed)
{
	char *dir = tu_tpath("d"), *out = tu_tpath("o"), *sweep = tiny_sweep(), p[4200];

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.Zz9Zz9", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(chmod(p, 0700), 0);
	/* a killed run's directory carries the run's mark */
	ck_assert_int_eq(setxattr(p, "trusted.fslab.run", "0b0e8f1c-5a2d-4c3e-9f10-1a2b3c4d5e6f", 36, 0), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.Zz9Zz9/testfile", dir);
	ck_assert_int_eq(ft_write_file(p, "left by a killed run"), 0);
	tu_finished_run(dir, out, sweep);
	ck_assert_int_eq(count_prefix(dir, "fslab-run."), 0);
	free(dir);
	free(out);
	free(sweep);
}
END_TEST

/* A normal user benchmarks a directory of their own (the run as root
 * drops to nobody first): every cache mode finishes, nothing of the run's
 * is left, a killed run's directory carrying the user's mark
 * (user.fslab.run: only its owner or root can set it on a 0700 directory)
 * is removed, and one of fslab's name without it stays. */
START_TEST(user_runs_own_dir)
{
	static const char *const modes[] = { "cold", "warm", "fsync", "direct" };
	char *dir, *sweep, arg[4200], p[4200], out[4200];
	struct ft_output o;

	if (geteuid() == 0) {
		ck_assert_int_eq(chown(tu_tmp, NOBODY, NOBODY), 0);
		ck_assert_int_eq(setgroups(0, NULL), 0);
		ck_assert_int_eq(setresgid(NOBODY, NOBODY, NOBODY), 0);
		ck_assert_int_eq(setresuid(NOBODY, NOBODY, NOBODY), 0);
	}
	dir = tu_tpath("d");
	sweep = tiny_sweep();
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.Kk1Kk1", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(chmod(p, 0700), 0);
	ck_assert_int_eq(setxattr(p, "user.fslab.run", "0b0e8f1c-5a2d-4c3e-9f10-1a2b3c4d5e6f", 36, 0), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.Kk1Kk1/testfile", dir);
	ck_assert_int_eq(ft_write_file(p, "left by a killed run"), 0);
	snprintf(p, sizeof(p), "%s/fslab-run.Uu2Uu2", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0); /* the user's own, unmarked */
	ck_assert_int_eq(chmod(p, 0700), 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(out, sizeof(out), "%s/out-%s", tu_tmp, modes[i]);
		ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--cache", modes[i],
					  "--probe-size", "4M", "--out", out, "--quiet", NULL),
				 0);
		ck_assert_msg(o.status == 0, "--cache %s as uid %u failed (%d): %s", modes[i], (unsigned)geteuid(),
			      o.status, o.err);
		ft_output_free(&o);
		ck_assert_int_eq(count_prefix(dir, "fslab-run."), 1);
		ck_assert(tu_exists(p));
		ck_assert_int_eq(count_prefix(dir, ""), 3); /* ., .. and the unmarked one */
	}
	free(dir);
	free(sweep);
}
END_TEST

/* fslab run of --dir arg with the sweep into out is refused, saying
 * `says`. */
static void run_into_refused(const char *arg, const char *sweep, const char *out, const char *says)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--no-device-probe",
				  "--out", out, "--quiet", NULL),
			 0);
	ck_assert_msg(o.status != 0, "the run wrote into %s", out);
	ck_assert_msg(strstr(o.err, says), "the refusal does not say %s: %s", says, o.err);
	ft_output_free(&o);
}

/* Class 1: a new --out that another user prepared with s.csv, the run
 * marker or manifest.json pointing at the victim. */
START_TEST(planted_symlinks_in_new_out)
{
	char *victim = make_victim("victim"), *sweep = tiny_sweep(), *dir = tu_tpath("d");
	static const char *const names[] = { "s.csv", ".fslab-run" };
	char arg[4200];

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	for (size_t i = 0; i < 2; i++) {
		char oname[32];
		snprintf(oname, sizeof(oname), "out%zu", i);
		char *out = world_writable_dir(oname);

		plant_symlink(victim, out, names[i]);
		run_into_refused(arg, sweep, out, names[i]);
		assert_victim_intact(victim);
		free(out);
	}
	/* manifest.json planted as a symlink: refused as "holds a run" */
	char *out = world_writable_dir("out-m");
	plant_symlink(victim, out, "manifest.json");
	run_into_refused(arg, sweep, out, "manifest.json");
	assert_victim_intact(victim);
	/* --out itself a symlink to a directory: not followed */
	char *vdir = tu_tpath("vdir"), *lnk = tu_tpath("out-link");
	ck_assert_int_eq(mkdir(vdir, 0755), 0);
	ck_assert_int_eq(symlink(vdir, lnk), 0);
	run_into_refused(arg, sweep, lnk, "symbolic link");
	ck_assert_int_eq(count_prefix(vdir, ""), 2); /* . and .. */
	free(vdir);
	free(lnk);
	free(out);
	free(victim);
	free(sweep);
	free(dir);
}
END_TEST

/* Class 1/4: --resume DIR where s.csv is a symlink to the victim (whose
 * last line has no newline, so the old resume cut it off): refused before
 * anything changes. */
START_TEST(resume_symlinked_csv)
{
	char *dir = tu_tpath("d"), *out = tu_tpath("out"), *sweep = tiny_sweep(), *victim = tu_tpath("victim");
	char csv[4200], mf[4200], *mf_before, *mf_after;
	struct ft_output o;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	tu_finished_run(dir, out, sweep);
	ck_assert_int_eq(ft_write_file(victim, VICTIM_TEXT "no newline at the end"), 0);
	snprintf(csv, sizeof(csv), "%s/s.csv", out);
	ck_assert_int_eq(unlink(csv), 0);
	ck_assert_int_eq(symlink(victim, csv), 0);
	snprintf(mf, sizeof(mf), "%s/manifest.json", out);
	mf_before = tu_slurp(mf);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_int_ne(o.status, 0);
	ck_assert_msg(strstr(o.err, "symbolic link") && strstr(o.err, "s.csv"), "%s", o.err);
	ft_output_free(&o);
	char *v = tu_slurp(victim);
	ck_assert_str_eq(v, VICTIM_TEXT "no newline at the end");
	free(v);
	mf_after = tu_slurp(mf);
	ck_assert_str_eq(mf_before, mf_after); /* nothing in DIR changed either */
	free(mf_before);
	free(mf_after);
	free(dir);
	free(out);
	free(sweep);
	free(victim);
}
END_TEST

/* Class 4: a manifest.json copied from another run into DIR is not
 * resumed as DIR's own. */
START_TEST(foreign_manifest_refused)
{
	char *dir = tu_tpath("d"), *a = tu_tpath("a"), *b = tu_tpath("b"), *sweep = tiny_sweep();
	char p[4200], *csv_before, *csv_after, *foreign;
	struct ft_output o;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	tu_finished_run(dir, a, sweep);
	tu_finished_run(dir, b, sweep);
	snprintf(p, sizeof(p), "%s/manifest.json", b);
	foreign = tu_slurp(p);
	snprintf(p, sizeof(p), "%s/manifest.json", a);
	ck_assert_int_eq(ft_write_file(p, foreign), 0);
	/* and a cut-off row the resume would otherwise trim */
	snprintf(p, sizeof(p), "%s/s.csv", a);
	FILE *f = fopen(p, "a");
	fputs("s,write,64,6", f);
	fclose(f);
	csv_before = tu_slurp(p);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", a, "--quiet", NULL), 0);
	ck_assert_int_ne(o.status, 0);
	ck_assert_msg(strstr(o.err, "belongs to run") && strstr(o.err, "not this directory's"), "%s",
		      o.err);
	ft_output_free(&o);
	csv_after = tu_slurp(p);
	ck_assert_str_eq(csv_before, csv_after);
	snprintf(p, sizeof(p), "%s/manifest.json", a);
	char *m = tu_slurp(p);
	ck_assert_str_eq(m, foreign);
	free(m);
	/* a manifest dropped into a directory with no run marker at all */
	char *c = tu_tpath("c");
	ck_assert_int_eq(mkdir(c, 0755), 0);
	snprintf(p, sizeof(p), "%s/manifest.json", c);
	ck_assert_int_eq(ft_write_file(p, foreign), 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", c, "--quiet", NULL), 0);
	ck_assert_int_ne(o.status, 0);
	ck_assert_msg(strstr(o.err, "no run id"), "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(count_prefix(c, "s.csv"), 0);
	free(c);
	free(foreign);
	free(csv_before);
	free(csv_after);
	free(dir);
	free(a);
	free(b);
	free(sweep);
}
END_TEST

/* Class 4: two `run --resume DIR` at once: one is refused naming the
 * other; the CSV holds every cell once. */
START_TEST(concurrent_resumes)
{
	char *dir = tu_tpath("d"), *out = tu_tpath("out"), *sweep = tu_tpath("sweep.ini"), arg[4200], csv[4200];
	struct ft_proc first;
	struct ft_output o1, o2;
	size_t dups, rows;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mount("fslab-trust", dir, "tmpfs", 0, "size=128m"), 0);
	/* 64K..8M files x 64K records: 8 cells x 13 tests, with fsync */
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 64K-8M\nrecord_sizes = 64K\ncache = fsync\ntrials = 3\n"),
			 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	/* an interrupted run to resume: made by stopping it right away */
	const char *argv0[] = { ft_fslab_bin(), "run", "--dir", arg, "--sweep", sweep, "--no-device-probe",
				"--out", out, NULL };
	ck_assert_int_eq(ft_spawn(argv0, &first), 0);
	ck_assert_int_eq(ft_proc_wait_for(&first, "results in", 20000), 0);
	kill(first.pid, SIGINT);
	ck_assert_int_eq(ft_proc_finish(&first, &o1), 0);
	ft_output_free(&o1);

	const char *argv1[] = { ft_fslab_bin(), "run", "--resume", out, NULL };
	ck_assert_int_eq(ft_spawn(argv1, &first), 0);
	ck_assert_int_eq(ft_proc_wait_for(&first, "results in", 20000), 0);
	/* the first resume holds the directory (stopped, so it cannot finish
	 * first); the second comes now */
	kill(first.pid, SIGSTOP);
	ck_assert_int_eq(ft_fslab(&o2, "run", "--resume", out, "--quiet", NULL), 0);
	kill(first.pid, SIGCONT);
	ck_assert_int_eq(ft_proc_finish(&first, &o1), 0);
	ck_assert_msg(o1.status == 0, "the first resume failed (%d): %s", o1.status, o1.err);
	ck_assert_int_ne(o2.status, 0);
	ck_assert_msg(strstr(o2.err, "in use by another fslab run") && strstr(o2.err, "pid "), "%s",
		      o2.err);
	ft_output_free(&o1);
	ft_output_free(&o2);
	snprintf(csv, sizeof(csv), "%s/s.csv", out);
	rows = csv_rows(csv, &dups, NULL, NULL);
	umount2(dir, MNT_DETACH);
	ck_assert_uint_eq(dups, 0);
	ck_assert_uint_eq(rows, 8 * 13 * 3);
	free(dir);
	free(out);
	free(sweep);
}
END_TEST

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Class 7: a run stopped (SIGSTOP) for 2 s in the middle of a timed test:
 * the test is run again, its row says so, and no ok row has a timed region
 * that spans the stop. */
START_TEST(sigstop_cell_redone)
{
	char *dir = tu_tpath("d"), *out = tu_tpath("out"), *sweep = tu_tpath("sweep.ini"), arg[4200], csv[4200];
	size_t dups, redone = 0, rows;
	double max_el;
	int st, tries = 0;
	pid_t pid;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mount("fslab-trust", dir, "tmpfs", 0, "size=256m"), 0);
	/* 16M-64M files in 4K records: tens of ms per test, almost all of it
	 * inside the timer (warm cache: cold mode's drop_caches between tests,
	 * on tmpfs, is untimed and can take longer than the tests themselves on
	 * a machine with much in its page cache, so the stops would miss);
	 * 6 trials, so the run lasts long enough for several stops (with 2
	 * it took 0.5 s, and CI once saw it end after 2 stops that both
	 * missed) */
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 16M-64M\nrecord_sizes = 4K-8K\nsmall_records = keep\ntests = write,rewrite,read,reread\ntrials = 6\n"),
			 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	snprintf(csv, sizeof(csv), "%s/s.csv", out);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(ft_fslab_bin(), ft_fslab_bin(), "run", "--dir", arg, "--sweep", sweep,
		      "--cache", "warm", "--no-device-probe", "--out", out, "--quiet", (char *)NULL);
		_exit(127);
	}
	/* stop it inside a test until a stop lands in a timed region */
	while (tries < 10 && redone == 0) {
		int lines = 0;
		for (int i = 0; i < 400 && lines < 3 + tries; i++) {
			FILE *f = fopen(csv, "r");
			int c;
			lines = 0;
			if (f) {
				while ((c = fgetc(f)) != EOF)
					lines += c == '\n';
				fclose(f);
			}
			sleep_ms(10);
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			pid = -1;
			break;
		}
		sleep_ms(7);
		kill(pid, SIGSTOP);
		sleep_ms(2000);
		kill(pid, SIGCONT);
		sleep_ms(400);
		tries++;
		if (access(csv, R_OK) == 0)
			csv_rows(csv, &dups, &redone, &max_el);
	}
	if (pid > 0)
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	umount2(dir, MNT_DETACH);
	ck_assert_msg(tries > 0, "the run finished before it could be stopped");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	rows = csv_rows(csv, &dups, &redone, &max_el);
	ck_assert_uint_eq(dups, 0);
	ck_assert_uint_eq(rows, 3 * 2 * 4 * 6);
	ck_assert_msg(redone > 0, "%d stops of 2 s, none redone a test", tries);
	ck_assert_msg(max_el < 1.5, "an ok row was timed across a 2 s stop (%.2f s)", max_el);
	free(dir);
	free(out);
	free(sweep);
}
END_TEST

/* Class 8: under umask 000 the results are 0644 and their directory 0755. */
START_TEST(results_modes_under_umask_000)
{
	char *dir = tu_tpath("d"), *out = tu_tpath("out"), *sweep = tiny_sweep(), p[4200];
	static const char *const files[] = { "s.csv", "manifest.json", ".fslab-run" };
	struct stat st;
	mode_t old;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	old = umask(0);
	tu_finished_run(dir, out, sweep);
	umask(old);
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", out, files[i]);
		ck_assert_int_eq(lstat(p, &st), 0);
		ck_assert_msg((st.st_mode & 07777) == 0644, "%s has mode %o", p, st.st_mode & 07777);
	}
	free(dir);
	free(out);
	free(sweep);
}
END_TEST

/* Class 8: a directory name carrying terminal escape sequences reaches the
 * terminal escaped (\x1b), never as the raw control bytes. */
START_TEST(escape_sequences_in_names)
{
	char *dir = tu_tpath("d\033]0;owned\007\033[2J"), *out = tu_tpath("out\033[31m"), *sweep = tiny_sweep();
	char arg[4200];
	struct ft_output o;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--probe-size", "4M",
				  "--out", out, NULL),
			 0);
	ck_assert_msg(o.status == 0, "run failed (%d): %s", o.status, o.err);
	ck_assert_msg(!strchr(o.err, '\033') && !strchr(o.out, '\033') && !strchr(o.err, '\007'),
		      "raw control bytes reached the terminal");
	ck_assert_msg(strstr(o.err, "d\\x1b]0;owned\\x07\\x1b[2J"), "the name is not shown escaped: %s",
		      o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "out\\x1b[31m"));
	ft_output_free(&o);
	/* an error naming the directory, too */
	char *gone = tu_tpath("gone\033[2J");
	snprintf(arg, sizeof(arg), "s=%s", gone);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--out", out, NULL), 0);
	ck_assert_int_ne(o.status, 0);
	ck_assert_msg(!strchr(o.err, '\033'), "raw ESC in: %s", o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "gone\\x1b[2J"));
	ft_output_free(&o);
	free(gone);
	free(dir);
	free(out);
	free(sweep);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_run");
	TCase *tc = ft_tcase(s, "run", FT_ROOT);

	tu_dir_fixtures(tc, "fslab-trust-run");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, planted_symlinks_in_benchmark_dir);
	tcase_add_test(tc, stale_private_dir_removed);
	tcase_add_test(tc, planted_symlinks_in_new_out);
	tcase_add_test(tc, resume_symlinked_csv);
	tcase_add_test(tc, foreign_manifest_refused);
	tcase_add_test(tc, concurrent_resumes);
	tcase_add_test(tc, sigstop_cell_redone);
	tcase_add_test(tc, results_modes_under_umask_000);
	tcase_add_test(tc, escape_sequences_in_names);
	tc = ft_tcase(s, "run_user", 0);
	tu_dir_fixtures(tc, "fslab-trust-run-user");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, user_runs_own_dir);
	return ft_suite_run(s, argc, argv);
}
