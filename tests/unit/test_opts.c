/* Options as data (cmd/opts.h) and the one whole-number parser
 * (lib/size.h): a table becomes the getopt parse, the --help text, the
 * exclusive groups and the one-line message for a mistyped option; and
 * fslab's own tables agree with the bash completion and the man page. */
#include "opts.h"
#include "size.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { T_DEVICE = FSLAB_OPT_ID, T_IMAGE, T_TRIALS, T_SECRET, T_PRINT, T_CHECK };

static const struct fslab_opt topts[] = {
	{ "out", 'o', 'o', "DIR", "results directory", 0 },
	{ "trials", T_TRIALS, 0, "N", "repeat N times", 0 },
	FSLAB_OPT_HEADING("Disk:"),
	{ "device", T_DEVICE, 0, "DISK",
	  "a whole disk; a long help text that has to be wrapped because it does not fit on one "
	  "line of the help at all, not even close", 1 },
	{ "image", T_IMAGE, 0, "FILE", "an image\nsecond line", 1 },
	{ "print", T_PRINT, 0, NULL, "print", 2 },
	{ "check", T_CHECK, 0, "FILE", "check", 2 },
	{ "secret", T_SECRET, 0, NULL, "a flag", 0 },
	{ 0 },
};

static const struct fslab_cmd_opts tcmd = {
	.name = "t",
	.synopsis = "Usage: fslab t (--device DISK | --image FILE) [--out DIR]",
	.intro = "Intro text.\n",
	.opts = topts,
	.outro = "Outro text.\n",
	.required = 1u << 1,
	.operands = true,
};

/* The same options for a command that takes no operands. */
static const struct fslab_cmd_opts tcmd_no_operands = {
	.name = "t",
	.synopsis = "Usage: fslab t (--device DISK | --image FILE)",
	.opts = topts,
	.required = 1u << 1,
};

static const struct fslab_cmd_opts *parse_cmd = &tcmd;

/* Parses argv (NULL-terminated, "t" first) to the end; ids[] receives the
 * ids returned, args[] their values.  The return of the last
 * fslab_opts_next; stderr's text (what the user would see) in err. */
struct parsed {
	int last, status, ind, n;
	const char *operand; /* argv[ind] after the parse (getopt_long permutes) */
	int ids[16];
	const char *args[16];
	char err[1024];
};

static void parse(const char **argv_in, struct parsed *p)
{
	static char *argv[32];
	struct fslab_opts it;
	int argc = 0, saved, fd, c;
	char path[] = "/tmp/test-opts-XXXXXX";
	FILE *f;

	memset(p, 0, sizeof(*p));
	while (argv_in[argc]) {
		argv[argc] = (char *)argv_in[argc];
		argc++;
	}
	argv[argc] = NULL;
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	fslab_opts_begin(&it, parse_cmd, argc, argv);
	while ((c = fslab_opts_next(&it)) > 0 && p->n < 16) {
		p->ids[p->n] = c;
		p->args[p->n++] = it.arg;
	}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	p->last = c;
	p->status = it.status;
	p->ind = it.ind;
	p->operand = argv[it.ind];
	f = fdopen(fd, "r");
	ck_assert_ptr_nonnull(f);
	rewind(f);
	p->err[fread(p->err, 1, sizeof(p->err) - 1, f)] = '\0';
	fclose(f);
	unlink(path);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(table_drives_getopt)
{
	const char *argv[] = { "t", "--image", "x.img", "-o", "out", "--trials=3", "operand",
			       "-odir2", "--secret", NULL };
	struct parsed p;

	parse(argv, &p);
	ck_assert_int_eq(p.last, 0);
	ck_assert_str_eq(p.err, "");
	ck_assert_int_eq(p.n, 5);
	ck_assert_int_eq(p.ids[0], T_IMAGE);
	ck_assert_str_eq(p.args[0], "x.img");
	ck_assert_int_eq(p.ids[1], 'o');
	ck_assert_str_eq(p.args[1], "out");
	ck_assert_int_eq(p.ids[2], T_TRIALS);
	ck_assert_str_eq(p.args[2], "3");
	ck_assert_int_eq(p.ids[3], 'o');
	ck_assert_str_eq(p.args[3], "dir2");
	ck_assert_int_eq(p.ids[4], T_SECRET); /* a flag: no value */
	ck_assert_ptr_null(p.args[4]);
	/* getopt_long moved the operand after the options */
	ck_assert_int_eq(p.ind, 8);
	ck_assert_str_eq(p.operand, "operand");
}
END_TEST

START_TEST(exclusive_groups)
{
	const char *both[] = { "t", "--device", "/dev/x", "--image", "x.img", NULL };
	const char *neither[] = { "t", "-o", "x", NULL };
	const char *two[] = { "t", "--image", "i", "--print", "--check", "f", NULL };
	const char *one_each[] = { "t", "--image", "i", "--check", "f", NULL };
	struct parsed p;

	parse(both, &p);
	ck_assert_int_eq(p.last, -1);
	ck_assert_int_eq(p.status, 2);
	ck_assert_msg(strstr(p.err, "--device and --image cannot be used together") &&
			      strstr(p.err, "exactly one of --device DISK or --image FILE"),
		      "said: %s", p.err);
	ck_assert_int_eq(lines(p.err), 1);

	parse(neither, &p);
	ck_assert_int_eq(p.last, -1);
	ck_assert_int_eq(p.status, 2);
	ck_assert_msg(strstr(p.err, "give exactly one of --device DISK or --image FILE"), "said: %s",
		      p.err);

	/* an operand where the command takes none: named first, before the
	 * missing option (arguments before the machine, and one thing at a time) */
	{
		const char *stray[] = { "t", "stray", NULL };
		parse_cmd = &tcmd_no_operands;
		parse(stray, &p);
		parse_cmd = &tcmd;
		ck_assert_int_eq(p.status, 2);
		ck_assert_msg(strstr(p.err, "unexpected argument 'stray'; try 'fslab t --help'"),
			      "said: %s", p.err);
		ck_assert_int_eq(lines(p.err), 1);
	}

	/* group 2 is not required: one of it is enough, two are refused */
	parse(two, &p);
	ck_assert_int_eq(p.status, 2);
	ck_assert_msg(strstr(p.err, "--print and --check cannot be used together; pick one"),
		      "said: %s", p.err);
	parse(one_each, &p);
	ck_assert_int_eq(p.last, 0);
	ck_assert_str_eq(p.err, "");
}
END_TEST

START_TEST(unknown_option_one_line)
{
	static const struct {
		const char *arg, *said;
	} cases[] = {
		{ "--trails", "unknown option '--trails'; did you mean '--trials'? Try 'fslab t --help'\n" },
		{ "--outt=x", "unknown option '--outt=x'; did you mean '--out'? Try 'fslab t --help'\n" },
		{ "--zebra", "unknown option '--zebra'; try 'fslab t --help'\n" },
		{ "-z", "unknown option '-z'; try 'fslab t --help'\n" },
		{ "--print=yes", "option '--print' takes no value; try 'fslab t --help'\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { "t", "--image", "i", cases[i].arg, NULL };
		struct parsed p;
		const char *colon;

		parse(argv, &p);
		ck_assert_int_eq(p.last, -1);
		ck_assert_int_eq(p.status, 2);
		colon = strstr(p.err, ": "); /* after the log prefix */
		ck_assert_msg(colon && strcmp(colon + 2, cases[i].said) == 0, "%s: said '%s', want '%s'",
			      cases[i].arg, p.err, cases[i].said);
	}
	{
		const char *argv[] = { "t", "--image", "i", "--trials", NULL };
		const char *argv2[] = { "t", "--image", "i", "-o", NULL };
		struct parsed p;

		parse(argv, &p);
		ck_assert_msg(strstr(p.err, "option '--trials' needs a value; try 'fslab t --help'"),
			      "said: %s", p.err);
		parse(argv2, &p);
		ck_assert_msg(strstr(p.err, "option '-o' needs a value"), "said: %s", p.err);
		ck_assert_int_eq(lines(p.err), 1);
	}
}
END_TEST

START_TEST(help_from_the_table)
{
	char *text = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	fslab_opts_help(&tcmd, f);
	fclose(f);
	ck_assert_msg(strncmp(text, "Usage: fslab t (--device", 24) == 0, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\nIntro text.\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n  -o, --out DIR"));
	ck_assert_ptr_nonnull(strstr(text, "\n      --trials N"));
	ck_assert_ptr_nonnull(strstr(text, "\n\nDisk:\n      --device DISK"));
	ck_assert_ptr_nonnull(strstr(text, "\n  -h, --help"));
	ck_assert_ptr_nonnull(strstr(text, "this help\n\nOutro text.\n"));
	/* '\n' in a help starts a line in the help column */
	line = strstr(text, "an image\n");
	ck_assert_ptr_nonnull(line);
	{
		const char *bol = line;
		while (bol > text && bol[-1] != '\n')
			bol--;
		int col = (int)(line - bol);
		ck_assert_int_gt(col, 16);
		ck_assert_msg(strncmp(line + 9, bol + 4, 1) == 0 && /* blank */
				      (int)strspn(line + 9, " ") == col &&
				      strncmp(line + 9 + col, "second line\n", 12) == 0,
			      "the second line is not in the help column: %s", text);
	}
	/* long help wraps at 79 columns, in the help column, losing no word */
	ck_assert_ptr_nonnull(strstr(text, "not even close"));
	for (char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		ck_assert_msg(n <= 79, "a help line is %zu columns: %.*s", n, (int)n, p);
		p += n + (p[n] == '\n');
	}
	free(text);
}
END_TEST

START_TEST(uint_parser)
{
	static const struct {
		const char *in;
		uint64_t min, max;
		int err;
		uint64_t v;
	} cases[] = {
		{ "0", 0, 10, 0, 0 },
		{ "10", 0, 10, 0, 10 },
		{ "1000", 1, 1000, 0, 1000 },
		{ "007", 0, 10, 0, 7 },
		{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
		{ "11", 0, 10, -ERANGE, 0 },          /* above max */
		{ "0", 1, 1000, -ERANGE, 0 },         /* below min */
		{ "18446744073709551616", 0, UINT64_MAX, -ERANGE, 0 }, /* overflow */
		{ "99999999999999999999999", 1, 1000, -ERANGE, 0 },
		{ "", 0, 10, -EINVAL, 0 },
		{ "abc", 0, 10, -EINVAL, 0 },
		{ "-1", 0, 10, -EINVAL, 0 },
		{ "+1", 0, 10, -EINVAL, 0 },
		{ " 1", 0, 10, -EINVAL, 0 },
		{ "1 ", 0, 10, -EINVAL, 0 },
		{ "1.5", 0, 10, -EINVAL, 0 },
		{ "12abc", 0, 100, -EINVAL, 0 },
		{ "0x10", 0, 100, -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int r = fslab_parse_uint(cases[i].in, cases[i].min, cases[i].max, &v);

		ck_assert_msg(r == cases[i].err, "'%s': %d, want %d", cases[i].in, r, cases[i].err);
		ck_assert_msg(r == 0 ? v == cases[i].v : v == 12345, "'%s': wrote %llu", cases[i].in,
			      (unsigned long long)v);
	}
	ck_assert_int_eq(fslab_parse_uint(NULL, 0, 1, &(uint64_t){ 0 }), -EINVAL);
}
END_TEST

START_TEST(uint_one_message)
{
	char buf[128];

	ck_assert_str_eq(fslab_uint_problem(-EINVAL, 1, 1000, buf, sizeof(buf)),
			 "not a whole number; give one from 1 to 1000");
	ck_assert_str_eq(fslab_uint_problem(-ERANGE, 2, 1000, buf, sizeof(buf)),
			 "out of range; give a whole number from 2 to 1000");
	ck_assert_str_eq(fslab_uint_problem(-EINVAL, 0, UINT64_MAX, buf, sizeof(buf)),
			 "not a whole number; give one of 0 or more");
}
END_TEST

/* fslab run --trials abc says one thing (it said "from 0 to 1000" and then
 * "must be at least 1"). */
START_TEST(trials_junk_one_message)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", "a=/nonexistent", "--trials", "abc", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "--trials 'abc': not a whole number; give one from 1 to 1000\n"),
		      "said: %s", o.err);
	ck_assert_int_eq(lines(o.err), 1);
	ft_output_free(&o);
}
END_TEST

/* An abbreviation getopt_long cannot resolve names what it could mean. */
START_TEST(ambiguous_abbreviation)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--s", "x", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "option '--s' is ambiguous (--state, --sweep, --small-records, "
				    "--seed, --stop, --sync, --steady-state, --steady-state-round); try "
				    "'fslab run --help'\n"),
		      "said: %s", o.err);
	ck_assert_int_eq(lines(o.err), 1);
	ft_output_free(&o);
}
END_TEST

/* Every option of every command (fslab CMD --list-options, from the command's
 * table) is offered by the bash completion for that command, documented in
 * the man page's section on it, and shown by its --help; and nothing else is
 * completed. */
START_TEST(completion_and_man_page_match_the_tables)
{
	char *bash = ft_source_file("completion/fslab.bash"), *man = ft_source_file("docs/fslab.1");
	struct ft_output cmds;
	unsigned checked = 0;

	ck_assert_int_eq(ft_fslab(&cmds, "--help", NULL), 0);
	for (char *l = strstr(cmds.out, "Commands:\n"); l && (l = strchr(l, '\n')); l++) {
		char cmd[32], key[64], *comp, *sec, *opt;
		struct ft_output list, help;
		size_t n_listed = 0;

		if (strncmp(l + 1, "  ", 2) != 0 || sscanf(l + 3, "%31[a-z] ", cmd) != 1)
			break;
		ck_assert_int_eq(ft_fslab(&list, cmd, "--list-options", NULL), 0);
		ck_assert_int_eq(list.status, 0);
		ck_assert_int_eq(ft_fslab(&help, cmd, "--help", NULL), 0);
		snprintf(key, sizeof(key), "\n\t%s) echo \"", cmd);
		comp = ft_text_section(bash, key, "\" ;;");
		snprintf(key, sizeof(key), ".SS fslab %s", cmd);
		if (strcmp(cmd, "import") == 0 || strcmp(cmd, "export") == 0)
			snprintf(key, sizeof(key), ".SS fslab import");
		sec = ft_text_section(man, key, "\n.SS ");
		for (opt = strtok(list.out, "\n"); opt; opt = strtok(NULL, "\n")) {
			char word[80], manword[96];
			size_t k = 0;

			n_listed++;
			snprintf(word, sizeof(word), " %s ", opt);
			/* the completion's list is blank-separated over lines */
			char *c2 = malloc(strlen(comp) + 2);
			ck_assert_ptr_nonnull(c2);
			strcpy(c2, comp);
			for (char *p = c2; *p; p++)
				if (*p == '\n' || *p == '\t' || *p == '"')
					*p = ' ';
			strcat(c2, " ");
			ck_assert_msg(strstr(c2, word), "fslab %s %s: not in completion/fslab.bash", cmd,
				      opt);
			free(c2);
			for (const char *p = opt; *p && k + 2 < sizeof(manword); p++) {
				if (*p == '-')
					manword[k++] = '\\';
				manword[k++] = *p;
			}
			manword[k] = '\0';
			ck_assert_msg(strcmp(opt, "--help") == 0 || strstr(sec, manword),
				      "fslab %s %s: not in docs/fslab.1 (section %s)", cmd, opt, key);
			snprintf(word, sizeof(word), "%s", opt);
			ck_assert_msg(strstr(help.out, word), "fslab %s %s: not in its --help", cmd, opt);
			checked++;
		}
		/* nothing completed that the command does not take */
		{
			size_t n_comp = 0;
			for (char *p = comp; (p = strstr(p, "--")); p += 2)
				n_comp++;
			ck_assert_msg(n_comp == n_listed,
				      "fslab %s: the completion offers %zu options, the command has %zu",
				      cmd, n_comp, n_listed);
		}
		free(comp);
		free(sec);
		ft_output_free(&list);
		ft_output_free(&help);
	}
	ck_assert_msg(checked > 50, "only %u options checked: is fslab --help's list read?", checked);
	ft_output_free(&cmds);
	free(bash);
	free(man);
}
END_TEST

/* An answer that never reached its reader is a failure: fslab --help and
 * --version, a command's --help and `fslab spec` to a full disk (/dev/full)
 * exit 1 and say why on stderr; the same output to a pipe exits 0. */
START_TEST(write_error_on_stdout_fails)
{
	static const char *const cmds[][2] = {
		{ "--help", "" }, { "--version", "" }, { "run", "--help" },
		{ "report", "--help" }, { "setup", "--help" }, { "spec", "--print" },
	};
	char err[] = "/tmp/fslab-opts-err.XXXXXX";
	int efd = mkstemp(err);

	ck_assert_int_ge(efd, 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char line[4096], buf[1024] = "";
		int st;

		snprintf(line, sizeof(line), "'%s' %s %s >/dev/full 2>'%s'", ft_fslab_bin(),
			 cmds[i][0], cmds[i][1], err);
		st = system(line);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1,
			      "fslab %s %s >/dev/full: status %d, expected exit 1", cmds[i][0],
			      cmds[i][1], st);
		ck_assert_int_ge(pread(efd, buf, sizeof(buf) - 1, 0), 1);
		ck_assert_msg(strstr(buf, "cannot write to standard output"),
			      "fslab %s: stderr does not name the write error: %s", cmds[i][0], buf);
		snprintf(line, sizeof(line), "'%s' %s %s | cat >/dev/null", ft_fslab_bin(),
			 cmds[i][0], cmds[i][1]);
		st = system(line);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fslab %s | cat: %d",
			      cmds[i][0], st);
	}
	close(efd);
	unlink(err);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("opts");
	TCase *tc = ft_tcase(s, "opts", 0);

	tcase_add_test(tc, table_drives_getopt);
	tcase_add_test(tc, exclusive_groups);
	tcase_add_test(tc, unknown_option_one_line);
	tcase_add_test(tc, help_from_the_table);
	tcase_add_test(tc, uint_parser);
	tcase_add_test(tc, uint_one_message);
	tcase_add_test(tc, trials_junk_one_message);
	tcase_add_test(tc, ambiguous_abbreviation);
	tcase_add_test(tc, completion_and_man_page_match_the_tables);
	tcase_add_test(tc, write_error_on_stdout_fails);
	return ft_suite_run(s, argc, argv);
}
