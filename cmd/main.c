/* fslab: a filesystem benchmark lab.  This file only dispatches; each
 * subcommand lives in cmd/<name>.c. */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "termtext.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FSLAB_VERSION
#define FSLAB_VERSION "0.0.0"
#endif

static const struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{ "setup", cmd_setup, "partition, format and mount a dedicated disk or image" },
	{ "status", cmd_status, "show the lab and check that it is intact" },
	{ "run", cmd_run, "benchmark every filesystem of the lab (or given directories)" },
	{ "report", cmd_report, "rank, compare and plot results" },
	{ "teardown", cmd_teardown, "unmount, wipe and reset the lab's disk" },
	{ "reproduce", cmd_reproduce, "the 2023 experiment end to end: setup, run, report, teardown" },
	{ "spec", cmd_spec, "print the built-in lab spec for editing" },
	{ "import", cmd_import, "turn an IOzone report into an fslab results directory" },
	{ "export", cmd_export, "write an fslab results CSV in IOzone's report layout" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: fslab COMMAND [OPTIONS]\n\n"
		     "A filesystem benchmark lab: setup && run && report && teardown.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n"
		     "fslab COMMAND --help shows a command's options; man fslab (docs/fslab.1) has more.\n"
		     "Options for all commands: --help; fslab -V (--version) prints the version;\n"
		     "FSLAB_DEBUG=all in the environment logs more.\n"
		     "Exit status: 0 success, 1 failure or refusal, 2 bad usage or bad input.\n");
}

/* A command's answer that never reached its reader is a failure, whatever
 * the command returned: `fslab --help >/dev/full` or a report to a full disk
 * must not exit 0.  Output is buffered, so the error shows only when the
 * buffer is flushed; stdout is closed here, once, for every command.  A
 * closed pipe (EPIPE) is the reader's choice, as with `| head`, and is not
 * reported; nor is a write error of a command that failed and said so. */
static int finish_stdout(int rc)
{
	int failed = ferror(stdout);

	errno = 0;
	if (fclose(stdout) != 0)
		failed = 1;
	if (!failed || errno == EPIPE || rc != FSLAB_EXIT_OK)
		return rc; /* a command that failed has said why */
	fslab_error("cannot write to standard output%s%s; check the disk or pipe it is redirected to",
		    errno ? ": " : "", errno ? strerror(errno) : "");
	return FSLAB_EXIT_FAILURE;
}

static int dispatch(int argc, char **argv)
{
	const char *names[sizeof(subcommands) / sizeof(subcommands[0])], *guess;
	char prefix[64], esc[256];

	/* Whatever the caller's umask, results and reports are world-readable
	 * and never world-writable; private files (state) set 0600 themselves. */
	umask(022);
	if (argc < 2) {
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return FSLAB_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("fslab %s\n", FSLAB_VERSION);
		return FSLAB_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		names[i] = subcommands[i].name;
		if (strcmp(argv[1], subcommands[i].name) == 0) {
			snprintf(prefix, sizeof(prefix), "fslab %s", subcommands[i].name);
			fslab_log_set_prefix(prefix);
			return subcommands[i].fn(argc - 1, argv + 1);
		}
	}
	guess = fslab_closest_word(argv[1], names, sizeof(names) / sizeof(names[0]));
	fslab_escape_ctrl(argv[1], esc, sizeof(esc));
	if (guess)
		fslab_error("unknown command '%s'; did you mean '%s'? See 'fslab --help'", esc, guess);
	else
		fslab_error("unknown command '%s'; see 'fslab --help' for the list", esc);
	return FSLAB_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return finish_stdout(dispatch(argc, argv));
}
