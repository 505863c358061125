/* The engine on targets made by hand (lib/target.h), in-process, with no
 * lab anywhere: bench/ takes a target and nothing else.  A plain directory
 * is run and recorded as such; a target that brings its own facts and a
 * remount has them recorded and its remount called by cold mode. */
#include "testutil.h"

#include "fslab/run.h"
#include "settings.h"
#include "target.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = ft_mkdtemp("fslab-target");
	ck_assert_ptr_nonnull(tmp);
}

static void teardown(void)
{
	ft_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
}

/* One setting as the command line would give it. */
static void put(struct fslab_run_opts *o, enum fslab_setting id, const char *text)
{
	struct fslab_err e = FSLAB_ERR_INIT;

	ck_assert_msg(fslab_setting_parse(&o->given, id, text, "test", &e) == 0, "%s", e.msg);
}

/* A small sweep of two tests on the given targets, into out. */
static int run_on(const struct fslab_target *t, size_t n, const char *out, const char *cache)
{
	struct fslab_run_opts o;

	fslab_run_opts_init(&o);
	o.targets = t;
	o.n_targets = n;
	o.out_dir = out;
	put(&o, FSLAB_SETTING_PRESET, "quick");
	put(&o, FSLAB_SETTING_TESTS, "write,read");
	put(&o, FSLAB_SETTING_FILE_SIZES, "64K");
	put(&o, FSLAB_SETTING_RECORD_SIZES, "4K-64K");
	put(&o, FSLAB_SETTING_CACHE, cache);
	put(&o, FSLAB_SETTING_TRIALS, "1");
	put(&o, FSLAB_SETTING_STOP, "fixed");
	put(&o, FSLAB_SETTING_NO_PROBE, NULL);
	put(&o, FSLAB_SETTING_STEADY, "off");
	o.quiet = true;
	return fslab_run(&o);
}

static json_object *fs_entry(const char *out, const char *name)
{
	char p[PATH_MAX];
	json_object *root, *arr;

	snprintf(p, sizeof(p), "%s/manifest.json", out);
	root = json_object_from_file(p);
	ck_assert_msg(root != NULL, "no manifest at %s", p);
	ck_assert(json_object_object_get_ex(root, "filesystems", &arr));
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i), *v;

		if (json_object_object_get_ex(f, "name", &v) && strcmp(json_object_get_string(v), name) == 0) {
			json_object_get(f);
			json_object_put(root);
			return f;
		}
	}
	ck_abort_msg("no filesystem %s in %s", name, p);
	return NULL;
}

static const char *str_of(json_object *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

/* CSV rows of name in out (the header not counted). */
static int csv_rows(const char *out, const char *name)
{
	char p[PATH_MAX], line[1024];
	FILE *f;
	int n = -1;

	snprintf(p, sizeof(p), "%s/%s.csv", out, name);
	f = fopen(p, "r");
	ck_assert_msg(f != NULL, "no %s", p);
	while (fgets(line, sizeof(line), f))
		if (n++ >= 0)
			ck_assert_msg(strstr(line, ",ok,") || strstr(line, ",ok\n"), "a row not ok: %s", line);
	fclose(f);
	return n;
}

START_TEST(plain_directory_without_a_lab)
{
	struct fslab_target t = { .discarded = -1 };
	char dir[PATH_MAX], out[PATH_MAX], state[PATH_MAX];
	json_object *f;

	snprintf(dir, sizeof(dir), "%s/data", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(t.name, sizeof(t.name), "plain");
	snprintf(t.path, sizeof(t.path), "%s", dir);
	/* no state file anywhere the run could look */
	snprintf(state, sizeof(state), "%s/no-state.json", tmp);
	setenv("FSLAB_STATE", state, 1);

	ck_assert_int_eq(run_on(&t, 1, out, "warm"), 0);
	/* 64K file: records 4K..64K, two tests each */
	ck_assert_int_eq(csv_rows(out, "plain"), 5 * 2);
	f = fs_entry(out, "plain");
	ck_assert_str_eq(str_of(f, "path"), dir);
	ck_assert_ptr_nonnull(str_of(f, "type"));
	ck_assert_ptr_null(str_of(f, "mkfs_options")); /* nobody made it */
	ck_assert_ptr_nonnull(strstr(str_of(f, "sync_note"), "syncfs only"));
	json_object_put(f);
	ck_assert_int_ne(access(state, F_OK), 0);
	ck_assert_int_eq(ft_dir_entries(dir), 0); /* its private directory removed */
}
END_TEST

/* A target's own record wins over what the mount says, and cold mode's
 * remount (forced) is the target's callback, called by its name. */
static int remounts;
static char remounted[64];

static int count_remount(void *ctx, const char *name, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	ck_assert_ptr_eq(ctx, &remounts);
	snprintf(remounted, sizeof(remounted), "%s", name);
	remounts++;
	return 0;
}

START_TEST(target_facts_and_remount_are_the_makers)
{
	struct fslab_target t[2] = { { .discarded = -1 }, { .discarded = -1 } };
	char out[PATH_MAX];
	json_object *f;

	snprintf(out, sizeof(out), "%s/out", tmp);
	for (int i = 0; i < 2; i++) {
		snprintf(t[i].name, sizeof(t[i].name), "hand%d", i);
		snprintf(t[i].path, sizeof(t[i].path), "%s/d%d", tmp, i);
		ck_assert_int_eq(mkdir(t[i].path, 0700), 0);
	}
	t[1].lab = true;
	snprintf(t[1].type, sizeof(t[1].type), "ext4");
	snprintf(t[1].mkfs_options, sizeof(t[1].mkfs_options), "-b 4096");
	snprintf(t[1].mkfs_command, sizeof(t[1].mkfs_command), "mkfs.ext4 -b 4096 /dev/nothing");
	snprintf(t[1].mount_options, sizeof(t[1].mount_options), "noatime");
	t[1].discarded = 1;
	t[1].remount = count_remount;
	t[1].remount_ctx = &remounts;
	setenv("FSLAB_DROP_METHOD", "remount", 1);

	ck_assert_int_eq(run_on(t, 2, out, "cold"), 0);
	unsetenv("FSLAB_DROP_METHOD");
	ck_assert_int_eq(csv_rows(out, "hand0"), 10);
	ck_assert_int_eq(csv_rows(out, "hand1"), 10);
	/* one remount before each read pass, of hand1 only: the 5 cells' and
	 * the 2 calibration cells' (bench/run_cost.c: rows dropped) */
	ck_assert_int_eq(remounts, 5 + 2);
	ck_assert_str_eq(remounted, "hand1");

	f = fs_entry(out, "hand1");
	ck_assert_str_eq(str_of(f, "type"), "ext4");
	ck_assert_str_eq(str_of(f, "mkfs_options"), "-b 4096");
	ck_assert_str_eq(str_of(f, "mkfs_command"), "mkfs.ext4 -b 4096 /dev/nothing");
	ck_assert_str_eq(str_of(f, "mount_options"), "noatime");
	ck_assert_str_eq(str_of(f, "cache_drop_method"), "remount");
	json_object_put(f);
	f = fs_entry(out, "hand0");
	ck_assert_ptr_null(str_of(f, "mkfs_options"));
	ck_assert_str_ne(str_of(f, "cache_drop_method"), "remount");
	json_object_put(f);
}
END_TEST

START_TEST(bad_targets_change_nothing)
{
	struct fslab_target t[2] = { { .discarded = -1 }, { .discarded = -1 } };
	char out[PATH_MAX];

	snprintf(out, sizeof(out), "%s/out", tmp);
	/* none */
	ck_assert_int_eq(run_on(t, 0, out, "warm"), 2);
	/* a name twice */
	for (int i = 0; i < 2; i++) {
		snprintf(t[i].name, sizeof(t[i].name), "same");
		snprintf(t[i].path, sizeof(t[i].path), "%s", tmp);
	}
	ck_assert_int_eq(run_on(t, 2, out, "warm"), 2);
	/* no such directory */
	snprintf(t[0].path, sizeof(t[0].path), "%s/missing", tmp);
	ck_assert_int_eq(run_on(t, 1, out, "warm"), 2);
	ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_target");
	TCase *user = ft_tcase(s, "targets", 0);

	tcase_add_checked_fixture(user, setup, teardown);
	tcase_add_test(user, plain_directory_without_a_lab);
	tcase_add_test(user, target_facts_and_remount_are_the_makers);
	tcase_add_test(user, bad_targets_change_nothing);
	return ft_suite_run(s, argc, argv);
}
