/* Probe reuse (bench/probe_keep.c, bench/run_probe.c) end to end: a second
 * run on the same device and mount reuses the first run's probe (the
 * manifest says reused, with the time it was measured); --probe fresh, a
 * changed device, changed mount options or an old probe measure again;
 * a planted or garbage kept file (wrong owner or mode, symlink, FIFO,
 * huge, bad numbers, not JSON) is ignored with a warning and replaced,
 * never followed or trusted. */
#include "testutil.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = ft_mkdtemp("fslab-probe-keep");
	ck_assert_ptr_nonnull(tmp);
}

static void teardown(void)
{
	ft_cleanup_under(tmp);
	free(tmp);
}

/* A tmpfs of ours on tmp/name. */
static void tmpfs_at(const char *name, char *mnt, size_t len)
{
	snprintf(mnt, len, "%s/%s", tmp, name);
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_msg(mount("fslab-probe-test", mnt, "tmpfs", 0, "size=32m") == 0, "mount tmpfs: %s",
		      strerror(errno));
}

/* The kept probe's path for the filesystem at mnt. */
static void kept_path(const char *mnt, char *p, size_t len)
{
	struct stat st;

	ck_assert_int_eq(stat(mnt, &st), 0);
	snprintf(p, len, "/run/fslab/probe-%u-%u.json", major(st.st_dev), minor(st.st_dev));
}

/* A one-cell run of fs=mnt; fills the manifest's device_probe_source
 * and device_probe_measured_at and returns stderr (to free).  Asserts
 * the run succeeded. */
static char *run_cache(const char *mnt, const char *probe, const char *cache, char *source, char *at,
		       size_t len)
{
	char arg[700], out[700], mf[800];
	struct ft_output o;
	json_object *m, *fss, *f, *v;
	char *err;

	snprintf(arg, sizeof(arg), "k=%s", mnt);
	snprintf(out, sizeof(out), "%s/outXXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(out));
	strcat(out, "/r");
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--file-sizes", "64K",
				  "--record-sizes", "64K", "--tests", "write,read", "--cache", cache,
				  "--trials", "1", "--stop", "fixed", "--probe-size", "4M", "--probe", probe,
				  NULL),
			 0);
	ck_assert_msg(o.status == 0, "fslab run: %s", o.err);
	snprintf(mf, sizeof(mf), "%s/manifest.json", out);
	m = json_object_from_file(mf);
	ck_assert_ptr_nonnull(m);
	ck_assert(json_object_object_get_ex(m, "filesystems", &fss));
	f = json_object_array_get_idx(fss, 0);
	ck_assert(json_object_object_get_ex(f, "device_probe_source", &v));
	snprintf(source, len, "%s", json_object_get_string(v));
	ck_assert(json_object_object_get_ex(f, "device_probe_measured_at", &v));
	snprintf(at, len, "%s", json_object_get_string(v));
	json_object_put(m);
	err = o.err;
	o.err = NULL;
	ft_output_free(&o);
	return err;
}

static char *run_one(const char *mnt, const char *probe, char *source, char *at, size_t len)
{
	return run_cache(mnt, probe, "warm", source, at, len);
}

/* Rewrites one field of the kept file (a string key's text replaced, or
 * measured_at set), keeping it root's and 0600. */
static void kept_edit(const char *path, const char *from, const char *to, int64_t measured_at)
{
	json_object *j = json_object_from_file(path), *k;
	char buf[4096];

	ck_assert_ptr_nonnull(j);
	if (from) {
		const char *key, *hit;

		ck_assert(json_object_object_get_ex(j, "key", &k));
		key = json_object_get_string(k);
		hit = strstr(key, from);
		ck_assert_msg(hit, "key %s has no %s", key, from);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(hit - key), key, to, hit + strlen(from));
		json_object_object_add(j, "key", json_object_new_string(buf));
	}
	if (measured_at)
		json_object_object_add(j, "measured_at", json_object_new_int64(measured_at));
	ck_assert_int_eq(json_object_to_file(path, j), 0);
	ck_assert_int_eq(chmod(path, 0600), 0);
	json_object_put(j);
}

/* An image lab's filesystem: the second run reuses, naming the time of the
 * first; the loop's backing inode is part of the identity; --probe fresh
 * measures again. */
START_TEST(second_run_reuses_until_the_device_changes)
{
	struct ft_loop l;
	struct ft_output o;
	struct stat st;
	char mnt[600], kept[128], src[64], at[64], at1[64], ino[64], other[64];
	char *err;
	int r;

	snprintf(mnt, sizeof(mnt), "%s/ext4", tmp);
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(ft_loop_create(&l, tmp, 64ull << 20), 0);
	/* direct I/O: a buffered loop's fast figures are explained (flagged
	 * buffered-loop) and would not measure the device again below */
	r = ft_run((const char *const[]){ "losetup", "--direct-io=on", l.device, NULL }, NULL, &o);
	ck_assert_msg(r == 0 && o.status == 0, "losetup --direct-io=on: %s", o.err);
	ft_output_free(&o);
	r = ft_run((const char *const[]){ "mkfs.ext4", "-q", "-F", l.device, NULL }, NULL, &o);
	ck_assert_msg(r == 0 && o.status == 0, "mkfs.ext4: %s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(mount(l.device, mnt, "ext4", 0, NULL), 0);
	kept_path(mnt, kept, sizeof(kept));
	unlink(kept);

	free(run_one(mnt, "reuse", src, at1, sizeof(src)));
	ck_assert_str_eq(src, "measured");
	ck_assert_int_eq(lstat(kept, &st), 0);
	ck_assert(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0600);

	err = run_one(mnt, "reuse", src, at, sizeof(src));
	ck_assert_str_eq(src, "reused");
	ck_assert_str_eq(at, at1);
	ck_assert_msg(strstr(err, "reusing the device probe"), "%s", err);
	free(err);

	/* another image behind the same numbers: its backing inode differs */
	ck_assert_int_eq(stat(l.image, &st), 0);
	snprintf(ino, sizeof(ino), ":%ju ", (uintmax_t)st.st_ino);
	snprintf(other, sizeof(other), ":%ju ", (uintmax_t)st.st_ino + 1);
	kept_edit(kept, ino, other, 0);
	free(run_one(mnt, "reuse", src, at, sizeof(src)));
	ck_assert_str_eq(src, "measured");

	free(run_one(mnt, "fresh", src, at, sizeof(src)));
	ck_assert_str_eq(src, "measured");

	/* a reused bound that a direct-mode cell runs far above: measured
	 * again during the run, once */
	{
		json_object *j = json_object_from_file(kept), *p;

		ck_assert_ptr_nonnull(j);
		ck_assert(json_object_object_get_ex(j, "probe", &p));
		json_object_object_add(p, "write_kib_s", json_tokener_parse("[1]"));
		json_object_object_add(p, "read_kib_s", json_tokener_parse("[1]"));
		ck_assert_int_eq(json_object_to_file(kept, j), 0);
		json_object_put(j);
		ck_assert_int_eq(chmod(kept, 0600), 0);
	}
	err = run_cache(mnt, "reuse", "direct", src, at, sizeof(src));
	ck_assert_str_eq(src, "measured");
	ck_assert_msg(strstr(err, "measuring the device again"), "%s", err);
	free(err);
	ck_assert_int_eq(umount2(mnt, 0), 0);
	unlink(kept);
	ft_loop_destroy(&l);
}
END_TEST

/* Other mount options, or a probe older than an hour: measured again. */
START_TEST(changed_options_or_old_probe_measure_again)
{
	char mnt[600], kept[128], src[64], at[64];
	struct ft_output o;

	tmpfs_at("t", mnt, sizeof(mnt));
	kept_path(mnt, kept, sizeof(kept));
	unlink(kept);
	free(run_one(mnt, "reuse", src, at, sizeof(src)));
	ck_assert_str_eq(src, "measured");
	free(run_one(mnt, "reuse", src, at, sizeof(src)));
	ck_assert_str_eq(src, "reused");

	ck_assert_int_eq(ft_run((const char *const[]){ "mount", "-o", "remount,noatime", mnt, NULL }, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "remount: %s", o.err);
	ft_output_free(&o);
	free(run_one(mnt, "reuse", src, at, sizeof(src)));
	ck_assert_str_eq(src, "measured");
	free(run_one(mnt, "reuse", src, at, sizeof(src)));
	ck_assert_str_eq(src, "reused");

	kept_edit(kept, NULL, NULL, (int64_t)time(NULL) - 2 * 3600);
	free(run_one(mnt, "reuse", src, at, sizeof(src)));
	ck_assert_str_eq(src, "measured");
	unlink(kept);
}
END_TEST

/* Plants bad at the kept path and checks the run ignores it with a
 * warning naming why, measures, and leaves a good kept file (regular,
 * root's, 0600) in its place. */
static void planted(const char *mnt, const char *kept, const char *why)
{
	char src[64], at[64];
	struct stat st;
	char *err = run_one(mnt, "reuse", src, at, sizeof(src));

	ck_assert_str_eq(src, "measured");
	ck_assert_msg(strstr(err, "ignored the kept device probe") && strstr(err, why),
		      "no warning saying '%s': %s", why, err);
	free(err);
	ck_assert_int_eq(lstat(kept, &st), 0);
	ck_assert(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0600);
	ck_assert_int_eq(st.st_nlink, 1);
}

START_TEST(planted_files_are_ignored)
{
	char mnt[600], kept[128], src[64], at[64], victim[700], buf[64] = "";
	FILE *f;

	tmpfs_at("p", mnt, sizeof(mnt));
	kept_path(mnt, kept, sizeof(kept));
	unlink(kept);
	free(run_one(mnt, "reuse", src, at, sizeof(src)));

	/* wrong owner, wrong mode */
	ck_assert_int_eq(chown(kept, 65534, 65534), 0);
	planted(mnt, kept, "belongs to uid 65534");
	ck_assert_int_eq(chmod(kept, 0644), 0);
	planted(mnt, kept, "mode is 0644");

	/* a symlink: not followed, its target untouched, replaced by a file */
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	ck_assert_int_eq(ft_write_file(victim, "victim\n"), 0);
	ck_assert_int_eq(unlink(kept), 0);
	ck_assert_int_eq(symlink(victim, kept), 0);
	planted(mnt, kept, "symbolic link");
	f = fopen(victim, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "victim\n");

	/* a FIFO: no hang */
	ck_assert_int_eq(unlink(kept), 0);
	ck_assert_int_eq(mkfifo(kept, 0600), 0);
	planted(mnt, kept, "not a regular file");

	/* huge */
	f = fopen(kept, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 100000; i++)
		fputs("          ", f);
	fclose(f);
	planted(mnt, kept, "bytes, more than");

	/* not JSON, and bad numbers */
	ck_assert_int_eq(ft_write_file(kept, "garbage{"), 0);
	planted(mnt, kept, "not a probe file");
	const char *bad[] = { "[-5]", "[1e30]", "[\"nan\"]", "[]", "[1,2,3,4]" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *j = json_object_from_file(kept), *p;

		ck_assert_ptr_nonnull(j);
		ck_assert(json_object_object_get_ex(j, "probe", &p));
		json_object_object_add(p, "write_kib_s", json_tokener_parse(bad[i]));
		ck_assert_int_eq(json_object_to_file(kept, j), 0);
		json_object_put(j);
		ck_assert_int_eq(chmod(kept, 0600), 0);
		planted(mnt, kept, "out of bounds");
	}
	/* a time in the future */
	{
		json_object *j = json_object_from_file(kept);

		json_object_object_add(j, "measured_at", json_object_new_int64((int64_t)time(NULL) + 86400));
		ck_assert_int_eq(json_object_to_file(kept, j), 0);
		json_object_put(j);
		ck_assert_int_eq(chmod(kept, 0600), 0);
		planted(mnt, kept, "not a time before now");
	}
	unlink(kept);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("probe_keep");
	TCase *tc = ft_tcase(s, "keep", FT_ROOT | FT_MKFS_EXT);

	tcase_set_timeout(tc, 240);
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, second_run_reuses_until_the_device_changes);
	tcase_add_test(tc, changed_options_or_old_probe_measure_again);
	tcase_add_test(tc, planted_files_are_ignored);
	return ft_suite_run(s, argc, argv);
}
