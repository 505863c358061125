/* The bad-input table: every row is a command line a user could type by
 * mistake, the exit status fslab must give (2 bad usage or bad input file,
 * 1 refused), and a phrase its message must hold so the user learns what
 * is wrong.  Rows aimed at a disk (setup/teardown on the loop device the
 * test creates) also check that the disk is byte-identical afterwards
 * (ft_disk_fingerprint), and every row checks that nothing was left
 * behind: no state file, no mount, no directory created for a state file.
 *
 * Placeholders: @DEV@ the test's blank loop disk, @F@ the directory of
 * fixture files (bad specs, bad CSVs, IOzone reports) made below, @DIR@
 * the test's temp dir, @STATE@ a state path that does not exist. */
#include "hard_util.h"
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum prep {
	PREP_NONE,
	PREP_EXT4,   /* the disk carries an ext4 signature (mkfs.ext4 on it) */
	PREP_IMPORT, /* @F@/imported/a.csv exists (one import done) */
};

struct bad_case {
	const char *argv[16];
	int status;
	const char *phrase;
	bool disk;  /* aimed at the disk: fingerprint before and after */
	enum prep prep;
};

#define HDR "filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,cache_mode,status,flag\n"

/* Fixture files: name and content (NULL content: a directory). */
static const struct {
	const char *name;
	const char *text;
} files[] = {
	{ "spec-good.ini", "[fs a]\ntype = ext4\nsize = 16M\n[fs b]\ntype = ext2\nsize = 16M\n" },
	{ "spec-unknown-key.ini", "[fs a]\ntype = ext4\nsize = 16M\ncolour = red\n" },
	{ "spec-unknown-type.ini", "[fs a]\ntype = zfs\nsize = 16M\n" },
	{ "spec-size-zero.ini", "[fs a]\ntype = ext4\nsize = 0\n" },
	{ "spec-size-fraction.ini", "[fs a]\ntype = ext4\nsize = 1.5G\n" },
	{ "spec-no-fs.ini", "[disk]\nalignment = 1M\n" },
	{ "spec-dup-section.ini", "[fs a]\ntype = ext4\nsize = 16M\n[fs a]\ntype = ext2\nsize = 16M\n" },
	{ "spec-misaligned.ini", "[fs a]\ntype = ext4\nsize = 16385K\n" },
	{ "spec-alignment.ini", "[disk]\nalignment = 3K\n[fs a]\ntype = ext4\nsize = 16M\n" },
	{ "spec-label.ini", "[disk]\nlabel = dos\n[fs a]\ntype = ext4\nsize = 16M\n" },
	{ "spec-bad-name.ini", "[fs a.b]\ntype = ext4\nsize = 16M\n" },
	{ "spec-no-name.ini", "[fs]\ntype = ext4\nsize = 16M\n" },
	{ "spec-no-size.ini", "[fs a]\ntype = ext4\n" },
	{ "spec-no-type.ini", "[fs data]\nsize = 16M\n" },
	{ "spec-device.ini", "[fs a]\ntype = ext4\nsize = 16M\nmkfs_options = /dev/vda\n" },
	{ "spec-dup-key.ini", "[fs a]\ntype = ext4\nsize = 16M\nsize = 32M\n" },
	{ "spec-continuation.ini", "[fs a]\ntype = ext4\nsize = 16M\nmkfs_options = -b 4096\n  -O ^has_journal\n" },
	{ "spec-too-big.ini", "[fs a]\ntype = ext4\nsize = 1T\n" },
	{ "spec-unknown-section.ini", "[filesystem a]\ntype = ext4\nsize = 16M\n" },
	{ "spec-not-ini.ini", "this is not an ini file\n" },
	{ "spec-sweep-pow2.ini", "[fs a]\ntype = ext4\nsize = 16M\n[sweep]\nrecord_sizes = 6K-8K\n" },
	{ "spec-sweep-inverted.ini", "[fs a]\ntype = ext4\nsize = 16M\n[sweep]\nfile_sizes = 1M-64K\n" },
	{ "spec-sweep-trials.ini", "[fs a]\ntype = ext4\nsize = 16M\n[sweep]\ntrials = 0\n" },
	{ "spec-sweep-test.ini", "[fs a]\ntype = ext4\nsize = 16M\n[sweep]\ntests = write,sing\n" },
	{ "spec-sweep-cache.ini", "[fs a]\ntype = ext4\nsize = 16M\n[sweep]\ncache = hot\n" },
	{ "state-garbage.json", "this is not json\n" },
	{ "rundir", NULL },
	{ "csv-truncated", NULL },
	{ "csv-truncated/a.csv", HDR "a,write,64,4,1,1000,0.1,warm,ok," },
	{ "csv-header", NULL },
	{ "csv-header/a.csv", "fs,test,file,record,trial,speed\na,write,64,4,1,1000\n" },
	{ "csv-test", NULL },
	{ "csv-test/a.csv", HDR "a,sing,64,4,1,1000,0.1,warm,ok,\n" },
	{ "csv-fields", NULL },
	{ "csv-fields/a.csv", HDR "a,write,64,4,1,1000\n" },
	{ "csv-quote", NULL },
	{ "csv-quote/a.csv", HDR "a,write,64,4,1,1000,0.1,warm,\"failed: x,\n" },
	{ "csv-negative", NULL },
	{ "csv-negative/a.csv", HDR "a,write,64,4,1,-1000,0.1,warm,ok,\n" },
	{ "csv-empty", NULL },
	{ "csv-empty/a.csv", "" },
	{ "csv-status", NULL },
	{ "csv-status/a.csv", HDR "a,write,64,4,1,1000,0.1,warm,great,\n" },
	{ "csv-name", NULL },
	{ "csv-name/a.csv", HDR "../etc,write,64,4,1,1000,0.1,warm,ok,\n" },
	{ "csv-good", NULL },
	{ "csv-good/a.csv", HDR "a,write,64,4,1,1000,0.1,warm,ok,\na,read,64,4,1,2000,0.1,warm,ok,\n" },
	{ "iozone-garbage.txt", "hello\nthis is not an IOzone report\n" },
	{ "iozone-bad-value.txt",
	  "              kB  reclen    write  rewrite     read    reread\n"
	  "              64       4   100000   abc   300000   400000\n" },
	{ "iozone-good.txt",
	  "\tCommand line used: iozone -a\n"
	  "              kB  reclen    write  rewrite     read    reread\n"
	  "              64       4   100000   200000   300000   400000\n" },
};

#define A(...) { __VA_ARGS__, NULL }

static const struct bad_case cases[] = {
	/* setup: usage */
	{ A("setup", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "exactly one of --device", false, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--image", "@DIR@/x.img", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "exactly one of", true, PREP_NONE },
	{ A("setup", "--image", "@DIR@/x.img", "--size", "0", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "greater than zero", false, PREP_NONE },
	{ A("setup", "--image", "@DIR@/x.img", "--size", "1.5G", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "fractions", false, PREP_NONE },
	{ A("setup", "--image", "@DIR@/x.img", "--size", "-5G", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "negative", false, PREP_NONE },
	{ A("setup", "--image", "@DIR@/x.img", "--size", "20Q", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "unit", false, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--size", "1G", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "--size is for --image", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--mount-root", "", "--state", "@STATE@", "--yes"), 2, "empty", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--state", "", "--yes", "--mount-root", "@DIR@/m"), 2, "empty", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--bogus", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "unknown option '--bogus'", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "extra-argument", "--state", "@STATE@", "--mount-root", "@DIR@/m"), 2, "extra-argument", true, PREP_NONE },
	/* setup: the disk */
	{ A("setup", "--device", "/dev/null", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 1, "not a block device", false, PREP_NONE },
	{ A("setup", "--device", "@F@/rundir", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 1, "not a block device", false, PREP_NONE },
	{ A("setup", "--device", "@DIR@/no-such-disk", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 1, "no-such-disk", false, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-good.ini", "--mount-root", "@DIR@/m", "--state", "@STATE@"), 1, "--yes", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-good.ini", "--mount-root", "@DIR@/m", "--state", "@STATE@", "--yes"), 1, "--wipe", true, PREP_EXT4 },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-too-big.ini", "--mount-root", "@DIR@/m", "--state", "@STATE@", "--yes"), 1, "small", true, PREP_NONE },
	/* setup: spec files */
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/no-such.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "no-such.ini", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-unknown-key.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "unknown key 'colour'", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-unknown-type.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "unknown filesystem type", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-size-zero.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "greater than zero", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-size-fraction.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "fractions", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-no-fs.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "no [fs NAME]", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-dup-section.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "appears twice", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-misaligned.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "alignment", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-alignment.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "power of two", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-label.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "GPT only", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-bad-name.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "filesystem name", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-no-name.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "needs a name", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-no-size.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "no size", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-no-type.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "no type", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-device.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "'/dev/vda' is not allowed (it names a path)", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-dup-key.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "set twice", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-continuation.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "set twice", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-unknown-section.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "unknown section", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-not-ini.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "not an INI line", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-sweep-pow2.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "6K is not a multiple of 4K", true, PREP_NONE },
	{ A("setup", "--device", "@DEV@", "--spec", "@F@/spec-long-line.ini", "--state", "@STATE@", "--yes", "--mount-root", "@DIR@/m"), 2, "characters long", true, PREP_NONE },
	{ A("spec", "--check", "@F@/spec-sweep-inverted.ini"), 2, "minimum is larger", false, PREP_NONE },
	{ A("spec", "--check", "@F@/spec-sweep-trials.ini"), 2, "trials", false, PREP_NONE },
	{ A("spec", "--check", "@F@/spec-sweep-test.ini"), 2, "unknown test 'sing'", false, PREP_NONE },
	{ A("spec", "--check", "@F@/spec-sweep-cache.ini"), 2, "use warm, fsync, direct or cold", false, PREP_NONE },
	/* teardown */
	{ A("teardown", "--state", "@STATE@"), 1, "no lab", true, PREP_NONE },
	{ A("teardown", "--state", "@F@/state-garbage.json"), 1, "state file", true, PREP_NONE },
	{ A("teardown", "--state", "@F@/state-other.json"), 1, "nothing was changed", true, PREP_NONE },
	{ A("teardown", "--state", "@F@/state-other.json"), 1, "nothing was changed", true, PREP_EXT4 },
	{ A("teardown", "--bogus", "--state", "@STATE@"), 2, "unknown option '--bogus'", true, PREP_NONE },
	{ A("teardown", "--state", "@STATE@", "extra"), 2, "extra", true, PREP_NONE },
	{ A("status", "--state", "@STATE@"), 1, "no lab", false, PREP_NONE },
	/* run */
	{ A("run", "--state", "@STATE@", "--out", "@DIR@/o"), 1, "no lab", false, PREP_NONE },
	{ A("run", "--dir", "a", "--out", "@DIR@/o"), 2, "NAME=PATH", false, PREP_NONE },
	{ A("run", "--dir", "a=@DIR@/no-such-dir", "--out", "@DIR@/o"), 2, "no-such-dir", false, PREP_NONE },
	{ A("run", "--dir", "../x=@F@/rundir", "--out", "@DIR@/o"), 2, "name", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--tests", "write,sing"), 2, "sing", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--file-sizes", "0"), 2, "greater than zero", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--record-sizes", "6K-8K"), 2, "6K is not a multiple of 4K", false, PREP_NONE },
	/* each bound named as typed (the engine's message printed the wrong sizes) */
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--record-sizes", "4K-3001K"), 2, "3001K is not a multiple of 4K", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--file-sizes", "64K-3001K"), 2, "3001K is not a multiple of 4K", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--record-sizes", "1K-8K"), 2, "1K is below 4K, the smallest file or record", false, PREP_NONE },
	/* the size rule is the sweep file's too: a file below 4K holds no record */
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--file-sizes", "2K-64K"), 2, "2K is below 4K, the smallest file or record", false, PREP_NONE },
	/* -o and -t are --out and --tests, as in fslab report */
	{ A("run", "--dir", "a=@F@/rundir", "-o", "@DIR@/o", "-t", "write,sing"), 2, "unknown test 'sing'", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "-t"), 2, "option '-t' needs a value", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--file-sizes", "1M-64K"), 2, "larger than its maximum", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--cache", "hot"), 2, "hot", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--trials", "0"), 2, "trials", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--trials", "many"), 2, "trials", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--sweep", "@F@/spec-sweep-pow2.ini"), 2, "6K is not a multiple of 4K", false, PREP_NONE },
	{ A("run", "--dir", "a=@F@/rundir", "--out", "@DIR@/o", "--sweep", "hyper"), 2, "hyper", false, PREP_NONE },
	{ A("run", "--resume", "@F@/rundir"), 1, "manifest", false, PREP_NONE },
	{ A("run", "--resume", "@F@/csv-good", "--tests", "write"), 2, "--resume continues", false, PREP_NONE },
	/* report: CSV files */
	{ A("report"), 2, "Usage", false, PREP_NONE },
	{ A("report", "@DIR@/no-such-results"), 2, "no-such-results", false, PREP_NONE },
	{ A("report", "@F@/csv-truncated", "--format", "text"), 2, "cut off", false, PREP_NONE },
	{ A("report", "@F@/csv-header", "--format", "text"), 2, "column 1", false, PREP_NONE },
	{ A("report", "@F@/csv-test", "--format", "text"), 2, "unknown test", false, PREP_NONE },
	{ A("report", "@F@/csv-fields", "--format", "text"), 2, "fields", false, PREP_NONE },
	{ A("report", "@F@/csv-quote", "--format", "text"), 2, "quote", false, PREP_NONE },
	{ A("report", "@F@/csv-negative", "--format", "text"), 2, "non-negative", false, PREP_NONE },
	{ A("report", "@F@/csv-empty", "--format", "text"), 2, "empty", false, PREP_NONE },
	{ A("report", "@F@/csv-status", "--format", "text"), 2, "status", false, PREP_NONE },
	{ A("report", "@F@/csv-name", "--format", "text"), 2, "filesystem", false, PREP_NONE },
	{ A("report", "@F@/csv-good", "--format", "pdf"), 2, "pdf", false, PREP_NONE },
	{ A("report", "@F@/csv-good", "--tests", "sing"), 2, "sing", false, PREP_NONE },
	{ A("export", "iozone", "@F@/csv-truncated/a.csv"), 2, "cut off", false, PREP_NONE },
	/* import */
	{ A("import"), 2, "Usage", false, PREP_NONE },
	{ A("import", "csv", "@F@/iozone-good.txt", "--fs", "a", "--out", "@DIR@/imp"), 2, "csv", false, PREP_NONE },
	{ A("import", "iozone", "@F@/no-such.txt", "--fs", "a", "--out", "@DIR@/imp"), 2, "no-such.txt", false, PREP_NONE },
	{ A("import", "iozone", "@F@/iozone-garbage.txt", "--fs", "a", "--out", "@DIR@/imp"), 2, "no IOzone", false, PREP_NONE },
	{ A("import", "iozone", "@F@/iozone-bad-value.txt", "--fs", "a", "--out", "@DIR@/imp"), 2, "abc", false, PREP_NONE },
	{ A("import", "iozone", "@F@/iozone-good.txt", "--out", "@DIR@/imp"), 2, "--fs", false, PREP_NONE },
	{ A("import", "iozone", "@F@/iozone-good.txt", "--fs", "../a", "--out", "@DIR@/imp"), 2, "name", false, PREP_NONE },
	{ A("import", "iozone", "@F@/iozone-good.txt", "--fs", "a", "--out", "@DIR@/imp", "--cache", "hot"), 2, "hot", false, PREP_NONE },
	{ A("import", "iozone", "@F@/iozone-good.txt", "--fs", "a", "--out", "@F@/imported"), 1, "--force", false, PREP_IMPORT },
};

static struct hu_lab lab;
static char fdir[700];

static void make_state_other(void)
{
	static struct fslab_state st;
	char path[800];

	/* A state file that names this disk with a GPT the disk does not
	 * carry: teardown must refuse it and change nothing. */
	memset(&st, 0, sizeof(st));
	st.version = FSLAB_STATE_VERSION;
	st.phase = FSLAB_PHASE_READY;
	snprintf(st.disk, sizeof(st.disk), "%s", lab.loop.device);
	snprintf(st.disk_guid, sizeof(st.disk_guid), "6F5F3E0C-8D4A-4C7B-9E2F-0A1B2C3D4E5F");
	snprintf(st.mount_root, sizeof(st.mount_root), "%s/m", lab.dir);
	snprintf(st.spec_source, sizeof(st.spec_source), "built-in");
	snprintf(st.created_at, sizeof(st.created_at), "2026-01-01T00:00:00Z");
	st.n_partitions = 1;
	snprintf(st.partitions[0].name, sizeof(st.partitions[0].name), "a");
	st.partitions[0].type = FSLAB_FS_EXT4;
	st.partitions[0].number = 1;
	snprintf(st.partitions[0].device, sizeof(st.partitions[0].device), "%.60sp1", lab.loop.device);
	snprintf(st.partitions[0].mountpoint, sizeof(st.partitions[0].mountpoint), "%s/m/a", lab.dir);
	st.partitions[0].start_sector = 2048;
	st.partitions[0].size_sectors = 32768;
	snprintf(path, sizeof(path), "%s/state-other.json", fdir);
	if (ft_state_save(path, &st) < 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static void lab_up(void)
{
	hu_lab_up(&lab, "fslab-badin", 64u << 20, NULL);
	snprintf(fdir, sizeof(fdir), "%s/f", lab.dir);
	if (mkdir(fdir, 0755) < 0)
		exit(1);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[800];
		snprintf(path, sizeof(path), "%s/%s", fdir, files[i].name);
		if (files[i].text ? ft_write_file(path, files[i].text) < 0 : mkdir(path, 0755) < 0) {
			fprintf(stderr, "cannot create %s\n", path);
			exit(1);
		}
	}
	{
		/* a spec line longer than the reader takes */
		char path[800], text[600];
		memset(text, 0, sizeof(text));
		snprintf(path, sizeof(path), "%s/spec-long-line.ini", fdir);
		snprintf(text, sizeof(text), "[fs a]\ntype = ext4\nsize = 16M\nmount_options = ");
		memset(text + strlen(text), 'o', 300);
		strcat(text, "\n");
		ft_write_file(path, text);
	}
	make_state_other();
}

static void lab_down(void)
{
	hu_lab_destroy(&lab);
}

static void expand(const char *in, char *out, size_t len)
{
	char tmp[1400];

	hu_expand(&lab, in, tmp, sizeof(tmp));
	{
		char *p;
		char rest[1400];
		while ((p = strstr(tmp, "@F@"))) {
			snprintf(rest, sizeof(rest), "%s", p + 3);
			snprintf(p, sizeof(tmp) - (size_t)(p - tmp), "%s%s", fdir, rest);
		}
	}
	snprintf(out, len, "%s", tmp);
}

static void prep(enum prep p)
{
	struct ft_output o;

	if (p == PREP_EXT4) {
		const char *argv[] = { "mkfs.ext4", "-q", "-F", lab.loop.device, NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_msg(o.status == 0, "mkfs.ext4 on the test disk: %s", o.err);
		ft_output_free(&o);
	} else if (p == PREP_IMPORT) {
		char good[800], out[800];
		snprintf(good, sizeof(good), "%s/iozone-good.txt", fdir);
		snprintf(out, sizeof(out), "%s/imported", fdir);
		ck_assert_int_eq(ft_fslab(&o, "import", "iozone", good, "--fs", "a", "--out", out, NULL), 0);
		ck_assert_msg(o.status == 0, "the preparatory import failed: %s", o.err);
		ft_output_free(&o);
	}
}

/* Clears what a prep left on the disk. */
static void unprep(enum prep p)
{
	if (p == PREP_EXT4) {
		const char *argv[] = { "wipefs", "-a", "-q", lab.loop.device, NULL };
		struct ft_output o;
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ft_output_free(&o);
	}
}

START_TEST(bad_input_table)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);
	unsigned char *before = malloc(FT_FINGERPRINT_SIZE), *after = malloc(FT_FINGERPRINT_SIZE);
	unsigned failed = 0, disk_cases = 0;
	char report[16384] = "";

	ck_assert(before && after);
	for (size_t i = 0; i < n; i++) {
		const struct bad_case *c = &cases[i];
		char args[16][1400], cmdline[2048] = "", why[1024] = "";
		const char *argv[18];
		struct ft_output o;
		struct stat st;
		size_t k = 0;

		argv[k++] = ft_fslab_bin();
		for (size_t j = 0; c->argv[j]; j++) {
			expand(c->argv[j], args[j], sizeof(args[j]));
			argv[k++] = args[j];
			if (strlen(cmdline) + strlen(args[j]) + 2 < sizeof(cmdline)) {
				strcat(cmdline, " ");
				strcat(cmdline, args[j]);
			}
		}
		argv[k] = NULL;
		prep(c->prep);
		if (c->disk)
			ck_assert_int_eq(ft_disk_fingerprint(lab.loop.device, before), 0);
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		if (o.status != c->status)
			snprintf(why, sizeof(why), "exit %d, expected %d", o.status, c->status);
		else if (!strstr(o.err, c->phrase) && !strstr(o.out, c->phrase))
			snprintf(why, sizeof(why), "the message does not say '%s'", c->phrase);
		else if (c->disk && (ft_disk_fingerprint(lab.loop.device, after) != 0 ||
				     memcmp(before, after, FT_FINGERPRINT_SIZE) != 0))
			snprintf(why, sizeof(why), "the disk %s changed", lab.loop.device);
		else if (stat(lab.state, &st) == 0)
			snprintf(why, sizeof(why), "a state file %s was written", lab.state);
		disk_cases += c->disk;
		if (why[0]) {
			char line[3000];
			failed++;
			snprintf(line, sizeof(line), "\n  case %zu: fslab%s\n    %s; it said: %.400s%.200s", i,
				 cmdline, why, o.err, o.out);
			if (strlen(report) + strlen(line) < sizeof(report) - 1)
				strcat(report, line);
		}
		ft_output_free(&o);
		unprep(c->prep);
		unlink(lab.state);
		{
			char lock[700];
			snprintf(lock, sizeof(lock), "%s.lock", lab.state);
			unlink(lock);
		}
	}
	printf("BAD INPUT: %zu cases (%u aimed at the disk, fingerprinted), %u failed%s\n", n,
	       disk_cases, failed, report);
	free(before);
	free(after);
	ck_assert_msg(failed == 0, "%u of %zu bad-input cases failed:%s", failed, n, report);
}
END_TEST

/* A mistyped option of run: one line, the closest option and --help as the
 * fix, not the whole usage. */
START_TEST(run_bad_option_one_line)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", "a=/nonexistent", "--outt", "x", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "did you mean '--out'") && strstr(o.err, "fslab run --help"),
		      "fslab run --outt said: %s", o.err);
	ck_assert_msg(strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		      "fslab run --outt printed more than one line: %s", o.err);
	ft_output_free(&o);
}
END_TEST

/* A refused command must not leave anything behind: not even the
 * directory of a state file or its lock file. */
START_TEST(refusals_create_nothing)
{
	const char *cmds[][8] = {
		{ "teardown", "--state", NULL },
		{ "status", "--state", NULL },
		{ "run", "--out", "@DIR@/o2", "--state", NULL },
	};
	unsigned bad = 0;
	char report[4096] = "";

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char dir[800], state[900], out[800];
		const char *argv[10];
		struct ft_output o;
		struct stat st;
		size_t k = 0;

		snprintf(dir, sizeof(dir), "%s/new-dir-%zu", lab.dir, i);
		snprintf(state, sizeof(state), "%s/state.json", dir);
		argv[k++] = ft_fslab_bin();
		for (size_t j = 0; cmds[i][j]; j++) {
			if (strstr(cmds[i][j], "@")) {
				expand(cmds[i][j], out, sizeof(out));
				argv[k++] = out;
			} else {
				argv[k++] = cmds[i][j];
			}
		}
		argv[k++] = state;
		argv[k] = NULL;
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		if (o.status == 0 || stat(dir, &st) == 0) {
			char line[1200];
			bad++;
			snprintf(line, sizeof(line), "\n  fslab %s --state %s: exit %d; %s", cmds[i][0],
				 state, o.status,
				 stat(dir, &st) == 0 ? "created the state file's directory (and lock file)"
						     : "succeeded");
			strcat(report, line);
		}
		ft_output_free(&o);
		ft_rm_rf(dir);
	}
	ck_assert_msg(bad == 0, "refused commands changed something:%s", report);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bad_input");
	TCase *tc = ft_tcase(s, "table", FT_EXT_LAB);

	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, bad_input_table);
	tcase_add_test(tc, refusals_create_nothing);
	tcase_add_test(tc, run_bad_option_one_line);
	return ft_suite_run(s, argc, argv);
}
