/* fslab import iozone REPORT.txt --fs NAME --out DIR: an IOzone auto-mode
 * report becomes an fslab results directory (report/exchange.c). */
#include "commands.h"
#include "err.h"
#include "fslab/report.h"
#include "log.h"
#include "names.h"
#include "opts.h"
#include "settings.h"

#include <stdio.h>
#include <string.h>

static const struct fslab_cmd_opts fslab_import_cmd = {
	.name = "import",
	.synopsis = "Usage: fslab import iozone REPORT.txt --fs NAME --out DIR [--cache MODE] [--force]",
	.intro = "Turns the output of `iozone -a` (its text report, with or without the -R\n"
		 "\"Excel output\" section) into DIR/NAME.csv plus DIR/manifest.json, so old IOzone\n"
		 "runs can be compared with fslab runs by `fslab report`.  Every cell becomes one\n"
		 "trial; a value IOzone printed as 0 (not measured) becomes a \"skipped\" row; a cell\n"
		 "absent from the report gets no row.  Several imports (with one cache mode) may\n"
		 "share one DIR; a manifest.json that fslab import did not write is refused.\n",
	.opts = FSLAB_OPTS(
		{ "fs", 0, 0, "NAME", "filesystem name (1-31 of A-Z a-z 0-9 _ -), e.g. btrfs", 0 },
		{ "out", 'o', 'o', "DIR", "results directory (created if missing)", 0 },
		{ "cache", 0, 0, "MODE",
		  "cache mode the IOzone run used: warm (default, plain iozone -a), fsync (-e -c), "
		  "direct (-I), cold", 0 },
		{ "force", 0, 0, NULL,
		  "replace an existing DIR/NAME.csv (never REPORT.txt itself, a lab state file, or a lab's "
		  "lock, lease or log)", 0 }),
	.operands = true,
	.outro = "Exit status: 0 done, 1 refused or failed, 2 bad usage or a malformed report.\n",
};

int cmd_import(int argc, char **argv)
{
	struct fslab_import_opts o = { .cache = FSLAB_CACHE_WARM };
	const char *cache_arg = NULL;
	void *const bind[] = { &o.fs, &o.out, &cache_arg, &o.force };
	struct fslab_opts it;
	char *cmdline[66];
	struct fslab_settings cache = { 0 };
	struct fslab_err e = FSLAB_ERR_INIT;
	int c;

	/* getopt_long permutes argv: keep the command as typed for the manifest */
	cmdline[0] = "fslab";
	for (c = 0; c < argc && c < 64; c++)
		cmdline[c + 1] = argv[c];
	cmdline[c + 1] = NULL;
	o.argc = c + 1;
	o.argv = cmdline;

	fslab_opts_begin(&it, &fslab_import_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	/* checked by the run settings' cache row: one message */
	if (cache_arg) {
		if (fslab_setting_parse(&cache, FSLAB_SETTING_CACHE, cache_arg, "--cache", &e) < 0)
			return fslab_fail(FSLAB_EXIT_USAGE, "%s", e.msg);
		o.cache = cache.v.sweep.cache;
	}
	if (it.ind + 2 != argc || strcmp(argv[it.ind], "iozone") != 0) {
		fslab_error("expected: fslab import iozone REPORT.txt --fs NAME --out DIR");
		fslab_opts_help(&fslab_import_cmd, stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (!o.fs || !o.out) {
		fslab_error("--fs NAME and --out DIR are required");
		fslab_opts_help(&fslab_import_cmd, stderr);
		return FSLAB_EXIT_USAGE;
	}
	o.report = argv[it.ind + 1];
	int ret = fslab_import_iozone(&o, &e);
	if (ret != FSLAB_EXIT_OK)
		fslab_error("%s", fslab_err_msg(&e));
	return ret;
}
