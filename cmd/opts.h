/* Options as data: a command declares each option once, in a table of
 * struct fslab_opt, and everything else comes from that table: the
 * getopt_long table and short-option string, the option part of --help,
 * the check that options of one group exclude each other, the one-line
 * message for a mistyped option ("did you mean") and the hidden
 * `fslab CMD --list-options` that the completion and man page tests read.
 *
 * A command begins with fslab_opts_begin, takes ids from fslab_opts_next
 * while it returns > 0, returns it.status when it returns -1, and finds
 * its operands at argv[it.ind ..] (cmd/spec.c is the shortest example).
 * -h/--help and the hidden --list-options are built in: never list them. */
#ifndef FSLAB_OPTS_H
#define FSLAB_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FSLAB_OPTS_MAX 48 /* options in one table */

/* Option ids above every char: use them for options without a short letter. */
#define FSLAB_OPT_ID 256

struct fslab_opt {
	const char *name;  /* long name without "--"; NULL: a heading (help set) or the end */
	int id;            /* what fslab_opts_next returns; > 0, unique in the table;
			      0 in a table read by fslab_opts_bind: FSLAB_OPT_ID + its row */
	char short_name;   /* the -x form, or 0 */
	const char *arg;   /* the value's name in --help ("DIR"); NULL: takes no value */
	const char *help;  /* the help column; '\n' starts a new line, long lines wrap */
	unsigned group;    /* 0, or 1..31: at most one option of a group may be given */
};

#define FSLAB_OPT_HEADING(text) { .help = (text) }
/* A command's table of options, given row by row; the end row is added. */
#define FSLAB_OPTS(...) ((const struct fslab_opt[]){ __VA_ARGS__, { 0 } })

struct fslab_cmd_opts {
	const char *name;     /* the command: "run" (messages say 'fslab run') */
	const char *synopsis; /* the "Usage: fslab NAME ..." lines, as printed */
	const char *intro;    /* printed as is after the synopsis; may be NULL */
	const struct fslab_opt *opts;
	const char *outro;    /* printed as is after the options; may be NULL */
	unsigned required;    /* bit g: exactly one option of group g must be given */
	bool operands;        /* takes operands; false: one is refused, before the
				 required groups are checked */
};

struct fslab_opts {
	const struct fslab_cmd_opts *cmd;
	int argc;
	char **argv;
	const char *arg;   /* the value of the option fslab_opts_next returned */
	size_t row;        /* and its row in the table */
	int ind;           /* when it returned 0: argv[ind] is the first operand */
	int status;        /* when it returned -1: the exit status (FSLAB_EXIT_*) */
	uint64_t given;    /* bit i: opts[i] was given */
	/* private */
	struct option longs[FSLAB_OPTS_MAX + 3];
	char shorts[2 * FSLAB_OPTS_MAX + 8];
};

void fslab_opts_begin(struct fslab_opts *it, const struct fslab_cmd_opts *cmd, int argc,
		      char **argv);

/* The next option: its id (> 0) with it->arg set; 0 at the end of the
 * options (operands from it->ind on; groups checked); -1 when the command
 * must stop now with it->status: --help printed (0), --list-options printed
 * (0), or one line said what is wrong (2): an unknown option, with the
 * closest known one, a missing value, two options of one group, an operand
 * where the command takes none, no option of a required group. */
int fslab_opts_next(struct fslab_opts *it);

/* All the options of a command whose options are flags and values:
 * bind[i] is where opts[i] goes, a bool * (set true) for an option without
 * a value, a const char ** (its value) for one with.  Returns what
 * fslab_opts_next returned last: 0, or -1 with it->status. */
int fslab_opts_bind(struct fslab_opts *it, void *const *bind);

/* Writes the command's whole --help text. */
void fslab_opts_help(const struct fslab_cmd_opts *cmd, FILE *out);

/* A size (fslab_size_parse), said once on a bad value ("--size '1.5G': fractions
 * are not accepted..."), returning -EINVAL (-ERANGE out of bounds). */
int fslab_opt_size(const char *opt, const char *arg, uint64_t *out);

/* "did you mean": the candidate within a few edits of word (or of which
 * word is a prefix, or the reverse); NULL when none is close. */
const char *fslab_closest_word(const char *word, const char *const *cands, size_t n);

#endif
