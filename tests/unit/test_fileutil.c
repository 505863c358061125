/* The trust helpers of lib/fileutil.c: each test plants what a hostile user
 * would (a symlink, a FIFO, a swapped directory) and checks that the victim
 * file is untouched and the call fails or acts on the link itself. */
#include "fileutil.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fx {
	char *dir;
	char victim[4096];
	int dfd;
};

static void fx_init(struct fx *f)
{
	f->dir = ft_mkdtemp("fslab-fileutil");
	snprintf(f->victim, sizeof(f->victim), "%s/victim", f->dir);
	ck_assert_int_eq(ft_write_file(f->victim, "precious\n"), 0);
	f->dfd = fslab_dir_open(f->dir);
	ck_assert_int_ge(f->dfd, 0);
}

static void fx_fini(struct fx *f)
{
	close(f->dfd);
	ft_rm_rf(f->dir);
	free(f->dir);
}

static void assert_victim_intact(const struct fx *f)
{
	char *data = NULL;
	size_t len;

	ck_assert_int_eq(fslab_read_file(f->victim, &data, &len, 4096), 0);
	ck_assert_str_eq(data, "precious\n");
	free(data);
}

START_TEST(create_at_refuses_planted_symlink)
{
	struct fx f;

	fx_init(&f);
	ck_assert_int_eq(symlinkat(f.victim, f.dfd, "out.csv"), 0);
	ck_assert_int_eq(fslab_create_at(f.dfd, "out.csv", O_WRONLY, 0644), -EEXIST);
	/* a dangling link is refused too (O_CREAT would otherwise create its target) */
	ck_assert_int_eq(symlinkat("/nonexistent-fslab-target", f.dfd, "dangling"), 0);
	ck_assert_int_eq(fslab_create_at(f.dfd, "dangling", O_WRONLY, 0644), -EEXIST);
	ck_assert_int_eq(access("/nonexistent-fslab-target", F_OK), -1);
	ck_assert_int_eq(fslab_create_at(f.dfd, "../escape", O_WRONLY, 0644), -EINVAL);
	assert_victim_intact(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(create_at_mode_is_exact_under_any_umask)
{
	struct fx f;
	struct stat st;
	mode_t old = umask(0);
	int fd;

	fx_init(&f);
	fd = fslab_create_at(f.dfd, "new", O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	close(fd);
	umask(old);
	fx_fini(&f);
}
END_TEST

START_TEST(open_regular_at_refuses_symlink_and_fifo)
{
	struct fx f;

	fx_init(&f);
	ck_assert_int_eq(symlinkat(f.victim, f.dfd, "link"), 0);
	ck_assert_int_eq(fslab_open_regular_at(f.dfd, "link", O_RDWR), -ELOOP);
	ck_assert_int_eq(mkfifoat(f.dfd, "fifo", 0600), 0);
	ck_assert_int_eq(fslab_open_regular_at(f.dfd, "fifo", O_RDONLY), -EINVAL);
	int fd = fslab_open_regular_at(f.dfd, "victim", O_RDONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0); /* O_TRUNC is dropped: opening never changes the file */
	close(fd);
	assert_victim_intact(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(atomic_write_replaces_link_not_target)
{
	struct fx f;
	struct stat st;
	char *data = NULL;
	char path[4200];

	fx_init(&f);
	ck_assert_int_eq(symlinkat(f.victim, f.dfd, "report.txt"), 0);
	ck_assert_int_eq(fslab_write_file_atomic_at(f.dfd, "report.txt", "new\n", 4, 0644), 0);
	assert_victim_intact(&f);
	ck_assert_int_eq(fstatat(f.dfd, "report.txt", &st, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	snprintf(path, sizeof(path), "%s/report.txt", f.dir);
	ck_assert_int_eq(fslab_read_file(path, &data, NULL, 4096), 0);
	ck_assert_str_eq(data, "new\n");
	free(data);
	/* the path form goes through the same code */
	ck_assert_int_eq(fslab_write_file_atomic(path, "again\n", 6, 0600), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	fx_fini(&f);
}
END_TEST

START_TEST(mkdtemp_private_and_remove_tree_keeps_link_targets)
{
	struct fx f;
	struct fslab_file_id id, other;
	struct stat st;
	char name[64];
	int sub;

	fx_init(&f);
	sub = fslab_mkdtemp_at(f.dfd, ".fslab-run.", name, sizeof(name));
	ck_assert_int_ge(sub, 0);
	ck_assert_int_eq(fstat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(fslab_file_id_of_fd(sub, &id), 0);
	/* a symlink to the victim and a nested directory inside the tree */
	ck_assert_int_eq(symlinkat(f.victim, sub, "testfile"), 0);
	ck_assert_int_eq(mkdirat(sub, "nested", 0700), 0);
	close(sub);

	other = id;
	other.ino++;
	ck_assert_int_eq(fslab_remove_tree_at(f.dfd, name, &other), -ESTALE);
	ck_assert_int_eq(fstatat(f.dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_int_eq(fslab_remove_tree_at(f.dfd, name, &id), 0);
	ck_assert_int_eq(fstatat(f.dfd, name, &st, AT_SYMLINK_NOFOLLOW), -1);
	assert_victim_intact(&f);

	/* a symlink in place of the directory: refused, the target stays */
	ck_assert_int_eq(symlinkat(f.dir, f.dfd, "swapped"), 0);
	ck_assert_int_lt(fslab_remove_tree_at(f.dfd, "swapped", NULL), 0);
	assert_victim_intact(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(dir_open_refuses_symlink)
{
	struct fx f;
	char link[4200];

	fx_init(&f);
	snprintf(link, sizeof(link), "%s/dirlink", f.dir);
	ck_assert_int_eq(symlink(f.dir, link), 0);
	ck_assert_int_lt(fslab_dir_open(link), 0);
	fx_fini(&f);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("fileutil");
	TCase *tc = ft_tcase(s, "trust", 0);

	tcase_add_test(tc, create_at_refuses_planted_symlink);
	tcase_add_test(tc, create_at_mode_is_exact_under_any_umask);
	tcase_add_test(tc, open_regular_at_refuses_symlink_and_fifo);
	tcase_add_test(tc, atomic_write_replaces_link_not_target);
	tcase_add_test(tc, mkdtemp_private_and_remove_tree_keeps_link_targets);
	tcase_add_test(tc, dir_open_refuses_symlink);
	return ft_suite_run(s, argc, argv);
}
