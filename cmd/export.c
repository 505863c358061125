/* fslab export iozone RESULTS_DIR/FS.csv [--out FILE]: IOzone's text report
 * layout, so existing IOzone graph scripts keep working
 * (report/exchange.c). */
#include "commands.h"
#include "err.h"
#include "fslab/report.h"
#include "log.h"
#include "opts.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct fslab_cmd_opts fslab_export_cmd = {
	.name = "export",
	.synopsis = "Usage: fslab export iozone RESULTS_DIR/FS.csv [--out FILE [--force]] [--no-excel]",
	.intro = "Writes one filesystem's results in the layout of `iozone -a -R` output: the text\n"
		 "table (file KiB, record KiB, 13 tests in IOzone's order) and the \"Excel output\"\n"
		 "section.  Each cell is the median of its ok trials; a cell with no ok trial is\n"
		 "written as 0, as IOzone writes cells it did not measure.  Values are KiB/s.\n",
	.opts = FSLAB_OPTS(
		{ "out", 'o', 'o', "FILE",
		  "write FILE (atomically) instead of stdout; an existing FILE is refused without --force", 0 },
		{ "force", 0, 0, NULL,
		  "replace an existing FILE (never the CSV read, a lab state file or a lab's lock, lease or "
		  "log: those are refused even with --force)", 0 },
		{ "no-excel", 0, 0, NULL, "omit the -R section", 0 }),
	.operands = true,
	.outro = "Exit status: 0 done, 1 failure, 2 bad usage or a malformed CSV.\n",
};

int cmd_export(int argc, char **argv)
{
	const char *out = NULL;
	bool no_excel = false, force = false;
	void *const bind[] = { &out, &force, &no_excel };
	struct fslab_opts it;
	struct fslab_err e = FSLAB_ERR_INIT;

	fslab_opts_begin(&it, &fslab_export_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	if (it.ind + 2 != argc || strcmp(argv[it.ind], "iozone") != 0) {
		fslab_error("expected: fslab export iozone RESULTS_DIR/FS.csv [--out FILE]");
		fslab_opts_help(&fslab_export_cmd, stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (force && !out)
		return fslab_fail(FSLAB_EXIT_USAGE, "--force needs --out FILE (stdout is never replaced)");
	int ret = fslab_export_iozone(argv[it.ind + 1], out, !no_excel, force, &e);
	if (ret != FSLAB_EXIT_OK)
		fslab_error("%s", fslab_err_msg(&e));
	return ret;
}
