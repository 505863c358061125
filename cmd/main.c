/* fslab: a filesystem benchmark lab.  This file only dispatches; each
 * subcommand lives in cmd/<name>.c. */
#include "commands.h"
#include "log.h"
#include "termtext.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Edit distance (insert, delete, substitute, swap of neighbours), for
 * "did you mean"; words are short. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[32][32];

	if (la > 30 || lb > 30)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The candidate closest to word when it is close enough (a third of its
 * length, at least 1, at most 2 edits, or a prefix); NULL otherwise. */
static const char *closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bd = 99, lw = strlen(word), limit = lw / 3 > 2 ? 2 : (lw / 3 ? lw / 3 : 1);

	for (size_t i = 0; i < n; i++) {
		size_t dist = edit_distance(word, cands[i]);

		size_t lc = strlen(cands[i]);
		if ((lw >= 2 && strncmp(cands[i], word, lw) == 0) ||
		    (lc >= 3 && strncmp(word, cands[i], lc) == 0)) /* --out / --outdir */
			dist = 1;
		if (dist < bd) {
			bd = dist;
			best = cands[i];
		}
	}
	return bd <= limit ? best : NULL;
}

void fslab_cli_bad_option(const char *cmd, const struct option *opts, char **argv)
{
	const char *cands[64];
	char word[64], esc[256];
	size_t n = 0;
	const char *bad = argv[optind - 1];

	for (size_t i = 0; opts[i].name && n < 64; i++)
		cands[n++] = opts[i].name;
	/* a known option without its value, or an unknown short one */
	if (optopt) {
		for (size_t i = 0; opts[i].name; i++)
			if (opts[i].val == optopt && opts[i].has_arg == required_argument) {
				if (bad && strncmp(bad, "--", 2) == 0)
					fslab_error("option '--%s' needs a value; see 'fslab %s --help'",
						    opts[i].name, cmd);
				else
					fslab_error("option '-%c' needs a value; see 'fslab %s --help'",
						    optopt, cmd);
				return;
			}
		fslab_error("unknown option '-%c'; see 'fslab %s --help'", optopt, cmd);
		return;
	}
	snprintf(word, sizeof(word), "%s", bad && strncmp(bad, "--", 2) == 0 ? bad + 2 : bad ? bad : "");
	word[strcspn(word, "=")] = '\0';
	fslab_escape_ctrl(bad ? bad : "", esc, sizeof(esc));
	const char *guess = closest(word, cands, n);
	if (guess)
		fslab_error("unknown option '%s'; did you mean '--%s'? See 'fslab %s --help'", esc, guess,
			    cmd);
	else
		fslab_error("unknown option '%s'; see 'fslab %s --help'", esc, cmd);
}

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

int main(int argc, char **argv)
{
	char prefix[64];

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
		if (strcmp(argv[1], subcommands[i].name) == 0) {
			snprintf(prefix, sizeof(prefix), "fslab %s", subcommands[i].name);
			fslab_log_set_prefix(prefix);
			return subcommands[i].fn(argc - 1, argv + 1);
		}
	}
	const char *names[sizeof(subcommands) / sizeof(subcommands[0])];
	char esc[256];
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		names[i] = subcommands[i].name;
	const char *guess = closest(argv[1], names, sizeof(names) / sizeof(names[0]));
	fslab_escape_ctrl(argv[1], esc, sizeof(esc));
	if (guess)
		fslab_error("unknown command '%s'; did you mean '%s'? See 'fslab --help'", esc, guess);
	else
		fslab_error("unknown command '%s'; see 'fslab --help' for the list", esc);
	return FSLAB_EXIT_USAGE;
}
