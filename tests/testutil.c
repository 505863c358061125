#include "testutil.h"

#include "exec.h"
#include "fileutil.h"
#include "spec.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <ftw.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void ft_require_root(void)
{
	ck_assert_msg(geteuid() == 0, "this test needs root: declare its TCase with FT_ROOT in main()");
}

#define FT_MAX_TCASES 32

struct ft_suite {
	const char *name;
	enum fork_status fork;
	int n;
	struct {
		TCase *tc;
		const char *name;
		unsigned needs;
	} tcase[FT_MAX_TCASES];
};

struct ft_suite *ft_suite_new(const char *name)
{
	struct ft_suite *fs = calloc(1, sizeof(*fs));

	if (!fs) {
		fprintf(stderr, "%s: out of memory\n", name);
		exit(1);
	}
	fs->name = name;
	fs->fork = CK_FORK_GETENV; /* CK_FORK=no in the environment still works */
	return fs;
}

TCase *ft_tcase(struct ft_suite *fs, const char *name, unsigned needs)
{
	if (fs->n == FT_MAX_TCASES) {
		fprintf(stderr, "%s: more than %d TCases: raise FT_MAX_TCASES\n", fs->name,
			FT_MAX_TCASES);
		exit(1);
	}
	fs->tcase[fs->n].tc = tcase_create(name);
	fs->tcase[fs->n].name = name;
	fs->tcase[fs->n].needs = needs;
	return fs->tcase[fs->n++].tc;
}

void ft_suite_nofork(struct ft_suite *fs)
{
	fs->fork = CK_NOFORK;
}

/* The first of tools (NULL-terminated) fslab would not find, or NULL. */
static const char *ft_missing_tool(const char *const tools[])
{
	char path[4096];

	for (size_t i = 0; tools[i]; i++)
		if (fslab_exec_find(tools[i], path, sizeof(path)) < 0)
			return tools[i];
	return NULL;
}

const char *ft_unmet(unsigned needs, char *why, size_t len)
{
	static const char *const ext[] = { "mkfs.ext4", "mkfs.ext2", NULL };
	static const char *const all[] = { "mkfs.xfs", "mkfs.fat", "mkfs.btrfs", NULL };
	static const char *const fuse[] = { "fusefat", NULL };
	const char *tool = NULL;

	if ((needs & FT_ROOT) && geteuid() != 0) {
		snprintf(why, len, "needs root (loop devices, mkfs, mount)");
		return why;
	}
	if (((needs & FT_MKFS_EXT) && (tool = ft_missing_tool(ext))) ||
	    ((needs & FT_MKFS_ALL) && (tool = ft_missing_tool(all))) ||
	    ((needs & FT_FUSE) && (tool = ft_missing_tool(fuse)))) {
		snprintf(why, len, "needs %s (not on $PATH, /usr/sbin or /sbin)", tool);
		return why;
	}
	if ((needs & FT_FUSE) && access("/dev/fuse", R_OK | W_OK) != 0) {
		snprintf(why, len, "needs /dev/fuse (modprobe fuse)");
		return why;
	}
	return NULL;
}

/* --part user|root (or --part=...): which TCases this run may choose
 * from.  Returns 0 (all), FT_PART_USER, FT_PART_ROOT, or -1. */
enum { FT_PART_USER = 1, FT_PART_ROOT = 2 };
static int ft_part(int argc, char **argv)
{
	const char *v = NULL;

	if (argc <= 1)
		return 0;
	if (argc == 2 && strncmp(argv[1], "--part=", 7) == 0)
		v = argv[1] + 7;
	else if (argc == 3 && strcmp(argv[1], "--part") == 0)
		v = argv[2];
	if (v && strcmp(v, "user") == 0)
		return FT_PART_USER;
	if (v && strcmp(v, "root") == 0)
		return FT_PART_ROOT;
	fprintf(stderr, "usage: %s [--part user|root]\n", argv[0]);
	return -1;
}

int ft_suite_run(struct ft_suite *fs, int argc, char **argv)
{
	const char *name = fs->name;
	Suite *run = suite_create(name), *unused = suite_create(name);
	int part = ft_part(argc, argv), added = 0, skipped = 0, ran, failed;
	enum fork_status fork = fs->fork;
	SRunner *sr;
	char why[256];

	for (int i = 0; i < fs->n; i++) {
		bool root = fs->tcase[i].needs & FT_ROOT;
		bool mine = part == 0 || (part == FT_PART_ROOT) == root; /* this run's part */

		if (part >= 0 && mine && !ft_unmet(fs->tcase[i].needs, why, sizeof(why))) {
			suite_add_tcase(run, fs->tcase[i].tc);
			added++;
			continue;
		}
		if (part >= 0 && mine) {
			printf("SKIP %s/%s: %s\n", name, fs->tcase[i].name, why);
			skipped++;
		}
		suite_add_tcase(unused, fs->tcase[i].tc); /* freed with it, never run */
	}
	srunner_free(srunner_create(unused));
	free(fs);
	if (part < 0 || !added) {
		srunner_free(srunner_create(run));
		if (part < 0)
			return 2;
		printf("SKIP %s: no test here can run on this machine\n", name);
		return FSLAB_TEST_SKIP;
	}
	sr = srunner_create(run);
	srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	ran = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (skipped)
		printf("%s: %d TCase(s) skipped (see SKIP above)\n", name, skipped);
	if (failed)
		return 1;
	if (!ran) {
		printf("SKIP %s: no test was selected (CK_RUN_CASE?)\n", name);
		return FSLAB_TEST_SKIP;
	}
	return 0;
}

const char *ft_fslab_bin(void)
{
	const char *b = getenv("FSLAB_BIN");

	return b && *b ? b : "fslab";
}

static void append(char **buf, size_t *len, const char *data, size_t n)
{
	char *nb = realloc(*buf, *len + n + 1);

	if (!nb)
		abort();
	memcpy(nb + *len, data, n);
	*len += n;
	nb[*len] = '\0';
	*buf = nb;
}

int ft_run(const char *const argv[], const char *stdin_text, struct ft_output *o)
{
	int in[2], out[2], err[2], status;
	size_t olen = 0, elen = 0, ilen = stdin_text ? strlen(stdin_text) : 0, ioff = 0;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (!ilen) {
		close(in[1]);
		in[1] = -1;
	}
	o->out = calloc(1, 1);
	o->err = calloc(1, 1);
	struct pollfd p[3] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 }, { in[1], POLLOUT, 0 } };
	int open_fds = 2;
	while (open_fds > 0) {
		int np = in[1] >= 0 ? 3 : 2;
		if (poll(p, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (p[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP))) {
				char buf[8192];
				ssize_t n = read(p[i].fd, buf, sizeof(buf));
				if (n > 0) {
					if (i == 0)
						append(&o->out, &olen, buf, (size_t)n);
					else
						append(&o->err, &elen, buf, (size_t)n);
				} else {
					close(p[i].fd);
					p[i].fd = -1;
					open_fds--;
				}
			}
		}
		if (in[1] >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(in[1], stdin_text + ioff, ilen - ioff);
			if (n > 0)
				ioff += (size_t)n;
			if (n <= 0 || ioff >= ilen) {
				close(in[1]);
				in[1] = -1;
				p[2].fd = -1;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

int ft_fslab(struct ft_output *o, ...)
{
	const char *argv[64];
	size_t n = 0;
	va_list ap;

	argv[n++] = ft_fslab_bin();
	va_start(ap, o);
	while (n < 63) {
		const char *a = va_arg(ap, const char *);
		if (!a)
			break;
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	return ft_run(argv, NULL, o);
}

void ft_output_free(struct ft_output *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}

char *ft_mkdtemp_fd(const char *prefix, int *fd)
{
	char *path = ft_mkdtemp(prefix);

	ck_assert_msg(path != NULL, "cannot make a temporary directory %s: %s", prefix, strerror(errno));
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_msg(*fd >= 0, "cannot open %s: %s", path, strerror(errno));
	return path;
}

void ft_rmdir_fd(char *path, int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (path)
		ft_rm_rf(path);
	free(path);
}

char *ft_mkdtemp(const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (asprintf(&path, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix) < 0)
		abort();
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Detaches every mount below dir (the test's own directory): a test that
 * failed between its mount and its unmount (Check's forked test exits at
 * the failed assertion) leaves none behind.  Deepest first; as a normal
 * user the umount fails and changes nothing. */
static void umount_below(const char *dir)
{
	char line[4096], mp[4096], *found[64];
	size_t n = 0, len = strlen(dir);
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return;
	while (n < 64 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 && strncmp(mp, dir, len) == 0 &&
		    mp[len] == '/' && !strchr(mp, '\\')) /* no octal escapes: a name the test chose */
			found[n++] = strdup(mp);
	fclose(f);
	while (n--) { /* mountinfo lists a mount after its parent */
		if (found[n])
			umount2(found[n], MNT_DETACH);
		free(found[n]);
	}
}

void ft_rm_rf(const char *path)
{
	if (path && *path && strcmp(path, "/") != 0) {
		umount_below(path);
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	}
}

int ft_loop_create(struct ft_loop *l, const char *dir, uint64_t size)
{
	int fd, ctl, lfd, r;
	long n;

	memset(l, 0, sizeof(*l));
	snprintf(l->image, sizeof(l->image), "%s/disk.img", dir);
	fd = open(l->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		r = -errno;
		close(fd);
		unlink(l->image);
		return r;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		r = -errno;
		close(fd);
		unlink(l->image);
		return r;
	}
	for (int attempt = 0; attempt < 10; attempt++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			break;
		snprintf(l->device, sizeof(l->device), "/dev/loop%ld", n);
		lfd = open(l->device, O_RDWR | O_CLOEXEC);
		if (lfd < 0) {
			usleep(10000);
			continue;
		}
		struct loop_config cfg = { .fd = (unsigned)fd };
		cfg.info.lo_flags = LO_FLAGS_PARTSCAN | LO_FLAGS_AUTOCLEAR;
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			/* AUTOCLEAR is dropped: fslab must see a plain attached loop
			 * device.  Keep it attached until ft_loop_destroy. */
			struct loop_info64 info;
			if (ioctl(lfd, LOOP_GET_STATUS64, &info) == 0) {
				info.lo_flags &= ~(unsigned)LO_FLAGS_AUTOCLEAR;
				ioctl(lfd, LOOP_SET_STATUS64, &info);
			}
			close(lfd);
			close(fd);
			close(ctl);
			return 0;
		}
		r = errno;
		close(lfd);
		if (r != EBUSY)
			break;
	}
	r = -errno;
	close(fd);
	close(ctl);
	unlink(l->image);
	l->device[0] = '\0';
	return r ? r : -EBUSY;
}

void ft_loop_destroy(struct ft_loop *l)
{
	if (l->device[0]) {
		int fd = open(l->device, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			for (int i = 0; i < 50; i++) {
				if (ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno == ENXIO)
					break;
				usleep(100000);
			}
			close(fd);
		}
		l->device[0] = '\0';
	}
	if (l->image[0]) {
		unlink(l->image);
		l->image[0] = '\0';
	}
}

int ft_disk_fingerprint(const char *dev, unsigned char *fp)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	off_t end;
	int r = 0;

	if (fd < 0)
		return -errno;
	end = lseek(fd, 0, SEEK_END);
	if (end < (off_t)FT_FINGERPRINT_SIZE ||
	    pread(fd, fp, FT_FINGERPRINT_SIZE / 2, 0) != (ssize_t)(FT_FINGERPRINT_SIZE / 2) ||
	    pread(fd, fp + FT_FINGERPRINT_SIZE / 2, FT_FINGERPRINT_SIZE / 2,
		  end - (off_t)(FT_FINGERPRINT_SIZE / 2)) != (ssize_t)(FT_FINGERPRINT_SIZE / 2))
		r = -EIO;
	close(fd);
	return r;
}

int ft_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -EIO;
}

char *ft_source_file(const char *rel)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char path[1024];

	ck_assert_msg(src != NULL, "FSLAB_SOURCE_DIR is not set (run through ctest)");
	snprintf(path, sizeof(path), "%s/%s", src, rel);
	return ft_read_text(path);
}

char *ft_read_text(const char *path)
{
	char *text;
	FILE *f;
	long n;

	f = fopen(path, "re");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(text);
	text[fread(text, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return text;
}

char *ft_text_section(const char *text, const char *start, const char *end)
{
	const char *a = strstr(text, start), *b;

	ck_assert_msg(a != NULL, "'%s' not found", start);
	b = strstr(a + strlen(start), end);
	return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

#include <linux/blkpg.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <time.h>

int ft_spawn(const char *const argv[], struct ft_proc *p)
{
	int out[2], err[2];

	memset(p, 0, sizeof(*p));
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		dup2(nul, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	p->out_fd = out[0];
	p->err_fd = err[0];
	p->out = calloc(1, 1);
	p->err = calloc(1, 1);
	return 0;
}

static long ft_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* One poll round over the open pipes; returns how many are still open. */
static int ft_proc_pump(struct ft_proc *p, int wait_ms)
{
	struct pollfd fds[2] = { { p->out_fd, POLLIN, 0 }, { p->err_fd, POLLIN, 0 } };
	int open_fds = (p->out_fd >= 0) + (p->err_fd >= 0);

	if (!open_fds)
		return 0;
	if (poll(fds, 2, wait_ms) <= 0)
		return open_fds;
	for (int i = 0; i < 2; i++) {
		int *fd = i ? &p->err_fd : &p->out_fd;
		char buf[4096];
		ssize_t n;

		if (*fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(*fd, buf, sizeof(buf));
		if (n > 0) {
			if (i)
				append(&p->err, &p->err_len, buf, (size_t)n);
			else
				append(&p->out, &p->out_len, buf, (size_t)n);
		} else if (n == 0 || errno != EINTR) {
			close(*fd);
			*fd = -1;
		}
	}
	return (p->out_fd >= 0) + (p->err_fd >= 0);
}

int ft_proc_wait_for(struct ft_proc *p, const char *text, int timeout_ms)
{
	long deadline = ft_now_ms() + timeout_ms;

	for (;;) {
		if (strstr(p->err, text) || strstr(p->out, text))
			return 0;
		long left = deadline - ft_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (ft_proc_pump(p, (int)(left < 200 ? left : 200)) == 0)
			return strstr(p->err, text) || strstr(p->out, text) ? 0 : -EPIPE;
	}
}

int ft_proc_finish(struct ft_proc *p, struct ft_output *o)
{
	int status;

	while (ft_proc_pump(p, 1000) > 0)
		;
	while (waitpid(p->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	o->out = p->out;
	o->err = p->err;
	p->out = p->err = NULL;
	return 0;
}

void ft_spawn_paused(const char *const argv[], const char *step, struct ft_proc *p)
{
	struct ft_output o;
	char marker[128];

	setenv("FSLAB_TEST_PAUSE_AT", step, 1);
	ck_assert_int_eq(ft_spawn(argv, p), 0);
	unsetenv("FSLAB_TEST_PAUSE_AT");
	snprintf(marker, sizeof(marker), "paused at %s (pid", step);
	if (ft_proc_wait_for(p, marker, 60000) != 0) {
		kill(p->pid, SIGKILL);
		ft_proc_finish(p, &o);
		ck_abort_msg("fslab %s never reached %s:\n%s\n%s", argv[1], step, o.out, o.err);
	}
}

/* Mount points from /proc/self/mountinfo (octal escapes decoded) that are
 * root or below it, deepest (latest) first. */
static int ft_list_mounts_under(const char *root, char list[][512], int max)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t rl = strlen(root);
	char line[4096];
	int n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char target[512], dec[512];
		size_t j = 0;

		if (sscanf(line, "%*s %*s %*s %*s %511s", target) != 1)
			continue;
		for (size_t i = 0; target[i] && j < sizeof(dec) - 1; i++) {
			if (target[i] == '\\' && target[i + 1] && target[i + 2] && target[i + 3]) {
				dec[j++] = (char)(((target[i + 1] - '0') << 6) | ((target[i + 2] - '0') << 3) |
						  (target[i + 3] - '0'));
				i += 3;
			} else {
				dec[j++] = target[i];
			}
		}
		dec[j] = '\0';
		if (strncmp(dec, root, rl) == 0 && (dec[rl] == '\0' || dec[rl] == '/') && n < max)
			snprintf(list[n++], 512, "%s", dec);
	}
	if (f)
		fclose(f);
	/* reverse: later mounts (stacked, nested) first */
	for (int i = 0; i < n / 2; i++) {
		char tmp[512];
		memcpy(tmp, list[i], 512);
		memcpy(list[i], list[n - 1 - i], 512);
		memcpy(list[n - 1 - i], tmp, 512);
	}
	return n;
}

int ft_mounts_under(const char *root)
{
	static char list[64][512];

	return ft_list_mounts_under(root, list, 64);
}

int ft_loop_backing_file(const char *dev, char *buf, size_t len)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	char path[300];
	FILE *f;
	int r = -ENOENT;

	snprintf(path, sizeof(path), "/sys/block/%.64s/loop/backing_file", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		r = 0;
	}
	fclose(f);
	return r;
}

int ft_loops_list(const char *root, char list[][64], int max)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	size_t rl = strlen(root);
	int n = 0;

	while (d && (e = readdir(d))) {
		char back[1024];

		if (strncmp(e->d_name, "loop", 4) != 0 || strlen(e->d_name) >= 32 ||
		    ft_loop_backing_file(e->d_name, back, sizeof(back)) < 0)
			continue;
		if (strncmp(back, root, rl) == 0 && back[rl] == '/' && n < max)
			snprintf(list[n++], 64, "/dev/%s", e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

int ft_loops_under(const char *root)
{
	char list[64][64];

	return ft_loops_list(root, list, 64);
}

static void ft_cleanup(const char *root, bool remove);

/* swapoff for each of the loop devices (a failed test's swap on its own
 * disk would keep the loop device attached). */
static void ft_swapoff_loops(char loops[][64], int n)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[1024], dev[512];

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s", dev) != 1)
			continue;
		for (int i = 0; i < n; i++)
			if (strncmp(dev, loops[i], strlen(loops[i])) == 0 &&
			    (dev[strlen(loops[i])] == '\0' || dev[strlen(loops[i])] == 'p'))
				swapoff(dev);
	}
	if (f)
		fclose(f);
}

void ft_cleanup_under(const char *root)
{
	ft_cleanup(root, true);
}

void ft_cleanup_under_keep(const char *root)
{
	ft_cleanup(root, false);
}

static void ft_cleanup(const char *root, bool remove)
{
	static char mounts[64][512];
	char loops[64][64];
	int n;

	if (!root || strlen(root) < 6 || strncmp(root, "/tmp/", 5) != 0)
		return; /* only what tests make under /tmp */
	for (int round = 0; round < 3; round++) {
		n = ft_list_mounts_under(root, mounts, 64);
		for (int i = 0; i < n; i++)
			if (umount2(mounts[i], 0) < 0)
				umount2(mounts[i], MNT_DETACH);
		if (!n)
			break;
		usleep(200000);
	}
	usleep(100000); /* FUSE daemons let go of their devices */
	n = ft_loops_list(root, loops, 64);
	ft_swapoff_loops(loops, n);
	for (int i = 0; i < n; i++) {
		int fd = open(loops[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			for (int k = 0; k < 30 && ioctl(fd, LOOP_CLR_FD, 0) < 0 && errno == EBUSY; k++)
				usleep(100000);
			close(fd);
		}
	}
	for (int i = 0; i < 100 && ft_loops_list(root, loops, 64) > 0; i++)
		usleep(20000); /* detaching finishes on the last close */
	if (remove)
		ft_rm_rf(root);
}

/* One BLKPG operation on partition pno of disk. */
static int ft_blkpg(const char *disk, int op, int pno, long long start, long long length)
{
	struct blkpg_partition part = { .start = start, .length = length, .pno = pno };
	struct blkpg_ioctl_arg arg = { .op = op, .datalen = sizeof(part), .data = &part };
	int fd = open(disk, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKPG, &arg) < 0)
		r = -errno;
	close(fd);
	return r;
}

int ft_blkpg_add(const char *disk, int pno, long long start, long long length)
{
	return ft_blkpg(disk, BLKPG_ADD_PARTITION, pno, start, length);
}

int ft_blkpg_del(const char *disk, int pno)
{
	return ft_blkpg(disk, BLKPG_DEL_PARTITION, pno, 0, 0);
}

/* Little-endian fields of a FAT32 boot sector. */
static uint32_t ft_le(const unsigned char *b, int off, int len)
{
	uint32_t v = 0;

	for (int i = len - 1; i >= 0; i--)
		v = v << 8 | b[off + i];
	return v;
}

/* FSInfo's next-free hint (FSI_Nxt_Free, byte 492) of the FAT32 image
 * img: the cluster that starts at byte at, or below it. */
static void ft_fat32_next_free_at(const char *img, uint64_t at)
{
	unsigned char bs[512], le[4];
	int fd = open(img, O_RDWR | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "cannot open %s: %s", img, strerror(errno));
	ck_assert_int_eq(pread(fd, bs, sizeof(bs), 0), (ssize_t)sizeof(bs));
	uint64_t bps = ft_le(bs, 11, 2), spc = bs[13], rsvd = ft_le(bs, 14, 2), nfats = bs[16];
	uint64_t fatsz = ft_le(bs, 36, 4), fsinfo = ft_le(bs, 48, 2);
	uint64_t data = (rsvd + nfats * fatsz) * bps, bpc = bps * spc;
	ck_assert_msg(bpc > 0 && at > data, "%s: no FAT32 data area before byte %llu", img,
		      (unsigned long long)at);
	uint32_t clus = (uint32_t)(2 + (at - data) / bpc);
	for (int i = 0; i < 4; i++)
		le[i] = (unsigned char)(clus >> (8 * i));
	ck_assert_int_eq(pwrite(fd, le, 4, (off_t)(fsinfo * bps + 492)), 4);
	close(fd);
}

void ft_fusefat_mount(const char *img, const char *size, const char *mnt)
{
	ft_fusefat_mount_at(img, size, mnt, 0);
}

void ft_fusefat_mount_at(const char *img, const char *size, const char *mnt, uint64_t at)
{
	struct ft_output o;

	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(ft_run((const char *const[]){ "truncate", "-s", size, img, NULL }, NULL, &o), 0);
	ft_output_free(&o);
	ck_assert_int_eq(ft_run((const char *const[]){ "mkfs.fat", "-F", "32", img, NULL }, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "mkfs.fat: %s", o.err);
	ft_output_free(&o);
	if (at)
		ft_fat32_next_free_at(img, at);
	ck_assert_int_eq(ft_run((const char *const[]){ "fusefat", "-o", "rw+", img, mnt, NULL }, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "fusefat: %s", o.err);
	ft_output_free(&o);
}

void ft_fslab_then_umount(const char *dir, const char *mnt, ...)
{
	const char *argv[64] = { ft_fslab_bin() };
	struct ft_output o;
	size_t n = 1;
	va_list ap;
	int r, left;

	va_start(ap, mnt);
	for (const char *a; n < 63 && (a = va_arg(ap, const char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	r = ft_run(argv, NULL, &o);
	left = ft_dir_entries(dir);
	if (mnt)
		umount2(mnt, 0);
	ck_assert_msg(r == 0 && o.status == 0, "fslab %s exited %d: %s", argv[1], o.status, o.err);
	ft_output_free(&o);
	ck_assert_msg(left == 0, "fslab %s left %d entries in %s", argv[1], left, dir);
}

int ft_dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_msg(d != NULL, "cannot open %s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

int ft_spec_parse(const char *text, const char *name, struct fslab_spec *spec, char *err,
		  size_t len)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	int r = fslab_spec_parse_string(text, name, spec, &e);

	snprintf(err, len, "%s", e.msg);
	return r;
}

int ft_state_save(const char *path, const struct fslab_state *st)
{
	char dir[PATH_MAX], base[PATH_MAX];
	int dfd, r;

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	r = fslab_mkdir_p(dirname(dir), 0755);
	if (r < 0)
		return r;
	dfd = fslab_dir_open(dir);
	if (dfd < 0)
		return dfd;
	r = fslab_state_save_at(dfd, basename(base), st, 0);
	close(dfd);
	return r;
}
