/* libfdisk's warnings reach fslab's log: a GPT written on a disk image
 * that has since grown (its backup header no longer at the end, its
 * protective MBR the old size) makes libfdisk warn when fslab opens it,
 * and the warning must show on stderr, not vanish.  Image files only: no
 * root, no device. */
#include "prov_int.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <libfdisk.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;
static char image[PATH_MAX];

static void fx_setup(void)
{
	int fd;

	dir = ft_mkdtemp("fslab-gptask");
	ck_assert_ptr_nonnull(dir);
	snprintf(image, sizeof(image), "%s/disk.img", dir);
	fd = open(image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8 << 20), 0);
	close(fd);
}

static void fx_teardown(void)
{
	ft_rm_rf(dir);
	free(dir);
}

/* Runs prov_fdisk_open on the image with stderr going to a file; returns
 * what was written there (malloc'd). */
static char *open_capturing_stderr(int *ret)
{
	struct fdisk_context *cxt = NULL;
	char path[PATH_MAX + 16], *text = NULL;
	int saved, fd;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	*ret = prov_fdisk_open(image, true, &cxt, NULL);
	fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);
	close(fd);
	if (cxt)
		fdisk_unref_context(cxt);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* An empty GPT on the 8 MiB image, through fslab's own opener. */
static void write_gpt(void)
{
	struct fdisk_context *cxt;

	ck_assert_int_eq(prov_fdisk_open(image, false, &cxt, NULL), 0);
	ck_assert_int_eq(fdisk_create_disklabel(cxt, "gpt"), 0);
	ck_assert_int_eq(fdisk_write_disklabel(cxt), 0);
	ck_assert_int_eq(fdisk_deassign_device(cxt, 0), 0);
	fdisk_unref_context(cxt);
}

START_TEST(clean_gpt_opens_without_a_word)
{
	char *text;
	int r;

	write_gpt();
	text = open_capturing_stderr(&r);
	ck_assert_int_eq(r, 0);
	ck_assert_msg(text[0] == '\0', "unexpected output: %s", text);
	free(text);
}
END_TEST

START_TEST(warning_of_a_grown_image_reaches_the_log)
{
	char *text;
	int r;

	write_gpt();
	ck_assert_int_eq(truncate(image, 16 << 20), 0);
	text = open_capturing_stderr(&r);
	ck_assert_int_eq(r, 0);
	ck_assert_msg(strstr(text, "warning: ") && strstr(text, image) && strstr(text, "libfdisk: "),
		      "no libfdisk warning in: '%s'", text);
	free(text);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("libfdisk ask");
	TCase *tc = ft_tcase(s, "ask", 0);

	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
	tcase_add_test(tc, clean_gpt_opens_without_a_word);
	tcase_add_test(tc, warning_of_a_grown_image_reaches_the_log);
	return ft_suite_run(s, argc, argv);
}
