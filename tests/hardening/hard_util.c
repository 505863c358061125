#include "hard_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char hu_small_spec[] = HU_EXT_FILESYSTEMS "[sweep]\n"
					"file_sizes = 64K-128K\n"
					"record_sizes = 4K-64K\n"
					"tests = write,rewrite,read\n"
					"trials = 1\n"
					"cache = warm\n"
					"order = fixed\n";

const char hu_long_spec[] = HU_EXT_FILESYSTEMS "[sweep]\n"
				       "file_sizes = 64K-8M\n"
				       "record_sizes = 4K-8M\n"
				       "tests = write,rewrite,read,reread,random_read,random_write\n"
				       "cache = fsync\n"
				       "trials = 1\n"
				       "order = fixed\n";

static void hu_path(char *out, const char *dir, const char *name)
{
	snprintf(out, 600, "%s/%s", dir, name);
}

int hu_lab_create(struct hu_lab *l, const char *prefix, uint64_t disk_size, const char *spec_text)
{
	char *dir;
	int r;

	memset(l, 0, sizeof(*l));
	dir = ft_mkdtemp(prefix);
	if (!dir)
		return -errno;
	snprintf(l->dir, sizeof(l->dir), "%s", dir);
	free(dir);
	hu_path(l->spec, l->dir, "spec.ini");
	hu_path(l->state, l->dir, "state.json");
	hu_path(l->mnt, l->dir, "mnt");
	hu_path(l->results, l->dir, "results");
	r = ft_write_file(l->spec, spec_text ? spec_text : hu_small_spec);
	if (r < 0)
		return r;
	if (disk_size)
		return ft_loop_create(&l->loop, l->dir, disk_size);
	return 0;
}

static bool hu_prefix(const char *s, const char *prefix)
{
	return *prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Mount points under dir, or mounted from a partition of dev.  Returns
 * how many were found; the deepest first in mps (caller frees). */
static int hu_our_mounts(const char *dir, const char *dev, char ***mps)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], dirslash[PATH_MAX + 1], devp[80];
	int n = 0;

	*mps = NULL;
	if (!f)
		return 0;
	snprintf(dirslash, sizeof(dirslash), "%s/", dir);
	snprintf(devp, sizeof(devp), "%s", dev);
	while (fgets(line, sizeof(line), f)) {
		char mp[PATH_MAX], src[PATH_MAX] = "";
		const char *sep = strstr(line, " - ");

		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		if (sep)
			sscanf(sep + 3, "%*s %4095s", src);
		if (!hu_prefix(mp, dirslash) && !(devp[0] && hu_prefix(src, devp)))
			continue;
		*mps = realloc(*mps, (size_t)(n + 1) * sizeof(char *));
		(*mps)[n++] = strdup(mp);
	}
	fclose(f);
	/* mountinfo lists parents first: unmount from the end. */
	for (int i = 0; i < n / 2; i++) {
		char *t = (*mps)[i];
		(*mps)[i] = (*mps)[n - 1 - i];
		(*mps)[n - 1 - i] = t;
	}
	return n;
}

/* Detaches every loop device whose backing file is inside dir: the lab's
 * own and those an `fslab setup --image` the test ran attached. */
static void hu_detach_image_loops(const char *dir)
{
	char list[64][64];
	int n = ft_loops_list(dir, list, 64);

	for (int i = 0; i < n; i++) {
		struct ft_loop tmp = { 0 };

		snprintf(tmp.device, sizeof(tmp.device), "%.63s", list[i]);
		ft_loop_destroy(&tmp);
	}
}

/* Live (not zombie) processes in process group pgid, or whose command line
 * mentions dir (fslab commands a test started, also ones orphaned when the
 * test process died).  With kill_them, SIGKILLs them.  Returns how many. */
static int hu_scan_procs(pid_t pgid, const char *dir, bool kill_them)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[64], buf[4096];
		pid_t pid = (pid_t)atoi(e->d_name);
		bool ours = false;
		FILE *f;
		size_t len;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
		f = fopen(p, "re");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		const char *rp = strrchr(buf, ')');
		char state = 0;
		int ppid = 0, pgrp = 0;
		if (!rp || sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 || state == 'Z')
			continue;
		if (pgid > 0 && pgrp == pgid)
			ours = true;
		if (!ours && dir && *dir) {
			snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
			f = fopen(p, "re");
			if (!f)
				continue;
			len = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			for (size_t i = 0; i < len; i++)
				if (buf[i] == '\0')
					buf[i] = ' ';
			buf[len] = '\0';
			ours = strstr(buf, dir) != NULL;
		}
		if (!ours)
			continue;
		n++;
		if (kill_them)
			kill(pid, SIGKILL);
	}
	closedir(d);
	return n;
}

int hu_wait_group(pid_t pgid, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 20) {
		if (hu_scan_procs(pgid, NULL, false) == 0)
			return 0;
		usleep(20000);
	}
	return -ETIMEDOUT;
}

int hu_image_loops(const char *dir, const char *except, char *first, size_t len)
{
	char list[64][64], back[PATH_MAX] = "";
	int n = ft_loops_list(dir, list, 64), found = 0;

	for (int i = 0; i < n; i++) {
		if (except && strcmp(list[i], except) == 0)
			continue;
		if (!found++) {
			ft_loop_backing_file(list[i], back, sizeof(back));
			snprintf(first, len, "%s (%s)", list[i], back);
		}
	}
	return found;
}

/* Unmounts (lazily) whatever is mounted under the lab's dir or from its
 * loop device's partitions. */
static void hu_unmount_lab(const struct hu_lab *l)
{
	char devp[80] = "";

	if (l->loop.device[0])
		snprintf(devp, sizeof(devp), "%sp", l->loop.device);
	for (int pass = 0; pass < 5; pass++) {
		char **mps;
		int n = hu_our_mounts(l->dir, devp, &mps);

		for (int i = 0; i < n; i++) {
			umount2(mps[i], MNT_DETACH);
			free(mps[i]);
		}
		free(mps);
		if (n == 0)
			break;
		usleep(100000);
	}
}

void hu_lab_up(struct hu_lab *l, const char *prefix, uint64_t disk_size, const char *spec_text)
{
	int r = hu_lab_create(l, prefix, disk_size, spec_text);

	if (r < 0) {
		hu_lab_destroy(l);
		fprintf(stderr, "cannot create the test's lab (temp dir, image, loop device): %s\n",
			strerror(-r));
		exit(1);
	}
}

void hu_lab_destroy(struct hu_lab *l)
{

	for (int i = 0; i < HU_MAX_BG; i++) {
		if (l->bg[i] > 0) {
			kill(l->bg[i], SIGKILL);
			waitpid(l->bg[i], NULL, 0);
			l->bg[i] = 0;
		}
	}
	if (!l->dir[0])
		return;
	for (int pass = 0; pass < 3 && hu_scan_procs(0, l->dir, true) > 0; pass++)
		usleep(200000);
	hu_unmount_lab(l);
	hu_detach_image_loops(l->dir);
	ft_loop_destroy(&l->loop);
	ft_rm_rf(l->dir);
	l->dir[0] = '\0';
}

int hu_lab_reset(struct hu_lab *l)
{
	char dir[PATH_MAX];

	hu_scan_procs(0, l->dir, true);
	hu_unmount_lab(l);
	unlink(l->state);
	ft_rm_rf(l->mnt);
	snprintf(dir, sizeof(dir), "%s", l->dir);
	if (!l->loop.device[0])
		return 0;
	ft_loop_destroy(&l->loop);
	return ft_loop_create(&l->loop, dir, 64u << 20);
}

static void hu_replace(char *buf, size_t len, const char *key, const char *val)
{
	char *p;

	while ((p = strstr(buf, key))) {
		char tail[4096];
		snprintf(tail, sizeof(tail), "%s", p + strlen(key));
		snprintf(p, len - (size_t)(p - buf), "%s%s", val, tail);
	}
}

void hu_expand(const struct hu_lab *l, const char *s, char *out, size_t len)
{
	snprintf(out, len, "%s", s);
	hu_replace(out, len, "@DEV@", l->loop.device);
	hu_replace(out, len, "@DIR@", l->dir);
	hu_replace(out, len, "@SPEC@", l->spec);
	hu_replace(out, len, "@STATE@", l->state);
	hu_replace(out, len, "@MNT@", l->mnt);
	hu_replace(out, len, "@RESULTS@", l->results);
}

int hu_setup(struct hu_lab *l, struct ft_output *o)
{
	return ft_fslab(o, "setup", "--device", l->loop.device, "--spec", l->spec, "--mount-root",
			l->mnt, "--state", l->state, "--yes", NULL);
}

int hu_teardown(struct hu_lab *l, struct ft_output *o)
{
	return ft_fslab(o, "teardown", "--state", l->state, NULL);
}

int hu_disk_clean(const struct hu_lab *l, char *why, size_t len)
{
	const char *dev = l->loop.device;
	const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	const char *blkid[] = { "blkid", "-p", dev, NULL };
	char p[PATH_MAX], devp[80], **mps;
	struct ft_output o;
	struct stat st;
	DIR *d;
	struct dirent *e;
	int n;

	if (ft_run(blkid, NULL, &o) < 0) {
		snprintf(why, len, "cannot run blkid");
		return 0;
	}
	if (o.status != 2) {
		snprintf(why, len, "blkid -p %s still finds something (status %d): %s", dev, o.status,
			 o.out);
		ft_output_free(&o);
		return 0;
	}
	ft_output_free(&o);
	snprintf(p, sizeof(p), "/sys/class/block/%s", base);
	d = opendir(p);
	if (d) {
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, base, strlen(base)) == 0 && e->d_name[strlen(base)] == 'p') {
				snprintf(why, len, "the kernel still has partition %s", e->d_name);
				closedir(d);
				return 0;
			}
		}
		closedir(d);
	}
	snprintf(devp, sizeof(devp), "%sp", dev);
	n = hu_our_mounts(l->dir, devp, &mps);
	for (int i = 0; i < n; i++) {
		if (i == 0)
			snprintf(why, len, "%s is still mounted", mps[i]);
		free(mps[i]);
	}
	free(mps);
	if (n)
		return 0;
	if (stat(l->state, &st) == 0) {
		snprintf(why, len, "the state file %s is still there", l->state);
		return 0;
	}
	return 1;
}

static void hu_child_io(const char *const env[], const char *log_path)
{
	int nul = open("/dev/null", O_RDONLY);
	int log = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600) : open("/dev/null", O_WRONLY);

	if (nul >= 0)
		dup2(nul, 0);
	if (log >= 0) {
		dup2(log, 1);
		dup2(log, 2);
	}
	for (size_t i = 0; env && env[i]; i++)
		putenv((char *)env[i]);
}

pid_t hu_spawn(struct hu_lab *l, const char *const argv[], const char *const env[],
	       const char *log_path)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		hu_child_io(env, log_path);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < HU_MAX_BG; i++) {
		if (l->bg[i] <= 0) {
			l->bg[i] = pid;
			break;
		}
	}
	return pid;
}

static int hu_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int hu_wait(struct hu_lab *l, pid_t pid, int timeout_ms)
{
	for (int waited = 0;; waited += 10) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			for (int i = 0; l && i < HU_MAX_BG; i++)
				if (l->bg[i] == pid)
					l->bg[i] = 0;
			return hu_status(st);
		}
		if (r < 0)
			return -errno;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

char *hu_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

int hu_wait_for_text(const char *path, const char *text, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 20) {
		char *s = hu_slurp(path);
		bool found = s && strstr(s, text);

		free(s);
		if (found)
			return 0;
		usleep(20000);
	}
	return -ETIMEDOUT;
}

/* ---- the ptrace stepper ---- */

static pid_t hu_trace_start(const char *const argv[], const char *const env[], const char *log_path)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		hu_child_io(env, log_path);
		/* Its own process group, as a shell job: Ctrl-C (SIGINT) goes
		 * to the group, mkfs included. */
		setpgid(0, 0);
		/* LeakSanitizer cannot run under ptrace (sanitizer builds). */
		{
			const char *asan = getenv("ASAN_OPTIONS");
			char *opts;
			if (asprintf(&opts, "%s%sdetect_leaks=0", asan ? asan : "",
				     asan && *asan ? ":" : "") >= 0)
				setenv("ASAN_OPTIONS", opts, 1);
		}
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(126);
		raise(SIGSTOP);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -ECHILD;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC)) < 0) {
		int r = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	return pid;
}

/* Runs the tracee to its next system-call stop.  Returns 1 at a stop, 0 when
 * it ended (*status set), negative errno on error.  *inject carries a signal
 * the tracee received (it is passed on, not swallowed). */
static int hu_trace_step(pid_t pid, int *inject, int *status)
{
	for (;;) {
		int st;

		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)*inject) < 0)
			return -errno;
		*inject = 0;
		if (waitpid(pid, &st, __WALL) != pid)
			return -errno;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = hu_status(st);
			return 0;
		}
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80))
			return 1;
		if (WSTOPSIG(st) == SIGTRAP)
			continue; /* exec event */
		*inject = WSTOPSIG(st);
	}
}

static int hu_wait_end(pid_t pid, int *status)
{
	int st;

	for (int waited = 0; waited < 300000; waited += 10) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			*status = hu_status(st);
			return 0;
		}
		if (r < 0)
			return -errno;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	*status = hu_status(st);
	return -ETIMEDOUT;
}

const long hu_publish_calls[] = { SYS_rename, SYS_renameat, SYS_renameat2, -1 };

static bool hu_nr_in(long nr, const long *nrs)
{
	for (size_t i = 0; nrs[i] >= 0; i++)
		if (nrs[i] == nr)
			return true;
	return false;
}

/* Runs the tracee to the next entry into one of nrs (NULL: to its next
 * system-call stop); 1 there, 0 when it ended, negative errno on error. */
static int hu_trace_next_call(pid_t pid, const long *nrs, int *inject, int *status)
{
	int r;

	while ((r = hu_trace_step(pid, inject, status)) == 1) {
		struct __ptrace_syscall_info info;

		if (!nrs)
			return 1;

		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) <= 0)
			continue;
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY && hu_nr_in((long)info.entry.nr, nrs))
			return 1;
	}
	return r;
}

long hu_trace_count_calls(const char *const argv[], const char *const env[], const char *log_path,
			  const long *nrs, int *status)
{
	pid_t pid = hu_trace_start(argv, env, log_path);
	long n = 0;
	int inject = 0, r;

	if (pid < 0)
		return pid;
	while ((r = hu_trace_next_call(pid, nrs, &inject, status)) == 1)
		n++;
	return r < 0 ? r : n;
}

int hu_trace_kill_call(const char *const argv[], const char *const env[], const char *log_path,
		       const long *nrs, long occurrence, int sig, int *status)
{
	pid_t pid = hu_trace_start(argv, env, log_path);
	long n = 0;
	int inject = 0, r;

	if (pid < 0)
		return pid;
	while ((r = hu_trace_next_call(pid, nrs, &inject, status)) == 1) {
		if (++n < occurrence)
			continue;
		/* Stopped at the chosen point: the signal is pending when it
		 * runs on, untraced. */
		kill(sig == SIGINT ? -pid : pid, sig);
		ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)inject);
		r = hu_wait_end(pid, status);
		/* A SIGKILLed fslab leaves its children (mkfs) running: wait
		 * for them as a user would before running the next command. */
		hu_wait_group(pid, 60000);
		return r < 0 ? r : 1;
	}
	return r < 0 ? r : 0;
}

long hu_trace_count(const char *const argv[], const char *const env[], const char *log_path,
		    int *status)
{
	return hu_trace_count_calls(argv, env, log_path, NULL, status);
}

int hu_trace_kill(const char *const argv[], const char *const env[], const char *log_path,
		  long at, int sig, int *status)
{
	return hu_trace_kill_call(argv, env, log_path, NULL, at, sig, status);
}

pid_t hu_trace_hold_call(const char *const argv[], const char *const env[], const char *log_path,
			 const long *nrs, long occurrence)
{
	pid_t pid = hu_trace_start(argv, env, log_path);
	long n = 0;
	int inject = 0, status, r;

	if (pid < 0)
		return pid;
	while ((r = hu_trace_next_call(pid, nrs, &inject, &status)) == 1)
		if (++n == occurrence)
			return pid;
	return r < 0 ? r : -ESRCH;
}

pid_t hu_trace_hold(const char *const argv[], const char *const env[], const char *log_path,
		    long nr)
{
	const long nrs[] = { nr, -1 };

	return hu_trace_hold_call(argv, env, log_path, nrs, 1);
}

int hu_trace_release(pid_t pid)
{
	int status;

	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	hu_wait_end(pid, &status);
	return status;
}

static uint64_t hu_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

long hu_point(uint64_t seed, unsigned i, unsigned n, long total)
{
	long lo = 1 + (long)((uint64_t)total * i / n);
	long hi = (long)((uint64_t)total * (i + 1) / n);

	if (hi < lo)
		hi = lo;
	return lo + (long)(hu_mix(seed * 1000003u + i) % (uint64_t)(hi - lo + 1));
}

unsigned hu_fault_points(unsigned def)
{
	const char *e = getenv("FSLAB_FAULT_POINTS");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 ? (unsigned)v : def;
}

void hu_assert_setup(struct hu_lab *l)
{
	struct ft_output o;

	ck_assert_int_eq(hu_setup(l, &o), 0);
	ck_assert_msg(o.status == 0, "setup failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
}

void hu_assert_teardown_clean(struct hu_lab *l)
{
	struct ft_output o;
	char why[512];

	ck_assert_int_eq(hu_teardown(l, &o), 0);
	ck_assert_msg(o.status == 0, "teardown failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
	ck_assert_msg(hu_disk_clean(l, why, sizeof(why)), "not clean after teardown: %s", why);
}
