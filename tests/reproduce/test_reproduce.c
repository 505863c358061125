/* fslab reproduce end to end on a sparse image: the 2023 layout, a small
 * --max-file, --honest with two trials; then five CSVs with all 13 tests per
 * cache mode, the report with its 2023-claims section, and a clean disk. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static char *dir;
static char image[PATH_MAX], state[PATH_MAX], mnt[PATH_MAX], out[PATH_MAX];

/* The loop device whose backing file is our image, if any ("" if none). */
static void loop_of_image(char *dev, size_t len)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;

	dev[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[PATH_MAX], backing[PATH_MAX] = "";
		FILE *f;

		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(backing, sizeof(backing), f))
			backing[strcspn(backing, "\n")] = '\0';
		fclose(f);
		if (strcmp(backing, image) == 0) {
			snprintf(dev, len, "/dev/%.200s", e->d_name);
			break;
		}
	}
	closedir(d);
}

/* Mount points under our mount root, counted from /proc/self/mountinfo. */
static int mounts_under_root(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int n = 0;
	size_t len = strlen(mnt);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char target[PATH_MAX];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", target) == 1 && strncmp(target, mnt, len) == 0)
			n++;
	}
	fclose(f);
	return n;
}

static void setup(void)
{
	ft_require_root();
	dir = ft_mkdtemp("fslab-reproduce");
	ck_assert_ptr_nonnull(dir);
	snprintf(image, sizeof(image), "%s/lab.img", dir);
	snprintf(state, sizeof(state), "%s/state.json", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
}

/* Cleans up after a failed run too: fslab's own teardown first, then only
 * what this test made (the loop device on our image, mounts under our root). */
static void teardown(void)
{
	struct ft_output o;
	char dev[300];

	if (!dir)
		return;
	if (access(state, F_OK) == 0) {
		ft_fslab(&o, "teardown", "--state", state, "--yes", NULL);
		ft_output_free(&o);
	}
	for (int i = 0; i < 8 && mounts_under_root() > 0; i++) {
		FILE *f = fopen("/proc/self/mountinfo", "r");
		char line[4096], target[PATH_MAX];
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%*s %*s %*s %*s %4095s", target) == 1 &&
			    strncmp(target, mnt, strlen(mnt)) == 0)
				umount2(target, MNT_DETACH);
		if (f)
			fclose(f);
	}
	loop_of_image(dev, sizeof(dev));
	if (dev[0]) {
		struct ft_loop l = { 0 };
		snprintf(l.device, sizeof(l.device), "%.60s", dev);
		ft_loop_destroy(&l);
	}
	ft_rm_rf(dir);
	free(dir);
	dir = NULL;
}

/* Counts, per test name, the rows of a CSV; returns the number of rows. */
static int count_tests(const char *csv, int seen[13])
{
	static const char *const names[13] = {
		"write", "rewrite", "read", "reread", "random_read", "random_write", "backward_read",
		"record_rewrite", "stride_read", "fwrite", "frewrite", "fread", "freread",
	};
	FILE *f = fopen(csv, "r");
	char line[1024];
	int rows = 0;

	memset(seen, 0, 13 * sizeof(int));
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *test = strchr(line, ',');
		if (!test)
			continue;
		test++;
		for (int i = 0; i < 13; i++) {
			size_t n = strlen(names[i]);
			if (strncmp(test, names[i], n) == 0 && test[n] == ',')
				seen[i]++;
		}
		rows++;
	}
	fclose(f);
	return rows;
}

START_TEST(reproduce_honest_on_an_image)
{
	static const char *const fss[] = { "ext4", "ext2", "xfs", "fat32", "btrfs" };
	static const char *const modes[] = { "warm", "cold", "direct" };
	struct ft_output o;
	char path[PATH_MAX + 64], dev[300];
	char *html = NULL;
	size_t len = 0;

	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--state", state,
				  "--mount-root", mnt, "--out", out, "--max-file", "1M", "--honest",
				  "--max-trials", "2", "--yes", "--quiet", NULL),
			 0);
	if (o.status != 0) {
		size_t n = strlen(o.err);
		/* Check limits message length: the end of stderr says what failed. */
		ck_abort_msg("reproduce exited %d; stderr ends:\n%s", o.status,
			     o.err + (n > 2000 ? n - 2000 : 0));
	}
	ft_output_free(&o);

	for (size_t m = 0; m < 3; m++) {
		for (size_t i = 0; i < 5; i++) {
			int seen[13];
			snprintf(path, sizeof(path), "%s/%s/%s.csv", out, modes[m], fss[i]);
			int rows = count_tests(path, seen);
			ck_assert_msg(rows > 0, "%s: missing or empty", path);
			for (int t = 0; t < 13; t++)
				ck_assert_msg(seen[t] > 0, "%s: test #%d has no row", path, t + 1);
		}
	}

	snprintf(path, sizeof(path), "%s/report/report.html", out);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s missing", path);
	html = malloc(64u << 20);
	ck_assert_ptr_nonnull(html);
	len = fread(html, 1, (64u << 20) - 1, f);
	fclose(f);
	html[len] = '\0';
	ck_assert_msg(strstr(html, "id=\"claims-2023\""), "report.html has no 2023-claims section");
	free(html);

	/* A clean disk: no state, no image, no loop device on it, no mounts. */
	ck_assert_msg(access(state, F_OK) != 0, "state file left behind");
	ck_assert_msg(access(image, F_OK) != 0, "image left behind");
	loop_of_image(dev, sizeof(dev));
	ck_assert_msg(dev[0] == '\0', "loop device %s still attached to the image", dev);
	ck_assert_int_eq(mounts_under_root(), 0);
}
END_TEST

START_TEST(reproduce_refuses_an_existing_lab)
{
	struct ft_output o;

	/* Someone's lab is recorded at this state path: reproduce must not
	 * touch it (nor tear it down), and say how to proceed. */
	ck_assert_int_eq(ft_write_file(state, "{\"version\": 1, \"disk\": \"/dev/null\"}\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--state", state,
				  "--mount-root", mnt, "--out", out, "--yes", NULL),
			 0);
	ck_assert_int_eq(o.status, 1);
	ck_assert_msg(strstr(o.err, "already set up"), "stderr: %s", o.err);
	ck_assert_msg(access(image, F_OK) != 0, "an image was created");
	ck_assert_msg(access(out, F_OK) != 0, "an output directory was created");
	ft_output_free(&o);
	unlink(state);
}
END_TEST

/* --dry-run lists every stage in order, each sweep with its estimate and
 * the whole time, and touches nothing: no image, state, mount root, output
 * directory, loop device or mount. */
START_TEST(reproduce_dry_run_lists_every_stage_and_touches_nothing)
{
	static const char *const stages[] = { "[1/6 setup]", "[2/6 run warm]", "[3/6 run cold]",
					      "[4/6 run direct]", "[5/6 report]", "[6/6 teardown]", "time: about" };
	struct ft_output o;
	const char *at;
	char dev[300];

	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--state", state,
				  "--mount-root", mnt, "--out", out, "--max-file", "1M", "--honest",
				  "--max-trials", "4", "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	at = o.out;
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		const char *next = strstr(at, stages[i]);

		ck_assert_msg(next, "no '%s' after the stages before it in:\n%s", stages[i], o.out);
		at = next;
	}
	/* setup's own plan (the layout), and the adaptive sweeps as a range */
	ck_assert_msg(strstr(o.out, "btrfs") && strstr(o.out, "2..4 trials"), "%s", o.out);
	ck_assert_msg(strstr(strstr(o.out, "[3/6 run cold]"), "about ") &&
		      strstr(strstr(strstr(o.out, "[3/6 run cold]"), "about "), ".."),
		      "the cold sweep has no estimated range:\n%s", o.out);
	ft_output_free(&o);
	ck_assert_msg(access(image, F_OK) != 0, "an image was created");
	ck_assert_msg(access(state, F_OK) != 0, "a state file was written");
	ck_assert_msg(access(mnt, F_OK) != 0, "a mount root was made");
	ck_assert_msg(access(out, F_OK) != 0, "an output directory was created");
	loop_of_image(dev, sizeof(dev));
	ck_assert_msg(dev[0] == '\0', "loop device %s attached", dev);
	ck_assert_int_eq(mounts_under_root(), 0);

	/* --keep: no teardown stage */
	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--state", state,
				  "--mount-root", mnt, "--out", out, "--keep", "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "[3/3 report]") && !strstr(o.out, "teardown]"), "%s", o.out);
	ft_output_free(&o);
	ck_assert_msg(access(image, F_OK) != 0 && access(out, F_OK) != 0, "--keep --dry-run made files");
}
END_TEST

/* A small lab: --size 2G refuses the 2023 layout naming the spec, and
 * --spec with smaller partitions is the fix; without --max-file the files
 * stop at what the smallest partition holds. */
START_TEST(reproduce_spec_makes_a_small_lab)
{
	static const char *const fs[] = { "ext4", "ext2", "xfs", "fat32", "btrfs" };
	char spec[PATH_MAX + 16], text[1024] = "[disk]\nlabel = gpt\n";
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--size", "2G", "--state", state,
				  "--mount-root", mnt, "--out", out, "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 1 && strstr(o.err, "shrink a partition in the spec"), "exit %d: %s", o.status,
		      o.err);
	ft_output_free(&o);
	for (size_t i = 0; i < 5; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "[fs %s]\ntype = %s\nsize = 400M\n", fs[i],
			 fs[i]);
	snprintf(spec, sizeof(spec), "%s/small.ini", dir);
	ck_assert_int_eq(ft_write_file(spec, text), 0);
	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--size", "2G", "--spec", spec, "--state",
				  state, "--mount-root", mnt, "--out", out, "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "the layout of ") && strstr(o.out, " 400M ") &&
		      strstr(o.out, "[2/4 run warm] the seed sweep, files 64K-256M,"), "%s", o.out);
	ft_output_free(&o);
	ck_assert_msg(access(image, F_OK) != 0 && access(out, F_OK) != 0, "--dry-run made files");
	ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", image, "--spec", "/nonexistent/spec.ini", NULL), 0);
	ck_assert_msg(o.status == 2 && strstr(o.err, "/nonexistent/spec.ini"), "exit %d: %s", o.status, o.err);
	ft_output_free(&o);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("reproduce");
	TCase *tc = ft_tcase(s, "reproduce", FT_LAB);
	TCase *dry = ft_tcase(s, "dry_run", FT_ROOT);

	tcase_add_checked_fixture(dry, setup, teardown);
	tcase_add_test(dry, reproduce_dry_run_lists_every_stage_and_touches_nothing);
	tcase_add_test(dry, reproduce_spec_makes_a_small_lab);

	tcase_set_timeout(tc, 1400);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reproduce_refuses_an_existing_lab);
	tcase_add_test(tc, reproduce_honest_on_an_image);
	return ft_suite_run(s, argc, argv);
}
