/* setup --precondition and --purge on an image lab (forced: an image is
 * not a drive), and the quiet wait after mount: what a user checks in
 * the state, in fslab status and on the image itself.  The pure parts
 * (the decision, the writes' offsets) are checked without root. */
#include "precond.h"
#include "provtest.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PC_IMAGE_BYTES (400ull << 20)
static const char pc_spec[] = "[disk]\nlabel = gpt\nalignment = 1M\n"
			      "[fs ext4]\ntype = ext4\nsize = 32M\n"
			      "[fs btrfs]\ntype = btrfs\nsize = 120M\n";

static void pc_env(struct pt_env *e)
{
	pt_env_init(e);
	ck_assert_int_eq(ft_write_file(e->spec, pc_spec), 0);
}

static void pc_load(const struct pt_env *e, struct fslab_state *st)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	ck_assert_msg(fslab_state_load(e->state, st, &err) == 0, "state: %s", err.msg);
}

/* Bytes the image occupies on its filesystem. */
static uint64_t pc_allocated(const char *path)
{
	struct stat sb;

	ck_assert_int_eq(stat(path, &sb), 0);
	return (uint64_t)sb.st_blocks * 512;
}

/* An image of 400 MiB full of non-zero data and no signature: what a
 * purge must empty. */
static void pc_full_image(const struct pt_env *e)
{
	static char buf[1 << 20];
	int fd = open(e->image, O_WRONLY | O_CREAT | O_EXCL, 0600);

	ck_assert_int_ge(fd, 0);
	memset(buf, 0x5a, sizeof(buf));
	for (uint64_t off = 0; off < PC_IMAGE_BYTES; off += sizeof(buf))
		ck_assert_int_eq(pwrite(fd, buf, sizeof(buf), (off_t)off), (ssize_t)sizeof(buf));
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
	ck_assert_uint_ge(pc_allocated(e->image), PC_IMAGE_BYTES);
}

static void pc_setup_stopped_at(struct pt_env *e, const char *step, struct ft_output *o)
{
	struct stat sb;
	bool exists = stat(e->image, &sb) == 0;
	const char *argv[] = { ft_fslab_bin(), "setup", "--image", e->image, "--spec", e->spec,
			       "--state", e->state, "--mount-root", e->mnt, "--yes", "--wipe",
			       "--precondition", "on", exists ? NULL : "--size", "400M", NULL };
	struct ft_proc p;

	ft_spawn_paused(argv, step, &p);
	ck_assert_int_eq(kill(p.pid, SIGINT), 0);
	ck_assert_int_eq(ft_proc_finish(&p, o), 0);
}

/* The TRIM purge reaches the image through the loop device (direct I/O
 * punches holes in it); SIGINT then stops setup before a byte of the
 * preconditioning, the disk unpartitioned and the state saying so;
 * teardown still undoes it. */
START_TEST(purge_discards_then_sigint_leaves_it_unpartitioned)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;

	pc_env(&e);
	pc_full_image(&e);
	pc_setup_stopped_at(&e, "purged", &o);
	pt_assert_result(&o, 1, "left unpartitioned");
	ck_assert_ptr_nonnull(strstr(o.out, "a TRIM purge, not a PTS purge"));
	ft_output_free(&o);
	ck_assert_msg(pc_allocated(e.image) < (16ull << 20),
		      "the purge left %llu bytes of the image allocated",
		      (unsigned long long)pc_allocated(e.image));
	pc_load(&e, &st);
	ck_assert_str_eq(st.precondition.status, "interrupted");
	ck_assert_str_eq(st.precondition.purge_result, "done");
	ck_assert_int_eq(st.precondition.purge, FSLAB_PURGE_TRIM);
	ck_assert_uint_eq(st.precondition.bytes, 0);
	ck_assert_int_lt(st.phase, FSLAB_PHASE_PARTITIONING);
	ck_assert(!pt_blkid_finds_something(e.image));
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "setup did not finish");
	ck_assert_ptr_nonnull(strstr(o.out, "precondition: interrupted"));
	ft_output_free(&o);
	pt_teardown_ok(&e);
	/* the image was the user's: teardown blanks it and keeps it */
	ck_assert_int_eq(unlink(e.image), 0);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Preconditioning writes twice the capacity, all of the image is data
 * after it, and the state says how much, in what blocks, how fast. */
START_TEST(precondition_writes_twice_the_capacity)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;

	pc_env(&e);
	pc_setup_stopped_at(&e, "preconditioned", &o);
	pt_assert_result(&o, 1, "interrupted");
	ck_assert_ptr_nonnull(strstr(o.out, "preconditioned"));
	ft_output_free(&o);
	/* the sparse image was written all over */
	ck_assert_uint_ge(pc_allocated(e.image), PC_IMAGE_BYTES);
	pc_load(&e, &st);
	ck_assert_str_eq(st.precondition.status, "done");
	ck_assert_uint_eq(st.precondition.target_bytes, 2 * PC_IMAGE_BYTES);
	ck_assert_uint_eq(st.precondition.bytes, 2 * PC_IMAGE_BYTES);
	ck_assert_uint_eq(st.precondition.block_bytes, 128 * 1024);
	ck_assert(st.precondition.seconds > 0 && st.precondition.mib_s > 0);
	ck_assert_str_eq(st.precondition.purge_result, "done");
	ck_assert(st.precondition.before.read_at[0] && st.precondition.after.read_at[0]);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* A whole setup with it: status (text and JSON) shows the record and the
 * quiet wait of each filesystem; the loop is direct I/O and ext4 was
 * made without lazy init, as the state says. */
START_TEST(forced_on_an_image_lab_then_status)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;
	char size[32];

	pc_env(&e);
	snprintf(size, sizeof(size), "%lluM", PC_IMAGE_BYTES >> 20);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--size", size, "--precondition", "on", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "write 2 x 400.0 MiB = 800.0 MiB"));
	ft_output_free(&o);
	pc_load(&e, &st);
	ck_assert_int_eq(st.phase, FSLAB_PHASE_READY);
	ck_assert_uint_eq(st.precondition.bytes, 2 * PC_IMAGE_BYTES);
	for (size_t i = 0; i < st.n_partitions; i++) {
		ck_assert_msg(strcmp(st.partitions[i].quiet, "quiet") == 0 ||
				      strcmp(st.partitions[i].quiet, "timeout") == 0,
			      "%s: quiet '%s'", st.partitions[i].name, st.partitions[i].quiet);
		ck_assert(st.partitions[i].quiet_wait_s >= 1.0);
	}
	ck_assert_ptr_nonnull(strstr(st.partitions[0].mkfs_command, "lazy_itable_init=0"));
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "precondition: done, 800.0 MiB of 800.0 MiB written"));
	ck_assert_ptr_nonnull(strstr(o.out, "purge trim (a TRIM purge, not a PTS purge): done"));
	ck_assert_ptr_nonnull(strstr(o.out, "ext4 after mount: "));
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, "--json", NULL), 0);
	ck_assert_ptr_nonnull(strstr(o.out, "\"precondition\":{") ? strstr(o.out, "\"precondition\":{")
								: strstr(o.out, "\"precondition\": {"));
	ck_assert_ptr_nonnull(strstr(o.out, "\"bytes\": 838860800") ? strstr(o.out, "\"bytes\": 838860800")
								    : strstr(o.out, "\"bytes\":838860800"));
	ck_assert_ptr_nonnull(strstr(o.out, "\"quiet_wait_s\""));
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* By default nothing is preconditioned, and the plan says so and what
 * --precondition on would cost. */
START_TEST(off_by_default)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;

	pc_env(&e);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--size", "400M", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "precondition: no (--precondition off, the default; on writes "
					    "the disk twice over first: 2 drive-writes); no purge"));
	ft_output_free(&o);
	pc_load(&e, &st);
	ck_assert_str_eq(st.precondition.status, "off");
	ck_assert_uint_eq(st.precondition.bytes, 0);
	ck_assert_int_eq(st.precondition.purge, FSLAB_PURGE_NONE);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Asked for, --dry-run states the bytes, the wear in drive-writes and the
 * time (500 GiB at 500 MiB/s: 1024 s), and creates nothing; auto still
 * skips an image. */
START_TEST(dry_run_states_bytes_wear_and_time)
{
	struct pt_env e;
	struct ft_output o;
	struct stat sb;

	pc_env(&e);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--size", "250G", "--precondition", "on", "--dry-run", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "write 2 x 250.0 GiB = 500.0 GiB (2 drive-writes of wear)"));
	ck_assert_ptr_nonnull(strstr(o.out, "about 17:04 at 500 MiB/s"));
	ft_output_free(&o);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--precondition", "auto", "--dry-run", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "preconditioning skipped: an image is not a drive"));
	ft_output_free(&o);
	ck_assert_int_ne(stat(e.image, &sb), 0);
	ck_assert_int_ne(stat(e.state, &sb), 0);
}
END_TEST

/* Asked at a terminal, setup says what preconditioning costs (the bytes,
 * the wear in drive-writes, the time) before it asks for the name; a
 * wrong answer changes nothing. */
START_TEST(confirmation_states_the_cost)
{
	struct pt_env e;
	char out[8192];
	size_t n = 0;
	ssize_t r;
	int master, slave, status, fd;
	pid_t pid;

	pc_env(&e);
	fd = open(e.image, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)PC_IMAGE_BYTES), 0);
	close(fd);
	const char *argv[] = { ft_fslab_bin(), "setup", "--image", e.image, "--spec", e.spec, "--state", e.state,
			       "--mount-root", e.mnt, "--precondition", "on", NULL };
	ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setsid();
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(slave);
	ck_assert_int_eq(write(master, "nope\n", 5), 5);
	while (n < sizeof(out) - 1 && (r = read(master, out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(master);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, out);
	ck_assert_msg(strstr(out, "write 2 x 400.0 MiB = 800.0 MiB (2 drive-writes of wear)") &&
			      strstr(out, " at 500 MiB/s") && strstr(out, "Type the device name"),
		      "the prompt lacks the cost: %s", out);
	ck_assert_ptr_nonnull(strstr(out, "'nope' is not disk.img; nothing was changed"));
	ck_assert_uint_eq(pc_allocated(e.image), 0);
	ck_assert_int_eq(unlink(e.image), 0);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Refusals before anything is made: secure-erase on an image (only an
 * NVMe namespace is erased) and words setup does not know. */
START_TEST(refusals_before_anything_is_made)
{
	struct pt_env e;
	struct ft_output o;
	struct stat sb;

	pc_env(&e);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--precondition", "on", "--purge", "secure-erase", NULL), 0);
	pt_assert_result(&o, 1, "it is done only on an NVMe namespace");
	ck_assert_ptr_nonnull(strstr(o.err, "--purge trim"));
	ft_output_free(&o);
	ck_assert_int_ne(stat(e.image, &sb), 0);
	ck_assert_int_ne(stat(e.state, &sb), 0);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--precondition", "yes", NULL), 0);
	pt_assert_result(&o, 2, "--precondition 'yes': use on, off or auto");
	ft_output_free(&o);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--purge", "zero", NULL), 0);
	pt_assert_result(&o, 2, "--purge 'zero': use none, trim or secure-erase");
	ft_output_free(&o);
}
END_TEST

/* The decision: setup's options at their defaults write nothing and
 * purge nothing, even on an SSD; auto: a drive, an image or rotational
 * disk only when forced; the purge follows the writes unless given. */
START_TEST(decision_table)
{
	struct fslab_precond_decision d;
	struct fslab_setup_opts dflt = { 0 }; /* what fslab setup starts from */

	fslab_precond_decide(dflt.precondition, dflt.purge_given, dflt.purge, true, 0, &d);
	ck_assert(!d.write);
	ck_assert_int_eq(d.purge, FSLAB_PURGE_NONE);
	fslab_precond_decide(FSLAB_PRECONDITION_AUTO, false, 0, true, 0, &d);
	ck_assert(d.write);
	ck_assert_int_eq(d.purge, FSLAB_PURGE_TRIM);
	fslab_precond_decide(FSLAB_PRECONDITION_AUTO, false, 0, true, -1, &d);
	ck_assert(d.write);
	fslab_precond_decide(FSLAB_PRECONDITION_AUTO, false, 0, true, 1, &d);
	ck_assert(!d.write);
	ck_assert_str_eq(d.status, "skipped");
	ck_assert_int_eq(d.purge, FSLAB_PURGE_NONE);
	fslab_precond_decide(FSLAB_PRECONDITION_AUTO, false, 0, false, 0, &d);
	ck_assert(!d.write);
	ck_assert_ptr_nonnull(strstr(d.note, "an image is not a drive"));
	fslab_precond_decide(FSLAB_PRECONDITION_ON, false, 0, false, 1, &d);
	ck_assert(d.write);
	ck_assert_int_eq(d.purge, FSLAB_PURGE_TRIM);
	fslab_precond_decide(FSLAB_PRECONDITION_ON, true, FSLAB_PURGE_NONE, true, 0, &d);
	ck_assert(d.write);
	ck_assert_int_eq(d.purge, FSLAB_PURGE_NONE);
	fslab_precond_decide(FSLAB_PRECONDITION_OFF, true, FSLAB_PURGE_TRIM, true, 0, &d);
	ck_assert(!d.write);
	ck_assert_str_eq(d.status, "off");
	ck_assert_int_eq(d.purge, FSLAB_PURGE_TRIM);
}
END_TEST

/* The writes cover the disk exactly twice, in order, 128 KiB each but
 * the last of a pass on a disk that is no multiple of it. */
START_TEST(writes_cover_the_disk_twice)
{
	const uint64_t caps[] = { 4ull << 20, (4ull << 20) + 4096, 512, 128 * 1024 };

	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		uint64_t cap = caps[k], off, len, sum = 0, expect = 0, i;

		for (i = 0; fslab_precond_write_at(cap, i, &off, &len); i++) {
			ck_assert_uint_eq(off, expect);
			ck_assert(len > 0 && len <= FSLAB_PRECOND_BLOCK);
			ck_assert_uint_eq(len % 512, 0);
			sum += len;
			expect = off + len == cap ? 0 : off + len;
		}
		ck_assert_uint_eq(sum, fslab_precond_target(cap));
		ck_assert_uint_eq(sum, 2 * cap);
		ck_assert_uint_eq(i, 2 * ((cap + FSLAB_PRECOND_BLOCK - 1) / FSLAB_PRECOND_BLOCK));
	}
	ck_assert(!fslab_precond_write_at(0, 0, &(uint64_t){ 0 }, &(uint64_t){ 0 }));
}
END_TEST

/* The plan's estimate: 2 x 1 TiB at 500 MiB/s is 1:09:54. */
START_TEST(plan_line_estimate)
{
	struct fslab_precond_decision d;
	char line[512];

	fslab_precond_decide(FSLAB_PRECONDITION_AUTO, false, 0, true, 0, &d);
	fslab_precond_plan_line(&d, "/dev/sdz", 1ull << 40, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "write 2 x 1.0 TiB = 2.0 TiB (2 drive-writes of wear)"));
	ck_assert_ptr_nonnull(strstr(line, "about 1:09:54 at 500 MiB/s"));
	ck_assert_ptr_nonnull(strstr(line, "--precondition off"));
	ck_assert_ptr_nonnull(strstr(line, "a TRIM purge, not a PTS purge"));
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision precondition");
	TCase *pure = ft_tcase(s, "pure", 0);
	TCase *plan = pt_tcase(s, "plan", 0, 60); /* --dry-run: no root */
	TCase *tc = pt_tcase(s, "image", FT_ROOT | FT_MKFS_EXT | FT_MKFS_ALL, 180);

	tcase_add_test(pure, decision_table);
	tcase_add_test(pure, writes_cover_the_disk_twice);
	tcase_add_test(pure, plan_line_estimate);
	tcase_add_test(tc, refusals_before_anything_is_made);
	tcase_add_test(plan, dry_run_states_bytes_wear_and_time);
	tcase_add_test(tc, off_by_default);
	tcase_add_test(tc, confirmation_states_the_cost);
	tcase_add_test(tc, purge_discards_then_sigint_leaves_it_unpartitioned);
	tcase_add_test(tc, precondition_writes_twice_the_capacity);
	tcase_add_test(tc, forced_on_an_image_lab_then_status);
	return ft_suite_run(s, argc, argv);
}
