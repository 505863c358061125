/* Faults from the environment, real ones:
 *  - a filesystem that fills up: a 16 MiB partition and files up to 32 MiB;
 *    the cells that do not fit become failed rows naming the error, the
 *    run goes on to the next cells and filesystems, and leaves no test file
 *    behind;
 *  - a mount removed under a running sweep (umount -l of the second
 *    filesystem while the first is measured): the run reports it and
 *    skips or fails its cells, and never writes into the directory that
 *    was under the mount; teardown still reaches a clean disk. */
#include "hard_util.h"
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static struct hu_lab lab;

static const char enospc_spec[] = HU_EXT_FILESYSTEMS "[sweep]\n"
					       "file_sizes = 4M-32M\n"
					       "record_sizes = 1M-1M\n"
					       "tests = write,read\n"
					       "trials = 1\n"
					       "cache = warm\n"
					       "order = fixed\n";

static void lab_up_with(const char *spec)
{
	hu_lab_up(&lab, "fslab-env", 64u << 20, spec);
}

static void lab_up_enospc(void)
{
	lab_up_with(enospc_spec);
}

static void lab_up_long(void)
{
	lab_up_with(hu_long_spec);
}

static void lab_down(void)
{
	hu_lab_destroy(&lab);
}


struct rows {
	unsigned ok, failed, skipped;
	unsigned failed_big;     /* failed rows of files > 16M */
	unsigned enospc;         /* failed rows naming the full filesystem */
	unsigned ok_after_failed; /* ok rows after the first failed one */
	char first_failed[256];
};

static void rows_load(const char *csv, struct rows *r)
{
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	struct fslab_err fe = FSLAB_ERR_INIT;
	int n;

	memset(r, 0, sizeof(*r));
	ck_assert_msg(fslab_results_open(csv, &rd, &fe) == 0, "%s", fe.msg);
	while ((n = fslab_results_next(rd, &row, &fe)) == 1) {
		if (fslab_result_ok(&row)) {
			r->ok++;
			r->ok_after_failed += r->failed > 0;
		} else if (strncmp(row.status, "failed", 6) == 0) {
			r->failed++;
			if (!r->first_failed[0])
				snprintf(r->first_failed, sizeof(r->first_failed), "%s", row.status);
			if (row.file_kib > 16 * 1024)
				r->failed_big++;
			if (strstr(row.status, "space") || strstr(row.status, "ENOSPC"))
				r->enospc++;
		} else {
			r->skipped++;
		}
	}
	ck_assert_msg(n == 0, "%s", fe.msg);
	fslab_results_close(rd);
}

/* Names in dir other than lost+found. */
static int dir_entries(const char *dir, char *first, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "lost+found"))
			continue;
		if (!n)
			snprintf(first, len, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(filesystem_fills_up)
{
	struct ft_output o;
	struct rows a, b;
	char out[PATH_MAX], csv[PATH_MAX + 16], mp[PATH_MAX], name[256] = "";

	hu_assert_setup(&lab);
	snprintf(out, sizeof(out), "%s/full", lab.dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--state", lab.state, "--sweep", lab.spec, "--out", out,
				  "--no-device-probe", "--quiet", NULL),
			 0);
	/* Failed cells: exit 1 and a message, but the run went to the end. */
	ck_assert_msg(o.status == 1, "run with cells that cannot fit: status %d, expected 1: %s",
		      o.status, o.err);
	ck_assert_msg(strstr(o.err, "failed"), "no message about the failed cells: %s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	rows_load(csv, &a);
	snprintf(csv, sizeof(csv), "%s/b.csv", out);
	rows_load(csv, &b);
	printf("ENOSPC: a: %u ok, %u failed (%u ENOSPC), b: %u ok, %u failed (%u ENOSPC); e.g. '%s'\n",
	       a.ok, a.failed, a.enospc, b.ok, b.failed, b.enospc, a.first_failed);
	/* 4 file sizes x 1 record x 2 tests = 8 cells per filesystem. */
	ck_assert_uint_eq(a.ok + a.failed + a.skipped, 8);
	ck_assert_uint_eq(b.ok + b.failed + b.skipped, 8);
	/* 4M and 8M fit in 16M: ok.  32M cannot: failed, naming the reason. */
	ck_assert_uint_ge(a.ok, 4);
	ck_assert_uint_ge(b.ok, 4);
	ck_assert_uint_ge(a.failed_big, 1);
	ck_assert_uint_ge(b.failed_big, 1);
	ck_assert_msg(a.enospc >= 1 && b.enospc >= 1, "failed rows do not say the disk is full: '%s'",
		      a.first_failed);
	/* The filesystems are left as they were: no test file behind. */
	snprintf(mp, sizeof(mp), "%s/a", lab.mnt);
	ck_assert_msg(dir_entries(mp, name, sizeof(name)) == 0, "%s: '%s' left behind", mp, name);
	snprintf(mp, sizeof(mp), "%s/b", lab.mnt);
	ck_assert_msg(dir_entries(mp, name, sizeof(name)) == 0, "%s: '%s' left behind", mp, name);
	hu_assert_teardown_clean(&lab);
}
END_TEST

START_TEST(mount_removed_under_sweep)
{
	const char *argv[12];
	char out[PATH_MAX], csv[PATH_MAX + 16], log[PATH_MAX], mp_b[PATH_MAX], name[256] = "";
	struct rows a, b;
	char *text;
	pid_t pid;
	int status;

	hu_assert_setup(&lab);
	snprintf(out, sizeof(out), "%s/vanish", lab.dir);
	snprintf(log, sizeof(log), "%s/vanish.log", lab.dir);
	snprintf(mp_b, sizeof(mp_b), "%s/b", lab.mnt);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	{
		const char *a[] = { ft_fslab_bin(), "run", "--state", lab.state, "--sweep", lab.spec,
				    "--out", out, "--no-device-probe", "--quiet", NULL };
		memcpy(argv, a, sizeof(a));
	}
	pid = hu_spawn(&lab, argv, NULL, log);
	ck_assert_int_gt(pid, 0);
	/* Once a has rows, b goes away. */
	ck_assert_msg(hu_wait_for_text(csv, "\na,", 60000) == 0, "the run wrote no row for a");
	ck_assert_msg(umount2(mp_b, MNT_DETACH) == 0, "umount %s: %s", mp_b, strerror(errno));
	status = hu_wait(&lab, pid, 600000);
	text = hu_slurp(log);
	printf("vanished mount: run exit %d; its messages:\n%s\n", status, text ? text : "");
	ck_assert_msg(status == 1, "run with a vanished filesystem: status %d, expected 1", status);
	ck_assert_msg(text && strstr(text, "b") &&
			      (strstr(text, "mount") || strstr(text, "vanish") || strstr(text, "gone")),
		      "the run did not say that b is gone: %s", text ? text : "");
	free(text);
	rows_load(csv, &a);
	ck_assert_uint_gt(a.ok, 0);
	ck_assert_uint_eq(a.failed, 0);
	snprintf(csv, sizeof(csv), "%s/b.csv", out);
	rows_load(csv, &b);
	printf("vanished mount: a %u ok; b %u ok, %u failed, %u skipped; e.g. '%s'\n", a.ok, b.ok,
	       b.failed, b.skipped, b.first_failed);
	/* A cell's filesystems run back to back (randomized blocks), so b
	 * may have rows from before it went away, but none ok after: every
	 * cell left is failed, and b has as many rows as a. */
	ck_assert_uint_gt(b.failed, 0);
	ck_assert_uint_eq(b.ok_after_failed, 0);
	ck_assert_uint_eq(a.ok + a.failed + a.skipped, b.ok + b.failed + b.skipped);
	/* Nothing was written into the directory that was under the mount. */
	ck_assert_msg(dir_entries(mp_b, name, sizeof(name)) == 0,
		      "the run wrote '%s' into %s after its filesystem was unmounted", name, mp_b);
	hu_assert_teardown_clean(&lab);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("fault_env");
	TCase *tc;

	tc = ft_tcase(s, "enospc", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up_enospc, lab_down);
	tcase_add_test(tc, filesystem_fills_up);
	tc = ft_tcase(s, "vanished_mount", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up_long, lab_down);
	tcase_add_test(tc, mount_removed_under_sweep);
	return ft_suite_run(s, argc, argv);
}
