/* Trust, class 6 (issue 9): spec options reach other devices and files.
 * Each case is the attack: a victim loop device made by the test (with an
 * ext4 filesystem labelled "fslabvictim", so LABEL= finds it) and a victim
 * file named initrd.img in the working directory, then a spec whose
 * mkfs_options or mount_options name them, or make mount find its source
 * another way (loop, offset=).  fslab setup --image must exit 2 naming the
 * option before it creates anything: no image, no state file, no loop
 * device, no mount, and the victims byte-identical.  Last, a spec with
 * allowed options still sets up and tears down.  Root only. */
#include "testutil.h"
#include "trust_util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VICTIM_LABEL "fslabvictim"

static char *dir;
static char victim_file[4200];
static char image[4096], state[4096], mnt[4096], cwd_dir[4096];
static struct ft_loop victim;
static unsigned char *fp_dev, *fp_file, *fp_now;

/* Unchecked fixtures (run in the parent): down() removes everything below
 * dir also after a failed test. */
static void up(void)
{
	char sub[4096];

	dir = ft_mkdtemp("fslab-trust-options");
	if (!dir)
		exit(1);
	snprintf(image, sizeof(image), "%s/lab.img", dir);
	snprintf(state, sizeof(state), "%s/state.json", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(cwd_dir, sizeof(cwd_dir), "%s/cwd", dir);
	snprintf(victim_file, sizeof(victim_file), "%s/initrd.img", cwd_dir);
	snprintf(sub, sizeof(sub), "%s/victim", dir);
	unsetenv("FSLAB_STATE");
	fp_dev = malloc(FT_FINGERPRINT_SIZE);
	fp_file = malloc(FT_FINGERPRINT_SIZE);
	fp_now = malloc(FT_FINGERPRINT_SIZE);
	if (mkdir(sub, 0700) < 0 || mkdir(cwd_dir, 0700) < 0 || !fp_dev || !fp_file || !fp_now) {
		fprintf(stderr, "cannot prepare %s\n", dir);
		ft_rm_rf(dir);
		exit(1);
	}
}

static void down(void)
{
	/* the victim loop device is below dir: detached here too */
	ft_loop_destroy(&victim);
	if (dir) {
		struct ft_output o;
		if (access(state, F_OK) == 0 && ft_fslab(&o, "teardown", "--state", state, NULL) == 0)
			ft_output_free(&o);
		ft_cleanup_under(dir);
	}
	free(dir);
	dir = NULL;
	free(fp_dev);
	free(fp_file);
	free(fp_now);
}

/* The victims: a labelled filesystem on a loop device, and a 128 MiB file
 * (big enough for mkfs.btrfs) with text at both ends. */
static void make_victims(void)
{
	char sub[4096];
	struct ft_output o;
	FILE *f;

	snprintf(sub, sizeof(sub), "%s/victim", dir);
	ck_assert_int_eq(ft_loop_create(&victim, sub, 64u << 20), 0);
	{
		const char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", VICTIM_LABEL, victim.device, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_msg(o.status == 0, "mkfs.ext4 of the victim: %s", o.err);
		ft_output_free(&o);
	}
	ck_assert_int_eq(ft_disk_fingerprint(victim.device, fp_dev), 0);
	f = fopen(victim_file, "wbx");
	ck_assert_ptr_nonnull(f);
	fputs("victim: not fslab's\n", f);
	ck_assert_int_eq(fseek(f, (128l << 20) - 32, SEEK_SET), 0);
	fputs("victim: the last bytes\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(ft_disk_fingerprint(victim_file, fp_file), 0);
}

/* in with every @V@ replaced by the victim's device */
static void subst(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (const char *p = in; *p && n + 1 < len;) {
		if (strncmp(p, "@V@", 3) == 0) {
			n += (size_t)snprintf(out + n, len - n, "%s", victim.device);
			p += 3;
		} else {
			out[n++] = *p++;
		}
	}
	out[n < len ? n : len - 1] = '\0';
}

static bool same(const char *what, const unsigned char *fp)
{
	return ft_disk_fingerprint(what, fp_now) == 0 && memcmp(fp, fp_now, FT_FINGERPRINT_SIZE) == 0;
}

START_TEST(hostile_options_refused_before_anything)
{
	static const struct {
		const char *spec;  /* @V@: the victim device */
		const char *named; /* the option the message must quote */
		bool in_cwd;       /* run from the directory holding initrd.img */
	} cases[] = {
		{ "[fs ext4]\nsize = 32M\nmkfs_options = -b 4096 -J device=@V@\n", "-J device=@V@", false },
		{ "[fs ext4]\nsize = 32M\nmkfs_options = -b 4096 -J device=LABEL=" VICTIM_LABEL "\n",
		  "-J device=LABEL=" VICTIM_LABEL, false },
		{ "[fs ext4]\nsize = 32M\nmkfs_options = -O journal_dev\n", "-O journal_dev", false },
		{ "[fs ext4]\nsize = 32M\nmkfs_options = -E offset=4096\n", "-E offset=4096", false },
		{ "[fs b]\ntype = btrfs\nsize = 128M\nmkfs_options = -f initrd.img\n", "-f", true },
		{ "[fs b]\ntype = btrfs\nsize = 128M\nmkfs_options = -K initrd.img\n", "initrd.img", true },
		{ "[fs b]\ntype = btrfs\nsize = 128M\nmkfs_options = --rootdir initrd.img\n",
		  "--rootdir initrd.img", true },
		{ "[fs x]\ntype = xfs\nsize = 300M\nmkfs_options = -l logdev=@V@\n", "-l logdev=@V@", false },
		{ "[fs x]\ntype = xfs\nsize = 300M\nmount_options = logdev=@V@\n", "logdev=@V@", false },
		{ "[fs x]\ntype = xfs\nsize = 300M\nmount_options = noatime,logdev=LABEL=" VICTIM_LABEL "\n",
		  "logdev=LABEL=" VICTIM_LABEL, false },
		{ "[fs ext4]\nsize = 32M\nmount_options = offset=1048576\n", "offset=1048576", false },
		{ "[fs ext4]\nsize = 32M\nmount_options = noatime,loop\n", "loop", false },
		{ "[fs ext4]\nsize = 32M\nmount_options = journal_path=@V@\n", "journal_path=@V@", false },
		{ "[fs b]\ntype = btrfs\nsize = 128M\nmount_options = device=@V@\n", "device=@V@", false },
	};
	char cwd[4096];
	unsigned refused = 0;

	make_victims();
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[512], named[256], quoted[300], specpath[4200];
		struct ft_output o;

		subst(cases[i].spec, spec, sizeof(spec));
		subst(cases[i].named, named, sizeof(named));
		snprintf(specpath, sizeof(specpath), "%s/spec-%zu.ini", dir, i);
		ck_assert_int_eq(ft_write_file(specpath, spec), 0);
		if (cases[i].in_cwd)
			ck_assert_int_eq(chdir(cwd_dir), 0);
		ck_assert_int_eq(ft_fslab(&o, "setup", "--image", image, "--spec", specpath, "--yes",
					  "--state", state, "--mount-root", mnt, NULL),
				 0);
		ck_assert_int_eq(chdir(cwd), 0);
		printf("case %zu: exit %d: %s", i, o.status, o.err);
		snprintf(quoted, sizeof(quoted), "'%s' is not allowed (", named);
		ck_assert_msg(same(victim.device, fp_dev),
			      "case %zu: the victim device %s changed:\n%s(exit %d) %s", i,
			      victim.device, spec, o.status, o.err);
		ck_assert_msg(same(victim_file, fp_file), "case %zu: the victim file changed:\n%s", i,
			      spec);
		ck_assert_msg(o.status == 2, "case %zu: exit %d, expected 2 (bad input):\n%s%s", i,
			      o.status, spec, o.err);
		ck_assert_msg(strstr(o.err, quoted) != NULL, "case %zu: the message does not name %s: %s", i, quoted,
			      o.err);
		ck_assert_msg(strstr(o.err, "SPEC OPTIONS"), "case %zu: no pointer to the man page: %s",
			      i, o.err);
		/* refused before anything was made */
		ck_assert_msg(!tu_exists(image), "case %zu: the image was created", i);
		ck_assert_msg(!tu_exists(state), "case %zu: a state file was written", i);
		ck_assert_msg(!tu_exists(mnt), "case %zu: the mount root was created", i);
		ck_assert_int_eq(ft_mounts_under(dir), 0);
		ck_assert_msg(ft_loops_under(dir) == 1, "case %zu: %d loop devices under %s (the victim's only expected)",
			      i, ft_loops_under(dir), dir);
		ft_output_free(&o);
		refused++;
	}
	printf("hostile spec options: %u refused with the option named, victims unchanged\n", refused);
}
END_TEST

/* Mount options of the lab's mount of fs NAME, from /proc/self/mounts. */
static bool mounted_with(const char *name, const char *option)
{
	char want[4200], line[8192];
	FILE *f = fopen("/proc/self/mounts", "re");
	bool found = false;

	ck_assert_ptr_nonnull(f);
	snprintf(want, sizeof(want), " %s/%s ", mnt, name);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, want) && strstr(line, option))
			found = true;
	fclose(f);
	return found;
}

START_TEST(allowed_options_still_set_up)
{
	static const char spec_text[] =
		"[fs ext4]\nsize = 32M\nmkfs_options = -O ^has_journal -b 4096\nmount_options = noatime\n"
		"[fs x]\ntype = xfs\nsize = 300M\nmkfs_options = -m reflink=1 -L lab\n"
		"[fs b]\ntype = btrfs\nsize = 128M\nmount_options = compress=zstd:3\n";
	char specpath[4200], xdir[4200];
	struct ft_output o;

	snprintf(specpath, sizeof(specpath), "%s/spec-ok.ini", dir);
	ck_assert_int_eq(ft_write_file(specpath, spec_text), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", image, "--spec", specpath, "--yes",
				  "--state", state, "--mount-root", mnt, NULL),
			 0);
	ck_assert_msg(o.status == 0, "setup with allowed options: exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_mounts_under(dir), 3);
	ck_assert_msg(mounted_with("b", "compress=zstd:3"), "btrfs is not mounted with compress=zstd:3");
	ck_assert_msg(mounted_with("ext4", "noatime"), "ext4 is not mounted noatime");
	snprintf(xdir, sizeof(xdir), "%s/x", mnt);
	{
		const char *argv[] = { "xfs_info", xdir, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_msg(o.status == 0 && strstr(o.out, "reflink=1"), "xfs_info %s: %s%s", xdir,
			      o.out, o.err);
		ft_output_free(&o);
	}
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, NULL), 0);
	ck_assert_msg(o.status == 0, "teardown: exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_mounts_under(dir), 0);
	ck_assert_int_eq(ft_loops_under(dir), 0);
	ck_assert_msg(!tu_exists(image), "teardown left the image");
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_options");
	TCase *tc;

	tc = ft_tcase(s, "hostile", FT_LAB);
	tcase_add_unchecked_fixture(tc, up, down);
	tcase_add_test(tc, hostile_options_refused_before_anything);
	tc = ft_tcase(s, "allowed", FT_LAB);
	tcase_add_unchecked_fixture(tc, up, down);
	tcase_add_test(tc, allowed_options_still_set_up);
	return ft_suite_run(s, argc, argv);
}
