#include "exec.h"
#include "clock.h"
#include "fileutil.h"
#include "log.h"
#include "names.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) {
			char real[PATH_MAX];
			struct fslab_err why = FSLAB_ERR_INIT;

			/* Root runs it: another user who could swap the file
			 * or a directory above it would run as root. */
			if (fslab_path_trusted(path, real, sizeof(real), &why) < 0) {
				fslab_note_warn("not running %s: %s", path, why.msg);
				continue;
			}
			/* the name as found: mkfs.ext4 is mke2fs by another name */
			return 0;
		}
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

int fslab_exec_run_in(const char *const argv[], const char *cwd, const char *log_path,
		      int timeout_s, struct fslab_exec_result *res)
{
	struct fslab_exec_opts o = {
		.cwd = cwd, .log_fd = -1, .log_path = log_path, .timeout_s = timeout_s,
	};

	return fslab_exec_run_opts(argv, &o, res);
}

/* Everything the child needs, made ready in the parent before it exists:
 * the child itself runs no code of ours (posix_spawn), so nothing that is
 * unsafe between fork and exec (malloc, stdio, locale) can run there, and
 * concurrent calls from threads are safe. */
struct exec_child {
	char prog[4096];
	int logfd;      /* the log (O_APPEND), or -1 */
	int errpipe[2]; /* the child's stderr; both ends close-on-exec */
	int cwdfd;      /* the working directory, or -1: inherited */
	char **envp;    /* malloc'd when words are added; else environ */
};

/* The log fd (close-on-exec; -1 when there is no log) with the command
 * line written into it.  0 or -errno. */
static int exec_open_log(const struct fslab_exec_opts *o, const char *const argv[], int *fdp)
{
	struct stat lst;
	char line[2048];
	int fd = -1;

	*fdp = -1;
	if (o->log_fd >= 0) {
		fd = fcntl(o->log_fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
	} else if (o->log_path) {
		/* No-follow: a symlink planted at the log path is refused. */
		fd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &lst) < 0 || !S_ISREG(lst.st_mode)) {
			close(fd);
			return -EINVAL;
		}
	}
	if (fd >= 0) {
		fslab_exec_format(argv, line, sizeof(line));
		/* the log is a convenience: a failed write does not stop the run */
		if (dprintf(fd, "$ %s\n", line) < 0)
			fslab_debug(FSLAB_DBG_EXEC, "cannot write to the log of %s", argv[0]);
	}
	*fdp = fd;
	return 0;
}

/* environ with the "NAME=VALUE" words of extra added (replacing a NAME
 * already there), as a malloc'd array; environ itself when extra is empty.
 * NULL when out of memory. */
static char **exec_build_env(const char *const *extra)
{
	size_t n = 0, k = 0, m = 0;
	char **envp;

	if (!extra || !extra[0])
		return environ;
	while (environ[n])
		n++;
	while (extra[m])
		m++;
	envp = calloc(n + m + 1, sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < m && !replaced; j++) {
			size_t nl = strcspn(extra[j], "=");
			replaced = strncmp(environ[i], extra[j], nl + 1) == 0;
		}
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		envp[k++] = (char *)extra[j];
	return envp;
}

static void exec_child_free(struct exec_child *c)
{
	if (c->logfd >= 0)
		close(c->logfd);
	if (c->errpipe[0] >= 0)
		close(c->errpipe[0]);
	if (c->errpipe[1] >= 0)
		close(c->errpipe[1]);
	if (c->cwdfd >= 0)
		close(c->cwdfd);
	if (c->envp && c->envp != environ)
		free(c->envp);
}

/* The child's world as fslab_exec_run_opts promises it: stdin /dev/null,
 * stdout the log (or /dev/null), stderr the pipe, no other descriptor, the
 * working directory;
 * its own process group if asked; SIGINT, SIGTERM and SIGPIPE back to
 * their defaults and no signal blocked (fslab's own handling must not leak
 * in).  posix_spawn's error number, or 0. */
static int exec_spawn(const struct exec_child *c, const char *const argv[], bool new_pgrp,
		      pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
	int e;

	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGPIPE);
	if (new_pgrp)
		flags |= POSIX_SPAWN_SETPGROUP;
	if ((e = posix_spawn_file_actions_init(&fa)) != 0)
		return e;
	if ((e = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return e;
	}
	e = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!e)
		e = c->logfd >= 0 ? posix_spawn_file_actions_adddup2(&fa, c->logfd, STDOUT_FILENO)
				  : posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
								     O_WRONLY, 0);
	if (!e)
		e = posix_spawn_file_actions_adddup2(&fa, c->errpipe[1], STDERR_FILENO);
	if (!e && c->cwdfd >= 0)
		e = posix_spawn_file_actions_addfchdir_np(&fa, c->cwdfd);
	/* Nothing else of ours or of our caller's: a descriptor fslab was
	 * given without close-on-exec (a caller's flock, the pipe of a shell's
	 * $(...)) would otherwise live on in a child that outlives fslab (the
	 * FUSE daemon), holding the lock or keeping the caller waiting. */
	if (!e)
		e = posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	if (!e)
		e = posix_spawnattr_setflags(&at, flags);
	if (!e)
		e = posix_spawnattr_setpgroup(&at, 0);
	if (!e)
		e = posix_spawnattr_setsigdefault(&at, &def);
	if (!e)
		e = posix_spawnattr_setsigmask(&at, &none);
	if (!e)
		e = posix_spawn(pid, c->prog, &fa, &at, (char *const *)argv, c->envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

/* A child that could not become the program (its directory, or the exec,
 * failed) is reported as such a child would be: exit status 127 and why,
 * in the stderr tail and in the log. */
static void exec_report_127(const struct exec_child *c, struct fslab_exec_result *res,
			    const char *what, const char *name, int err)
{
	char msg[4096 + 128], why[128];
	/* report/plot.c runs children from several threads: strerror's buffer
	 * is not ours to share, strerror_r's (GNU: returns the text) is. */
	int n = snprintf(msg, sizeof(msg), "cannot %s %s: %s\n", what, name,
			 strerror_r(err, why, sizeof(why)));

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = (int)sizeof(msg) - 1;
	keep_tail(res->stderr_tail, sizeof(res->stderr_tail), msg, (size_t)n);
	if (c->logfd >= 0 && write(c->logfd, msg, (size_t)n) < 0) {
		/* the log is a convenience; the tail still reaches the user */
	}
	res->exit_status = 127;
}

/* Copies the child's stderr into the tail and the log until it closes it,
 * or until the deadline (timeout_s > 0), when the child (its whole group
 * with new_pgrp) is killed. */
static void exec_collect(const struct exec_child *c, pid_t pid, const struct fslab_exec_opts *o,
			 struct fslab_exec_result *res)
{
	static const char killed[] = "\n(fslab: killed after timeout)\n";
	double deadline = o->timeout_s > 0 ? fslab_now() + o->timeout_s : 0;
	char buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = c->errpipe[0], .events = POLLIN };
		double left = deadline - fslab_now();
		ssize_t n;

		if (deadline > 0 && left <= 0) {
			kill(o->new_pgrp ? -pid : pid, SIGKILL);
			keep_tail(res->stderr_tail, sizeof(res->stderr_tail), killed, sizeof(killed) - 1);
			return;
		}
		if (poll(&pfd, 1, deadline > 0 ? (int)(left * 1000) + 1 : -1) <= 0)
			continue; /* EINTR, or the deadline: looked at above */
		n = read(c->errpipe[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		keep_tail(res->stderr_tail, sizeof(res->stderr_tail), buf, (size_t)n);
		if (c->logfd >= 0 && write(c->logfd, buf, (size_t)n) < 0) {
			/* the log is a convenience; the tail still reaches the user */
		}
	}
}

/* Waits for the child; its exit code (128 + signal when killed) into res.
 * 0 or -errno. */
static int exec_reap(pid_t pid, struct fslab_exec_result *res)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		res->exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		res->exit_status = 128 + WTERMSIG(status);
	else
		res->exit_status = 255;
	return 0;
}

/* The parent's half before the child exists: the program, the log, the
 * pipe, the directory and the environment.  0; 1 when the directory
 * cannot be entered (reported as the child's exit 127); or -errno. */
static int exec_prepare(struct exec_child *c, const char *const argv[],
			const struct fslab_exec_opts *o, struct fslab_exec_result *res)
{
	int r = fslab_exec_find(argv[0], c->prog, sizeof(c->prog));

	if (r < 0)
		return r;
	r = exec_open_log(o, argv, &c->logfd);
	if (r < 0)
		return r;
	if (pipe2(c->errpipe, O_CLOEXEC) < 0)
		return -errno;
	c->envp = exec_build_env(o->env);
	if (!c->envp)
		return -ENOMEM;
	if (o->cwd) {
		c->cwdfd = open(o->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (c->cwdfd < 0) {
			exec_report_127(c, res, "change to", o->cwd, errno);
			return 1;
		}
	}
	return 0;
}

int fslab_exec_run_opts(const char *const argv[], const struct fslab_exec_opts *o,
			struct fslab_exec_result *res)
{
	struct exec_child c = { .logfd = -1, .errpipe = { -1, -1 }, .cwdfd = -1 };
	pid_t pid;
	int r, e;

	memset(res, 0, sizeof(*res));
	r = exec_prepare(&c, argv, o, res);
	if (r != 0)
		goto out;
	fslab_debug(FSLAB_DBG_EXEC, "exec %s", c.prog);
	e = exec_spawn(&c, argv, o->new_pgrp, &pid);
	if (e == EAGAIN || e == ENOMEM) {
		r = -e; /* no child: the machine is out of processes or memory */
		goto out;
	}
	if (e) {
		exec_report_127(&c, res, "execute", c.prog, e);
		goto out;
	}
	close(c.errpipe[1]);
	c.errpipe[1] = -1;
	if (o->started)
		o->started(o->ctx, pid);
	exec_collect(&c, pid, o, res);
	r = exec_reap(pid, res);
out:
	exec_child_free(&c);
	return r < 0 ? r : 0;
}

char *fslab_exec_format(const char *const argv[], char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int quote = a[0] == '\0' || strpbrk(a, " \t'\"\\$`;&|<>()*?") != NULL;

		fslab_catf(buf, len, quote ? "%s'%s'" : "%s%s", i ? " " : "", a);
	}
	return buf;
}

void fslab_exec_version(const char *prog, const char *arg, char *buf, size_t len)
{
	const char *argv[] = { prog, arg, NULL };
	struct fslab_exec_result res;
	char data[4096], *save = NULL;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	/* The output goes to an anonymous memory file: nothing to clean up,
	 * even when fslab is killed. */
	fd = memfd_create("fslab-tool-version", MFD_CLOEXEC);
	if (fd < 0)
		return;
	struct fslab_exec_opts eo = { .log_fd = fd, .timeout_s = 10 };
	if (fslab_exec_run_opts(argv, &eo, &res) == 0 && (n = pread(fd, data, sizeof(data) - 1, 0)) > 0) {
		data[n] = '\0';
		for (char *l = strtok_r(data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (l[0] != '$' && strpbrk(l, "0123456789")) {
				snprintf(buf, len, "%s", l);
				break;
			}
	}
	close(fd);
}
