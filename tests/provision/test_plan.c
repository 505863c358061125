/* Plan computation, device naming, default image size, mkfs argv: pure
 * functions, no root needed. */
#include "plan.h"
#include "size.h"
#include "spec.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* fslab_plan_compute with its message in a buffer, as the tests read it. */
static int plan_compute(const struct fslab_spec *spec, const char *disk, uint64_t disk_bytes,
			unsigned sector_size, const char *mount_root, struct fslab_lab_plan *plan,
			char *err, size_t errlen)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	int r = fslab_plan_compute(spec, disk, disk_bytes, sector_size, mount_root, plan, &e);

	snprintf(err, errlen, "%s", e.msg);
	return r;
}

static const char small_spec[] = "[disk]\n"
				 "alignment = 1M\n"
				 "[fs ext4]\nsize = 32M\n"
				 "[fs ext2]\nsize = 32M\n"
				 "[fs xfs]\nsize = 300M\n"
				 "[fs fat32]\nsize = 40M\nmkfs_options = -n  LAB\t-S 512\n"
				 "[fs btrfs]\nsize = 120M\n";

START_TEST(default_plan_is_the_2023_layout)
{
	struct fslab_spec spec;
	struct fslab_lab_plan plan;
	char err[256];
	static const char *const names[] = { "ext4", "ext2", "xfs", "fat32", "btrfs" };

	fslab_spec_default(&spec);
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdb", 120 * FSLAB_GiB, 512, "/mnt/fslab",
					    &plan, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(plan.n, 5);
	for (unsigned i = 0; i < 5; i++) {
		const struct fslab_partition_plan *p = &plan.parts[i];
		char dev[32], mp[64];

		ck_assert_uint_eq(p->number, i + 1);
		ck_assert_str_eq(p->fs->name, names[i]);
		/* back to back, 1 MiB aligned, 20 GiB each */
		ck_assert_uint_eq(p->start, FSLAB_MiB + i * 20 * FSLAB_GiB);
		ck_assert_uint_eq(p->start % FSLAB_MiB, 0);
		ck_assert_uint_eq(p->size, 20 * FSLAB_GiB);
		snprintf(dev, sizeof(dev), "/dev/sdb%u", i + 1);
		ck_assert_str_eq(p->device, dev);
		snprintf(mp, sizeof(mp), "/mnt/fslab/%s", names[i]);
		ck_assert_str_eq(p->mountpoint, mp);
		ck_assert_str_eq(p->recipe->gpt_type, i == 3 ? FSLAB_GPT_TYPE_MS_BASIC_DATA
							     : FSLAB_GPT_TYPE_LINUX_FS);
	}
	ck_assert_uint_eq(plan.needed_bytes, 100 * FSLAB_GiB + 2 * FSLAB_MiB);
}
END_TEST

START_TEST(default_image_size_is_100G_plus_2M)
{
	struct fslab_spec spec;

	fslab_spec_default(&spec);
	ck_assert_uint_eq(fslab_plan_image_size(&spec), 100 * FSLAB_GiB + 2 * FSLAB_MiB);
}
END_TEST

START_TEST(small_plan_starts_sizes_types_names)
{
	struct fslab_spec spec;
	struct fslab_lab_plan plan;
	char err[256];
	static const uint64_t starts_mib[] = { 1, 33, 65, 365, 405 };
	static const uint64_t sizes_mib[] = { 32, 32, 300, 40, 120 };

	ck_assert_int_eq(ft_spec_parse(small_spec, "small", &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(plan_compute(&spec, "/dev/loop7", 600 * FSLAB_MiB, 512, "/tmp/m",
					    &plan, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(plan.n, 5);
	for (unsigned i = 0; i < 5; i++) {
		ck_assert_uint_eq(plan.parts[i].start, starts_mib[i] * FSLAB_MiB);
		ck_assert_uint_eq(plan.parts[i].size, sizes_mib[i] * FSLAB_MiB);
	}
	ck_assert_str_eq(plan.parts[3].fs->name, "fat32");
	ck_assert_int_eq(plan.parts[3].fs->type, FSLAB_FS_FAT32);
	ck_assert_str_eq(plan.parts[3].device, "/dev/loop7p4");
	ck_assert_str_eq(plan.parts[3].mountpoint, "/tmp/m/fat32");
	ck_assert_str_eq(plan.parts[3].recipe->blkid_type, "vfat");
	ck_assert_str_eq(plan.parts[3].recipe->blkid_version, "FAT32");
	ck_assert_uint_eq(plan.needed_bytes, 526 * FSLAB_MiB);
	ck_assert_uint_eq(fslab_plan_image_size(&spec), 526 * FSLAB_MiB);
}
END_TEST

START_TEST(alignment_4k_and_4k_sectors)
{
	struct fslab_spec spec;
	struct fslab_lab_plan plan;
	char err[256];

	ck_assert_int_eq(ft_spec_parse("[disk]\nalignment = 4K\n[fs a]\ntype = ext4\n"
						 "size = 16M\n[fs b]\ntype = ext2\nsize = 20K\n"
						 "[fs c]\ntype = xfs\nsize = 300M\n",
						 "a", &spec, err, sizeof(err)),
			 0);
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdc", 0, 512, NULL, &plan, err, sizeof(err)),
			 0);
	/* GPT takes 34 sectors (17408 bytes): first 4K-aligned start is 20K */
	ck_assert_uint_eq(plan.parts[0].start, 20 * FSLAB_KiB);
	ck_assert_uint_eq(plan.parts[1].start, 20 * FSLAB_KiB + 16 * FSLAB_MiB);
	ck_assert_uint_eq(plan.parts[2].start, 40 * FSLAB_KiB + 16 * FSLAB_MiB);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(plan.parts[i].start % (4 * FSLAB_KiB), 0);
	/* 4096-byte sectors: header + entries = 6 sectors = 24K */
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdc", 0, 4096, NULL, &plan, err,
					    sizeof(err)),
			 0);
	ck_assert_uint_eq(plan.parts[0].start, 24 * FSLAB_KiB);
}
END_TEST

START_TEST(too_small_disk_is_enospc_and_named)
{
	struct fslab_spec spec;
	struct fslab_lab_plan plan;
	char err[256];

	fslab_spec_default(&spec);
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdb", 100 * FSLAB_GiB + FSLAB_MiB, 512,
					    "/m", &plan, err, sizeof(err)),
			 -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "/dev/sdb is too small"));
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdb", 100 * FSLAB_GiB + 2 * FSLAB_MiB, 512,
					    "/m", &plan, err, sizeof(err)),
			 0);
	/* a size that is not whole sectors */
	ck_assert_int_eq(ft_spec_parse("[fs a]\ntype = ext4\nsize = 1M\n", "a", &spec,
						 err, sizeof(err)),
			 0);
	spec.fs[0].size = 1000;
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdb", 0, 512, NULL, &plan, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdb", 0, 1000, NULL, &plan, err, sizeof(err)),
			 -EINVAL);
}
END_TEST

/* The refusal's numbers come from the plan: the partitions and what the GPT
 * and alignment add, each in words and the whole in --size's spelling; a
 * disk whose size one decimal rounds away is given exactly. */
START_TEST(too_small_says_what_the_layout_needs_and_why)
{
	struct fslab_spec spec;
	struct fslab_lab_plan plan;
	char err[512], ask[32];

	fslab_spec_default(&spec);
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdb", 100 * FSLAB_GiB + FSLAB_MiB, 512,
					    "/m", &plan, err, sizeof(err)),
			 -ENOSPC);
	ck_assert_str_eq(err, "/dev/sdb is too small: 100.0 GiB (102401M), the layout needs "
			      "100.0 GiB of partitions + 2.0 MiB for the GPT and alignment "
			      "(102402M in all)");
	ck_assert_str_eq(fslab_plan_size_to_ask(plan.needed_bytes, ask, sizeof(ask)), "101G");
	/* no disk named: a new image */
	ck_assert_int_eq(plan_compute(&spec, NULL, 100 * FSLAB_GiB, 512, NULL, &plan, err,
					    sizeof(err)),
			 -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "the image is too small: 100.0 GiB, the layout needs"));
	/* under a GiB the size to ask is whole MiB; a need on a GiB is itself */
	ck_assert_str_eq(fslab_plan_size_to_ask(526 * FSLAB_MiB, ask, sizeof(ask)), "526M");
	ck_assert_str_eq(fslab_plan_size_to_ask(526 * FSLAB_MiB + 1, ask, sizeof(ask)), "527M");
	ck_assert_str_eq(fslab_plan_size_to_ask(2 * FSLAB_GiB, ask, sizeof(ask)), "2G");
	/* 4 MiB alignment: the GPT at each end takes a whole 4 MiB */
	ck_assert_int_eq(ft_spec_parse("[disk]\nalignment = 4M\n"
						 "[fs a]\ntype = ext4\nsize = 32M\n"
						 "[fs b]\ntype = xfs\nsize = 300M\n",
						 "a", &spec, err, sizeof(err)),
			 0);
	ck_assert_int_eq(plan_compute(&spec, "/dev/sdc", 300 * FSLAB_MiB, 512, NULL, &plan,
					    err, sizeof(err)),
			 -ENOSPC);
	ck_assert_uint_eq(plan.needed_bytes, 4 * FSLAB_MiB + 32 * FSLAB_MiB + 300 * FSLAB_MiB +
						     4 * FSLAB_MiB);
	ck_assert_str_eq(err, "/dev/sdc is too small: 300.0 MiB, the layout needs 332.0 MiB of "
			      "partitions + 8.0 MiB for the GPT and alignment (340M in all)");
}
END_TEST

START_TEST(device_naming)
{
	static const struct {
		const char *disk;
		unsigned n;
		const char *want;
	} cases[] = {
		{ "/dev/loop0", 1, "/dev/loop0p1" },   { "/dev/sda", 1, "/dev/sda1" },
		{ "/dev/nvme0n1", 1, "/dev/nvme0n1p1" }, { "/dev/mmcblk0", 1, "/dev/mmcblk0p1" },
		{ "/dev/sdab", 12, "/dev/sdab12" },    { "/dev/vdb", 5, "/dev/vdb5" },
		{ "/dev/loop12", 3, "/dev/loop12p3" },
	};
	char buf[64], tiny[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(fslab_partition_device_name(cases[i].disk, cases[i].n, buf, sizeof(buf)),
				 0);
		ck_assert_str_eq(buf, cases[i].want);
	}
	ck_assert_int_eq(fslab_partition_device_name("/dev/nvme0n1", 1, tiny, sizeof(tiny)),
			 -ENAMETOOLONG);
}
END_TEST

START_TEST(mkfs_argv_splits_options_without_a_shell)
{
	const char *argv[FSLAB_MKFS_ARGV_MAX];
	char words[256];
	const struct fslab_fs_recipe *fat = fslab_fs_recipe(FSLAB_FS_FAT32);
	const struct fslab_fs_recipe *ext4 = fslab_fs_recipe(FSLAB_FS_EXT4);

	ck_assert_int_eq(fslab_mkfs_argv(fat, "  -n  LAB\t-S 512 ", "/dev/loop0p4", words,
					 sizeof(words), argv),
			 0);
	ck_assert_str_eq(argv[0], "mkfs.fat");
	ck_assert_str_eq(argv[1], "-F");
	ck_assert_str_eq(argv[2], "32");
	ck_assert_str_eq(argv[3], "-n");
	ck_assert_str_eq(argv[4], "LAB");
	ck_assert_str_eq(argv[5], "-S");
	ck_assert_str_eq(argv[6], "512");
	ck_assert_str_eq(argv[7], "/dev/loop0p4");
	ck_assert_ptr_null(argv[8]);
	/* shell syntax stays one literal word each */
	ck_assert_int_eq(fslab_mkfs_argv(ext4, "-L $(reboot);x", "/dev/sdb1", words, sizeof(words),
					 argv),
			 0);
	ck_assert_str_eq(argv[0], "mkfs.ext4");
	/* fslab's own words first: no lazy initialisation (the kernel would
	 * zero inode tables and the journal while the benchmark runs) */
	ck_assert_str_eq(argv[1], "-q");
	ck_assert_str_eq(argv[2], "-E");
	ck_assert_str_eq(argv[3], "lazy_itable_init=0,lazy_journal_init=0");
	ck_assert_str_eq(argv[4], "-L");
	ck_assert_str_eq(argv[5], "$(reboot);x");
	ck_assert_str_eq(argv[6], "/dev/sdb1");
	/* no force flags, ever */
	for (int t = 0; t < FSLAB_FS_TYPE_MAX; t++) {
		const struct fslab_fs_recipe *r = fslab_fs_recipe((enum fslab_fs_type)t);
		ck_assert_int_eq(fslab_mkfs_argv(r, "", "/dev/x", words, sizeof(words), argv), 0);
		for (int i = 0; argv[i]; i++)
			ck_assert_msg((strcmp(argv[i], "-f") != 0 && strcmp(argv[i], "-F") != 0) ||
					      t == FSLAB_FS_FAT32,
				      "%s has a force flag", argv[0]);
	}
	{
		char many[600] = "";
		for (int i = 0; i < 60; i++)
			strcat(many, "-x ");
		ck_assert_int_eq(fslab_mkfs_argv(ext4, many, "/dev/x", words, sizeof(words), argv),
				 -E2BIG);
	}
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision plan");
	TCase *tc = ft_tcase(s, "plan", 0);

	tcase_add_test(tc, default_plan_is_the_2023_layout);
	tcase_add_test(tc, default_image_size_is_100G_plus_2M);
	tcase_add_test(tc, small_plan_starts_sizes_types_names);
	tcase_add_test(tc, alignment_4k_and_4k_sectors);
	tcase_add_test(tc, too_small_disk_is_enospc_and_named);
	tcase_add_test(tc, too_small_says_what_the_layout_needs_and_why);
	tcase_add_test(tc, device_naming);
	tcase_add_test(tc, mkfs_argv_splits_options_without_a_shell);
	return ft_suite_run(s, argc, argv);
}
