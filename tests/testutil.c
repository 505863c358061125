#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/loop.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void ft_require_root(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "skipped: this test needs root (loop devices, mkfs, mount)\n");
		exit(FSLAB_TEST_SKIP);
	}
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

void ft_rm_rf(const char *path)
{
	if (path && *path && strcmp(path, "/") != 0)
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
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
