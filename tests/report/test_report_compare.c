/* fslab report BEFORE AFTER compares like with like: what differs between
 * the runs' manifests is listed whichever way it was made (the mount
 * options the kernel showed, not only the spec's text), and a later run's
 * filesystem of another type or on another device under the same name is
 * refused unless --compare-different asks for it.  As root, a real run
 * after a hand-made `mount -o data=journal` records it. */
#include "testutil.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *tmp;

static void setup(void)
{
	tmp = ft_mkdtemp("fslab-report-compare");
	ck_assert_ptr_nonnull(tmp);
}

static void teardown(void)
{
	ft_rm_rf(tmp);
	free(tmp);
}

static char *path(const char *name)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", tmp, name), 0);
	return p;
}

static void has(const char *hay, const char *needle)
{
	ck_assert_msg(hay && strstr(hay, needle), "'%s' not in:\n%s", needle, hay ? hay : "(null)");
}

/* A results directory of one filesystem "ext4" (3 trials of write and
 * read, after 0.9x as fast) whose manifest records fs (its JSON members
 * after the name) on host. */
static char *run_dir(const char *name, bool after, const char *host, const char *fs)
{
	char *dir = path(name), *p, m[2048];
	FILE *f;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_ge(asprintf(&p, "%s/ext4.csv", dir), 0);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs("filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,cache_mode,status,flag\n", f);
	for (unsigned t = 1; t <= 3; t++)
		for (unsigned long long file = 1024; file <= 4096; file *= 2)
			for (int k = 0; k < 2; k++)
				fprintf(f, "ext4,%s,%llu,64,%u,%.0f,1.0,cold,ok,\n", k ? "read" : "write", file, t,
					(after ? 900.0 : 1000.0) * (1 + (double)((t + file / 1024) % 3) / 200) * 1024);
	fclose(f);
	free(p);
	ck_assert_int_ge(asprintf(&p, "%s/manifest.json", dir), 0);
	snprintf(m, sizeof(m),
		 "{\"cache_mode\":\"cold\",\"trials\":3,\"machine\":{\"hostname\":\"%s\",\"kernel\":\"Linux 6.1.0 x86_64\"},"
		 "\"filesystems\":[{\"name\":\"ext4\",%s}]}\n", host, fs);
	ck_assert_int_eq(ft_write_file(p, m), 0);
	free(p);
	return dir;
}

/* An ext4 whose spec's mount options ("rw,relatime") are the same before
 * and after, remounted by hand data=journal after: the live options say
 * it, in the text's differs and in JSON's run_differences. */
START_TEST(t_live_mount_options_differ)
{
	static const char *const fs =
		"\"type\":\"ext4\",\"mount_options\":\"rw,relatime\",\"device_model\":\"disk A\","
		"\"live\":{\"start\":{\"type\":\"ext4\",\"options\":\"rw,relatime,data=%s\","
		"\"features\":\"compat=0x3c incompat=0x2c2 ro_compat=0x46b\"},\"end\":null}";
	char fa[512], fb[512];
	struct ft_output o;

	snprintf(fa, sizeof(fa), fs, "ordered");
	snprintf(fb, sizeof(fb), fs, "journal");
	char *a = run_dir("before", false, "h1", fa), *b = run_dir("after", true, "h1", fb);

	ck_assert_int_eq(ft_fslab(&o, "report", a, b, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	has(o.out, "differs: ");
	has(o.out, "ext4 live mount options 'rw,relatime,data=ordered' -> 'rw,relatime,data=journal'");
	ck_assert_msg(!strstr(o.out, "ext4 mount options '"), "the spec's options did not change:\n%s", o.out);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "report", a, b, "--format", "json", NULL), 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	json_object *root = json_tokener_parse(o.out), *v = NULL;
	ck_assert_ptr_nonnull(root);
	ck_assert(json_object_object_get_ex(root, "run_differences", &v));
	ck_assert_msg(json_object_is_type(v, json_type_string), "run_differences is null");
	has(json_object_get_string(v), "data=journal");
	json_object_put(root);
	ft_output_free(&o);
	free(a);
	free(b);
}
END_TEST

/* After's "ext4" is an xfs on another disk of another host: refused
 * (exit 2, naming both and the fix); with --compare-different compared,
 * every difference listed. */
START_TEST(t_other_type_refused)
{
	char *a = run_dir("before", false, "h1", "\"type\":\"ext4\",\"device_model\":\"disk A\",\"device_serial\":\"S1\""),
	     *b = run_dir("after", true, "h2", "\"type\":\"xfs\",\"device_model\":\"disk B\",\"device_serial\":\"S2\"");
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "report", a, b, "--format", "text", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	has(o.err, "ext4 is ext4 on 'disk A' in before but xfs on 'disk B' in after");
	has(o.err, "--compare-different");
	ck_assert_msg(!strstr(o.out, "change between runs"), "a refused comparison printed a report:\n%s", o.out);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "report", a, b, "--format", "json", "--compare-different", NULL), 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	has(o.out, "ext4 type 'ext4' -> 'xfs'");
	has(o.out, "ext4 device 'disk A' -> 'disk B'");
	has(o.out, "ext4 device serial 'S1' -> 'S2'");
	has(o.out, "after/before hostname 'h1' -> 'h2'");
	ft_output_free(&o);
	free(a);
	free(b);
	/* another host alone is listed, not refused */
	a = run_dir("before2", false, "h1", "\"type\":\"ext4\"");
	b = run_dir("after2", true, "h2", "\"type\":\"ext4\"");
	ck_assert_int_eq(ft_fslab(&o, "report", a, b, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	has(o.out, "hostname 'h1' -> 'h2'");
	ft_output_free(&o);
	free(a);
	free(b);
}
END_TEST

/* The manifest's live.start of out's first filesystem, or NULL. */
static json_object *live_start(const char *out)
{
	char *p, *text;
	json_object *m, *v = NULL;

	if (asprintf(&p, "%s/manifest.json", out) < 0)
		return NULL;
	text = ft_read_text(p);
	m = text ? json_tokener_parse(text) : NULL;
	v = json_object_array_get_idx(json_object_object_get(m, "filesystems"), 0);
	if (!json_object_object_get_ex(v, "live", &v) || !json_object_object_get_ex(v, "start", &v))
		v = NULL;
	json_object_get(v);
	json_object_put(m);
	free(text);
	free(p);
	return v;
}

static const char *live_str(json_object *l, const char *key)
{
	const char *v = json_object_get_string(json_object_object_get(l, key));

	return v ? v : "(null)";
}

/* One tiny cell on the lab; its exit status (-1: not run). */
static int run_one_cell(const char *state, const char *out)
{
	struct ft_output o;
	int st = ft_fslab(&o, "run", "--state", state, "--tests", "write", "--file-sizes", "64K-64K",
			  "--record-sizes", "64K", "--cache", "warm", "--trials", "1", "--no-device-probe",
			  "--steady-state", "off", "--out", out, "--quiet", NULL) == 0 ? o.status : -1;

	ft_output_free(&o);
	return st;
}

/* root: a lab's ext4, one tiny cell; then unmounted and mounted again by
 * hand with data=journal, the same cell: the second manifest's live
 * options say data=journal (the spec's text does not), and the report
 * lists it.  Nothing is asserted before the lab is torn down. */
START_TEST(t_hand_mount_recorded)
{
	char *spec = path("spec.ini"), *img = path("lab.img"), *mnt = path("mnt"), *state = path("state.json"),
	     *before = path("before"), *after = path("after"), mp[1024], dev[128] = "";
	int st[4] = { -1, -1, -1, -1 };
	struct ft_output o;
	json_object *la, *lb;

	snprintf(mp, sizeof(mp), "%s/one", mnt);
	ck_assert_int_eq(ft_write_file(spec, "[fs one]\ntype = ext4\nsize = 32M\n"), 0);
	if (ft_fslab(&o, "setup", "--image", img, "--spec", spec, "--mount-root", mnt, "--state", state, "--yes",
		     NULL) == 0)
		st[0] = o.status;
	ft_output_free(&o);
	if (st[0] == 0 && (st[1] = run_one_cell(state, before)) == 0 &&
	    ft_run((const char *const[]){ "findmnt", "-n", "-o", "SOURCE", mp, NULL }, NULL, &o) == 0) {
		snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(o.out, "\n"), o.out);
		ft_output_free(&o);
		if (ft_run((const char *const[]){ "umount", mp, NULL }, NULL, &o) == 0)
			ft_output_free(&o);
		if (ft_run((const char *const[]){ "mount", "-o", "data=journal", dev, mp, NULL }, NULL, &o) == 0) {
			st[2] = o.status;
			ft_output_free(&o);
		}
		if (st[2] == 0)
			st[3] = run_one_cell(state, after);
	}
	if (ft_fslab(&o, "teardown", "--state", state, "--yes", NULL) == 0)
		ft_output_free(&o);
	ck_assert_msg(st[0] == 0 && st[1] == 0 && st[2] == 0 && st[3] == 0, "setup %d, run %d, mount %s %d, run %d",
		      st[0], st[1], dev, st[2], st[3]);
	la = live_start(before);
	lb = live_start(after);
	ck_assert_msg(la && lb, "no live.start in the manifests");
	ck_assert_msg(!strstr(live_str(la, "options"), "data=journal"), "%s", live_str(la, "options"));
	has(live_str(lb, "options"), "data=journal");
	ck_assert_str_eq(live_str(lb, "type"), "ext4");
	ck_assert_str_eq(live_str(lb, "uuid"), live_str(la, "uuid"));
	ck_assert_msg(strlen(live_str(lb, "uuid")) == 36, "UUID %s", live_str(lb, "uuid"));
	has(live_str(lb, "features"), "incompat=0x");
	json_object_put(la);
	json_object_put(lb);
	ck_assert_int_eq(ft_fslab(&o, "report", before, after, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	has(o.out, "one live mount options '");
	has(o.out, "data=journal'");
	ft_output_free(&o);
	free(spec);
	free(img);
	free(mnt);
	free(state);
	free(before);
	free(after);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("report_compare");
	TCase *tc = ft_tcase(s, "compare", 0), *root = ft_tcase(s, "compare_root", FT_ROOT | FT_MKFS_EXT);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_live_mount_options_differ);
	tcase_add_test(tc, t_other_type_refused);
	tcase_add_checked_fixture(root, setup, teardown);
	tcase_set_timeout(root, 240);
	tcase_add_test(root, t_hand_mount_recorded);
	return ft_suite_run(s, argc, argv);
}
