/* fslab spec --print: the built-in lab spec, to edit and pass back with
 * --spec (setup) or --sweep FILE (run).  fslab spec --check FILE validates
 * a spec without doing anything else. */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "spec.h"
#include "termtext.h"

#include <stdbool.h>
#include <stdio.h>

static const struct fslab_cmd_opts fslab_spec_cmd = {
	.name = "spec",
	.synopsis = "Usage: fslab spec --print\n"
		    "       fslab spec --check FILE",
	.opts = FSLAB_OPTS(
		{ "print", 0, 0, NULL,
		  "write the built-in spec (the 2023 layout: ext4, ext2, xfs, fat32, btrfs, 20G each) to "
		  "stdout, ready to edit", 1 },
		{ "check", 0, 0, "FILE", "parse FILE and report the first problem, or print it back", 1 }),
	.required = 1u << 1,
};

int cmd_spec(int argc, char **argv)
{
	const char *check = NULL;
	bool print = false;
	void *const bind[] = { &print, &check };
	struct fslab_spec spec;
	struct fslab_opts it;

	fslab_opts_begin(&it, &fslab_spec_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	if (check) {
		struct fslab_err e;

		if (fslab_spec_load(check, &spec, &e) < 0) {
			char esc[FSLAB_ESCAPE_SIZE(512)];

			/* it quotes the file's own text: names, options, the path */
			fslab_error("%s", fslab_escape_ctrl(e.msg, esc, sizeof(esc)));
			return FSLAB_EXIT_USAGE;
		}
	} else {
		fslab_spec_default(&spec);
	}
	/* a write error on stdout is reported once, by main, for every command */
	(void)fslab_spec_write(stdout, &spec);
	return FSLAB_EXIT_OK;
}
