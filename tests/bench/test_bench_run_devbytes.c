/* The device columns against known truth (root): an ext4 partition of a
 * loop device made here, fslab run --dir on it, and what its partition's
 * block-layer counters say of each pass.
 *   - a cold read of a 64 MiB file reads it from the device and is not
 *     flagged; the reread after it reads about nothing and is page-cache;
 *   - a cold sequential write on ext4 data=journal writes the device about
 *     twice as much as on data=ordered (the journal, then the file). */
#include "testutil.h"

#include "results.h"

#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_BYTES (64ll << 20)

static char *tmp;

static void setup(void)
{
	tmp = ft_mkdtemp("fslab-devbytes");
	ck_assert_ptr_nonnull(tmp);
}

/* Whatever a failed test left: mounts and loop devices under tmp. */
static void teardown(void)
{
	ft_cleanup_under(tmp);
	free(tmp);
}

/* One partition (BLKPG, there is no udev: devtmpfs makes its node) of a
 * sparse loop image, an ext4 with a 4 MiB journal on it (so a 64 MiB
 * write in data=journal wraps it and checkpoints the data within the
 * pass's window), mounted with opts on tmp/mnt. */
struct devlab {
	struct ft_loop l;
	char part[80], mnt[600];
	bool mounted;
};

static void devlab_mkfs_mount(struct devlab *b, const char *opts)
{
	struct ft_output o;
	int r;

	r = ft_run((const char *const[]){ "mkfs.ext4", "-q", "-F", "-J", "size=4", b->part, NULL }, NULL, &o);
	ck_assert_msg(r == 0 && o.status == 0, "mkfs.ext4 %s: %s", b->part, o.err);
	ft_output_free(&o);
	ck_assert_msg(mount(b->part, b->mnt, "ext4", 0, opts) == 0, "mount %s (%s): %s", b->part, opts,
		      strerror(errno));
	b->mounted = true;
}

/* In tmp/sub: each test its own (a failed one's leftovers wait for the
 * teardown). */
static void devlab_make(struct devlab *b, const char *sub, const char *opts)
{
	char dir[500];
	struct stat st;

	memset(b, 0, sizeof(*b));
	snprintf(dir, sizeof(dir), "%s/%s", tmp, sub);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(b->mnt, sizeof(b->mnt), "%s/mnt", dir);
	ck_assert_int_eq(mkdir(b->mnt, 0755), 0);
	ck_assert_int_eq(ft_loop_create(&b->l, dir, 512ll << 20), 0);
	ck_assert_int_eq(ft_blkpg_add(b->l.device, 1, 1 << 20, 500ll << 20), 0);
	snprintf(b->part, sizeof(b->part), "%sp1", b->l.device);
	for (int i = 0; i < 200 && stat(b->part, &st) < 0; i++)
		usleep(10000);
	ck_assert_msg(stat(b->part, &st) == 0 && S_ISBLK(st.st_mode), "%s: no block device node", b->part);
	devlab_mkfs_mount(b, opts);
}

static void devlab_umount(struct devlab *b)
{
	if (b->mounted)
		ck_assert_int_eq(umount2(b->mnt, 0), 0);
	b->mounted = false;
}

static void devlab_free(struct devlab *b)
{
	devlab_umount(b);
	ft_blkpg_del(b->l.device, 1);
	ft_loop_destroy(&b->l);
}

/* fslab run --dir d=MNT of one 64 MiB file in 1 MiB records, cold; the
 * rows of its CSV into rows (by test); the manifest's device_counters
 * into counters. */
static void run_rows(struct devlab *b, const char *out_name, const char *tests,
		     struct fslab_result_row rows[FSLAB_TEST_MAX], char *counters, size_t len)
{
	char out[700], arg[700], path[800];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	struct ft_output o;
	json_object *m, *fs0, *v;

	snprintf(out, sizeof(out), "%s/%s", tmp, out_name);
	snprintf(arg, sizeof(arg), "d=%s", b->mnt);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--file-sizes", "64M",
				  "--record-sizes", "1M", "--tests", tests, "--cache", "cold", "--trials", "1",
				  "--stop", "fixed", "--steady-state", "off", "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "run: %s", o.err);
	ft_output_free(&o);
	memset(rows, 0, sizeof(rows[0]) * FSLAB_TEST_MAX);
	snprintf(path, sizeof(path), "%s/d.csv", out);
	ck_assert_int_eq(fslab_results_open(path, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_msg(fslab_result_ok(&row), "%s: %s", fslab_test_to_string(row.test), row.status);
		ck_assert_msg(row.device && row.dev_read_bytes >= 0 && row.dev_write_bytes >= 0 &&
				      row.dev_write_timed_bytes >= 0,
			      "%s: no device bytes on a partition with counters", fslab_test_to_string(row.test));
		ck_assert_int_eq(row.io_bytes, FILE_BYTES);
		rows[row.test] = row;
	}
	fslab_results_close(rd);
	snprintf(path, sizeof(path), "%s/manifest.json", out);
	m = json_object_from_file(path);
	ck_assert_ptr_nonnull(m);
	ck_assert(json_object_object_get_ex(m, "filesystems", &v));
	fs0 = json_object_array_get_idx(v, 0);
	ck_assert(json_object_object_get_ex(fs0, "device_counters", &v));
	snprintf(counters, len, "%s", json_object_get_string(v) ? json_object_get_string(v) : "");
	json_object_put(m);
}

static bool has_flag(const struct fslab_result_row *r, const char *flag)
{
	return strstr(r->flag, flag) != NULL;
}

START_TEST(cold_read_from_the_device_reread_from_memory)
{
	struct fslab_result_row rows[FSLAB_TEST_MAX];
	char counters[256], want[100];
	struct devlab b;

	devlab_make(&b, "read", "data=ordered");
	run_rows(&b, "out", "read,reread", rows, counters, sizeof(counters));
	devlab_free(&b);
	/* the partition's own counters, not the whole loop device's */
	snprintf(want, sizeof(want), "/%s/stat", strrchr(b.part, '/') + 1);
	ck_assert_msg(strstr(counters, want), "device_counters %s is not %s's", counters, b.part);

	const struct fslab_result_row *rd = &rows[FSLAB_TEST_READ], *rr = &rows[FSLAB_TEST_REREAD];
	ck_assert_int_eq(rd->test, FSLAB_TEST_READ);
	ck_assert_msg(rd->dev_read_bytes >= FILE_BYTES / 100 * 95,
		      "cold read of 64 MiB read %lld bytes from the device", (long long)rd->dev_read_bytes);
	ck_assert_msg(!has_flag(rd, FSLAB_FLAG_PAGE_CACHE), "cold read flagged '%s'", rd->flag);
	ck_assert_int_eq(rr->test, FSLAB_TEST_REREAD);
	ck_assert_msg(rr->dev_read_bytes < FILE_BYTES / 100 * 5,
		      "reread of a cached file read %lld bytes from the device", (long long)rr->dev_read_bytes);
	ck_assert_msg(has_flag(rr, FSLAB_FLAG_PAGE_CACHE), "reread not flagged page-cache: '%s'", rr->flag);
}
END_TEST

START_TEST(data_journal_writes_twice)
{
	struct fslab_result_row ordered[FSLAB_TEST_MAX], journal[FSLAB_TEST_MAX];
	char counters[256];
	struct devlab b;

	devlab_make(&b, "write", "data=ordered");
	run_rows(&b, "ordered", "write", ordered, counters, sizeof(counters));
	devlab_umount(&b);
	devlab_mkfs_mount(&b, "data=journal");
	run_rows(&b, "journal", "write", journal, counters, sizeof(counters));
	devlab_free(&b);

	int64_t o = ordered[FSLAB_TEST_WRITE].dev_write_bytes, j = journal[FSLAB_TEST_WRITE].dev_write_bytes;
	ck_assert_msg(o >= FILE_BYTES && o < FILE_BYTES / 10 * 13,
		      "data=ordered: a 64 MiB write wrote %lld bytes to the device", (long long)o);
	ck_assert_msg((double)j >= 1.7 * (double)o,
		      "data=journal wrote %lld bytes, data=ordered %lld: not about twice", (long long)j,
		      (long long)o);
	/* cold mode times the fsync: the bytes were on the device by the
	 * timer's stop, so the row is not page-cache */
	ck_assert_msg(!has_flag(&ordered[FSLAB_TEST_WRITE], FSLAB_FLAG_PAGE_CACHE), "%s",
		      ordered[FSLAB_TEST_WRITE].flag);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_run_devbytes");
	TCase *tc = ft_tcase(s, "devbytes", FT_ROOT | FT_MKFS_EXT);

	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cold_read_from_the_device_reread_from_memory);
	tcase_add_test(tc, data_journal_writes_twice);
	return ft_suite_run(s, argc, argv);
}
