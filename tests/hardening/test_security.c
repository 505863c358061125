/* Security checks as tests:
 *  - a spec cannot name a device: a second loop device (the "victim") named
 *    in mkfs_options, mount_options or [disk] is never written;
 *  - no value from a spec or the command line reaches a shell: words such
 *    as $(touch F), `touch F`, |touch F never create F;
 *  - a symlink planted at the mount root, at a mount point or at the lock
 *    file is refused, not followed;
 *  - the state file is mode 0600 (whatever the umask) and replaced
 *    atomically: setup stopped at each rename(2) shows it absent or whole,
 *    its temporary (the name fslab really uses, seen in flight) private,
 *    and none left afterwards, nor in the results; the manifest is not
 *    world-writable (test_fault_signals kills setup at those points). */
#include "hard_util.h"
#include "state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct hu_lab lab;
static struct ft_loop victim;
static unsigned char *fp_disk, *fp_victim, *fp_now;

static void lab_up(void)
{
	hu_lab_up(&lab, "fslab-sec", 200u << 20, NULL);
}

static void lab_down(void)
{
	ft_loop_destroy(&victim);
	hu_lab_destroy(&lab);
}

/* ft_loop_create names its image disk.img: the victim gets its own
 * subdirectory. */
static void lab_up_two(void)
{
	char sub[700];

	hu_lab_up(&lab, "fslab-sec", 200u << 20, NULL);
	snprintf(sub, sizeof(sub), "%s/victim", lab.dir);
	if (mkdir(sub, 0700) < 0 || ft_loop_create(&victim, sub, 128u << 20) < 0) {
		ft_loop_destroy(&victim);
		hu_lab_destroy(&lab);
		fprintf(stderr, "cannot create the victim loop device\n");
		exit(1);
	}
}

static void fingerprints(void)
{
	if (!fp_disk) {
		fp_disk = malloc(FT_FINGERPRINT_SIZE);
		fp_victim = malloc(FT_FINGERPRINT_SIZE);
		fp_now = malloc(FT_FINGERPRINT_SIZE);
	}
	ck_assert(fp_disk && fp_victim && fp_now);
	ck_assert_int_eq(ft_disk_fingerprint(lab.loop.device, fp_disk), 0);
	if (victim.device[0])
		ck_assert_int_eq(ft_disk_fingerprint(victim.device, fp_victim), 0);
}

static bool same_as(const char *dev, const unsigned char *fp)
{
	return ft_disk_fingerprint(dev, fp_now) == 0 && memcmp(fp, fp_now, FT_FINGERPRINT_SIZE) == 0;
}

/* Undo whatever a command left (teardown when there is a state file) and
 * check the disk is clean. */
static void clean_up_after(const char *what)
{
	struct ft_output o;
	struct stat st;
	char why[512];

	if (stat(lab.state, &st) == 0) {
		ck_assert_int_eq(hu_teardown(&lab, &o), 0);
		ck_assert_msg(o.status == 0, "%s: teardown failed (%d): %s", what, o.status, o.err);
		ft_output_free(&o);
		ck_assert_msg(hu_disk_clean(&lab, why, sizeof(why)), "%s: not clean: %s", what, why);
	}
}

static int setup_with_spec(struct ft_output *o, const char *spec_text)
{
	ck_assert_int_eq(ft_write_file(lab.spec, spec_text), 0);
	return hu_setup(&lab, o);
}

START_TEST(spec_cannot_name_a_device)
{
	char spec[6][512];
	struct ft_output o;

	snprintf(spec[0], sizeof(spec[0]), "[fs v]\ntype = btrfs\nsize = 128M\nmkfs_options = %s\n",
		 victim.device);
	snprintf(spec[1], sizeof(spec[1]),
		 "[fs v]\ntype = ext4\nsize = 64M\nmkfs_options = -J device=%s\n", victim.device);
	snprintf(spec[2], sizeof(spec[2]),
		 "[fs v]\ntype = ext4\nsize = 64M\nmount_options = journal_path=%s\n", victim.device);
	snprintf(spec[3], sizeof(spec[3]), "[disk]\ndevice = %s\n[fs v]\ntype = ext4\nsize = 64M\n",
		 victim.device);
	snprintf(spec[4], sizeof(spec[4]), "[fs v]\ntype = ext4\nsize = 64M\ndevice = %s\n",
		 victim.device);
	/* A bare name, run from /dev: mkfs.btrfs resolves it against the
	 * working directory. */
	snprintf(spec[5], sizeof(spec[5]), "[fs v]\ntype = btrfs\nsize = 128M\nmkfs_options = %s\n",
		 victim.device + 5);
	for (int i = 0; i < 6; i++) {
		char cwd[PATH_MAX];

		fingerprints();
		ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
		if (i == 5)
			ck_assert_int_eq(chdir("/dev"), 0);
		ck_assert_int_eq(setup_with_spec(&o, spec[i]), 0);
		ck_assert_int_eq(chdir(cwd), 0);
		printf("spec naming %s (case %d): setup exit %d: %s", victim.device, i, o.status, o.err);
		ck_assert_msg(same_as(victim.device, fp_victim),
			      "case %d: setup wrote to %s, a device named only in the spec:\n%s(exit %d)%s",
			      i, victim.device, spec[i], o.status, o.err);
		/* Refused by the spec's option allowlist, the bare name too. */
		ck_assert_msg(o.status == 2, "case %d: a spec naming a device: exit %d, expected 2: %s",
			      i, o.status, o.err);
		ck_assert_msg(same_as(lab.loop.device, fp_disk), "case %d: refused, but the disk changed",
			      i);
		ft_output_free(&o);
		clean_up_after("spec naming a device");
	}
}
END_TEST

static bool pwned(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

START_TEST(no_value_reaches_a_shell)
{
	char flag[700], cwdflag[PATH_MAX + 16], cwd[PATH_MAX], text[1024], path[1400];
	const char *forms[] = { "$(touch${IFS}%s)", "`touch${IFS}%s`", "|touch${IFS}%s",
				"&&touch${IFS}%s", "x$(touch\t%s)" };
	struct ft_output o;
	unsigned tried = 0;

	snprintf(flag, sizeof(flag), "%s/pwned", lab.dir);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(cwdflag, sizeof(cwdflag), "%s/pwned", cwd);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char word[800];

		snprintf(word, sizeof(word), forms[i], flag);
		/* In mkfs options (split into words) and in mount options. */
		snprintf(text, sizeof(text), "[fs a]\ntype = ext4\nsize = 16M\nmkfs_options = -L %s\n",
			 word);
		ck_assert_int_eq(setup_with_spec(&o, text), 0);
		ft_output_free(&o);
		clean_up_after("shell word in mkfs_options");
		snprintf(text, sizeof(text), "[fs a]\ntype = ext4\nsize = 16M\nmount_options = %s\n",
			 word);
		ck_assert_int_eq(setup_with_spec(&o, text), 0);
		ft_output_free(&o);
		clean_up_after("shell word in mount_options");
		/* On the command line: as the mount root, state file and --out. */
		snprintf(path, sizeof(path), "%s/m%s", lab.dir, word);
		ck_assert_int_eq(ft_write_file(lab.spec, hu_small_spec), 0);
		ck_assert_int_eq(ft_fslab(&o, "setup", "--device", lab.loop.device, "--spec", lab.spec,
					  "--mount-root", path, "--state", lab.state, "--yes", NULL),
				 0);
		ft_output_free(&o);
		ck_assert_int_eq(ft_fslab(&o, "run", "--state", lab.state, "--sweep", lab.spec, "--out",
					  path, "--tests", "write", "--file-sizes", "64K",
					  "--record-sizes", "64K", "--no-device-probe", "--quiet", NULL),
				 0);
		ft_output_free(&o);
		clean_up_after("shell word in --mount-root / --out");
		tried += 4;
		ck_assert_msg(!pwned(flag) && !pwned(cwdflag), "'%s' reached a shell", word);
	}
	/* After a blank, ';' starts an INI comment: the rest of the line is
	 * not part of the value at all. */
	snprintf(text, sizeof(text), "[fs a]\ntype = ext4\nsize = 16M\nmkfs_options = -L x ; touch %s\n",
		 flag);
	ck_assert_int_eq(setup_with_spec(&o, text), 0);
	ft_output_free(&o);
	clean_up_after("';' in mkfs_options");
	ck_assert(!pwned(flag) && !pwned(cwdflag));
	printf("shell metacharacters: %u values tried in spec and CLI, none ran\n", tried + 1);
}
END_TEST

/* No mount under dir, and dir has nothing in it. */
static void assert_untouched_dir(const char *dir, const char *what)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_msg(d != NULL, "%s: %s: %s", what, dir, strerror(errno));
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	ck_assert_msg(n == 0, "%s: %s was written through the symlink", what, dir);
}

START_TEST(symlinks_refused)
{
	char elsewhere[700], target[700], lockpath[700], mp[700];
	struct ft_output o;

	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", lab.dir);
	ck_assert_int_eq(mkdir(elsewhere, 0755), 0);

	/* The mount root itself is a symlink. */
	fingerprints();
	ck_assert_int_eq(symlink(elsewhere, lab.mnt), 0);
	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	printf("symlinked mount root: exit %d: %s", o.status, o.err);
	ck_assert_msg(o.status == 1 || o.status == 2, "symlinked mount root: exit %d: %s", o.status,
		      o.err);
	ft_output_free(&o);
	assert_untouched_dir(elsewhere, "mount root symlink");
	ck_assert_msg(same_as(lab.loop.device, fp_disk), "symlinked mount root: the disk changed");
	clean_up_after("symlinked mount root");
	ck_assert_int_eq(unlink(lab.mnt), 0);

	/* A mount point (mnt/b) is a symlink. */
	ck_assert_int_eq(mkdir(lab.mnt, 0755), 0);
	snprintf(mp, sizeof(mp), "%s/b", lab.mnt);
	ck_assert_int_eq(symlink(elsewhere, mp), 0);
	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	printf("symlinked mount point: exit %d: %s", o.status, o.err);
	ck_assert_msg(o.status != 0, "setup mounted through a symlinked mount point");
	ft_output_free(&o);
	assert_untouched_dir(elsewhere, "mount point symlink");
	clean_up_after("symlinked mount point");
	unlink(mp);
	ft_rm_rf(lab.mnt);

	/* The lock file is a symlink to a file of ours: not followed. */
	snprintf(target, sizeof(target), "%s/precious", lab.dir);
	ck_assert_int_eq(ft_write_file(target, "precious\n"), 0);
	snprintf(lockpath, sizeof(lockpath), "%s.lock", lab.state);
	unlink(lockpath);
	ck_assert_int_eq(symlink(target, lockpath), 0);
	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	printf("symlinked lock file: exit %d: %s", o.status, o.err);
	ck_assert_msg(o.status == 1, "symlinked lock file: exit %d", o.status);
	ft_output_free(&o);
	{
		char *s = hu_slurp(target);
		ck_assert_msg(s && strcmp(s, "precious\n") == 0, "the lock symlink was followed");
		free(s);
	}
	unlink(lockpath);
	clean_up_after("symlinked lock");
}
END_TEST

/* Is name a temporary file as fslab makes them for an atomic replace of
 * `of` (fslab_write_file_atomic_at: ".<of>.tmp.<random>"); of NULL: of
 * any file. */
static bool is_temp_of(const char *name, const char *of)
{
	size_t n = of ? strlen(of) : 0;

	if (name[0] != '.')
		return false;
	if (!of)
		return strstr(name, ".tmp.") != NULL;
	return strncmp(name + 1, of, n) == 0 && strncmp(name + 1 + n, ".tmp.", 5) == 0;
}

/* The temporaries of `of` (NULL: of any file) in dir: how many; the first
 * one's name in first and its lstat in st (when st is not NULL). */
static int temps_in(const char *dir, const char *of, char *first, size_t len, struct stat *st)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_msg(d != NULL, "cannot open %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (!is_temp_of(e->d_name, of))
			continue;
		if (!n++) {
			snprintf(first, len, "%s", e->d_name);
			if (st)
				ck_assert_int_eq(fstatat(dirfd(d), e->d_name, st, AT_SYMLINK_NOFOLLOW), 0);
		}
	}
	closedir(d);
	return n;
}

/* Stops setup at its k-th rename(2) and looks at the state's directory
 * then: the state file under its name is absent or whole (never a part
 * written so far), and a temporary of it about to be renamed is private
 * (0600, a regular file with one link, not a symlink).  Returns whether
 * that rename published the state (a temporary of it was there). */
static bool state_at_rename(long k)
{
	const char *argv[] = { ft_fslab_bin(), "setup", "--device", lab.loop.device, "--spec",
			       lab.spec, "--mount-root", lab.mnt, "--state", lab.state, "--yes", NULL };
	static struct fslab_state st;
	char log[700], name[256] = "";
	struct fslab_err err = FSLAB_ERR_INIT;
	struct stat ts;
	bool publish;
	pid_t pid;
	int r;

	snprintf(log, sizeof(log), "%s/setup-held.log", lab.dir);
	pid = hu_trace_hold_call(argv, NULL, log, hu_publish_calls, k);
	ck_assert_msg(pid > 0, "setup did not reach rename %ld (%d)", k, (int)pid);
	r = fslab_state_load(lab.state, &st, &err);
	publish = temps_in(lab.dir, "state.json", name, sizeof(name), &ts) > 0;
	ck_assert_int_eq(hu_trace_release(pid), 0);
	ck_assert_msg(r == 0 || r == -ENOENT, "at rename %ld the state file is torn: %s", k, err.msg);
	if (publish) {
		ck_assert_msg(S_ISREG(ts.st_mode) && ts.st_nlink == 1,
			      "at rename %ld the temporary %s is not a plain file", k, name);
		ck_assert_msg((ts.st_mode & 07777) == 0600, "at rename %ld %s has mode %o, not 600",
			      k, name, ts.st_mode & 07777);
	}
	ck_assert_msg(temps_in(lab.dir, "state.json", name, sizeof(name), NULL) == 0,
		      "setup left the temporary %s", name);
	clean_up_after("held setup");
	return publish;
}

/* The state file is private (0600 whatever the umask, its temporary too)
 * and replaced atomically: at every rename(2) of a setup the state under
 * its name is absent or whole, and the temporary fslab really uses
 * (".state.json.tmp.*", seen in flight) is never left behind, nor one of
 * the manifest's after a run. */
START_TEST(state_file_private_and_atomic)
{
	static const char *const env[] = { "FSLAB_TEST_PAUSE_AT=partitioned", NULL };
	const char *argv[] = { ft_fslab_bin(), "setup", "--device", lab.loop.device, "--spec",
			       lab.spec, "--mount-root", lab.mnt, "--state", lab.state, "--yes", NULL };
	char log[700], out[700], name[256] = "";
	struct ft_output o;
	struct stat st1, st2;
	mode_t old = umask(0);
	long renames, published = 0;
	pid_t pid;
	int status;

	snprintf(log, sizeof(log), "%s/setup.log", lab.dir);
	pid = hu_spawn(&lab, argv, env, log);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(hu_wait_for_text(log, "paused at partitioned", 60000) == 0, "no pause");
	ck_assert_int_eq(stat(lab.state, &st1), 0);
	ck_assert_msg((st1.st_mode & 07777) == 0600, "state file mode %o with umask 0, expected 600",
		      st1.st_mode & 07777);
	kill(pid, SIGTERM); /* ends the pause; setup stops there */
	status = hu_wait(&lab, pid, 60000);
	ck_assert_int_ge(status, 0);
	clean_up_after("paused setup");

	renames = hu_trace_count_calls(argv, NULL, log, hu_publish_calls, &status);
	ck_assert_msg(renames > 0 && status == 0, "counting setup's renames failed (%d)", status);
	clean_up_after("counted setup");
	for (long k = 1; k <= renames; k++)
		published += state_at_rename(k);
	ck_assert_msg(published > 0, "no temporary .state.json.tmp.* seen at any of %ld renames: "
		      "fslab names its temporary otherwise; update is_temp_of", renames);

	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	ck_assert_msg(o.status == 0, "setup: %s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(stat(lab.state, &st1), 0);
	ck_assert_msg((st1.st_mode & 07777) == 0600, "state file mode %o, expected 600",
		      st1.st_mode & 07777);
	ck_assert_msg(temps_in(lab.dir, NULL, name, sizeof(name), NULL) == 0, "temporary file left: %s",
		      name);
	snprintf(out, sizeof(out), "%s/res", lab.dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--state", lab.state, "--sweep", lab.spec, "--out", out,
				  "--tests", "write", "--file-sizes", "64K", "--record-sizes", "64K",
				  "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "run: %s", o.err);
	ft_output_free(&o);
	ck_assert_msg(temps_in(out, NULL, name, sizeof(name), NULL) == 0, "temporary file left: %s",
		      name);
	{
		char mf[800];
		snprintf(mf, sizeof(mf), "%s/manifest.json", out);
		ck_assert_int_eq(stat(mf, &st2), 0);
		ck_assert_msg((st2.st_mode & 0002) == 0, "manifest is world-writable (%o)",
			      st2.st_mode & 07777);
	}
	umask(old);
	printf("state: %ld renames in a setup, %ld of them published the state file\n", renames,
	       published);
	clean_up_after("state checks");
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("security");
	TCase *tc;

	tc = ft_tcase(s, "device", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up_two, lab_down);
	tcase_add_test(tc, spec_cannot_name_a_device);
	tc = ft_tcase(s, "shell", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, no_value_reaches_a_shell);
	tc = ft_tcase(s, "symlinks", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, symlinks_refused);
	tc = ft_tcase(s, "state", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, state_file_private_and_atomic);
	return ft_suite_run(s, argc, argv);
}
