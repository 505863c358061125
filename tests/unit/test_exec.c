/* lib/exec: running a program as fslab runs mkfs, fusefat and gnuplot.
 * Each test runs /bin/sh (or a planted file) and checks what a caller
 * sees: the exit status, the signal, the timeout's kill of the whole
 * process group, the refusal of a missing program, the working directory,
 * the log and the stderr tail, the environment, and calls from threads. */
#include "exec.h"
#include "fileutil.h"
#include "procfs.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *tmpdir;

static void fx_setup(void)
{
	tmpdir = ft_mkdtemp("fslab-exec");
	ck_assert_ptr_nonnull(tmpdir);
}

static void fx_teardown(void)
{
	ft_rm_rf(tmpdir);
	free(tmpdir);
}

static char *read_text(const char *path)
{
	char *data = NULL;

	ck_assert_int_eq(fslab_read_file(path, &data, NULL, 1 << 20), 0);
	return data;
}

START_TEST(exit_status_is_reported)
{
	const char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	struct fslab_exec_result res;

	ck_assert_int_eq(fslab_exec_run_in(argv, NULL, NULL, 0, &res), 0);
	ck_assert_int_eq(res.exit_status, 3);
}
END_TEST

/* A descriptor fslab holds without close-on-exec (a caller's flock, the
 * pipe of a shell's $(...)) does not reach the child: a FUSE daemon that
 * outlives fslab would hold the caller's lock or keep its $(...) waiting.
 * The child sees its stdin, stdout and stderr, nothing else. */
START_TEST(child_inherits_only_stdio)
{
	const char *argv[] = { "/bin/sh", "-c", "cd /proc/self/fd && echo * >&2", NULL };
	struct fslab_exec_result res;
	int fd = open("/dev/null", O_RDONLY); /* no O_CLOEXEC, as a caller's would be */
	int moved;

	ck_assert_int_ge(fd, 0);
	moved = fcntl(fd, F_DUPFD, 37); /* not 3: a high one, as a shell's is */
	ck_assert_int_ge(moved, 37);
	close(fd);
	ck_assert_int_eq(fslab_exec_run_in(argv, NULL, NULL, 0, &res), 0);
	close(moved);
	ck_assert_int_eq(res.exit_status, 0);
	/* the shell's own descriptors: 0, 1, 2, and the one its glob reads
	 * the directory with */
	char *save = NULL;
	for (char *w = strtok_r(res.stderr_tail, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
		ck_assert_msg(atoi(w) <= 3, "the child inherited descriptor %s", w);
}
END_TEST

/* Killed by a signal: 128 + its number.  fslab ignoring SIGTERM must not
 * make the child immune to it (the child starts with the default). */
START_TEST(signal_is_128_plus_number_and_default_in_child)
{
	const char *argv[] = { "/bin/sh", "-c", "kill -TERM $$; sleep 5", NULL };
	struct fslab_exec_result res;

	ck_assert_ptr_ne(signal(SIGTERM, SIG_IGN), SIG_ERR);
	ck_assert_int_eq(fslab_exec_run_in(argv, NULL, NULL, 0, &res), 0);
	ck_assert_int_eq(res.exit_status, 128 + SIGTERM);
}
END_TEST

/* The timeout kills the child's whole process group: a grandchild left
 * in the background dies with it. */
START_TEST(timeout_kills_the_process_group)
{
	char script[4200], pidfile[4100], *text;
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct fslab_exec_opts o = { .log_fd = -1, .timeout_s = 1, .new_pgrp = true };
	struct fslab_exec_result res;
	pid_t grandchild, g;
	int r = 0;

	snprintf(pidfile, sizeof(pidfile), "%s/pid", tmpdir);
	snprintf(script, sizeof(script), "sleep 300 & echo $! > %s; wait", pidfile);
	ck_assert_int_eq(fslab_exec_run_opts(argv, &o, &res), 0);
	ck_assert_int_eq(res.exit_status, 128 + SIGKILL);
	ck_assert_ptr_nonnull(strstr(res.stderr_tail, "killed after timeout"));
	text = read_text(pidfile);
	grandchild = (pid_t)strtol(text, NULL, 10);
	free(text);
	ck_assert_int_gt(grandchild, 1);
	/* SIGKILL was sent before we returned; its reaper (init) may take
	 * a moment to collect it: gone or a zombie, within 10 s. */
	for (int i = 0; i < 1000 && (r = fslab_proc_pgrp(grandchild, &g)) == 0; i++)
		usleep(10000);
	ck_assert_int_eq(r, -ESRCH);
}
END_TEST

START_TEST(missing_program_is_enoent_before_anything_runs)
{
	const char *argv[] = { "fslab-no-such-tool-here", NULL };
	char log[4100];
	struct fslab_exec_result res;

	snprintf(log, sizeof(log), "%s/log", tmpdir);
	ck_assert_int_eq(fslab_exec_run_in(argv, NULL, log, 0, &res), -ENOENT);
	ck_assert_int_eq(access(log, F_OK), -1); /* nothing was started, nothing logged */
}
END_TEST

/* Does posix_spawn here return the exec's error?  glibc does (the child
 * shares the parent's memory until the exec); under valgrind, which runs
 * that child as a plain fork, the child only exits 127. */
static bool spawn_reports_exec_errors(void)
{
	char *const argv[] = { "fslab-probe", NULL };
	pid_t pid;

	if (posix_spawn(&pid, "/nonexistent/fslab-probe", NULL, NULL, argv, environ) != 0)
		return true;
	waitpid(pid, NULL, 0);
	return false;
}

/* A file that is executable but no program: the child could not become
 * it, reported as exit 127 with the reason (where the C library tells
 * the reason: see spawn_reports_exec_errors). */
START_TEST(unexecutable_file_is_exit_127_with_reason)
{
	char prog[4100], log[4100], *text;
	const char *argv[] = { prog, NULL };
	struct fslab_exec_result res;

	snprintf(prog, sizeof(prog), "%s/not-a-program", tmpdir);
	snprintf(log, sizeof(log), "%s/log", tmpdir);
	ck_assert_int_eq(ft_write_file(prog, "\x01\x02 not an ELF, no #!\n"), 0);
	ck_assert_int_eq(chmod(prog, 0755), 0);
	ck_assert_int_eq(fslab_exec_run_in(argv, NULL, log, 0, &res), 0);
	ck_assert_int_eq(res.exit_status, 127);
	if (!spawn_reports_exec_errors())
		return;
	ck_assert_msg(strstr(res.stderr_tail, "cannot execute"), "tail: %s", res.stderr_tail);
	ck_assert_msg(strstr(res.stderr_tail, "not-a-program"), "tail: %s", res.stderr_tail);
	text = read_text(log);
	ck_assert_msg(strstr(text, "cannot execute"), "log: %s", text);
	free(text);
}
END_TEST

START_TEST(runs_in_the_given_directory)
{
	const char *argv[] = { "/bin/pwd", NULL };
	char log[4100], want[4200], real[4096], *text;
	struct fslab_exec_result res;

	ck_assert_ptr_nonnull(realpath(tmpdir, real));
	snprintf(log, sizeof(log), "%s/log", tmpdir);
	ck_assert_int_eq(fslab_exec_run_in(argv, real, log, 0, &res), 0);
	ck_assert_int_eq(res.exit_status, 0);
	text = read_text(log);
	snprintf(want, sizeof(want), "$ /bin/pwd\n%s\n", real);
	ck_assert_str_eq(text, want);
	free(text);
}
END_TEST

START_TEST(missing_directory_is_exit_127_with_reason)
{
	const char *argv[] = { "/bin/true", NULL };
	char dir[4100];
	struct fslab_exec_result res;

	snprintf(dir, sizeof(dir), "%s/gone", tmpdir);
	ck_assert_int_eq(fslab_exec_run_in(argv, dir, NULL, 0, &res), 0);
	ck_assert_int_eq(res.exit_status, 127);
	ck_assert_msg(strstr(res.stderr_tail, "cannot change to") && strstr(res.stderr_tail, dir),
		      "tail: %s", res.stderr_tail);
}
END_TEST

/* stdout and stderr go to the log after the command line; the tail holds
 * stderr only; stdin is empty. */
START_TEST(log_and_stderr_tail_are_captured)
{
	const char *argv[] = { "/bin/sh", "-c", "read x; echo \"out[$x]\"; echo err >&2", NULL };
	char log[4100], *text;
	struct fslab_exec_result res;

	snprintf(log, sizeof(log), "%s/log", tmpdir);
	ck_assert_int_eq(ft_write_file(log, "before\n"), 0);
	ck_assert_int_eq(fslab_exec_run_in(argv, NULL, log, 0, &res), 0);
	ck_assert_int_eq(res.exit_status, 0);
	ck_assert_str_eq(res.stderr_tail, "err\n");
	text = read_text(log);
	ck_assert_msg(strncmp(text, "before\n$ /bin/sh -c 'read x;", 28) == 0, "log: %s", text);
	ck_assert_msg(strstr(text, "\nout[]\n") && strstr(text, "\nerr\n"), "log: %s", text);
	free(text);
}
END_TEST

START_TEST(log_symlink_is_refused)
{
	const char *argv[] = { "/bin/true", NULL };
	char log[4100], victim[4100], *text;
	struct fslab_exec_result res;

	snprintf(log, sizeof(log), "%s/log", tmpdir);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	ck_assert_int_eq(ft_write_file(victim, "precious\n"), 0);
	ck_assert_int_eq(symlink(victim, log), 0);
	ck_assert_int_lt(fslab_exec_run_in(argv, NULL, log, 0, &res), 0);
	text = read_text(victim);
	ck_assert_str_eq(text, "precious\n");
	free(text);
}
END_TEST

/* Words added to the environment replace a variable of the same name. */
START_TEST(env_words_are_added_and_replace)
{
	const char *argv[] = { "/bin/sh", "-c", "echo \"$FSLAB_T_A/$FSLAB_T_B/$HOME\" >&2", NULL };
	const char *env[] = { "FSLAB_T_A=new", "FSLAB_T_B=b", NULL };
	struct fslab_exec_opts o = { .log_fd = -1, .env = env };
	struct fslab_exec_result res;
	char want[4200];

	ck_assert_int_eq(setenv("FSLAB_T_A", "old", 1), 0);
	ck_assert_int_eq(setenv("HOME", "/kept", 1), 0);
	ck_assert_int_eq(fslab_exec_run_opts(argv, &o, &res), 0);
	snprintf(want, sizeof(want), "new/b/%s\n", "/kept");
	ck_assert_str_eq(res.stderr_tail, want);
}
END_TEST

struct thread_job {
	int id;
	int failures;
	char why[1400];
};

/* Each thread runs the child several times: every result must be its own
 * (no stderr mixed up between concurrent children, no pipe held open by a
 * sibling's child). */
static void *thread_runs(void *arg)
{
	struct thread_job *j = arg;

	for (int k = 0; k < 6; k++) {
		char name[32], code[16], want[48];
		const char *argv[] = { "/bin/sh", "-c", "echo \"$0\" >&2; exit $1", name, code, NULL };
		struct fslab_exec_result res;
		int r;

		snprintf(name, sizeof(name), "job%d.%d", j->id, k);
		snprintf(code, sizeof(code), "%d", (j->id * 7 + k) % 50);
		snprintf(want, sizeof(want), "%s\n", name);
		r = fslab_exec_run_in(argv, NULL, NULL, 60, &res);
		if (r != 0 || res.exit_status != (j->id * 7 + k) % 50 || strcmp(res.stderr_tail, want)) {
			snprintf(j->why, sizeof(j->why), "%s: r=%d status=%d tail=%s", name, r,
				 res.exit_status, res.stderr_tail);
			j->failures++;
		}
	}
	return NULL;
}

START_TEST(concurrent_calls_from_threads)
{
	struct thread_job jobs[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct thread_job){ .id = i };
		ck_assert_int_eq(pthread_create(&t[i], NULL, thread_runs, &jobs[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(jobs[i].failures == 0, "%s", jobs[i].why);
}
END_TEST

START_TEST(find_tool_honours_fslab_tool_path)
{
	char prog[4100], found[4096];

	snprintf(prog, sizeof(prog), "%s/mkfs.fslabtest", tmpdir);
	ck_assert_int_eq(ft_write_file(prog, "#!/bin/sh\n"), 0);
	ck_assert_int_eq(chmod(prog, 0755), 0);
	ck_assert_int_eq(setenv("FSLAB_TOOL_PATH", tmpdir, 1), 0);
	ck_assert_int_eq(fslab_exec_find_tool("mkfs.fslabtest", found, sizeof(found)), 0);
	ck_assert_str_eq(found, prog);
	/* only FSLAB_TOOL_PATH: sh is on $PATH but not there */
	ck_assert_int_eq(fslab_exec_find_tool("sh", found, sizeof(found)), -ENOENT);
	ck_assert_int_eq(fslab_exec_find("sh", found, sizeof(found)), 0);
	ck_assert_int_eq(unsetenv("FSLAB_TOOL_PATH"), 0);
	ck_assert_int_eq(fslab_exec_find_tool("sh", found, sizeof(found)), 0);
	ck_assert_int_eq(fslab_exec_find_tool("mkfs.fslabtest", found, sizeof(found)), -ENOENT);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("exec");
	TCase *tc = ft_tcase(s, "exec", 0);

	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, exit_status_is_reported);
	tcase_add_test(tc, signal_is_128_plus_number_and_default_in_child);
	tcase_add_test(tc, timeout_kills_the_process_group);
	tcase_add_test(tc, missing_program_is_enoent_before_anything_runs);
	tcase_add_test(tc, unexecutable_file_is_exit_127_with_reason);
	tcase_add_test(tc, runs_in_the_given_directory);
	tcase_add_test(tc, missing_directory_is_exit_127_with_reason);
	tcase_add_test(tc, log_and_stderr_tail_are_captured);
	tcase_add_test(tc, log_symlink_is_refused);
	tcase_add_test(tc, env_words_are_added_and_replace);
	tcase_add_test(tc, concurrent_calls_from_threads);
	tcase_add_test(tc, find_tool_honours_fslab_tool_path);
	tcase_add_test(tc, child_inherits_only_stdio);
	return ft_suite_run(s, argc, argv);
}
