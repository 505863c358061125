/* Helpers shared by the trust tests: see trust_util.h. */
#include "trust_util.h"

#include "state.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_tmp;
static char *top;
static const char *top_prefix;

static void top_setup(void)
{
	top = ft_mkdtemp(top_prefix);
	ck_assert_ptr_nonnull(top);
	ck_assert_int_eq(chmod(top, 0755), 0);
	unsetenv("FSLAB_STATE");
}

static void top_teardown(void)
{
	ft_cleanup_under(top);
	free(top);
	top = NULL;
}

static void setup(void)
{
	ck_assert_int_ge(asprintf(&tu_tmp, "%s/tXXXXXX", top), 0);
	ck_assert_ptr_nonnull(mkdtemp(tu_tmp));
	ck_assert_int_eq(chmod(tu_tmp, 0755), 0);
}

static void teardown(void)
{
	ft_cleanup_under(tu_tmp);
	free(tu_tmp);
	tu_tmp = NULL;
}

void tu_dir_fixtures(TCase *tc, const char *prefix)
{
	top_prefix = prefix;
	tcase_add_unchecked_fixture(tc, top_setup, top_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
}

char *tu_tpath(const char *name)
{
	return tu_join(tu_tmp, name);
}

char *tu_join(const char *dir, const char *name)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

char *tu_slurp_len(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;

	ck_assert_msg(fd >= 0, "cannot open %s: %s", path, strerror(errno));
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap + 1);
			ck_assert_ptr_nonnull(buf);
		}
		got = read(fd, buf + n, cap - n);
		ck_assert_int_ge(got, 0);
		n += (size_t)got;
	} while (got > 0);
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *tu_slurp(const char *path)
{
	return tu_slurp_len(path, NULL);
}

uint64_t tu_file_sum(const char *path)
{
	uint64_t h = 1469598103934665603ull;
	unsigned char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	close(fd);
	return h;
}

bool tu_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

void tu_has(const char *text, const char *what)
{
	ck_assert_msg(strstr(text, what) != NULL, "'%s' not in:\n%s", what, text);
}

void tu_assert_refused(const struct ft_output *o, const char *text)
{
	ck_assert_msg(o->status != 0, "expected a refusal, got exit 0:\n%s\n%s", o->out, o->err);
	ck_assert_msg(strstr(o->err, text), "stderr lacks '%s':\n%s", text, o->err);
}

void tu_export_refused(const char *csv, const char *out, bool force, const char *want)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "export", "iozone", csv, "--out", out, force ? "--force" : NULL,
				  NULL), 0);
	ck_assert_msg(o.status == 1, "export --out %s: exit %d (want 1): %s", out, o.status, o.err);
	tu_has(o.err, want);
	ft_output_free(&o);
}

void tu_write_mounted_state(const char *p)
{
	struct fslab_state st;

	memset(&st, 0, sizeof(st));
	st.version = FSLAB_STATE_VERSION;
	st.phase = FSLAB_PHASE_READY;
	snprintf(st.disk, sizeof(st.disk), "/dev/loop99");
	snprintf(st.mount_root, sizeof(st.mount_root), "/nonexistent/fslab");
	ck_assert_int_eq(ft_state_save(p, &st), 0);
}

void tu_run_ok(const char *const argv[], char *out, size_t len)
{
	struct ft_output o;

	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "%s: exit %d: %s", argv[0], o.status, o.err);
	if (out) {
		snprintf(out, len, "%s", o.out);
		out[strcspn(out, "\n")] = '\0';
	}
	ft_output_free(&o);
}

void tu_finished_run(const char *dir, const char *out, const char *sweep)
{
	char arg[4200];
	struct ft_output o;

	snprintf(arg, sizeof(arg), "s=%s", dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--no-device-probe",
				  "--out", out, "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "run failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
}

void tu_loop_detach(const char *dev)
{
	const char *argv[] = { "losetup", "-d", dev, NULL };
	struct ft_output o;

	if (ft_run(argv, NULL, &o) == 0)
		ft_output_free(&o);
}

bool tu_loop_attached(const char *dev)
{
	char sys[128];

	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", strrchr(dev, '/') + 1);
	return access(sys, F_OK) == 0;
}
