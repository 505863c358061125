/* Trust (issue 9), the red-team's provisioning findings: a second loop
 * device on a mounted lab's image (F18), a state file forged by another
 * user (F11, F10, F19), locks that follow the state file's name (F1), an
 * image another user can write (F5, F6), a mount root that is a system
 * directory, not empty or inside a lab (F8, F9, F14).  Each case is the
 * attack; each asserts fslab exits non-zero naming the problem and that
 * the victim (a mounted lab, a file, a directory) is unchanged.  Root
 * only (loop devices, mkfs, mount). */
#include "../provision/provtest.h"
#include "trust_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One small ext4: fast to set up. */
static const char tiny_spec[] = "[disk]\nalignment = 1M\n[fs ext4]\nsize = 64M\n";

static void tiny_env(struct pt_env *e)
{
	pt_env_init(e);
	ck_assert_int_eq(ft_write_file(e->spec, tiny_spec), 0);
}

/* A string field of the state ("disk": "/dev/loopN"). */
static void state_field(const char *state, const char *key, char *val, size_t len)
{
	char *text = NULL, *p;
	size_t n = 0;
	FILE *f = fopen(state, "re");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&text, &n, '\0', f), 0);
	fclose(f);
	{
		char quoted[64];

		snprintf(quoted, sizeof(quoted), "\"%s\"", key);
		p = strstr(text, quoted);
		ck_assert_ptr_nonnull(p);
		p = strchr(p + strlen(quoted), '"');
	}
	ck_assert_ptr_nonnull(p);
	snprintf(val, len, "%.*s", (int)strcspn(p + 1, "\""), p + 1);
	free(text);
}

/* The lab as a user checks it: mounted, the canary intact, the image and
 * the lab's loop device there, the state file unchanged. */
struct lab_check {
	char canary[1300];
	char disk[64];
	uint64_t canary_sum, state_sum;
};

static void lab_up(struct pt_env *e, struct lab_check *c)
{
	struct ft_output o;

	ck_assert_int_eq(pt_setup_image(e, &o, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	snprintf(c->canary, sizeof(c->canary), "%s/ext4/canary", e->mnt);
	ck_assert_int_eq(ft_write_file(c->canary, "the thesis, chapter 3\n"), 0);
	sync();
	c->canary_sum = tu_file_sum(c->canary);
	c->state_sum = tu_file_sum(e->state);
	state_field(e->state, "disk", c->disk, sizeof(c->disk));
}

static void lab_intact(struct pt_env *e, const struct lab_check *c)
{
	char mp[1200];
	struct stat sb;

	snprintf(mp, sizeof(mp), "%s/ext4", e->mnt);
	ck_assert_msg(ft_mounts_under(mp) == 1, "the lab's ext4 at %s was unmounted", mp);
	ck_assert_msg(tu_file_sum(c->canary) == c->canary_sum, "the lab's file changed");
	ck_assert_msg(stat(e->image, &sb) == 0, "the lab's image %s was deleted", e->image);
	ck_assert_msg(tu_loop_attached(c->disk), "the lab's loop device %s was detached", c->disk);
	ck_assert_msg(tu_file_sum(e->state) == c->state_sum, "the state file changed");
}

static void lab_down(struct pt_env *e)
{
	struct ft_output o;

	ck_assert_int_eq(pt_teardown(e, &o), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	pt_assert_nothing_left(e, NULL);
}

/* F18: a second loop device on the mounted lab's image (an admin's
 * losetup, read-write or read-only): teardown must neither work through
 * it nor go on after it: no wipe, no detach, no delete. */
START_TEST(teardown_refuses_a_second_loop_on_the_image)
{
	const char *ro = _i == 1 ? "-r" : "-f";
	char alias[64];
	unsigned char *fp_before = malloc(FT_FINGERPRINT_SIZE), *fp_after = malloc(FT_FINGERPRINT_SIZE);
	struct lab_check c;
	struct pt_env e;
	struct ft_output o;

	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_after);
	tiny_env(&e);
	lab_up(&e, &c);
	{
		const char *argv[] = { "losetup", "-f", "--show", ro, e.image, NULL };
		const char *argv_rw[] = { "losetup", "-f", "--show", e.image, NULL };
		tu_run_ok(_i == 1 ? argv : argv_rw, alias, sizeof(alias));
	}
	ck_assert_int_eq(ft_disk_fingerprint(c.disk, fp_before), 0);

	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	tu_assert_refused(&o, alias);
	tu_assert_refused(&o, "setup did not attach");
	ck_assert_msg(!strstr(o.out, "wiping") && !strstr(o.out, "deleted"), "teardown went on:\n%s",
		      o.out);
	ft_output_free(&o);
	lab_intact(&e, &c);
	ck_assert_int_eq(ft_disk_fingerprint(c.disk, fp_after), 0);
	ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0, "the lab's disk changed");
	ck_assert_msg(tu_loop_attached(alias), "teardown detached %s, which it did not attach", alias);

	/* Said twice: a second teardown is refused the same way, not stuck. */
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	tu_assert_refused(&o, alias);
	ft_output_free(&o);
	lab_intact(&e, &c);

	tu_loop_detach(alias);
	lab_down(&e);
	free(fp_before);
	free(fp_after);
}
END_TEST

/* F18: the loop device setup attached is gone (the lab unmounted and its
 * loop detached by hand) and another one is on the image: teardown does
 * not adopt it; it names it and changes nothing. */
START_TEST(teardown_does_not_adopt_another_loop)
{
	char mp[1200], other[64];
	unsigned char *fp_before = malloc(FT_FINGERPRINT_SIZE), *fp_after = malloc(FT_FINGERPRINT_SIZE);
	struct lab_check c;
	struct pt_env e;
	struct ft_output o;
	uint64_t state_sum;

	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_after);
	tiny_env(&e);
	lab_up(&e, &c);
	snprintf(mp, sizeof(mp), "%s/ext4", e.mnt);
	{
		const char *um[] = { "umount", mp, NULL };
		tu_run_ok(um, NULL, 0);
	}
	tu_loop_detach(c.disk);
	{
		/* the lab's old number taken by something else, so the image's
		 * new loop device is another one */
		char dummy[1200];
		const char *hold[] = { "losetup", c.disk, dummy, NULL };
		const char *at[] = { "losetup", "-f", "--show", e.image, NULL };

		snprintf(dummy, sizeof(dummy), "%s/dummy.img", e.dir);
		ck_assert_int_eq(ft_write_file(dummy, "x"), 0);
		ck_assert_int_eq(truncate(dummy, 1 << 20), 0);
		tu_run_ok(hold, NULL, 0);
		tu_run_ok(at, other, sizeof(other));
	}
	state_sum = tu_file_sum(e.state);
	ck_assert_int_eq(ft_disk_fingerprint(other, fp_before), 0);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	tu_assert_refused(&o, other);
	tu_assert_refused(&o, "not the loop device setup attached");
	ft_output_free(&o);
	ck_assert_int_eq(ft_disk_fingerprint(other, fp_after), 0);
	ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0, "the image changed");
	ck_assert_msg(tu_loop_attached(other), "teardown detached %s", other);
	ck_assert_int_eq(access(e.image, F_OK), 0);
	ck_assert(tu_file_sum(e.state) == state_sum);
	tu_loop_detach(other);
	tu_loop_detach(c.disk);
	lab_down(&e);
	free(fp_before);
	free(fp_after);
}
END_TEST

/* A victim: an ext4 on the test's own loop device, mounted at vm, with a
 * file in it. */
struct victim {
	char img[1200], vm[1200], data[1300], loop[64];
	uint64_t sum;
};

static void victim_up(struct pt_env *e, struct victim *v)
{
	snprintf(v->img, sizeof(v->img), "%s/victim.img", e->dir);
	snprintf(v->vm, sizeof(v->vm), "%s/vm", e->dir);
	snprintf(v->data, sizeof(v->data), "%s/data", v->vm);
	ck_assert_int_eq(mkdir(v->vm, 0755), 0);
	{
		int fd = open(v->img, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, 32 << 20), 0);
		close(fd);
	}
	{
		const char *at[] = { "losetup", "-f", "--show", v->img, NULL };
		tu_run_ok(at, v->loop, sizeof(v->loop));
	}
	{
		const char *mkfs[] = { "mkfs.ext4", "-q", v->loop, NULL };
		const char *mnt[] = { "mount", "-t", "ext4", v->loop, v->vm, NULL };
		tu_run_ok(mkfs, NULL, 0);
		tu_run_ok(mnt, NULL, 0);
	}
	ck_assert_int_eq(ft_write_file(v->data, "precious\n"), 0);
	sync();
	v->sum = tu_file_sum(v->data);
}

/* Still mounted read-write, the file unchanged, nothing of fslab's in it. */
static void victim_intact(const struct victim *v)
{
	const char *argv[] = { "findmnt", "-n", "-o", "OPTIONS", v->vm, NULL };
	char opts[512];
	DIR *d;
	struct dirent *de;

	ck_assert_msg(ft_mounts_under(v->vm) == 1, "the victim at %s was unmounted", v->vm);
	tu_run_ok(argv, opts, sizeof(opts));
	ck_assert_msg(strncmp(opts, "rw", 2) == 0 && !strstr(opts, "errors=panic"),
		      "the victim was remounted: %s", opts);
	ck_assert_msg(tu_file_sum(v->data) == v->sum, "the victim's file changed");
	d = opendir(v->vm);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		ck_assert_msg(strncmp(de->d_name, "fslab", 5) != 0, "fslab wrote %s into the victim",
			      de->d_name);
	closedir(d);
}

static void victim_down(struct victim *v)
{
	const char *um[] = { "umount", v->vm, NULL };

	tu_run_ok(um, NULL, 0);
	tu_loop_detach(v->loop);
}

/* A state file as the red team forged it: phase ready, one partition that
 * is the victim's loop device mounted at vm, with options. */
static void forge_state(const char *path, const struct victim *v, const char *opts)
{
	char text[8192];

	snprintf(text, sizeof(text),
		 "{\n \"version\": 2, \"phase\": \"ready\",\n"
		 " \"lab_id\": \"7a6beb66-80f4-48fe-9dbc-d03948329b39\",\n"
		 " \"disk\": \"%s\", \"disk_guid\": \"8DA9C4A5-EAA7-49F2-B151-4A12C5267A57\",\n"
		 " \"image\": \"\", \"image_created\": false, \"mount_root\": \"%.*s\",\n"
		 " \"mount_root_created\": false, \"spec_source\": \"x\",\n"
		 " \"created_at\": \"2026-11-30T07:48:43Z\",\n"
		 " \"partitions\": [ { \"name\": \"e\", \"type\": \"ext4\", \"number\": 1,\n"
		 "   \"device\": \"%s\", \"start_sector\": 2048, \"size_sectors\": 65536,\n"
		 "   \"mkfs_options\": \"\", \"mount_options\": \"%s\", \"mountpoint\": \"%s\",\n"
		 "   \"mountpoint_created\": false, \"formatted\": true, \"mount_method\": \"kernel\" } ]\n}\n",
		 v->loop, (int)(strrchr(v->vm, '/') - v->vm), v->vm, v->loop, opts, v->vm);
	ck_assert_int_eq(ft_write_file(path, text), 0);
}

static void status_and_run_refused(struct pt_env *e, const char *state, const char *text)
{
	char out[1200];
	struct ft_output o;
	const char *run[] = { ft_fslab_bin(), "run", "--state", state, "--out", out, "--sweep", "quick",
			      "--tests", "write", "--trials", "1", "--cache", "cold",
			      "--no-device-probe", NULL };

	snprintf(out, sizeof(out), "%s/results", e->dir);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", state, NULL), 0);
	tu_assert_refused(&o, text);
	ft_output_free(&o);
	setenv("FSLAB_DROP_METHOD", "remount", 1);
	ck_assert_int_eq(ft_run(run, NULL, &o), 0);
	unsetenv("FSLAB_DROP_METHOD");
	tu_assert_refused(&o, text);
	ft_output_free(&o);
}

/* F11: a state file another user wrote (owned by nobody, in a directory
 * root owns) naming a foreign mount: status and run refuse it by owner. */
START_TEST(state_forged_by_another_user_is_refused)
{
	struct pt_env e;
	struct victim v;

	tiny_env(&e);
	victim_up(&e, &v);
	forge_state(e.state, &v, "ro,errors=panic");
	ck_assert_int_eq(chown(e.state, 65534, 65534), 0);
	status_and_run_refused(&e, e.state, "belongs to uid 65534");
	victim_intact(&v);
	victim_down(&v);
	unlink(e.state);
}
END_TEST

/* F10, F19: the state in a directory every user can write (sticky, as
 * /tmp), or reached through a symbolic link another user planted there. */
START_TEST(state_in_a_shared_directory_is_refused)
{
	char shared[1200], state[1300], target[1200], link[1300], lstate[1400];
	struct pt_env e;
	struct victim v;

	tiny_env(&e);
	victim_up(&e, &v);
	snprintf(shared, sizeof(shared), "%s/shared", e.dir);
	snprintf(target, sizeof(target), "%s/rootdir", e.dir);
	ck_assert_int_eq(mkdir(shared, 0755), 0);
	ck_assert_int_eq(chmod(shared, 01777), 0);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	snprintf(state, sizeof(state), "%s/state.json", shared);
	forge_state(state, &v, "");
	chmod(state, 0600);
	status_and_run_refused(&e, state, "writable by every user");
	/* nobody's symlink in the shared dir, to a directory of root's */
	snprintf(link, sizeof(link), "%s/st", shared);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(lchown(link, 65534, 65534), 0);
	snprintf(lstate, sizeof(lstate), "%s/state.json", link);
	{
		struct ft_output o;
		char mnt[1300], tstate[1300];

		snprintf(mnt, sizeof(mnt), "%s/m", e.dir);
		ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec, "--state",
					  lstate, "--mount-root", mnt, "--yes", NULL), 0);
		tu_assert_refused(&o, "symbolic link owned by uid 65534");
		ft_output_free(&o);
		snprintf(tstate, sizeof(tstate), "%s/state.json", target);
		ck_assert_int_eq(access(tstate, F_OK), -1);
		ck_assert_int_eq(access(e.image, F_OK), -1);
	}
	victim_intact(&v);
	victim_down(&v);
}
END_TEST

/* F11: a root-owned state (a copy from another machine, a mistake) that
 * names a mount which is not a lab's: status and run prove the lab and
 * refuse; options outside the allowlist are refused on load. */
START_TEST(state_naming_a_foreign_mount_is_not_used)
{
	struct pt_env e;
	struct victim v;

	tiny_env(&e);
	victim_up(&e, &v);
	forge_state(e.state, &v, "");
	chmod(e.state, 0600);
	status_and_run_refused(&e, e.state, "is not a lab fslab set up");
	forge_state(e.state, &v, "ro");
	status_and_run_refused(&e, e.state, "'ro'");
	victim_intact(&v);
	victim_down(&v);
	unlink(e.state);
}
END_TEST

/* A benchmark on the lab through state, running until stopped. */
static void start_run(struct ft_proc *p, const char *state, const char *out)
{
	const char *argv[] = { ft_fslab_bin(), "run", "--state", state, "--out", out,
			       "--sweep", "quick", "--tests", "write,read", "--trials", "100",
			       "--cache", "warm", "--no-device-probe", NULL };

	ck_assert_int_eq(ft_spawn(argv, p), 0);
	if (ft_proc_wait_for(p, "results in", 60000) != 0) {
		struct ft_output o;

		kill(p->pid, SIGKILL);
		ft_proc_finish(p, &o);
		ck_abort_msg("the run did not start:\n%s\n%s", o.out, o.err);
	}
}

/* F1: a copy of the state (cp -p), a hard link to it, or the state
 * bind-mounted on another name is the same lab: the same locks, so
 * teardown and a second run through it are refused while a run holds the
 * lab; a hard link is refused outright. */
START_TEST(every_name_of_a_lab_takes_the_same_locks)
{
	char copy[1200], hl[1200], bind[1200], out[1200], out2[1200];
	struct lab_check c;
	struct pt_env e;
	struct ft_output o;
	struct ft_proc run;

	tiny_env(&e);
	lab_up(&e, &c);
	snprintf(copy, sizeof(copy), "%s/copy.json", e.dir);
	snprintf(hl, sizeof(hl), "%s/hl.json", e.dir);
	snprintf(bind, sizeof(bind), "%s/bind.json", e.dir);
	snprintf(out, sizeof(out), "%s/res1", e.dir);
	snprintf(out2, sizeof(out2), "%s/res2", e.dir);
	{
		const char *cp[] = { "cp", "-p", e.state, copy, NULL };
		tu_run_ok(cp, NULL, 0);
	}
	ck_assert_int_eq(ft_write_file(bind, "x\n"), 0);
	{
		const char *mb[] = { "mount", "--bind", e.state, bind, NULL };
		tu_run_ok(mb, NULL, 0);
	}
	start_run(&run, e.state, out);
	for (int k = 0; k < 2; k++) {
		const char *via = k == 0 ? copy : bind;

		ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", via, NULL), 0);
		tu_assert_refused(&o, "is in use by");
		ft_output_free(&o);
		ck_assert_int_eq(ft_fslab(&o, "run", "--state", via, "--out", out2, "--sweep", "quick",
					  "--tests", "write", "--trials", "1", "--no-device-probe", NULL),
				 0);
		tu_assert_refused(&o, "another benchmark is running");
		ft_output_free(&o);
	}
	ck_assert_int_eq(link(e.state, hl), 0);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", hl, NULL), 0);
	tu_assert_refused(&o, "2 links");
	ft_output_free(&o);
	ck_assert_int_eq(unlink(hl), 0);
	{
		struct ft_output ro;

		kill(run.pid, SIGTERM);
		ck_assert_int_eq(ft_proc_finish(&run, &ro), 0);
		ft_output_free(&ro);
	}
	{
		const char *ub[] = { "umount", bind, NULL };
		tu_run_ok(ub, NULL, 0);
	}
	lab_intact(&e, &c);
	unlink(copy);
	unlink(bind);
	lab_down(&e);
}
END_TEST

/* F5, F6: an existing --image another user owns, one writable by others,
 * or a hard link to someone's all-zero file: refused even with --wipe,
 * the file unchanged, nothing attached or written. */
START_TEST(image_another_user_can_write_is_refused)
{
	static const char *const why[] = { "belongs to uid 65534", "writable by others", "2 links" };
	char victim[1200];
	struct pt_env e;
	struct ft_output o;
	uint64_t sum;

	tiny_env(&e);
	snprintf(victim, sizeof(victim), "%s/zvictim", e.dir);
	{
		int fd = open(_i == 2 ? victim : e.image, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, 80 << 20), 0);
		close(fd);
	}
	if (_i == 0)
		ck_assert_int_eq(chown(e.image, 65534, 65534), 0);
	else if (_i == 1)
		ck_assert_int_eq(chmod(e.image, 0666), 0);
	else
		ck_assert_int_eq(link(victim, e.image), 0);
	sum = tu_file_sum(e.image);
	for (int wipe = 0; wipe < 2; wipe++) {
		ck_assert_int_eq(pt_setup_image(&e, &o, "--yes", wipe ? "--wipe" : NULL, NULL), 0);
		tu_assert_refused(&o, why[_i]);
		tu_assert_refused(&o, e.image);
		ft_output_free(&o);
		ck_assert_msg(tu_file_sum(e.image) == sum, "the image's bytes changed");
		ck_assert_int_eq(access(e.state, F_OK), -1);
		ck_assert_int_eq(ft_loops_under(e.dir), 0);
		ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	}
}
END_TEST

/* F8: the mount root / (also spelled //) or a system directory: refused
 * before anything is made; nothing mounted or created under /. */
START_TEST(mount_root_over_the_system_is_refused)
{
	static const char *const roots[] = { "/", "//", "/usr" };
	static const char spec_lib[] = "[disk]\nalignment = 1M\n[fs lib]\ntype = ext4\nsize = 64M\n";
	struct pt_env e;
	struct ft_output o;
	struct stat sb;

	tiny_env(&e);
	if (_i == 2)
		ck_assert_int_eq(ft_write_file(e.spec, spec_lib), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec, "--state", e.state,
				  "--mount-root", roots[_i], "--yes", NULL),
			 0);
	tu_assert_refused(&o, "system directory");
	ft_output_free(&o);
	ck_assert_msg(stat("/ext4", &sb) < 0, "setup made /ext4");
	ck_assert_int_eq(access(e.image, F_OK), -1);
	ck_assert_int_eq(access(e.state, F_OK), -1);
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
}
END_TEST

/* F9: a mount point that is a directory with files in it: refused, the
 * files stay visible and unchanged. */
START_TEST(non_empty_mount_point_is_refused)
{
	char mp[1200], keep[1300];
	struct pt_env e;
	struct ft_output o;
	uint64_t sum;

	tiny_env(&e);
	snprintf(mp, sizeof(mp), "%s/ext4", e.mnt);
	snprintf(keep, sizeof(keep), "%s/keep", mp);
	ck_assert_int_eq(mkdir(e.mnt, 0755), 0);
	ck_assert_int_eq(mkdir(mp, 0755), 0);
	ck_assert_int_eq(ft_write_file(keep, "my notes\n"), 0);
	sum = tu_file_sum(keep);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--yes", NULL), 0);
	tu_assert_refused(&o, "not empty");
	tu_assert_refused(&o, mp);
	ft_output_free(&o);
	ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	ck_assert(tu_file_sum(keep) == sum);
	ck_assert_int_eq(access(e.image, F_OK), -1);
	ck_assert_int_eq(access(e.state, F_OK), -1);
}
END_TEST

/* F14: a second lab's mount root or image inside the first lab's mounted
 * filesystem: refused; the first lab is intact and tears down. */
START_TEST(lab_inside_a_lab_is_refused)
{
	char inner_root[1300], inner_img[1300], state_b[1200];
	struct lab_check c;
	struct pt_env e;
	struct ft_output o;

	tiny_env(&e);
	lab_up(&e, &c);
	snprintf(inner_root, sizeof(inner_root), "%s/ext4/sub", e.mnt);
	snprintf(inner_img, sizeof(inner_img), "%s/ext4/n.img", e.mnt);
	snprintf(state_b, sizeof(state_b), "%s/state-b.json", e.dir);
	for (int k = 0; k < 2; k++) {
		char other_root[1200], other_img[1200];

		snprintf(other_root, sizeof(other_root), "%s/mnt-b", e.dir);
		snprintf(other_img, sizeof(other_img), "%s/b.img", e.dir);
		ck_assert_int_eq(ft_fslab(&o, "setup", "--image", k ? inner_img : other_img, "--spec",
					  e.spec, "--state", state_b, "--mount-root",
					  k ? other_root : inner_root, "--yes", NULL),
				 0);
		tu_assert_refused(&o, "another fslab lab");
		ft_output_free(&o);
		ck_assert_int_eq(access(state_b, F_OK), -1);
		ck_assert_int_eq(access(inner_img, F_OK), -1);
		ck_assert_int_eq(access(inner_root, F_OK), -1);
	}
	lab_intact(&e, &c);
	lab_down(&e);
}
END_TEST

/* F13: an ESC sequence in a path or a filesystem name reaches no
 * terminal raw: setup, status, teardown and spec --check refuse it (or
 * report the spec error) with the byte shown as \x1b. */
START_TEST(control_bytes_in_paths_are_escaped)
{
	char state[1200], root[1200], spec[1200];
	struct pt_env e;
	struct ft_output o;

	tiny_env(&e);
	snprintf(state, sizeof(state), "%s/st\x1b]0;owned\x07.json", e.dir);
	snprintf(root, sizeof(root), "%s/m\x1b[2J", e.dir);
	snprintf(spec, sizeof(spec), "%s/esc.ini", e.dir);
	ck_assert_int_eq(ft_write_file(spec, "[fs a\x1b[2Jb]\ntype = ext4\nsize = 64M\n"), 0);
	for (int k = 0; k < 5; k++) {
		if (k == 0)
			ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec,
						  "--state", state, "--mount-root", e.mnt, "--yes", NULL),
					 0);
		else if (k == 1)
			ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec,
						  "--state", e.state, "--mount-root", root, "--yes", NULL),
					 0);
		else if (k == 2)
			ck_assert_int_eq(ft_fslab(&o, "status", "--state", state, NULL), 0);
		else if (k == 3)
			ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, NULL), 0);
		else
			ck_assert_int_eq(ft_fslab(&o, "spec", "--check", spec, NULL), 0);
		ck_assert_msg(o.status != 0, "case %d: exit 0", k);
		ck_assert_msg(!strchr(o.err, '\x1b') && !strchr(o.out, '\x1b'),
			      "case %d: a raw ESC reached the terminal:\n%s", k, o.err);
		ck_assert_msg(strstr(o.err, "\\x1b"), "case %d: the ESC is not shown escaped:\n%s", k,
			      o.err);
		ft_output_free(&o);
	}
	ck_assert_int_eq(access(e.image, F_OK), -1);
	ck_assert_int_eq(access(e.state, F_OK), -1);
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
}
END_TEST

/* F7, F17: setup --state naming a file that is not a state (a user's
 * file) is refused without claiming a lab exists and without a lock file
 * beside it; a setup refused for its disk leaves no state directory and
 * no lock file; teardown removes the lab's lock files under /run/fslab. */
START_TEST(refusals_and_teardown_leave_nothing)
{
	char notes[1200], deep[1300], deepdir[1200], lock[1300], id[64];
	struct pt_env e;
	struct victim v;
	struct ft_output o;
	uint64_t sum;

	tiny_env(&e);
	snprintf(notes, sizeof(notes), "%s/notes.txt", e.dir);
	snprintf(lock, sizeof(lock), "%s.lock", notes);
	ck_assert_int_eq(ft_write_file(notes, "not a state file\n"), 0);
	sum = tu_file_sum(notes);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec, "--state", notes,
				  "--mount-root", e.mnt, "--yes", NULL),
			 0);
	tu_assert_refused(&o, "is not an fslab state file");
	ck_assert_msg(!strstr(o.err, "already set up"), "says a lab exists:\n%s", o.err);
	ft_output_free(&o);
	ck_assert(tu_file_sum(notes) == sum);
	ck_assert_int_eq(access(lock, F_OK), -1);
	ck_assert_int_eq(access(e.image, F_OK), -1);

	victim_up(&e, &v);
	snprintf(deepdir, sizeof(deepdir), "%s/a", e.dir);
	snprintf(deep, sizeof(deep), "%s/b/state.json", deepdir);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--device", v.loop, "--spec", e.spec, "--state", deep,
				  "--mount-root", e.mnt, "--yes", "--wipe", NULL),
			 0);
	tu_assert_refused(&o, v.loop);
	ft_output_free(&o);
	ck_assert_msg(access(deepdir, F_OK) < 0, "a refused setup left %s", deepdir);
	victim_intact(&v);
	victim_down(&v);

	{
		struct lab_check c;

		lab_up(&e, &c);
		state_field(e.state, "lab_id", id, sizeof(id));
		snprintf(lock, sizeof(lock), "/run/fslab/%s.lock", id);
		ck_assert_msg(access(lock, F_OK) == 0, "no lab lock %s", lock);
		lab_down(&e);
		ck_assert_msg(access(lock, F_OK) < 0, "teardown left %s", lock);
	}
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust lab 2");
	TCase *tc = pt_tcase(s, "lab2", FT_LAB, 240);

	unsetenv("FSLAB_STATE");
	tcase_add_loop_test(tc, teardown_refuses_a_second_loop_on_the_image, 0, 2);
	tcase_add_test(tc, teardown_does_not_adopt_another_loop);
	tcase_add_test(tc, state_forged_by_another_user_is_refused);
	tcase_add_test(tc, state_in_a_shared_directory_is_refused);
	tcase_add_test(tc, state_naming_a_foreign_mount_is_not_used);
	tcase_add_test(tc, every_name_of_a_lab_takes_the_same_locks);
	tcase_add_loop_test(tc, image_another_user_can_write_is_refused, 0, 3);
	tcase_add_loop_test(tc, mount_root_over_the_system_is_refused, 0, 3);
	tcase_add_test(tc, non_empty_mount_point_is_refused);
	tcase_add_test(tc, lab_inside_a_lab_is_refused);
	tcase_add_test(tc, control_bytes_in_paths_are_escaped);
	tcase_add_test(tc, refusals_and_teardown_leave_nothing);
	return ft_suite_run(s, argc, argv);
}
