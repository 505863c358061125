/* Trust round 3 (issue 22), classes 4, 6 and 8: results that survive a
 * crash, figures no run can have measured, a results directory given
 * twice, a line damaged by NUL bytes.  Each case is set up as the attack
 * (or the accident) and asserts what a user would check: the rows on the
 * disk after the crash and a resume that finishes, a report that refuses
 * naming the file and line, a warning naming the damaged line.  The
 * crash needs root (an ext4 loop image); the rest runs as any user. */
#include "results.h"
#include "testutil.h"
#include "trust_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Lines of text (the CSV's rows plus its header). */
static unsigned count_lines(const char *text)
{
	unsigned n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

static void append(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* A forged row (no newline) under the CSV's header: its device columns
 * empty where the header has them (a directory on a block device). */
static void append_row(const char *path, const char *row)
{
	char *text = tu_slurp(path), line[512];

	snprintf(line, sizeof(line), "%s%s\n", row, strstr(text, ",dev_read_bytes,") ? ",,,," : "");
	free(text);
	append(path, line, strlen(line));
}

/* A finished small run of tu_tmp/data into tu_tmp/out: its CSV path. */
static char *small_run(char **out)
{
	char *data = tu_tpath("data");
	char sweep[256];
	FILE *f;

	*out = tu_tpath("out");
	ck_assert_int_eq(mkdir(data, 0755), 0);
	char *sw = tu_tpath("sweep.ini");
	f = fopen(sw, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[sweep]\ntests = write,read\nfile_sizes = 64K-128K\nrecord_sizes = 4K-64K\ncache = warm\ntrials = 1\n", f);
	fclose(f);
	snprintf(sweep, sizeof(sweep), "%s", sw);
	tu_finished_run(data, *out, sweep);
	free(sw);
	free(data);
	return tu_join(*out, "s.csv");
}

static void report_refused(const char *const dirs[], size_t n, const char *want)
{
	const char *argv[16] = { ft_fslab_bin(), "report" };
	size_t k = 2;
	struct ft_output o;

	for (size_t i = 0; i < n; i++)
		argv[k++] = dirs[i];
	argv[k++] = "--format";
	argv[k++] = "text";
	argv[k] = NULL;
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	tu_assert_refused(&o, want);
	ft_output_free(&o);
}

/* Class 6: 1e308 KiB/s was ranked best ("inf GiB/s"). */
START_TEST(huge_figure_refused)
{
	char *out, *csv = small_run(&out);
	const char *row = "s,write,128,4,1,1e308,0.001,warm,ok,";
	char want[4200], *text;

	append_row(csv, row);
	text = tu_slurp(csv);
	snprintf(want, sizeof(want), "%s:%u: column 'throughput_kib_s'", csv, count_lines(text));
	free(text);
	report_refused((const char *[]){ out }, 1, want);
	report_refused((const char *[]){ out }, 1, "above 10 TiB/s");
	free(csv);
	free(out);
}
END_TEST

/* Class 6: a row of a cell the manifest's plan never had (a 1 TiB file). */
START_TEST(figure_outside_plan_refused)
{
	char *out, *csv = small_run(&out);
	const char *row = "s,write,1073741824,4,1,1000,0.001,warm,ok,";
	char want[4200], *text;

	append_row(csv, row);
	text = tu_slurp(csv);
	snprintf(want, sizeof(want), "%s:%u: file size 1073741824 KiB, outside the manifest's sweep", csv,
		 count_lines(text));
	free(text);
	report_refused((const char *[]){ out }, 1, want);
	free(csv);
	free(out);
}
END_TEST

/* Class 6: one directory given twice, by another spelling and through a
 * symbolic link, was compared with itself. */
START_TEST(same_directory_twice_refused)
{
	char *out, *csv = small_run(&out);
	char *link = tu_tpath("link"), other[4200];

	ck_assert_int_eq(symlink(out, link), 0);
	snprintf(other, sizeof(other), "%s/./", out);
	report_refused((const char *[]){ out, link }, 2, "is the results directory");
	report_refused((const char *[]){ out, other }, 2, "give each results directory once");
	report_refused((const char *[]){ out, out }, 2, "again");
	free(link);
	free(csv);
	free(out);
}
END_TEST

/* Class 8: a line of NUL bytes (what a crash leaves where a row was not
 * written back) was passed over as an empty line. */
START_TEST(nul_line_named)
{
	char *out, *csv = small_run(&out), want[4200];
	const char zeros[] = "\0\0\0\0\0\0\0\0\n";
	struct ft_output o;

	append(csv, zeros, sizeof(zeros) - 1);
	ck_assert_int_eq(ft_fslab(&o, "report", out, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "report: exit %d: %s", o.status, o.err);
	snprintf(want, sizeof(want), "%s:", csv);
	tu_has(o.err, want);
	tu_has(o.err, "NUL bytes");
	tu_has(o.err, "1 damaged line");
	/* counted in the report itself: the entry is partial, never ranked */
	tu_has(o.out, "INCOMPLETE DATA: s (partial data)");
	ft_output_free(&o);
	free(csv);
	free(out);
}
END_TEST

/* Class 8: --cache cold on tmpfs recorded memory-speed rows as cold and
 * unflagged; each row now says "memory". */
START_TEST(cold_on_tmpfs_flagged)
{
	char data[] = "/dev/shm/fslab-trust-cold.XXXXXX", *out = tu_tpath("out"), *csv;
	struct fslab_err fe = FSLAB_ERR_INIT;
	char arg[4200];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	struct ft_output o;
	unsigned rows = 0;
	int r;

	ck_assert_ptr_nonnull(mkdtemp(data));
	snprintf(arg, sizeof(arg), "s=%s", data);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--tests", "write,read", "--file-sizes", "64K-128K",
				  "--record-sizes", "64K", "--cache", "cold", "--trials", "1", "--no-device-probe",
				  "--quiet", "--out", out, NULL),
			 0);
	ft_rm_rf(data);
	ck_assert_msg(o.status == 0, "run: exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	csv = tu_join(out, "s.csv");
	ck_assert_msg(fslab_results_open(csv, &rd, &fe) == 0, "%s", fe.msg);
	while ((r = fslab_results_next(rd, &row, &fe)) == 1) {
		ck_assert_int_eq(row.cache, FSLAB_CACHE_COLD);
		ck_assert_msg(strstr(row.flag, "memory"), "a cold %s row on tmpfs is flagged '%s', not memory",
			      fslab_test_to_string(row.test), row.flag);
		rows++;
	}
	ck_assert_msg(r == 0, "%s", fe.msg);
	fslab_results_close(rd);
	ck_assert_uint_eq(rows, 4);
	free(csv);
	free(out);
}
END_TEST

/* Entries of dir whose name starts with prefix. */
static unsigned count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* Class 8: a report killed while it draws (SIGKILL: a gnuplot that never
 * ends, then the kill) left its temporary directory beside --out forever.
 * The next report removes it, and leaves a look-alike it cannot prove is
 * a report's (no mark) alone. */
START_TEST(killed_report_leftover_removed)
{
	char *out, *csv = small_run(&out), *bin = tu_tpath("bin"), *gp, *pidf = tu_tpath("gnuplot.pid");
	char *dest = tu_tpath("rep"), *fake = tu_tpath(".fslab-report.tmp-other"), path[8192], *txt;
	struct ft_proc p;
	struct ft_output o;

	ck_assert_int_eq(mkdir(bin, 0755), 0);
	ck_assert_int_eq(mkdir(fake, 0700), 0);
	gp = tu_join(bin, "gnuplot");
	/* written aside and renamed: the file exists only with its pid in it */
	snprintf(path, sizeof(path), "#!/bin/sh\necho $$ > %s.tmp && mv %s.tmp %s\nexec sleep 60\n", pidf, pidf,
		 pidf);
	ck_assert_int_eq(ft_write_file(gp, path), 0);
	ck_assert_int_eq(chmod(gp, 0755), 0);
	snprintf(path, sizeof(path), "PATH=%s:%s", bin, getenv("PATH"));
	ck_assert_int_eq(ft_spawn((const char *[]){ "env", path, ft_fslab_bin(), "report", out, "--out", dest, NULL }, &p), 0);
	for (int i = 0; i < 1000 && !tu_exists(pidf); i++)
		sleep_ms(10);
	ck_assert_msg(tu_exists(pidf), "the report never started gnuplot");
	kill(p.pid, SIGKILL);
	ck_assert_int_eq(ft_proc_finish(&p, &o), 0);
	ft_output_free(&o);
	txt = tu_slurp(pidf);
	ck_assert_msg(atoi(txt) > 1, "gnuplot's pid file holds '%s'", txt);
	kill(atoi(txt), SIGKILL);
	free(txt);
	ck_assert_uint_eq(count_prefixed(tu_tmp, ".fslab-report.tmp-"), 2); /* the leftover, the look-alike */
	ck_assert_int_eq(ft_fslab(&o, "report", out, "--out", dest, "--plots", "none", NULL), 0);
	ck_assert_msg(o.status == 0, "report: exit %d: %s", o.status, o.err);
	tu_has(o.err, "left by a report that was killed");
	ft_output_free(&o);
	ck_assert_uint_eq(count_prefixed(tu_tmp, ".fslab-report.tmp-"), 1);
	ck_assert_msg(tu_exists(fake), "the look-alike without the mark was removed");
	snprintf(path, sizeof(path), "%s/.fslab-report-tmp", dest);
	ck_assert_msg(!tu_exists(path), "the finished report keeps the temporary mark");
	free(fake);
	free(dest);
	free(pidf);
	free(gp);
	free(bin);
	free(csv);
	free(out);
}
END_TEST

static void run_tool(const char *const argv[])
{
	struct ft_output o;

	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "%s: exit %d: %s", argv[0], o.status, o.err);
	ft_output_free(&o);
}


/* Class 4: the results directory on an ext4 that fails under the run
 * (errors=remount-ro and the error trigger: the journal is aborted, what
 * was not on the disk is gone, as after a power loss).  Rows were only
 * flushed to the page cache, so the CSV came back empty and --resume
 * started from nothing; now every row written more than the journal's
 * window (FSLAB_RESULTS_SYNC_WINDOW_NS, 1 s) before the crash is there,
 * and --resume finishes the run. */
START_TEST(crash_keeps_rows_and_resume_continues)
{
	char *data = tu_tpath("data"), *mnt = tu_tpath("res"), *out, *csv, *sw = tu_tpath("sweep.ini");
	char trigger[128], *text;
	struct ft_loop l;
	struct ft_proc p;
	struct ft_output o;
	unsigned seen = 0, kept;
	FILE *f;

	ck_assert_int_eq(mkdir(data, 0755), 0);
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(ft_loop_create(&l, tu_tmp, 64u << 20), 0);
	run_tool((const char *[]){ "mkfs.ext4", "-q", "-F", l.device, NULL });
	/* commit=300: nothing reaches the disk unless fslab syncs it */
	run_tool((const char *[]){ "mount", "-t", "ext4", "-o", "errors=remount-ro,commit=300", l.device, mnt, NULL });
	out = tu_join(mnt, "out");
	csv = tu_join(out, "s.csv");
	f = fopen(sw, "w");
	ck_assert_ptr_nonnull(f);
	/* long enough (about 1 s a trial here) that the run is still going two
	 * sync windows after its sixth row, on a fast machine too */
	fputs("[sweep]\ntests = write,rewrite,read,reread\nfile_sizes = 64K-64M\nrecord_sizes = 4K-64K\ncache = warm\ntrials = 12\n", f);
	fclose(f);
	char arg[4200];
	snprintf(arg, sizeof(arg), "s=%s", data);
	ck_assert_int_eq(ft_spawn((const char *[]){ ft_fslab_bin(), "run", "--dir", arg, "--sweep", sw, "--no-device-probe",
				   "--stop", "fixed", "--out", out, "--quiet", NULL },
		 &p), 0);
	/* some cells done, then the crash */
	for (int i = 0; i < 3000 && seen < 6; i++) {
		sleep_ms(10);
		if (tu_exists(csv)) {
			text = tu_slurp(csv);
			seen = count_lines(text);
			free(text);
		}
	}
	ck_assert_msg(seen >= 6, "the run wrote %u lines in 30 s", seen);
	/* two windows later, with the run still going: the crash */
	sleep_ms(2 * (long)(FSLAB_RESULTS_SYNC_WINDOW_NS / 1000000));
	snprintf(trigger, sizeof(trigger), "/sys/fs/ext4/%s/trigger_fs_error", strrchr(l.device, '/') + 1);
	ck_assert_int_eq(ft_write_file(trigger, "1"), 0);
	ck_assert_int_eq(ft_proc_finish(&p, &o), 0);
	ck_assert_msg(o.status != 0, "the run ended before the crash (make the sweep longer): %s", o.err);
	ft_output_free(&o);
	run_tool((const char *[]){ "umount", mnt, NULL });
	{
		const char *argv[] = { "e2fsck", "-fy", l.device, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_msg(o.status <= 1, "e2fsck: exit %d: %s", o.status, o.out);
		ft_output_free(&o);
	}
	run_tool((const char *[]){ "mount", "-t", "ext4", l.device, mnt, NULL });
	/* the header and every row written two windows before the crash */
	text = tu_slurp(csv);
	kept = count_lines(text);
	ck_assert_msg(kept >= seen, "after the crash %s holds %u lines; %u were written 2 s before it:\n%s",
		      csv, kept, seen, text);
	free(text);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "--resume after the crash: exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	text = tu_slurp(csv);
	ck_assert_msg(count_lines(text) > kept, "--resume added no row:\n%s", text);
	free(text);
	ck_assert_int_eq(ft_fslab(&o, "report", out, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "report of the resumed run: exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	run_tool((const char *[]){ "umount", mnt, NULL });
	ft_loop_destroy(&l);
	free(csv);
	free(out);
	free(sw);
	free(mnt);
	free(data);
}
END_TEST

/* Class 6: a filesystem remounted under the run (other options) was
 * recorded with its options at the start only; the run and the report now
 * say so and the manifest records the options at the end. */
START_TEST(remount_under_run_flagged)
{
	char *data = tu_tpath("data"), *out = tu_tpath("out"), *csv, *man, arg[4200], *text;
	struct ft_proc p;
	struct ft_output o;
	unsigned lines = 0;

	ck_assert_int_eq(mkdir(data, 0755), 0);
	run_tool((const char *[]){ "mount", "-t", "tmpfs", "-o", "size=300m", "tmpfs", data, NULL });
	snprintf(arg, sizeof(arg), "s=%s", data);
	csv = tu_join(out, "s.csv");
	ck_assert_int_eq(ft_spawn((const char *[]){ ft_fslab_bin(), "run", "--dir", arg, "--tests",
					    "write,rewrite,read,reread", "--file-sizes", "64K-128M", "--record-sizes",
					    "4K-64K", "--cache", "warm", "--trials", "3", "--no-device-probe",
					    "--quiet", "--out", out, NULL },
				  &p),
			 0);
	for (int i = 0; i < 3000 && lines < 3; i++) {
		sleep_ms(5);
		if (tu_exists(csv)) {
			text = tu_slurp(csv);
			lines = count_lines(text);
			free(text);
		}
	}
	ck_assert_uint_ge(lines, 3);
	run_tool((const char *[]){ "mount", "-o", "remount,noatime", data, NULL });
	ck_assert_int_eq(ft_proc_finish(&p, &o), 0);
	ck_assert_msg(o.status == 0, "run: exit %d: %s", o.status, o.err);
	tu_has(o.err, "s: the mount options changed during the run");
	ft_output_free(&o);
	run_tool((const char *[]){ "umount", data, NULL });
	man = tu_join(out, "manifest.json");
	text = tu_slurp(man);
	tu_has(text, "\"mount_options_at_end\":\"rw,noatime");
	free(text);
	ck_assert_int_eq(ft_fslab(&o, "report", out, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "report: exit %d: %s", o.status, o.err);
	tu_has(o.err, "s was remounted during the run");
	ft_output_free(&o);
	free(man);
	free(csv);
	free(out);
	free(data);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_durable");
	TCase *tc = ft_tcase(s, "report_bounds", 0);

	tu_dir_fixtures(tc, "fslab-trust-durable");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, huge_figure_refused);
	tcase_add_test(tc, figure_outside_plan_refused);
	tcase_add_test(tc, same_directory_twice_refused);
	tcase_add_test(tc, nul_line_named);
	tcase_add_test(tc, cold_on_tmpfs_flagged);
	tcase_add_test(tc, killed_report_leftover_removed);
	tc = ft_tcase(s, "crash", FT_ROOT | FT_MKFS_EXT);
	tu_dir_fixtures(tc, "fslab-trust-durable");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, crash_keeps_rows_and_resume_continues);
	tcase_add_test(tc, remount_under_run_flagged);
	return ft_suite_run(s, argc, argv);
}
