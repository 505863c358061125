#include "fileutil.h"
#include "state.h"
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

START_TEST(save_load_round_trip_mode_0600)
{
	char *dir = ft_mkdtemp("fslab-state"), *path;
	struct fslab_err err = FSLAB_ERR_INIT;
	struct fslab_state st = { 0 }, back;
	struct stat sb;

	ck_assert_int_ge(asprintf(&path, "%s/sub/state.json", dir), 0);
	snprintf(st.disk, sizeof(st.disk), "/dev/loop7");
	snprintf(st.disk_guid, sizeof(st.disk_guid), "0E1F0AE6-5C7B-4E5A-9C5B-1A2B3C4D5E6F");
	st.phase = FSLAB_PHASE_READY;
	st.image_created = true;
	st.n_partitions = 1;
	snprintf(st.partitions[0].name, sizeof(st.partitions[0].name), "fat32");
	st.partitions[0].type = FSLAB_FS_FAT32;
	st.partitions[0].mount_method = FSLAB_MOUNT_FUSE;
	st.partitions[0].start_sector = 2048;
	snprintf(st.partitions[0].mountpoint, sizeof(st.partitions[0].mountpoint), "/tmp/x/fat32");

	ck_assert_int_eq(ft_state_save(path, &st), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	ck_assert_msg(fslab_state_load(path, &back, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(back.disk, st.disk);
	ck_assert_str_eq(back.disk_guid, st.disk_guid);
	ck_assert_int_eq(back.phase, FSLAB_PHASE_READY);
	ck_assert(back.image_created);
	ck_assert_uint_eq(back.n_partitions, 1);
	ck_assert_int_eq(back.partitions[0].type, FSLAB_FS_FAT32);
	ck_assert_int_eq(back.partitions[0].mount_method, FSLAB_MOUNT_FUSE);
	ck_assert_uint_eq(back.partitions[0].start_sector, 2048);
	ck_assert_ptr_nonnull(fslab_state_find(&back, "fat32"));
	ck_assert_ptr_null(fslab_state_find(&back, "ext4"));

	/* The file keeps the phase's name; a name fslab never writes is a
	 * damaged state, refused at load with the names it does write. */
	{
		char *text = NULL;

		ck_assert_int_eq(fslab_read_file(path, &text, NULL, 1 << 20), 0);
		ck_assert_msg(strstr(text, "\"phase\":\"ready\"") || strstr(text, "\"phase\": \"ready\""),
			      "%s", text);
		free(text);
	}
	ck_assert_int_eq(ft_write_file(path, "{\"version\": 2, \"phase\": \"mounted\", \"disk\": \"/dev/loop7\"}"), 0);
	ck_assert_int_eq(fslab_state_load(path, &back, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, "unknown phase 'mounted'") && strstr(err.msg, "ready"), "%s", err.msg);

	/* A fast (not fsync'd) save is the same file, atomically replaced. */
	st.phase = FSLAB_PHASE_WIPING;
	{
		char *sub;
		int dfd;

		ck_assert_int_ge(asprintf(&sub, "%s/sub", dir), 0);
		dfd = fslab_dir_open(sub);
		ck_assert_int_ge(dfd, 0);
		ck_assert_int_eq(fslab_state_save_at(dfd, "state.json", &st, FSLAB_STATE_SAVE_NOSYNC), 0);
		close(dfd);
		free(sub);
	}
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	ck_assert_msg(fslab_state_load(path, &back, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(back.phase, FSLAB_PHASE_WIPING);

	ck_assert_int_eq(ft_write_file(path, "{\"version\": 99}"), 0);
	ck_assert_int_lt(fslab_state_load(path, &back, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "version"));
	ft_rm_rf(dir);
	free(path);
	free(dir);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("state");
	TCase *tc = ft_tcase(s, "state", 0);

	tcase_add_test(tc, save_load_round_trip_mode_0600);
	return ft_suite_run(s, argc, argv);
}
