/* Trust, the results and report failures of the red-team report on issue 9
 * (findings F2, F12, F3, F16, F4, F13): what another user, or a
 * copy of another run's files, can make fslab run, report, export and
 * import do.  Each case is set up as the attack and asserts that the victim
 * is byte-identical afterwards and that fslab exits non-zero naming the
 * problem.  Root: the attacker's files are owned by another user. */
#include "state.h"
#include "testutil.h"
#include "trust_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

static char *slurp_at(const char *dir, const char *name)
{
	char *p = tu_join(dir, name), *text = tu_slurp(p);

	free(p);
	return text;
}

static void put_at(const char *dir, const char *name, const char *text)
{
	char *p = tu_join(dir, name);

	ck_assert_int_eq(ft_write_file(p, text), 0);
	free(p);
}

static void same(const char *before, const char *after, const char *what)
{
	ck_assert_msg(strcmp(before, after) == 0, "%s changed", what);
}

/* dir/name still holds before (what: how a failure names it). */
static void same_at(const char *dir, const char *name, const char *before, const char *what)
{
	char *t = slurp_at(dir, name);

	same(before, t, what);
	free(t);
}

static bool exists_at(const char *dir, const char *name)
{
	char *p = tu_join(dir, name);
	struct stat st;
	bool there = lstat(p, &st) == 0;

	free(p);
	return there;
}

static char *sweep_file(const char *name, const char *sizes)
{
	char *s = tu_tpath(name), text[256];

	snprintf(text, sizeof(text),
		 "[sweep]\nfile_sizes = %s\nrecord_sizes = 64K\ntests = write,read\ntrials = 1\ncache = warm\n",
		 sizes);
	ck_assert_int_eq(ft_write_file(s, text), 0);
	return s;
}

/* `run --dir arg --sweep sweep --out out` fails naming want1 and want2. */
static void run_into_refused(const char *arg, const char *sweep, const char *out, const char *want1,
			     const char *want2)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--no-device-probe",
				  "--out", out, "--quiet", NULL),
			 0);
	ck_assert_int_ne(o.status, 0);
	tu_has(o.err, want1);
	tu_has(o.err, want2);
	ft_output_free(&o);
}

/* `run --resume out` is refused with a message holding want1 and want2. */
static void resume_refused(const char *out, const char *want1, const char *want2)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status != 0, "resume of %s accepted: %s", out, o.err);
	tu_has(o.err, want1);
	if (want2)
		tu_has(o.err, want2);
	ft_output_free(&o);
}

/* ---- F2: results directories and files of another user ---- */

/* --out an existing directory another user owns (in a shared 1777
 * directory), or one every user may write to: refused, nothing written. */
START_TEST(f2_out_foreign_dir)
{
	char *dir = tu_tpath("d"), *shared = tu_tpath("shared"), *sweep = sweep_file("s.ini", "64K");
	char res[4200], arg[4200];

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(shared, 0777), 0);
	ck_assert_int_eq(chmod(shared, 01777), 0);
	snprintf(res, sizeof(res), "%s/res", shared);
	ck_assert_int_eq(mkdir(res, 0755), 0);
	ck_assert_int_eq(chown(res, NOBODY, NOBODY), 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	run_into_refused(arg, sweep, res, "belongs to uid 65534", "res");
	ck_assert(!exists_at(res, ".fslab-run"));
	ck_assert_int_eq(ft_dir_entries(res), 0);
	/* root's own, but writable by every user */
	ck_assert_int_eq(chown(res, 0, 0), 0);
	ck_assert_int_eq(chmod(res, 0777), 0);
	run_into_refused(arg, sweep, res, "writable by other users", "chmod go-w");
	ck_assert_int_eq(ft_dir_entries(res), 0);
	ck_assert_int_eq(ft_dir_entries(dir), 0);
	free(dir);
	free(shared);
	free(sweep);
}
END_TEST

/* --resume of a results directory another user owns, or whose manifest
 * or run marker is another user's, hard-linked or writable by others: the
 * attacker points the manifest at a victim directory; refused, the victim
 * and the results unchanged. */
START_TEST(f2_resume_foreign_files)
{
	char *dir = tu_tpath("d"), *out = tu_tpath("out"), *victim = tu_tpath("victimdir"),
	     *sweep = sweep_file("s.ini", "64K-128K");
	char p[4200], q[4200], *csv, *mf, *mark, *t;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(victim, 0755), 0);
	tu_finished_run(dir, out, sweep);
	/* the attacker's manifest: the victim directory, a bigger sweep */
	mf = slurp_at(out, "manifest.json");
	t = strstr(mf, dir);
	ck_assert_ptr_nonnull(t);
	char *evil;
	ck_assert_int_ge(asprintf(&evil, "%.*s%s%s", (int)(t - mf), mf, victim, t + strlen(dir)), 0);
	put_at(out, "manifest.json", evil);
	free(mf);
	mf = evil;
	csv = slurp_at(out, "s.csv");
	mark = slurp_at(out, ".fslab-run");
	snprintf(p, sizeof(p), "%s/manifest.json", out);
	snprintf(q, sizeof(q), "%s/.fslab-run", out);

	ck_assert_int_eq(chown(out, NOBODY, NOBODY), 0);
	resume_refused(out, "the directory belongs to uid 65534", "nothing was changed");
	ck_assert_int_eq(chown(out, 0, 0), 0);
	ck_assert_int_eq(chmod(out, 0775), 0);
	resume_refused(out, "the directory is writable by its group", "chmod go-w");
	ck_assert_int_eq(chmod(out, 0755), 0);

	ck_assert_int_eq(chown(p, NOBODY, NOBODY), 0);
	resume_refused(out, "manifest.json belongs to uid 65534", NULL);
	ck_assert_int_eq(chown(p, 0, 0), 0);
	ck_assert_int_eq(chmod(p, 0666), 0);
	resume_refused(out, "manifest.json is writable by other users", NULL);
	ck_assert_int_eq(chmod(p, 0644), 0);
	snprintf(q, sizeof(q), "%s/mf-link", tu_tmp);
	ck_assert_int_eq(link(p, q), 0);
	resume_refused(out, "manifest.json has 2 hard links", NULL);
	ck_assert_int_eq(unlink(q), 0);

	snprintf(q, sizeof(q), "%s/.fslab-run", out);
	ck_assert_int_eq(chown(q, NOBODY, NOBODY), 0);
	resume_refused(out, ".fslab-run belongs to uid 65534", NULL);
	ck_assert_int_eq(chown(q, 0, 0), 0);
	snprintf(p, sizeof(p), "%s/mark-link", tu_tmp);
	ck_assert_int_eq(link(q, p), 0);
	resume_refused(out, ".fslab-run has 2 hard links", NULL);
	ck_assert_int_eq(unlink(p), 0);

	ck_assert_int_eq(ft_dir_entries(victim), 0);
	same_at(out, "s.csv", csv, "s.csv");
	same_at(out, "manifest.json", mf, "manifest.json");
	same_at(out, ".fslab-run", mark, ".fslab-run");
	free(csv);
	free(mf);
	free(mark);
	free(dir);
	free(out);
	free(victim);
	free(sweep);
}
END_TEST

/* ---- F12: resume mixing two runs ---- */

static void copy_file(const char *from_dir, const char *to_dir, const char *name)
{
	char *text = slurp_at(from_dir, name);

	put_at(to_dir, name, text);
	free(text);
}

/* Run B's manifest.json and .fslab-run copied together into run A's
 * directory (the run ids then agree): refused, A's CSV byte-identical. */
START_TEST(f12_resume_copied_marker_and_manifest)
{
	char *da = tu_tpath("da"), *db = tu_tpath("db"), *a = tu_tpath("A"), *b = tu_tpath("B"),
	     *sa = sweep_file("a.ini", "64K-128K"), *sb = sweep_file("b.ini", "256K");
	char *csv_a;

	ck_assert_int_eq(mkdir(da, 0755), 0);
	ck_assert_int_eq(mkdir(db, 0755), 0);
	tu_finished_run(da, a, sa);
	tu_finished_run(db, b, sb);
	csv_a = slurp_at(a, "s.csv");
	copy_file(b, a, "manifest.json");
	copy_file(b, a, ".fslab-run");
	resume_refused(a, ".fslab-run was written for another directory", "copied in from another run");
	same_at(a, "s.csv", csv_a, "A/s.csv");
	ck_assert_int_eq(ft_dir_entries(da), 0);
	ck_assert_int_eq(ft_dir_entries(db), 0);
	free(csv_a);
	free(da);
	free(db);
	free(a);
	free(b);
	free(sa);
	free(sb);
}
END_TEST

/* A CSV copied in from another run (same names, same sweep), and a
 * manifest whose plan (rewritten in place, run id kept) no longer covers
 * the CSV's rows: refused before anything is appended. */
START_TEST(f12_resume_rows_outside_plan)
{
	char *da = tu_tpath("da"), *a = tu_tpath("A"), *b = tu_tpath("B"), *sa = sweep_file("a.ini", "64K-128K");
	char p[8400], *csv_a, *mf, *t, *k, *evil, *e2;

	ck_assert_int_eq(mkdir(da, 0755), 0);
	tu_finished_run(da, a, sa);
	tu_finished_run(da, b, sa);
	csv_a = slurp_at(a, "s.csv");
	/* the manifest's sweep narrowed to 256K files (run id kept): the
	 * CSV's rows are outside the plan */
	mf = slurp_at(a, "manifest.json");
	k = strstr(mf, "\"file_min_kib\"");
	ck_assert_ptr_nonnull(k);
	k = strchr(k, ':');
	ck_assert_int_ge(asprintf(&evil, "%.*s: 256%s", (int)(k - mf), mf, k + 1 + strspn(k + 1, " 0123456789")), 0);
	k = strstr(evil, "\"file_max_kib\"");
	ck_assert_ptr_nonnull(k);
	k = strchr(k, ':');
	ck_assert_int_ge(asprintf(&e2, "%.*s: 256%s", (int)(k - evil), evil, k + 1 + strspn(k + 1, " 0123456789")), 0);
	put_at(a, "manifest.json", e2);
	resume_refused(a, "holds a row outside this run's plan", "file 64 KiB");
	same_at(a, "s.csv", csv_a, "A/s.csv");
	same_at(a, "manifest.json", e2, "A/manifest.json");
	put_at(a, "manifest.json", mf);
	/* B's CSV moved in place of A's (mv b/s.csv a/) */
	char q[8400];
	snprintf(p, sizeof(p), "%s/s.csv", a);
	snprintf(q, sizeof(q), "%s/s.csv", b);
	ck_assert_int_eq(rename(q, p), 0);
	t = slurp_at(a, "s.csv");
	resume_refused(a, "s.csv is not the file this run created", "nothing was changed");
	char *t2 = slurp_at(a, "s.csv");
	same(t, t2, "A/s.csv");
	free(t2);
	free(t);
	ck_assert_int_eq(ft_dir_entries(da), 0);
	free(evil);
	free(e2);
	free(mf);
	free(csv_a);
	free(da);
	free(a);
	free(b);
	free(sa);
}
END_TEST

/* The same run, interrupted and resumed in place, still resumes (the
 * marker follows the CSVs it made). */
START_TEST(f12_own_resume_works)
{
	char *d = tu_tpath("d"), *a = tu_tpath("A"), *sa = sweep_file("a.ini", "64K-128K");
	char *csv, *mf;
	struct ft_output o;

	ck_assert_int_eq(mkdir(d, 0755), 0);
	tu_finished_run(d, a, sa);
	/* drop the last row and mark the run interrupted: a cell to redo */
	csv = slurp_at(a, "s.csv");
	size_t n = strlen(csv);
	ck_assert_uint_gt(n, 2);
	csv[n - 1] = '\0';
	*(strrchr(csv, '\n') + 1) = '\0';
	put_at(a, "s.csv", csv);
	mf = slurp_at(a, "manifest.json");
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", a, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "resume failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
	char *after = slurp_at(a, "s.csv");
	ck_assert_uint_gt(strlen(after), strlen(csv));
	free(after);
	free(csv);
	free(mf);
	free(d);
	free(a);
	free(sa);
}
END_TEST

/* ---- F3: report --out and a copied marker ---- */

static char *fixture(void)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char *f;

	ck_assert_int_ge(asprintf(&f, "%s/tests/report/fixtures/basic", src ? src : "../.."), 0);
	return f;
}

static int report_to(const char *out, struct ft_output *o)
{
	char *fx = fixture();
	int r = ft_fslab(o, "report", fx, "--out", out, "--plots", "none", "--format", "html", NULL);

	free(fx);
	return r;
}

static void report_refused(const char *out, const char *want1, const char *want2)
{
	struct ft_output o;

	ck_assert_int_eq(report_to(out, &o), 0);
	ck_assert_msg(o.status == 1, "report --out %s: exit %d (want 1): %s", out, o.status, o.err);
	tu_has(o.err, want1);
	if (want2)
		tu_has(o.err, want2);
	ft_output_free(&o);
}

/* A real report's marker copied (cp -p) into a directory holding a user's
 * file: the directory is refused, the file stays. */
START_TEST(f3_report_copied_marker)
{
	char *rep = tu_tpath("rep"), *r2 = tu_tpath("R2"), *marker;
	struct ft_output o;

	ck_assert_int_eq(report_to(rep, &o), 0);
	ck_assert_msg(o.status == 0, "report: %s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(mkdir(r2, 0755), 0);
	marker = slurp_at(rep, ".fslab-report");
	put_at(r2, ".fslab-report", marker);
	put_at(r2, "thesis", "t\n");
	report_refused(r2, "was written for another directory", "R2");
	same_at(r2, "thesis", "t\n", "R2/thesis");
	ck_assert_int_eq(ft_dir_entries(r2), 2);
	/* the real report is replaced as before */
	ck_assert_int_eq(report_to(rep, &o), 0);
	ck_assert_msg(o.status == 0, "re-report: %s", o.err);
	ft_output_free(&o);
	free(marker);
	free(rep);
	free(r2);
}
END_TEST

/* A hard-linked marker, said to root: the message names the links, not a
 * uid. */
START_TEST(f3_report_hardlinked_marker_message)
{
	char *rep = tu_tpath("rep"), *r2 = tu_tpath("R2"), a[8400], b[8400];
	struct ft_output o;

	ck_assert_int_eq(report_to(rep, &o), 0);
	ck_assert_msg(o.status == 0, "report: %s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(mkdir(r2, 0755), 0);
	put_at(r2, "thesis", "t\n");
	snprintf(a, sizeof(a), "%s/.fslab-report", rep);
	snprintf(b, sizeof(b), "%s/.fslab-report", r2);
	ck_assert_int_eq(link(a, b), 0);
	report_refused(r2, "has 2 hard links", NULL);
	struct ft_output o2;
	ck_assert_int_eq(report_to(r2, &o2), 0);
	ck_assert_msg(strstr(o2.err, "uid 0") == NULL, "%s", o2.err);
	ft_output_free(&o2);
	same_at(r2, "thesis", "t\n", "R2/thesis");
	free(rep);
	free(r2);
}
END_TEST

/* ---- F16: report reads the files of a results directory by name ---- */

/* A results directory of another user's, a copy of the fixture. */
static char *foreign_results(const char *name)
{
	char *fx = fixture(), *dir = tu_tpath(name), *text;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	text = slurp_at(fx, "ext4.csv");
	put_at(dir, "ext4.csv", text);
	free(text);
	char *p = tu_join(dir, "ext4.csv");
	ck_assert_int_eq(chown(p, NOBODY, NOBODY), 0);
	free(p);
	ck_assert_int_eq(chown(dir, NOBODY, NOBODY), 0);
	free(fx);
	return dir;
}

/* `report DIR` is refused naming name, writes no report and prints
 * nothing of secret. */
static void report_dir_refused(const char *dir, const char *name, const char *secret)
{
	struct ft_output o;
	char *out = tu_tpath("rep-out");

	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--out", out, "--plots", "none", NULL), 0);
	ck_assert_msg(o.status != 0, "report of %s accepted: %s", dir, o.err);
	tu_has(o.err, name);
	if (secret) {
		ck_assert_msg(!strstr(o.out, secret) && !strstr(o.err, secret), "the secret leaked: %s%s", o.out, o.err);
	}
	ft_output_free(&o);
	ck_assert(!exists_at(tu_tmp, "rep-out"));
	free(out);
}

/* A symlink planted as another user in their results directory to a
 * root-only CSV: not followed, the secret rows appear nowhere. */
START_TEST(f16_report_symlinked_csv)
{
	char *res = foreign_results("res"), *vault = tu_tpath("vault"), *sec, *lnk;

	ck_assert_int_eq(mkdir(vault, 0700), 0);
	sec = tu_join(vault, "sec.csv");
	ck_assert_int_eq(ft_write_file(sec, "filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s\n"
					    "sec,write,64,64,1,4242424242\n"), 0);
	ck_assert_int_eq(chmod(sec, 0600), 0);
	lnk = tu_join(res, "sec.csv");
	ck_assert_int_eq(symlink(sec, lnk), 0);
	ck_assert_int_eq(lchown(lnk, NOBODY, NOBODY), 0);
	report_dir_refused(res, "sec.csv: a symbolic link", "4242424242");
	/* a manifest.json symlink likewise */
	ck_assert_int_eq(unlink(lnk), 0);
	char *mf = tu_join(res, "manifest.json");
	ck_assert_int_eq(symlink(sec, mf), 0);
	report_dir_refused(res, "manifest.json: a symbolic link", "4242424242");
	char *t = tu_slurp(sec);
	tu_has(t, "4242424242");
	free(t);
	free(mf);
	free(lnk);
	free(sec);
	free(vault);
	free(res);
}
END_TEST

/* A FIFO named like a CSV or the manifest: refused at once, no hang (a
 * hang fails the test by its timeout). */
START_TEST(f16_report_fifo)
{
	char *res = foreign_results("res"), *fifo = tu_join(res, "y.csv");

	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	report_dir_refused(res, "y.csv: not a regular file", NULL);
	ck_assert_int_eq(unlink(fifo), 0);
	char *mf = tu_join(res, "manifest.json");
	ck_assert_int_eq(mkfifo(mf, 0666), 0);
	report_dir_refused(res, "manifest.json: not a regular file", NULL);
	free(mf);
	free(fifo);
	free(res);
}
END_TEST

/* ---- F4: export/import --force over a lab's lock, lease and log ---- */

START_TEST(f4_export_over_lab_locks)
{
	char *fx = fixture(), *csv = tu_join(fx, "ext4.csv"), *st = tu_tpath("state.json");
	static const char *const sfx[] = { ".lock", ".run", ".mount", ".log" };

	tu_write_mounted_state(st);
	/* NAME.lock/.run/.mount/.log beside the state file, no one holding
	 * them: refused as the lab's files */
	for (size_t i = 0; i < 4; i++) {
		char *f, *t;
		ck_assert_int_ge(asprintf(&f, "%s%s", st, sfx[i]), 0);
		ck_assert_int_eq(ft_write_file(f, "lab file\n"), 0);
		tu_export_refused(csv, f, true, "of the lab whose state file is state.json");
		t = tu_slurp(f);
		same("lab file\n", t, f);
		free(t);
		free(f);
	}
	/* a live lock anywhere (held by this process, as the lab holds
	 * LABID.lock): refused naming the holder, the inode unchanged */
	char *lk = tu_tpath("any-name.lock");
	int fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	struct stat before, after;
	char pidtxt[32];
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_SH), 0);
	ck_assert_int_eq(fstat(fd, &before), 0);
	snprintf(pidtxt, sizeof(pidtxt), "pid %d holds a lock", (int)getpid());
	tu_export_refused(csv, lk, true, pidtxt);
	ck_assert_int_eq(stat(lk, &after), 0);
	ck_assert(before.st_ino == after.st_ino && after.st_size == 0);
	close(fd);
	/* anything in /run/fslab, the labs' lock directory (made as the lab
	 * makes it when missing) */
	char *rl;
	if (mkdir("/run/fslab", 0700) < 0)
		ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_ge(asprintf(&rl, "/run/fslab/fslab-trust-outputs2-%d.lock", (int)getpid()), 0);
	tu_export_refused(csv, rl, true, "where the labs' lock files live");
	struct stat rs;
	ck_assert_int_ne(lstat(rl, &rs), 0);
	/* import into /run/fslab likewise */
	char *rep = tu_tpath("iozone.txt");
	struct ft_output o;
	ck_assert_int_eq(ft_fslab(&o, "export", "iozone", csv, "--out", rep, NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	char fsname[64];
	snprintf(fsname, sizeof(fsname), "trust%d", (int)getpid());
	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", rep, "--fs", fsname, "--out", "/run/fslab", "--force", NULL), 0);
	ck_assert_int_eq(o.status, 1);
	tu_has(o.err, "where the labs' lock files live");
	ft_output_free(&o);
	ck_assert(!exists_at("/run/fslab", "manifest.json"));
	char csvname[80];
	snprintf(csvname, sizeof(csvname), "%s.csv", fsname);
	ck_assert(!exists_at("/run/fslab", csvname));
	/* an ordinary existing file is still replaced with --force */
	char *plain = tu_tpath("plain.txt");
	ck_assert_int_eq(ft_write_file(plain, "old\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "export", "iozone", csv, "--out", plain, "--force", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	free(plain);
	free(rep);
	free(rl);
	free(lk);
	free(st);
	free(csv);
	free(fx);
}
END_TEST

/* ---- F13 (run): control bytes in an invalid --dir NAME ---- */

START_TEST(f13_run_dir_name_escaped)
{
	char *d = tu_tpath("d"), arg[4200];
	struct ft_output o;

	ck_assert_int_eq(mkdir(d, 0755), 0);
	/* a bad name (run's check) and a name too long for NAME=PATH (the
	 * option parser's) */
	const char *names[] = { "a\x1b]0;owned\x07b", "\x1b[2J\x1b[Hxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" };
	const char *want[] = { "is not a valid filesystem name", "give NAME=PATH" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(arg, sizeof(arg), "%s=%s", names[i], d);
		ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", "quick", "--quiet", NULL), 0);
		ck_assert_int_ne(o.status, 0);
		tu_has(o.err, want[i]);
		tu_has(o.err, "\\x1b");
		ck_assert_msg(!strchr(o.err, '\x1b') && !strchr(o.err, '\x07'), "raw control bytes in: %s", o.err);
		ft_output_free(&o);
	}
	ck_assert_int_eq(ft_dir_entries(d), 0);
	free(d);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_outputs2");
	TCase *tc = ft_tcase(s, "outputs2", FT_ROOT);

	tu_dir_fixtures(tc, "fslab-trust-outputs2");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, f2_out_foreign_dir);
	tcase_add_test(tc, f2_resume_foreign_files);
	tcase_add_test(tc, f12_resume_copied_marker_and_manifest);
	tcase_add_test(tc, f12_resume_rows_outside_plan);
	tcase_add_test(tc, f12_own_resume_works);
	tcase_add_test(tc, f3_report_copied_marker);
	tcase_add_test(tc, f3_report_hardlinked_marker_message);
	tcase_add_test(tc, f16_report_symlinked_csv);
	tcase_add_test(tc, f16_report_fifo);
	tcase_add_test(tc, f4_export_over_lab_locks);
	tcase_add_test(tc, f13_run_dir_name_escaped);
	return ft_suite_run(s, argc, argv);
}
