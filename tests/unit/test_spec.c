#include "spec.h"
#include "size.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(default_is_the_2023_layout)
{
	struct fslab_spec s;
	static const char *const names[] = { "ext4", "ext2", "xfs", "fat32", "btrfs" };

	fslab_spec_default(&s);
	ck_assert_uint_eq(s.n_fs, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_str_eq(s.fs[i].name, names[i]);
		ck_assert_uint_eq(s.fs[i].size, 20 * FSLAB_GiB);
	}
	ck_assert_uint_eq(s.disk.alignment, FSLAB_MiB);
	ck_assert_uint_eq(s.sweep.set, 0);
}
END_TEST

START_TEST(print_then_parse_round_trips)
{
	struct fslab_spec s, back;
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fslab_spec_default(&s);
	ck_assert_int_eq(fslab_spec_write(f, &s), 0);
	fclose(f);
	ck_assert_msg(ft_spec_parse(text, "printed", &back, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(back.n_fs, s.n_fs);
	for (size_t i = 0; i < s.n_fs; i++) {
		ck_assert_str_eq(back.fs[i].name, s.fs[i].name);
		ck_assert_int_eq(back.fs[i].type, s.fs[i].type);
		ck_assert_uint_eq(back.fs[i].size, s.fs[i].size);
	}
	ck_assert_uint_eq(back.sweep.set, 0);
	free(text);
}
END_TEST

START_TEST(parses_a_small_spec_with_sweep)
{
	struct fslab_spec s;
	char err[512];
	const char *text = "[fs a]\ntype = ext4\nsize = 32M\nmount_options = noatime\n"
			   "[fs fat32]\nsize = 40M\n"
			   "[sweep]\nfile_sizes = 64K-4M\ntests = write,read\ntrials = 3\ncache = cold\n";

	ck_assert_msg(ft_spec_parse(text, "t", &s, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(s.n_fs, 2);
	ck_assert_int_eq(s.fs[1].type, FSLAB_FS_FAT32); /* type defaults to the name */
	ck_assert_str_eq(s.fs[0].mount_options, "noatime");
	ck_assert_uint_eq(s.sweep.file_max, 4 * FSLAB_MiB);
	ck_assert_uint_eq(s.sweep.tests, (1u << FSLAB_TEST_WRITE) | (1u << FSLAB_TEST_READ));
	ck_assert_uint_eq(s.sweep.trials, 3);
	ck_assert_int_eq(s.sweep.cache, FSLAB_CACHE_COLD);
	ck_assert(s.sweep.set & FSLAB_SETTING_BIT(FSLAB_SETTING_CACHE));
	ck_assert(!(s.sweep.set & FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES)));
}
END_TEST

START_TEST(bad_specs_name_the_problem)
{
	static const struct {
		const char *text;
		const char *phrase;
	} bad[] = {
		{ "[disk]\nlabel = gpt\n[bogus]\nx = 1\n[fs a]\ntype=ext4\nsize=1G\n", "unknown section [bogus]" },
		{ "[fs a]\ntype = ext4\nsize = 1G\ncolour = red\n", "unknown key 'colour' in [fs a]" },
		{ "[fs a]\ntype = reiserfs\nsize = 1G\n", "unknown filesystem type" },
		{ "[fs a]\ntype = ext4\nsize = 1G\n[fs a]\ntype = xfs\nsize = 1G\n", "appears twice" },
		{ "[fs a]\ntype = ext4\nsize = 20Q\n", "unknown unit" },
		{ "[fs a]\ntype = ext4\n", "has no size" },
		{ "[fs data]\nsize = 1G\n", "has no type" },
		{ "[disk]\nlabel = dos\n[fs a]\ntype=ext4\nsize=1G\n", "GPT only" },
		{ "[sweep]\ntrials = 1\n", "no [fs NAME] section" },
		{ "[fs a/b]\ntype = ext4\nsize = 1G\n", "filesystem name" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ntests = write,nope\n", "unknown test 'nope'" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\nfile_sizes = 64K-3001K\n", "3001K is not a multiple of 4K" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ncache = lukewarm\n", "warm, fsync, direct or cold" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ntrials = 0\n", "from 1 to" },
		{ "[fs a]\ntype=ext4\nsize=1G\n[sweep]\ndevice = /dev/sda\n", "unknown key 'device'" },
		{ "[fs a]\ntype=ext4\nsize=1G\nthis is not ini\n", "t.ini:4:" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fslab_spec s;
		char err[512] = "";
		ck_assert_msg(ft_spec_parse(bad[i].text, "t.ini", &s, err, sizeof(err)) < 0,
			      "case %zu accepted", i);
		ck_assert_msg(strstr(err, bad[i].phrase), "case %zu: '%s' lacks '%s'", i, err,
			      bad[i].phrase);
	}
}
END_TEST

/* ---- mkfs_options and mount_options: the allowlist ---- */

START_TEST(allowed_options_pass)
{
	static const struct {
		enum fslab_fs_type type;
		enum fslab_spec_options_kind kind;
		const char *text;
	} ok[] = {
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-O ^has_journal -b 4096" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-b4k -I 256 -i 16384 -m 0.5 -L data_1 -T largefile" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-E lazy_itable_init=0,lazy_journal_init,stride=16,stripe-width=32" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-j -J size=16 -O metadata_csum,^64bit -e remount-ro" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "\t-N 1000\t-g 8192  -G 4 -q -v " },
		{ FSLAB_FS_EXT2, FSLAB_SPEC_MKFS_OPTIONS, "-b 1024 -O ^resize_inode" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-m reflink=1" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-b size=4k -m crc=1,finobt=1,bigtime=1 -i size=512 -l size=16m,lazy-count=1 -d agcount=4,su=64k,sw=2 -n size=8k -L lab -K" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "-n 16k -s 4096 -m dup -d single -O no-holes,^free-space-tree -R quota -L x -K" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "--nodesize=32k --csum xxhash --checksum=blake2 --label lab --mixed" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MKFS_OPTIONS, "-n LAB\t-S 512 -s 8 -f 2 -R 32 -a --codepage=850" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime,data=writeback,barrier=0,commit=30,nodelalloc,errors=remount-ro" },
		{ FSLAB_FS_EXT2, FSLAB_SPEC_MOUNT_OPTIONS, "relatime,nouser_xattr,resuid=0" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MOUNT_OPTIONS, "allocsize=64k,inode64,logbufs=8,logbsize=256k,largeio" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "compress=zstd:3" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "compress-force=lzo,space_cache=v2,ssd,discard=async,commit=60,nodatacow" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "compress,discard,space_cache" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MOUNT_OPTIONS, "noatime,nodev,nosuid,flush,shortname=mixed" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MOUNT_OPTIONS, "" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char err[512] = "";
		ck_assert_msg(fslab_spec_options_check(ok[i].type, ok[i].kind, ok[i].text, err,
						       sizeof(err)) == 0,
			      "case %zu (%s, '%s') refused: %s", i,
			      fslab_fs_type_to_string(ok[i].type), ok[i].text, err);
	}
}
END_TEST

START_TEST(refused_options_are_named)
{
	static const struct {
		enum fslab_fs_type type;
		enum fslab_spec_options_kind kind;
		const char *text;
		const char *named; /* what the message quotes */
		const char *why;
	} bad[] = {
		/* another device: by path, label, UUID, or as a journal */
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-b 4096 -J device=LABEL=x", "-J device=LABEL=x", "names another device" },
		/* a benchmark must never panic the host (red team) */
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime,errors=panic", "errors=panic", "takes continue or remount-ro" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-e panic", "-e panic", "takes continue or remount-ro" },
		{ FSLAB_FS_EXT2, FSLAB_SPEC_MOUNT_OPTIONS, "errors=panic", "errors=panic", "takes continue or remount-ro" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "fatal_errors=panic", "fatal_errors=panic", "takes bug" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-J size=4,device=/dev/loop9", "-J size=4,device=/dev/loop9", "names another device" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-O journal_dev", "-O journal_dev", "external journal device" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-L UUID=1234", "-L UUID=1234", "label or UUID" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-d /srv", "-d /srv", "names a file" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-E offset=4096", "-E offset=4096", "moves the filesystem" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-F", "-F", "forces mkfs" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-t ext3", "-t ext3", "spec's type" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-U clear", "-U clear", "UUID" },
		{ FSLAB_FS_EXT2, FSLAB_SPEC_MKFS_OPTIONS, "-j", "-j", "makes ext3" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-l logdev=loop9,size=8m", "-l logdev=loop9,size=8m", "names another device" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-r rtdev=loop9", "-r rtdev=loop9", "names another device" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-d name=img", "-d name=img", "names a file" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-p proto.txt", "-p proto.txt", "names a file" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-m uuid=1", "-m uuid=1", "UUID" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MKFS_OPTIONS, "-f", "-f", "forces mkfs" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "-f initrd.img", "-f", "forces mkfs" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "initrd.img", "initrd.img", "bare word" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "-L x loop3", "loop3", "bare word" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "-- -x", "--", "device or file" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "--rootdir=etc", "--rootdir=etc", "names a file" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "-m raid1", "-m raid1", "single or dup" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MKFS_OPTIONS, "--nodes 16k", "--nodes", "not know it to be safe" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MKFS_OPTIONS, "-C", "-C", "creates a file" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MKFS_OPTIONS, "-B boot.bin", "-B boot.bin", "names a file" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MKFS_OPTIONS, "-F 16", "-F 16", "FAT32" },
		/* malformed values and words */
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-b 4q", "-b 4q", "takes a size" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-jq", "-jq", "word of its own" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-I", "-I", "needs a value" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-L $(touch${IFS}x)", "-L $(touch${IFS}x)", "a label here" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-O has_journal=1", "-O has_journal=1", "without '='" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MKFS_OPTIONS, "-L \"a b\"", "\"", "quotes" },
		/* mount options that find the source another way or name a device */
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime,loop", "loop", "how the source device is found" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "offset=1048576", "offset=1048576", "how the source device is found" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "sizelimit=1", "sizelimit=1", "how the source" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "bind", "bind", "how the source" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "journal_path=/dev/loop9", "journal_path=/dev/loop9", "names another device" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "journal_dev=1793", "journal_dev=1793", "names another device" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "usrjquota=aquota.user", "usrjquota=aquota.user", "names a file" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "logdev=loop9", "logdev=loop9", "names another device" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MOUNT_OPTIONS, "noatime,logdev=loop9", "logdev=loop9", "names another device" },
		{ FSLAB_FS_XFS, FSLAB_SPEC_MOUNT_OPTIONS, "rtdev=loop9", "rtdev=loop9", "names another device" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "device=loop9", "device=loop9", "names another device" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "subvol=snap", "subvol=snap", "what is mounted" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "degraded", "degraded", "devices missing" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "compress=gzip", "compress=gzip", "zlib, lzo, zstd or no" },
		{ FSLAB_FS_BTRFS, FSLAB_SPEC_MOUNT_OPTIONS, "compress=lzo:3", "compress=lzo:3", ":LEVEL" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "ro", "ro", "read-only" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "X-mount.mkdir", "X-mount.mkdir", "instructions to mount" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "x-systemd.device=x", "x-systemd.device=x", "instructions to mount" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "LABEL=data", "LABEL=data", "label or UUID" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "remount", "remount", "existing mount" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "helper=udisks2", "helper=udisks2", "helper program" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MOUNT_OPTIONS, "fsname=/dev/loop9", "fsname=/dev/loop9", "FUSE" },
		{ FSLAB_FS_FAT32, FSLAB_SPEC_MOUNT_OPTIONS, "allow_other", "allow_other", "other users" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime,,nodev", "noatime,,nodev", "empty item" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime, nodev", "noatime, nodev", "without blanks" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "noatime=1", "noatime=1", "takes no value" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "data", "data", "needs a value" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "data=unordered", "data=unordered", "ordered, writeback or journal" },
		{ FSLAB_FS_EXT4, FSLAB_SPEC_MOUNT_OPTIONS, "no_such_option_x", "no_such_option_x", "not know it to be safe" },
		{ FSLAB_FS_EXT2, FSLAB_SPEC_MOUNT_OPTIONS, "compress=zstd", "compress=zstd", "not know it to be safe" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512] = "", quoted[128], allowed[64];
		const char *type = fslab_fs_type_to_string(bad[i].type);

		ck_assert_msg(fslab_spec_options_check(bad[i].type, bad[i].kind, bad[i].text, err,
						       sizeof(err)) == -EINVAL,
			      "case %zu (%s, '%s') accepted", i, type, bad[i].text);
		snprintf(quoted, sizeof(quoted), "%s: '%s' is not allowed (",
			 fslab_spec_options_key(bad[i].kind), bad[i].named);
		snprintf(allowed, sizeof(allowed), "; allowed for %s: ", type);
		ck_assert_msg(strncmp(err, quoted, strlen(quoted)) == 0, "case %zu: '%s' does not start with \"%s\"",
			      i, err, quoted);
		ck_assert_msg(strstr(err, bad[i].why), "case %zu: '%s' lacks the reason '%s'", i, err,
			      bad[i].why);
		ck_assert_msg(strstr(err, allowed), "case %zu: '%s' lacks '%s'", i, err, allowed);
		ck_assert_msg(strstr(err, "(see man fslab, SPEC OPTIONS)"), "case %zu: '%s'", i, err);
	}
}
END_TEST

/* In a spec: the type may come after the options, or from the name; the
 * message names the file and the filesystem. */
START_TEST(spec_options_checked_against_the_type)
{
	struct fslab_spec s;
	char err[512] = "";

	ck_assert_int_eq(ft_spec_parse("[fs a]\nmkfs_options = -b 4096 -J device=LABEL=x\ntype = ext4\nsize = 1G\n",
						 "t.ini", &s, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strncmp(err, "t.ini: [fs a] mkfs_options: '-J device=LABEL=x' is not allowed (it names another device); allowed for ext4: -b SIZE",
			      95) == 0, "%s", err);
	/* -j is fine for ext4, not for ext2 (the type from the name) */
	ck_assert_int_eq(ft_spec_parse("[fs ext2]\nsize = 1G\nmkfs_options = -j\n", "t.ini", &s,
						 err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "[fs ext2] mkfs_options: '-j' is not allowed"), "%s", err);
	ck_assert_int_eq(ft_spec_parse("[fs b]\nmount_options = compress=zstd:3\nsize = 1G\ntype = xfs\n",
						 "t.ini", &s, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "[fs b] mount_options: 'compress=zstd:3' is not allowed"), "%s", err);
	ck_assert_msg(ft_spec_parse("[fs b]\nmount_options = compress=zstd:3\nsize = 1G\ntype = btrfs\n"
					      "[fs ext4]\nsize = 1G\nmkfs_options = -j -O ^has_journal -b 4096\n",
					      "t.ini", &s, err, sizeof(err)) == 0,
		      "%s", err);
}
END_TEST

/* What `fslab spec --print` writes passes the same checks, with options
 * set too. */
START_TEST(printed_options_parse_back)
{
	struct fslab_spec s, back;
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f;

	ck_assert_msg(ft_spec_parse("[fs x]\ntype = xfs\nsize = 1G\nmkfs_options = -m reflink=1 -L lab\n"
					      "mount_options = noatime,inode64\n"
					      "[fs b]\ntype = btrfs\nsize = 1G\nmount_options = compress=zstd:3\n",
					      "t.ini", &s, err, sizeof(err)) == 0,
		      "%s", err);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(fslab_spec_write(f, &s), 0);
	fclose(f);
	ck_assert_msg(ft_spec_parse(text, "printed", &back, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(back.fs[0].mkfs_options, "-m reflink=1 -L lab");
	ck_assert_str_eq(back.fs[0].mount_options, "noatime,inode64");
	ck_assert_str_eq(back.fs[1].mount_options, "compress=zstd:3");
	free(text);
	fslab_spec_default(&s);
	for (size_t i = 0; i < s.n_fs; i++) {
		ck_assert_int_eq(fslab_spec_options_check(s.fs[i].type, FSLAB_SPEC_MKFS_OPTIONS,
							  s.fs[i].mkfs_options, err, sizeof(err)), 0);
		ck_assert_int_eq(fslab_spec_options_check(s.fs[i].type, FSLAB_SPEC_MOUNT_OPTIONS,
							  s.fs[i].mount_options, err, sizeof(err)), 0);
	}
}
END_TEST

/* Every allowed option is documented in the man page's SPEC OPTIONS. */
START_TEST(man_page_lists_every_allowed_option)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char path[4096], *man = NULL, *sect, *end;
	size_t len = 0, missing = 0;
	FILE *f;

	ck_assert_msg(src != NULL, "FSLAB_SOURCE_DIR is not set (ctest sets it)");
	snprintf(path, sizeof(path), "%s/docs/fslab.1", src);
	f = fopen(path, "re");
	ck_assert_msg(f != NULL, "%s: cannot read", path);
	man = calloc(1, 1 << 20);
	ck_assert_ptr_nonnull(man);
	len = fread(man, 1, (1 << 20) - 1, f);
	fclose(f);
	man[len] = '\0';
	/* troff escapes '-' as "\-" */
	for (char *r = man, *w = man;; r++) {
		if (r[0] == '\\' && r[1] == '-')
			r++;
		*w++ = *r;
		if (!*r)
			break;
	}
	sect = strstr(man, ".SH SPEC OPTIONS");
	ck_assert_msg(sect != NULL, "%s has no SPEC OPTIONS section", path);
	end = strstr(sect + 4, "\n.SH ");
	if (end)
		*end = '\0';
	for (int t = 0; t < FSLAB_FS_TYPE_MAX; t++) {
		for (int k = 0; k < 2; k++) {
			char list[4096], *save = NULL;
			ck_assert_int_lt(fslab_spec_options_allowed(t, k, list, sizeof(list)), (int)sizeof(list));
			for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
				while (*item == ' ')
					item++;
				item[strcspn(item, " =[")] = '\0';
				if (!strstr(sect, item)) {
					fprintf(stderr, "%s %s: '%s' is not in SPEC OPTIONS\n",
						fslab_fs_type_to_string(t), k ? "mount" : "mkfs", item);
					missing++;
				}
			}
		}
	}
	ck_assert_msg(missing == 0, "%zu allowed options are not documented in docs/fslab.1", missing);
	free(man);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("spec");
	TCase *tc = ft_tcase(s, "spec", 0);

	tcase_add_test(tc, default_is_the_2023_layout);
	tcase_add_test(tc, print_then_parse_round_trips);
	tcase_add_test(tc, parses_a_small_spec_with_sweep);
	tcase_add_test(tc, bad_specs_name_the_problem);
	tcase_add_test(tc, allowed_options_pass);
	tcase_add_test(tc, refused_options_are_named);
	tcase_add_test(tc, spec_options_checked_against_the_type);
	tcase_add_test(tc, printed_options_parse_back);
	tcase_add_test(tc, man_page_lists_every_allowed_option);
	return ft_suite_run(s, argc, argv);
}
