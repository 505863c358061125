#include "exec.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Searches the colon-separated dirs for an executable regular file name;
 * 0 and its path, or -ENOENT. */
static int exec_find_in(const char *dirs, const char *name, char *path, size_t len)
{
	char list[4096], *save = NULL;

	if (snprintf(list, sizeof(list), "%s", dirs) >= (int)sizeof(list))
		return -ENAMETOOLONG;
	for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		int w = snprintf(path, len, "%s/%s", d, name);

		if (w < 0 || (size_t)w >= len)
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

int fslab_exec_find(const char *name, char *path, size_t len)
{
	const char *env = getenv("PATH");
	char dirs[4096];

	if (strchr(name, '/')) {
		if (access(name, X_OK) != 0)
			return -ENOENT;
		snprintf(path, len, "%s", name);
		return 0;
	}
	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin:/usr/bin:/bin",
		 env && *env ? env : "/usr/local/bin");
	return exec_find_in(dirs, name, path, len);
}

int fslab_exec_find_tool(const char *name, char *path, size_t len)
{
	const char *env = getenv("FSLAB_TOOL_PATH");

	if (!env || !*env)
		return fslab_exec_find(name, path, len);
	return exec_find_in(env, name, path, len);
}

static void keep_tail(char *tail, size_t cap, const char *buf, size_t n)
{
	size_t have = strlen(tail);

	if (n >= cap - 1) {
		memcpy(tail, buf + n - (cap - 1), cap - 1);
		tail[cap - 1] = '\0';
		return;
	}
	if (have + n >= cap) {
		size_t drop = have + n - (cap - 1);
		memmove(tail, tail + drop, have - drop + 1);
		have -= drop;
	}
	memcpy(tail + have, buf, n);
	tail[have + n] = '\0';
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int fslab_exec_run(const char *const argv[], const char *log_path, int timeout_s,
		   struct fslab_exec_result *res)
{
	return fslab_exec_run_in(argv, NULL, log_path, timeout_s, res);
}

int fslab_exec_run_in(const char *const argv[], const char *cwd, const char *log_path,
		      int timeout_s, struct fslab_exec_result *res)
{
	struct fslab_exec_opts o = {
		.cwd = cwd, .log_fd = -1, .log_path = log_path, .timeout_s = timeout_s,
	};

	return fslab_exec_run_opts(argv, &o, res);
}

int fslab_exec_run_opts(const char *const argv[], const struct fslab_exec_opts *o,
			struct fslab_exec_result *res)
{
	const char *cwd = o->cwd;
	int timeout_s = o->timeout_s;
	char prog[4096];
	int errpipe[2];
	int logfd = -1;
	pid_t pid;
	int r, status;
	double deadline;

	memset(res, 0, sizeof(*res));
	r = fslab_exec_find(argv[0], prog, sizeof(prog));
	if (r < 0)
		return r;
	if (o->log_fd >= 0) {
		logfd = fcntl(o->log_fd, F_DUPFD_CLOEXEC, 3);
		if (logfd < 0)
			return -errno;
	} else if (o->log_path) {
		struct stat lst;

		/* No-follow: a symlink planted at the log path is refused. */
		logfd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (logfd < 0)
			return -errno;
		if (fstat(logfd, &lst) < 0 || !S_ISREG(lst.st_mode)) {
			close(logfd);
			return -EINVAL;
		}
	}
	if (logfd >= 0) {
		char line[2048];
		fslab_exec_format(argv, line, sizeof(line));
		dprintf(logfd, "$ %s\n", line);
	}
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		r = -errno;
		if (logfd >= 0)
			close(logfd);
		return r;
	}
	fslab_debug(FSLAB_DBG_EXEC, "exec %s", prog);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(errpipe[0]);
		close(errpipe[1]);
		if (logfd >= 0)
			close(logfd);
		return r;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		int out = logfd >= 0 ? logfd : devnull;

		if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
		    dup2(errpipe[1], STDERR_FILENO) < 0)
			_exit(127);
		if (o->new_pgrp && setpgid(0, 0) < 0)
			_exit(127);
		for (size_t i = 0; o->env && o->env[i]; i++)
			if (putenv((char *)o->env[i]) != 0)
				_exit(127);
		if (cwd && chdir(cwd) < 0) {
			dprintf(STDERR_FILENO, "cannot change to %s: %s\n", cwd, strerror(errno));
			_exit(127);
		}
		/* A clean signal state: fslab's own handlers must not leak in. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execv(prog, (char *const *)argv);
		dprintf(STDERR_FILENO, "cannot execute %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	close(errpipe[1]);
	if (o->new_pgrp)
		setpgid(pid, pid); /* also here: no race with the started callback */
	if (o->started)
		o->started(o->ctx, pid);
	deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
	for (;;) {
		struct pollfd pfd = { .fd = errpipe[0], .events = POLLIN };
		int wait_ms = -1;
		char buf[4096];

		if (deadline > 0) {
			double left = deadline - now_s();
			if (left <= 0) {
				kill(o->new_pgrp ? -pid : pid, SIGKILL);
				keep_tail(res->stderr_tail, sizeof(res->stderr_tail),
					  "\n(fslab: killed after timeout)\n", 31);
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		r = poll(&pfd, 1, wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t n = read(errpipe[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		keep_tail(res->stderr_tail, sizeof(res->stderr_tail), buf, (size_t)n);
		if (logfd >= 0 && write(logfd, buf, (size_t)n) < 0) {
			/* the log is a convenience; the tail still reaches the user */
		}
	}
	close(errpipe[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			r = -errno;
			if (logfd >= 0)
				close(logfd);
			return r;
		}
	}
	if (logfd >= 0)
		close(logfd);
	if (WIFEXITED(status))
		res->exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		res->exit_status = 128 + WTERMSIG(status);
	else
		res->exit_status = 255;
	return 0;
}

char *fslab_exec_format(const char *const argv[], char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int quote = a[0] == '\0' || strpbrk(a, " \t'\"\\$`;&|<>()*?") != NULL;
		int w = snprintf(buf + off, len - off, quote ? "%s'%s'" : "%s%s", i ? " " : "", a);

		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
	return buf;
}
