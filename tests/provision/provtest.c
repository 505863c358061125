#include "provtest.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char pt_small_spec[] = "[disk]\nalignment = 1M\n"
			     "[fs ext4]\nsize = 32M\n"
			     "[fs ext2]\nsize = 32M\n"
			     "[fs xfs]\nsize = 300M\n"
			     "[fs fat32]\nsize = 40M\n"
			     "[fs btrfs]\nsize = 120M\n";

static char *pt_root;
static int pt_counter;

void pt_suite_setup(void)
{
	pt_root = ft_mkdtemp("fslab-provtest");
	if (!pt_root)
		abort();
}

/* fslab teardown for every state file one level below the root. */
static void pt_teardown_all(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char state[PATH_MAX];
		struct ft_output o;

		if (e->d_name[0] == '.')
			continue;
		snprintf(state, sizeof(state), "%s/%s/state.json", root, e->d_name);
		if (access(state, F_OK) != 0)
			continue;
		if (ft_fslab(&o, "teardown", "--state", state, NULL) == 0) {
			if (o.status != 0)
				fprintf(stderr, "cleanup: teardown of %s: %s", state, o.err);
			ft_output_free(&o);
		}
	}
	if (d)
		closedir(d);
}

void pt_suite_teardown(void)
{
	if (!pt_root)
		return;
	pt_teardown_all(pt_root);
	ft_cleanup_under(pt_root);
	free(pt_root);
	pt_root = NULL;
}

TCase *pt_tcase(struct ft_suite *s, const char *name, unsigned needs, int timeout_s)
{
	TCase *tc = ft_tcase(s, name, needs);

	tcase_add_unchecked_fixture(tc, pt_suite_setup, pt_suite_teardown);
	tcase_set_timeout(tc, timeout_s);
	return tc;
}

void pt_env_init(struct pt_env *e)
{
	ck_assert_ptr_nonnull(pt_root);
	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "%s/t%d-%d", pt_root, (int)getpid(), pt_counter++);
	ck_assert_int_eq(mkdir(e->dir, 0700), 0);
	snprintf(e->image, sizeof(e->image), "%s/disk.img", e->dir);
	snprintf(e->state, sizeof(e->state), "%s/state.json", e->dir);
	snprintf(e->mnt, sizeof(e->mnt), "%s/mnt", e->dir);
	snprintf(e->spec, sizeof(e->spec), "%s/spec.ini", e->dir);
	ck_assert_int_eq(ft_write_file(e->spec, pt_small_spec), 0);
}

static int pt_run(struct ft_output *o, const char *first[], size_t nfirst, va_list ap)
{
	const char *argv[64];
	size_t n = 0;

	argv[n++] = ft_fslab_bin();
	for (size_t i = 0; i < nfirst; i++)
		argv[n++] = first[i];
	while (n < 63) {
		const char *a = va_arg(ap, const char *);
		if (!a)
			break;
		argv[n++] = a;
	}
	argv[n] = NULL;
	return ft_run(argv, NULL, o);
}

int pt_setup(struct pt_env *e, const char *dev, struct ft_output *o, ...)
{
	const char *first[] = { "setup", dev ? "--device" : "--image", dev ? dev : e->image,
				"--spec", e->spec, "--state", e->state, "--mount-root", e->mnt };
	va_list ap;
	int r;

	va_start(ap, o);
	r = pt_run(o, first, sizeof(first) / sizeof(first[0]), ap);
	va_end(ap);
	return r;
}

int pt_teardown(struct pt_env *e, struct ft_output *o)
{
	return ft_fslab(o, "teardown", "--state", e->state, NULL);
}

void pt_setup_image_ok(struct pt_env *e)
{
	struct ft_output o;

	ck_assert_int_eq(pt_setup_image(e, &o, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
}

void pt_teardown_ok(struct pt_env *e)
{
	struct ft_output o;

	ck_assert_int_eq(pt_teardown(e, &o), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
}

int pt_blkid_finds_something(const char *dev)
{
	const char *argv[] = { "blkid", "-p", "-o", "export", dev, NULL };
	struct ft_output o;
	int found;

	if (access("/usr/sbin/blkid", X_OK) == 0)
		argv[0] = "/usr/sbin/blkid";
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	/* blkid -p: 0 found, 2 nothing found */
	found = o.status == 0;
	ck_assert_msg(o.status == 0 || o.status == 2, "blkid -p %s: exit %d: %s", dev, o.status, o.err);
	ft_output_free(&o);
	return found;
}

void pt_assert_nothing_left(struct pt_env *e, const char *dev)
{
	struct stat st;

	ck_assert_int_eq(ft_mounts_under(e->dir), 0);
	ck_assert_int_eq(ft_loops_under(e->dir), 0);
	ck_assert_msg(stat(e->image, &st) != 0, "image %s still there", e->image);
	ck_assert_msg(stat(e->state, &st) != 0, "state %s still there", e->state);
	if (dev)
		ck_assert_msg(!pt_blkid_finds_something(dev), "blkid still finds something on %s", dev);
}

void pt_assert_result(const struct ft_output *o, int status, const char *text)
{
	ck_assert_msg(o->status == status, "exit %d, expected %d\nstdout: %s\nstderr: %s", o->status,
		      status, o->out, o->err);
	if (text)
		ck_assert_msg(strstr(o->err, text) != NULL, "stderr lacks '%s':\n%s", text, o->err);
}
