/* Trust, classes 2, 4, 5 and 8 (issue 9): the lab and its disks.  Each
 * case is the attack: a forged state file naming a victim image, loop
 * device, directory or mount; a state reached through a symbolic link
 * while a benchmark holds the lab; two setups racing for one image; a
 * second loop device on a mounted lab's image; a non-empty file given as
 * --image; a non-root setup; --state inside a lab; a setup killed while
 * its mkfs runs.  Each asserts fslab exits non-zero naming the problem
 * and that the victim is unchanged (checksum, still attached, still
 * mounted).  Root only (loop devices, mkfs, mount). */
#include "../provision/provtest.h"
#include "trust_util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One small ext4: fast to set up, room for a short benchmark. */
static const char tiny_spec[] = "[disk]\nalignment = 1M\n[fs ext4]\nsize = 96M\n";

static void tiny_env(struct pt_env *e)
{
	pt_env_init(e);
	ck_assert_int_eq(ft_write_file(e->spec, tiny_spec), 0);
}

/* A victim file: size bytes, random data in its first and last MiB. */
static void make_victim(const char *path, off_t size)
{
	static unsigned char rnd[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	for (size_t off = 0; off < sizeof(rnd); off += 256)
		ck_assert_int_eq(getrandom(rnd + off, 256, 0), 256);
	ck_assert_int_eq(pwrite(fd, rnd, sizeof(rnd), 0), (ssize_t)sizeof(rnd));
	ck_assert_int_eq(pwrite(fd, rnd, sizeof(rnd), size - (off_t)sizeof(rnd)), (ssize_t)sizeof(rnd));
	close(fd);
}

/* losetup -f --show path: the test's own loop device on path. */
static void attach(const char *path, char *dev, size_t len)
{
	const char *argv[] = { "losetup", "-f", "--show", path, NULL };
	struct ft_output o;

	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "losetup %s: %s", path, o.err);
	snprintf(dev, len, "%s", o.out);
	dev[strcspn(dev, "\n")] = '\0';
	ft_output_free(&o);
}

/* A forged state file, as a hostile user would write it. */
static void write_state(const char *path, int version, const char *phase, const char *disk,
			const char *image, const char *mount_root, const char *dev1, const char *mp1,
			const char *method)
{
	char text[8192];

	snprintf(text, sizeof(text),
		 "{\n \"version\": %d,\n \"phase\": \"%s\",\n"
		 " \"lab_id\": \"6b1f7c52-0d0e-4a57-a7f1-4c6b9d2e5e10\",\n"
		 " \"disk\": \"%s\",\n \"disk_guid\": \"9A0B8C3E-55B1-4C7E-8F9A-0B1C2D3E4F50\",\n"
		 " \"image\": \"%s\",\n \"image_created\": true,\n"
		 " \"mount_root\": \"%s\",\n \"mount_root_created\": true,\n"
		 " \"spec_source\": \"built-in\",\n \"created_at\": \"2026-01-01T00:00:00Z\",\n"
		 " \"partitions\": [ { \"name\": \"ext4\", \"type\": \"ext4\", \"number\": 1,\n"
		 "   \"device\": \"%s\", \"partuuid\": \"\", \"start_sector\": 2048,\n"
		 "   \"size_sectors\": 8192, \"mkfs_options\": \"\", \"mount_options\": \"\",\n"
		 "   \"mountpoint\": \"%s\", \"mountpoint_created\": true, \"formatted\": true,\n"
		 "   \"mount_method\": \"%s\" } ]\n}\n",
		 version, phase, disk, image, mount_root, dev1, mp1, method);
	ck_assert_int_eq(ft_write_file(path, text), 0);
}

/* Class 2: a forged state in every phase before the GPT exists (and an
 * old-format one) names a victim file as the image setup created, its
 * loop device as the lab's disk and an empty victim directory as the
 * mount root.  Teardown must delete, wipe, detach and remove nothing. */
static const char *const forged_phases[] = { "claimed", "attached", "partitioning",
					     "wiping",  "wiped",    "attached" };

START_TEST(forged_state_names_a_victim_image)
{
	const char *phase = forged_phases[_i];
	int version = _i == 5 ? 1 : 2;
	char victim[1200], vdir[1200], loop[64] = "", dev1[80] = "", mp[1300];
	uint64_t before;
	struct pt_env e;
	struct ft_output o;
	struct stat sb;

	pt_env_init(&e);
	snprintf(victim, sizeof(victim), "%s/thesis.img", e.dir);
	snprintf(vdir, sizeof(vdir), "%s/empty-victim-dir", e.dir);
	snprintf(mp, sizeof(mp), "%s/ext4", vdir);
	make_victim(victim, 8 << 20);
	ck_assert_int_eq(mkdir(vdir, 0755), 0);
	before = tu_file_sum(victim);
	if (_i > 0) {
		attach(victim, loop, sizeof(loop));
		snprintf(dev1, sizeof(dev1), "%sp1", loop);
	}
	write_state(e.state, version, phase, loop, victim, vdir, dev1, mp, "none");

	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	tu_assert_refused(&o, victim);
	if (version == 1)
		tu_assert_refused(&o, "older fslab");
	else
		tu_assert_refused(&o, "not this lab's image");
	ft_output_free(&o);
	ck_assert_msg(stat(victim, &sb) == 0, "teardown deleted the victim %s", victim);
	ck_assert_msg(tu_file_sum(victim) == before, "teardown changed the victim's bytes");
	ck_assert_msg(stat(vdir, &sb) == 0, "teardown removed the victim directory");
	if (loop[0]) {
		ck_assert_msg(tu_loop_attached(loop), "teardown detached the victim's loop device %s", loop);
		tu_loop_detach(loop);
	}
	ck_assert_int_eq(access(e.state, F_OK), 0); /* kept: the user decides */
	unlink(e.state);
}
END_TEST

/* Class 2: a forged state names a tmpfs and a loop-device ext4 the test
 * mounted as the lab's mounts (phase ready and attached).  Neither is
 * unmounted, neither changes. */
START_TEST(forged_state_names_a_foreign_mount)
{
	const char *phase = _i == 0 ? "ready" : "attached";
	char vimg[1200], vmnt[1200], tmnt[1200], vfile[1300], tfile[1300], loop[64];
	unsigned char *fp_before = malloc(FT_FINGERPRINT_SIZE), *fp_after = malloc(FT_FINGERPRINT_SIZE);
	uint64_t vsum, tsum;
	struct pt_env e;
	struct ft_output o;

	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_after);
	pt_env_init(&e);
	snprintf(vimg, sizeof(vimg), "%s/victim.img", e.dir);
	snprintf(vmnt, sizeof(vmnt), "%s/victim-ext4", e.dir);
	snprintf(tmnt, sizeof(tmnt), "%s/victim-tmpfs", e.dir);
	snprintf(vfile, sizeof(vfile), "%s/data", vmnt);
	snprintf(tfile, sizeof(tfile), "%s/data", tmnt);
	ck_assert_int_eq(mkdir(vmnt, 0755), 0);
	ck_assert_int_eq(mkdir(tmnt, 0755), 0);
	{
		int fd = open(vimg, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, 64 << 20), 0);
		close(fd);
	}
	attach(vimg, loop, sizeof(loop));
	{
		const char *mkfs[] = { "mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0",
				       loop, NULL };
		const char *mnt[] = { "mount", "-t", "ext4", loop, vmnt, NULL };
		const char *tmp[] = { "mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", tmnt, NULL };
		tu_run_ok(mkfs, NULL, 0);
		tu_run_ok(mnt, NULL, 0);
		tu_run_ok(tmp, NULL, 0);
	}
	ck_assert_int_eq(ft_write_file(vfile, "the victim's results\n"), 0);
	ck_assert_int_eq(ft_write_file(tfile, "the victim's scratch\n"), 0);
	sync();
	vsum = tu_file_sum(vfile);
	tsum = tu_file_sum(tfile);
	ck_assert_int_eq(ft_disk_fingerprint(loop, fp_before), 0);
	/* The lab's "disk" is the victim loop device, its partition the
	 * victim's ext4, its mount root the directory holding both mounts. */
	write_state(e.state, 2, phase, loop, "", e.dir, loop, vmnt, "kernel");
	{
		/* and a second partition on the tmpfs */
		char *text = NULL;
		size_t n = 0;
		FILE *f = fopen(e.state, "r");
		char extra[2048], *end;

		ck_assert_ptr_nonnull(f);
		ck_assert_int_ge(getdelim(&text, &n, '\0', f), 0);
		fclose(f);
		end = strrchr(text, ']');
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		snprintf(extra, sizeof(extra),
			 ", { \"name\": \"scratch\", \"type\": \"ext2\", \"number\": 2, \"device\": \"%s\","
			 " \"mountpoint\": \"%s\", \"mountpoint_created\": true, \"mount_method\": \"kernel\" } ]\n}\n",
			 loop, tmnt);
		{
			char *full = NULL;
			ck_assert_int_ge(asprintf(&full, "%s%s", text, extra), 0);
			ck_assert_int_eq(ft_write_file(e.state, full), 0);
			free(full);
		}
		free(text);
	}

	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	ck_assert_msg(o.status != 0, "teardown exit 0:\n%s\n%s", o.out, o.err);
	ck_assert_msg(strstr(o.err, loop) || strstr(o.err, vmnt), "stderr names neither %s nor %s:\n%s",
		      loop, vmnt, o.err);
	ft_output_free(&o);
	ck_assert_msg(ft_mounts_under(vmnt) == 1, "the victim's ext4 at %s was unmounted", vmnt);
	ck_assert_msg(ft_mounts_under(tmnt) == 1, "the victim's tmpfs at %s was unmounted", tmnt);
	ck_assert(tu_file_sum(vfile) == vsum);
	ck_assert(tu_file_sum(tfile) == tsum);
	ck_assert_int_eq(ft_disk_fingerprint(loop, fp_after), 0);
	ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0,
		      "the victim device %s changed", loop);
	ck_assert(tu_loop_attached(loop));
	{
		const char *u1[] = { "umount", vmnt, NULL };
		const char *u2[] = { "umount", tmnt, NULL };
		tu_run_ok(u1, NULL, 0);
		tu_run_ok(u2, NULL, 0);
	}
	tu_loop_detach(loop);
	unlink(e.state);
	free(fp_before);
	free(fp_after);
}
END_TEST

/* A benchmark on the lab, started through path, that runs until told to
 * stop; returns once it is sweeping. */
static void start_run(struct ft_proc *p, const char *state, const char *out)
{
	const char *argv[] = { ft_fslab_bin(), "run", "--state", state, "--out", out,
			       "--sweep", "quick", "--tests", "write,read", "--trials", "100",
			       "--no-device-probe", NULL };

	ck_assert_int_eq(ft_spawn(argv, p), 0);
	if (ft_proc_wait_for(p, "results in", 60000) != 0) {
		struct ft_output o;

		kill(p->pid, SIGKILL);
		ft_proc_finish(p, &o);
		ck_abort_msg("the run did not start:\n%s\n%s", o.out, o.err);
	}
}

static void stop_run(struct ft_proc *p)
{
	struct ft_output o;

	kill(p->pid, SIGTERM);
	ck_assert_int_eq(ft_proc_finish(p, &o), 0);
	ft_output_free(&o);
}

/* Class 4: the state reached through a symbolic link takes the same lock
 * as its real path: teardown by either name is refused while a run that
 * came in through the other holds the lab; the lab stays mounted. */
START_TEST(state_through_a_symlink_takes_the_same_lock)
{
	char link[1200], out[1200], pidtxt[64];
	struct pt_env e;
	struct ft_output o;
	struct ft_proc run;

	tiny_env(&e);
	pt_setup_image_ok(&e);
	snprintf(link, sizeof(link), "%s/link-to-state.json", e.dir);
	snprintf(out, sizeof(out), "%s/results", e.dir);
	ck_assert_int_eq(symlink(e.state, link), 0);

	start_run(&run, link, out);
	snprintf(pidtxt, sizeof(pidtxt), "fslab run, pid %d", run.pid);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	tu_assert_refused(&o, pidtxt);
	ft_output_free(&o);
	ck_assert_msg(ft_mounts_under(e.mnt) == 1, "the lab was unmounted under the run");
	ck_assert_int_eq(access(e.state, F_OK), 0);
	/* status shares the lab with the run, by either name */
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", link, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	stop_run(&run);

	/* and the other way round: run by the real path, teardown by the link */
	snprintf(out, sizeof(out), "%s/results2", e.dir);
	start_run(&run, e.state, out);
	snprintf(pidtxt, sizeof(pidtxt), "fslab run, pid %d", run.pid);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", link, NULL), 0);
	tu_assert_refused(&o, pidtxt);
	ft_output_free(&o);
	ck_assert(ft_mounts_under(e.mnt) == 1);
	stop_run(&run);

	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", link, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	unlink(link);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Class 7 (the run lease): a second run on a lab that is running is
 * refused, naming the running one's pid, and writes nothing; with
 * --allow-concurrent it is refused too while the first runs alone. */
START_TEST(second_run_on_a_running_lab_is_refused)
{
	char out1[1200], out2[1200], pidtxt[64];
	struct pt_env e;
	struct ft_output o;
	struct ft_proc run;

	tiny_env(&e);
	pt_setup_image_ok(&e);
	snprintf(out1, sizeof(out1), "%s/results1", e.dir);
	snprintf(out2, sizeof(out2), "%s/results2", e.dir);
	start_run(&run, e.state, out1);
	snprintf(pidtxt, sizeof(pidtxt), "pid %d", run.pid);

	ck_assert_int_eq(ft_fslab(&o, "run", "--state", e.state, "--out", out2, "--sweep", "quick",
				  "--no-device-probe", NULL), 0);
	tu_assert_refused(&o, pidtxt);
	tu_assert_refused(&o, "--allow-concurrent");
	ft_output_free(&o);
	ck_assert_msg(access(out2, F_OK) != 0, "the refused run made %s", out2);
	ck_assert_int_eq(ft_fslab(&o, "run", "--state", e.state, "--out", out2, "--sweep", "quick",
				  "--no-device-probe", "--allow-concurrent", NULL), 0);
	tu_assert_refused(&o, pidtxt);
	ft_output_free(&o);
	ck_assert(access(out2, F_OK) != 0);
	stop_run(&run);

	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Class 2: two setups race for one new image.  The loser is killed after
 * it claimed the image's name; the winner sets up.  The loser's teardown
 * must leave the winner's image, loop device and mounts alone. */
START_TEST(racing_setups_on_one_image)
{
	char state_b[1200], mnt_b[1200], file[1300];
	const char *argv_b[16];
	struct pt_env e;
	struct ft_output o;
	struct ft_proc loser;
	uint64_t sum;

	tiny_env(&e);
	snprintf(state_b, sizeof(state_b), "%s/state-b.json", e.dir);
	snprintf(mnt_b, sizeof(mnt_b), "%s/mnt-b", e.dir);
	snprintf(file, sizeof(file), "%s/ext4/thesis.txt", e.mnt);
	{
		const char *a[] = { ft_fslab_bin(), "setup", "--image", e.image, "--spec", e.spec,
				    "--state", state_b, "--mount-root", mnt_b, NULL };
		memcpy(argv_b, a, sizeof(a));
	}
	ft_spawn_paused(argv_b, "image-create", &loser);
	/* the winner */
	pt_setup_image_ok(&e);
	kill(loser.pid, SIGKILL);
	ck_assert_int_eq(ft_proc_finish(&loser, &o), 0);
	ft_output_free(&o);
	ck_assert_int_eq(access(state_b, F_OK), 0);

	ck_assert_int_eq(ft_write_file(file, "chapter 1\n"), 0);
	sum = tu_file_sum(file);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state_b, NULL), 0);
	tu_assert_refused(&o, e.image);
	tu_assert_refused(&o, "not this lab's image");
	ft_output_free(&o);
	ck_assert_int_eq(ft_loops_under(e.dir), 1);
	ck_assert_int_eq(ft_mounts_under(e.mnt), 1);
	ck_assert(tu_file_sum(file) == sum);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);

	pt_teardown_ok(&e);
	unlink(state_b);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Class 5: a second loop device on a mounted lab's image is the same
 * disk: setup --device on it, even with --wipe --yes, is refused and the
 * lab is untouched. */
START_TEST(alias_loop_device_of_a_mounted_lab_is_refused)
{
	char alias[64], state_b[1200], mnt_b[1200], file[1300];
	unsigned char *fp_before = malloc(FT_FINGERPRINT_SIZE), *fp_after = malloc(FT_FINGERPRINT_SIZE);
	struct pt_env e;
	struct ft_output o;
	uint64_t sum;

	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_after);
	tiny_env(&e);
	snprintf(state_b, sizeof(state_b), "%s/state-b.json", e.dir);
	snprintf(mnt_b, sizeof(mnt_b), "%s/mnt-b", e.dir);
	snprintf(file, sizeof(file), "%s/ext4/thesis.txt", e.mnt);
	pt_setup_image_ok(&e);
	ck_assert_int_eq(ft_write_file(file, "chapter 2\n"), 0);
	sum = tu_file_sum(file);
	attach(e.image, alias, sizeof(alias));
	ck_assert_int_eq(ft_disk_fingerprint(alias, fp_before), 0);

	ck_assert_int_eq(ft_fslab(&o, "setup", "--device", alias, "--spec", e.spec, "--state", state_b,
				  "--mount-root", mnt_b, "--wipe", "--yes", NULL), 0);
	tu_assert_refused(&o, alias);
	tu_assert_refused(&o, "also backs");
	ft_output_free(&o);
	ck_assert_int_eq(ft_disk_fingerprint(alias, fp_after), 0);
	ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0,
		      "the lab's disk changed through %s", alias);
	ck_assert(tu_file_sum(file) == sum);
	ck_assert_int_eq(access(state_b, F_OK), -1);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	tu_loop_detach(alias);

	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
	free(fp_before);
	free(fp_after);
}
END_TEST

/* Class 5: an existing file with data but no signature, given as --image
 * with --yes and without --wipe, is refused and unchanged. */
START_TEST(existing_file_as_image_needs_wipe)
{
	struct pt_env e;
	struct ft_output o;
	uint64_t sum;

	tiny_env(&e);
	make_victim(e.image, 200 << 20);
	sum = tu_file_sum(e.image);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--yes", NULL), 0);
	tu_assert_refused(&o, e.image);
	tu_assert_refused(&o, "not empty");
	tu_assert_refused(&o, "--wipe");
	ft_output_free(&o);
	ck_assert(tu_file_sum(e.image) == sum);
	ck_assert_int_eq(access(e.state, F_OK), -1);
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
	unlink(e.image);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* A copy of the fslab binary in dir (which nobody can traverse), so the
 * test does not depend on where the build tree is: under /root (0700) nobody
 * could not execute it at all.  Returns the copy's path in buf. */
static const char *fslab_copy_for_nobody(const char *dir, char *buf, size_t len)
{
	char data[65536];
	int in, out;
	ssize_t n;

	ck_assert_int_lt(snprintf(buf, len, "%s/fslab-as-nobody", dir), (int)len);
	in = open(ft_fslab_bin(), O_RDONLY | O_CLOEXEC);
	ck_assert_msg(in >= 0, "%s: %s", ft_fslab_bin(), strerror(errno));
	out = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ck_assert_msg(out >= 0, "%s: %s", buf, strerror(errno));
	while ((n = read(in, data, sizeof(data))) > 0)
		ck_assert_int_eq(write(out, data, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	ck_assert_int_eq(close(out), 0);
	ck_assert_int_eq(chmod(buf, 0755), 0);
	return buf;
}

/* Runs argv as nobody (uid/gid 65534) in a forked child; stderr into o.
 * 126: could not become nobody; 127: could not execute argv[0]. */
static void run_as_nobody(const char *const argv[], struct ft_output *o)
{
	int pipefd[2], status;
	char buf[8192];
	size_t n = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	for (ssize_t got; n < sizeof(buf) - 1 && (got = read(pipefd[0], buf + n, sizeof(buf) - 1 - n)) > 0;)
		n += (size_t)got;
	buf[n] = '\0';
	close(pipefd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	memset(o, 0, sizeof(*o));
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	o->out = strdup("");
	o->err = strdup(buf);
}

/* Class 8: setup and teardown as non-root are refused before anything is
 * created, with a message that says root is needed. */
START_TEST(non_root_setup_creates_nothing)
{
	char open_dir[1200], image[1300], state[1300], mnt[1300], suite_root[1100], bin[1300];
	struct pt_env e;
	struct ft_output o;

	tiny_env(&e);
	snprintf(open_dir, sizeof(open_dir), "%s/world", e.dir);
	snprintf(image, sizeof(image), "%s/disk.img", open_dir);
	snprintf(state, sizeof(state), "%s/state/state.json", open_dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", open_dir);
	/* nobody must reach the spec: the suite root and e.dir traversable */
	snprintf(suite_root, sizeof(suite_root), "%s", e.dir);
	*strrchr(suite_root, '/') = '\0';
	ck_assert_int_eq(chmod(suite_root, 0711), 0);
	ck_assert_int_eq(chmod(e.dir, 0711), 0);
	ck_assert_int_eq(chmod(e.spec, 0644), 0);
	ck_assert_int_eq(mkdir(open_dir, 0777), 0);
	ck_assert_int_eq(chmod(open_dir, 0777), 0);
	fslab_copy_for_nobody(e.dir, bin, sizeof(bin));
	{
		const char *argv[] = { bin, "setup", "--image", image, "--spec", e.spec,
				       "--state", state, "--mount-root", mnt, "--yes", NULL };
		run_as_nobody(argv, &o);
	}
	ck_assert_msg(o.status != 126, "cannot become nobody");
	ck_assert_msg(o.status != 127, "nobody cannot execute %s", bin);
	tu_assert_refused(&o, "must run as root");
	ft_output_free(&o);
	{
		const char *argv[] = { bin, "teardown", "--state", state, NULL };
		run_as_nobody(argv, &o);
	}
	tu_assert_refused(&o, "must run as root");
	ft_output_free(&o);
	ck_assert_msg(access(image, F_OK) != 0, "non-root setup created the image");
	ck_assert_msg(access(state, F_OK) != 0, "non-root setup created the state");
	{
		char sdir[1300];
		snprintf(sdir, sizeof(sdir), "%s/state", open_dir);
		ck_assert_msg(access(sdir, F_OK) != 0, "non-root setup created %s", sdir);
	}
	ck_assert_msg(access(mnt, F_OK) != 0, "non-root setup created the mount root");
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
	chmod(e.dir, 0700);
	chmod(suite_root, 0700);
}
END_TEST

/* Class 8: --state under the lab's own mount root, and on another lab's
 * mounted filesystem, is refused before anything is made. */
START_TEST(state_inside_a_lab_is_refused)
{
	char state_in[1200], image_b[1200], state_b[1300], mnt_b[1200];
	struct pt_env e;
	struct ft_output o;

	tiny_env(&e);
	snprintf(state_in, sizeof(state_in), "%s/state.json", e.mnt);
	{
		const char *argv[] = { ft_fslab_bin(), "setup", "--image", e.image, "--spec", e.spec,
				       "--state", state_in, "--mount-root", e.mnt, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	}
	tu_assert_refused(&o, "inside the mount root");
	ft_output_free(&o);
	ck_assert_int_eq(access(e.image, F_OK), -1);
	ck_assert_int_eq(access(e.mnt, F_OK), -1);

	/* another lab's filesystem */
	pt_setup_image_ok(&e);
	snprintf(image_b, sizeof(image_b), "%s/b.img", e.dir);
	snprintf(state_b, sizeof(state_b), "%s/ext4/b-state.json", e.mnt);
	snprintf(mnt_b, sizeof(mnt_b), "%s/mnt-b", e.dir);
	{
		const char *argv[] = { ft_fslab_bin(), "setup", "--image", image_b, "--spec", e.spec,
				       "--state", state_b, "--mount-root", mnt_b, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	}
	tu_assert_refused(&o, "another fslab lab");
	ft_output_free(&o);
	ck_assert_int_eq(access(image_b, F_OK), -1);
	ck_assert_int_eq(access(state_b, F_OK), -1);
	ck_assert_int_eq(ft_loops_under(e.dir), 1);

	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Class 8: a mount root below a symlinked parent is recorded by its real
 * path; teardown removes the directories setup made there. */
START_TEST(mount_root_under_a_symlinked_parent)
{
	char real[1200], link[1200], root[1300], made[1300];
	struct pt_env e;
	struct ft_output o;

	tiny_env(&e);
	snprintf(real, sizeof(real), "%s/real", e.dir);
	snprintf(link, sizeof(link), "%s/link", e.dir);
	snprintf(root, sizeof(root), "%s/mnt", link);
	snprintf(made, sizeof(made), "%s/mnt", real);
	ck_assert_int_eq(mkdir(real, 0755), 0);
	ck_assert_int_eq(symlink(real, link), 0);
	{
		const char *argv[] = { ft_fslab_bin(), "setup", "--image", e.image, "--spec", e.spec,
				       "--state", e.state, "--mount-root", root, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	}
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	ck_assert_int_eq(ft_mounts_under(made), 1);
	{
		char *text = NULL;
		ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, "--json", NULL), 0);
		ck_assert_ptr_nonnull(strstr(o.out, made));
		ft_output_free(&o);
		free(text);
	}
	pt_teardown_ok(&e);
	ck_assert_msg(access(made, F_OK) != 0, "teardown left the mount root %s", made);
	ck_assert_int_eq(access(real, F_OK), 0);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Is pid alive (and not a zombie)? */
static bool alive(long pid)
{
	char path[64], buf[512], *p;
	bool live = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		live = p[2] != 'Z';
	fclose(f);
	return live;
}

/* Class 8: setup killed while its mkfs runs (a slow mkfs.ext4 found first
 * on PATH: a shell waiting on a sleep).  Teardown kills that orphaned
 * process group before it wipes, and says so. */
START_TEST(teardown_stops_an_orphaned_mkfs)
{
	char bin[1200], fake[1300], pidfile[1300], script[2048], path[8192];
	struct pt_env e;
	struct ft_output o;
	struct ft_proc setup;
	long shell_pid = 0;
	const char *old_path = getenv("PATH");

	tiny_env(&e);
	snprintf(bin, sizeof(bin), "%s/bin", e.dir);
	snprintf(fake, sizeof(fake), "%s/mkfs.ext4", bin);
	snprintf(pidfile, sizeof(pidfile), "%s/mkfs.pid", e.dir);
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	snprintf(script, sizeof(script), "#!/bin/sh\necho $$ > %s\nsleep 300\n", pidfile);
	ck_assert_int_eq(ft_write_file(fake, script), 0);
	ck_assert_int_eq(chmod(fake, 0755), 0);
	snprintf(path, sizeof(path), "%s:%s", bin, old_path ? old_path : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	{
		const char *argv[] = { ft_fslab_bin(), "setup", "--image", e.image, "--spec", e.spec,
				       "--state", e.state, "--mount-root", e.mnt, NULL };
		int r = ft_spawn(argv, &setup);
		setenv("PATH", old_path ? old_path : "/usr/bin:/bin", 1);
		ck_assert_int_eq(r, 0);
	}
	for (int i = 0; i < 600 && !shell_pid; i++) {
		FILE *f = fopen(pidfile, "r");
		if (f) {
			if (fscanf(f, "%ld", &shell_pid) != 1)
				shell_pid = 0;
			fclose(f);
		}
		if (!shell_pid)
			usleep(100000);
	}
	ck_assert_msg(shell_pid > 0, "the fake mkfs never started");
	kill(setup.pid, SIGKILL);
	ck_assert_int_eq(ft_proc_finish(&setup, &o), 0);
	ft_output_free(&o);
	ck_assert_msg(alive(shell_pid), "the orphan mkfs died with setup; the test proves nothing");

	ck_assert_int_eq(pt_teardown(&e, &o), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_msg(strstr(o.out, "stopping the mkfs"), "teardown did not say it stopped mkfs:\n%s",
		      o.out);
	ft_output_free(&o);
	for (int i = 0; i < 50 && alive(shell_pid); i++)
		usleep(100000); /* init reaps it */
	ck_assert_msg(!alive(shell_pid), "the orphaned mkfs (pid %ld) still runs after teardown",
		      shell_pid);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust lab");
	TCase *tc = pt_tcase(s, "lab", FT_LAB, 240);

	unsetenv("FSLAB_STATE");
	tcase_add_loop_test(tc, forged_state_names_a_victim_image, 0, 6);
	tcase_add_loop_test(tc, forged_state_names_a_foreign_mount, 0, 2);
	tcase_add_test(tc, state_through_a_symlink_takes_the_same_lock);
	tcase_add_test(tc, second_run_on_a_running_lab_is_refused);
	tcase_add_test(tc, racing_setups_on_one_image);
	tcase_add_test(tc, alias_loop_device_of_a_mounted_lab_is_refused);
	tcase_add_test(tc, existing_file_as_image_needs_wipe);
	tcase_add_test(tc, non_root_setup_creates_nothing);
	tcase_add_test(tc, state_inside_a_lab_is_refused);
	tcase_add_test(tc, mount_root_under_a_symlinked_parent);
	tcase_add_test(tc, teardown_stops_an_orphaned_mkfs);
	return ft_suite_run(s, argc, argv);
}
