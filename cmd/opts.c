/* Options as data (opts.h): the getopt_long table, --help and the checks
 * that follow from a command's table of struct fslab_opt. */
#include "opts.h"
#include "log.h"
#include "names.h"
#include "size.h"

#include <errno.h>
#include <string.h>

#define LONG_BASE 0x10000  /* getopt's value for opts[i]: LONG_BASE + i */
#define LIST_OPTIONS 0x20000
#define HELP_WIDTH 79      /* columns of --help */
#define LEFT_MAX 26        /* widest option column before help moves below */

static bool is_option(const struct fslab_opt *o)
{
	return o->name != NULL;
}

static bool at_end(const struct fslab_opt *o)
{
	return !o->name && !o->help;
}

void fslab_opts_begin(struct fslab_opts *it, const struct fslab_cmd_opts *cmd, int argc,
		      char **argv)
{
	size_t nl = 0, ns = 0;

	memset(it, 0, sizeof(*it));
	it->cmd = cmd;
	it->argc = argc;
	it->argv = argv;
	it->shorts[ns++] = ':'; /* a missing value returns ':', not '?' */
	it->shorts[ns++] = 'h';
	/* a longer table is cut here (its test fails: test_opts) */
	for (size_t i = 0; !at_end(&cmd->opts[i]) && nl < FSLAB_OPTS_MAX && i < 64; i++) {
		const struct fslab_opt *o = &cmd->opts[i];

		if (!is_option(o))
			continue;
		it->longs[nl++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						   NULL, LONG_BASE + (int)i };
		if (o->short_name) {
			it->shorts[ns++] = o->short_name;
			if (o->arg)
				it->shorts[ns++] = ':';
		}
	}
	it->longs[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	it->longs[nl++] = (struct option){ "list-options", no_argument, NULL, LIST_OPTIONS };
	it->longs[nl] = (struct option){ 0 };
	it->shorts[ns] = '\0';
	optind = 0; /* glibc: a full restart, also for a second parse in one process */
	opterr = 0; /* the messages are ours: one line each */
}

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

const char *fslab_closest_word(const char *word, const char *const *cands, size_t n)
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

/* The table entry behind a value getopt_long returned, or NULL. */
static const struct fslab_opt *entry_of(const struct fslab_opts *it, int c, size_t *idx)
{
	const struct fslab_opt *opts = it->cmd->opts;

	if (c >= LONG_BASE && c < LONG_BASE + 64) {
		*idx = (size_t)(c - LONG_BASE);
		return &opts[*idx];
	}
	for (size_t i = 0; c > 0 && !at_end(&opts[i]); i++)
		if (is_option(&opts[i]) && opts[i].short_name == c) {
			*idx = i;
			return &opts[i];
		}
	return NULL;
}

/* An unknown (or ambiguous) long option: the closest known one, or the
 * options its prefix could mean. */
static void unknown_long(const struct fslab_opts *it, const char *bad)
{
	const char *cmd = it->cmd->name, *cands[FSLAB_OPTS_MAX + 1], *guess;
	char word[64], which[256] = "";
	size_t n = 0, n_prefixed = 0;

	snprintf(word, sizeof(word), "%s", strncmp(bad, "--", 2) == 0 ? bad + 2 : bad);
	word[strcspn(word, "=")] = '\0';
	for (size_t i = 0; !at_end(&it->cmd->opts[i]); i++)
		if (is_option(&it->cmd->opts[i]))
			cands[n++] = it->cmd->opts[i].name;
	cands[n++] = "help";
	for (size_t i = 0; i < n && *word; i++)
		if (strncmp(cands[i], word, strlen(word)) == 0)
			fslab_catf(which, sizeof(which), "%s--%s", n_prefixed++ ? ", " : "", cands[i]);
	if (n_prefixed > 1) {
		fslab_error("option '%s' is ambiguous (%s); try 'fslab %s --help'", bad, which, cmd);
		return;
	}
	guess = fslab_closest_word(word, cands, n);
	if (guess)
		fslab_error("unknown option '%s'; did you mean '--%s'? Try 'fslab %s --help'", bad,
			    guess, cmd);
	else
		fslab_error("unknown option '%s'; try 'fslab %s --help'", bad, cmd);
}

/* One line for what getopt_long refused (c is '?' or ':'). */
static void bad_option(struct fslab_opts *it, int c)
{
	const char *cmd = it->cmd->name, *bad = optind > 0 ? it->argv[optind - 1] : NULL;
	size_t idx;

	if (c == ':') {
		const struct fslab_opt *o = entry_of(it, optopt, &idx);

		if (o && bad && strncmp(bad, "--", 2) == 0)
			fslab_error("option '--%s' needs a value; try 'fslab %s --help'", o->name, cmd);
		else
			fslab_error("option '-%c' needs a value; try 'fslab %s --help'", optopt, cmd);
		return;
	}
	if (optopt >= LONG_BASE && entry_of(it, optopt, &idx)) {
		fslab_error("option '--%s' takes no value; try 'fslab %s --help'",
			    entry_of(it, optopt, &idx)->name, cmd);
		return;
	}
	if (optopt > 0 && optopt < 128) {
		fslab_error("unknown option '-%c'; try 'fslab %s --help'", optopt, cmd);
		return;
	}
	unknown_long(it, bad ? bad : "");
}

/* "--device DISK or --image FILE": the options of group g. */
static void group_text(const struct fslab_cmd_opts *cmd, unsigned g, char *buf, size_t len)
{
	const struct fslab_opt *opts = cmd->opts;
	size_t total = 0, k = 0;

	for (size_t i = 0; !at_end(&opts[i]); i++)
		total += is_option(&opts[i]) && opts[i].group == g;
	buf[0] = '\0';
	for (size_t i = 0; !at_end(&opts[i]); i++)
		if (is_option(&opts[i]) && opts[i].group == g && ++k)
			fslab_catf(buf, len, "%s--%s%s%s", k == 1 ? "" : k == total ? " or " : ", ", opts[i].name,
				   opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
}

/* Option idx of a group was just given: refuses a second of its group. */
static int check_group(struct fslab_opts *it, size_t idx)
{
	const struct fslab_opt *opts = it->cmd->opts, *o = &opts[idx];
	char list[256];

	for (size_t j = 0; o->group && !at_end(&opts[j]); j++) {
		if (j == idx || !(it->given & (UINT64_C(1) << j)) || opts[j].group != o->group)
			continue;
		if (it->cmd->required & (1u << o->group)) {
			group_text(it->cmd, o->group, list, sizeof(list));
			fslab_error("--%s and --%s cannot be used together; give exactly one of %s",
				    opts[j].name, o->name, list);
		} else {
			fslab_error("--%s and --%s cannot be used together; pick one", opts[j].name,
				    o->name);
		}
		return -EINVAL;
	}
	return 0;
}

/* At the end of the options: every required group has its option. */
static int check_required(const struct fslab_opts *it)
{
	const struct fslab_opt *opts = it->cmd->opts;
	char list[256];

	for (unsigned g = 1; g < 32; g++) {
		bool seen = false;

		if (!(it->cmd->required & (1u << g)))
			continue;
		for (size_t i = 0; !at_end(&opts[i]); i++)
			if (opts[i].group == g && (it->given & (UINT64_C(1) << i)))
				seen = true;
		if (!seen) {
			group_text(it->cmd, g, list, sizeof(list));
			fslab_error("give exactly one of %s", list);
			return -EINVAL;
		}
	}
	return 0;
}

static int stop(struct fslab_opts *it, int status)
{
	it->status = status;
	return -1;
}

int fslab_opts_next(struct fslab_opts *it)
{
	const struct fslab_opt *o;
	size_t idx;
	int c = getopt_long(it->argc, it->argv, it->shorts, it->longs, NULL);

	it->arg = NULL;
	if (c == -1) {
		it->ind = optind;
		if (!it->cmd->operands && it->ind < it->argc) {
			fslab_error("unexpected argument '%s'; try 'fslab %s --help'", it->argv[it->ind], it->cmd->name);
			return stop(it, FSLAB_EXIT_USAGE);
		}
		return check_required(it) < 0 ? stop(it, FSLAB_EXIT_USAGE) : 0;
	}
	if (c == 'h') {
		fslab_opts_help(it->cmd, stdout);
		return stop(it, FSLAB_EXIT_OK);
	}
	if (c == LIST_OPTIONS) { /* the completion scripts' list */
		for (size_t i = 0; !at_end(&it->cmd->opts[i]); i++)
			if (is_option(&it->cmd->opts[i]))
				printf("--%s\n", it->cmd->opts[i].name);
		puts("--help");
		return stop(it, FSLAB_EXIT_OK);
	}
	o = entry_of(it, c, &idx);
	if (!o) {
		bad_option(it, c);
		return stop(it, FSLAB_EXIT_USAGE);
	}
	if (check_group(it, idx) < 0)
		return stop(it, FSLAB_EXIT_USAGE);
	it->given |= UINT64_C(1) << idx;
	it->arg = optarg;
	it->row = idx;
	return o->id ? o->id : FSLAB_OPT_ID + (int)idx;
}

int fslab_opts_bind(struct fslab_opts *it, void *const *bind)
{
	int c;

	while ((c = fslab_opts_next(it)) > 0) {
		if (it->cmd->opts[it->row].arg)
			*(const char **)bind[it->row] = it->arg;
		else
			*(bool *)bind[it->row] = true;
	}
	return c;
}

/* "  -o, --out DIR" (or "      --state FILE" beside short options). */
static int left_column(const struct fslab_opt *o, bool shorts, char *buf, size_t len)
{
	const char *arg = o->arg ? o->arg : "";

	if (o->short_name)
		return snprintf(buf, len, "  -%c, --%s%s%s", o->short_name, o->name, *arg ? " " : "", arg);
	return snprintf(buf, len, "%s--%s%s%s", shorts ? "      " : "  ", o->name, *arg ? " " : "",
			arg);
}

/* Writes text from column col to HELP_WIDTH, wrapping at blanks; '\n'
 * starts a new line, whose leading blanks indent all its wrapped lines.
 * The first line continues the current output line. */
static void wrap(FILE *out, const char *text, int col)
{
	bool first = true;

	for (const char *p = text; *p;) {
		size_t seg = strcspn(p, "\n");
		int indent = (int)strspn(p, " "), width = HELP_WIDTH - col;
		const char *s = p + indent, *end = p + seg;

		while (s < end || first) {
			const char *cut = end;

			if (end - s > width - indent) {
				cut = s + (width - indent);
				while (cut > s && *cut != ' ')
					cut--;
				if (cut == s)
					cut = s + strcspn(s, " \n");
			}
			fprintf(out, "%*s%*s%.*s\n", first ? 0 : col, "", indent, "", (int)(cut - s), s);
			first = false;
			s = cut;
			while (s < end && *s == ' ')
				s++;
		}
		p = *end ? end + 1 : end;
	}
}

static void help_options(const struct fslab_cmd_opts *cmd, FILE *out)
{
	static const struct fslab_opt help_opt = { "help", 'h', 'h', NULL, "this help", 0 };
	const struct fslab_opt *opts = cmd->opts;
	bool shorts = false;
	int col = 0;
	char left[128];

	for (size_t i = 0; !at_end(&opts[i]); i++)
		if (is_option(&opts[i]) && opts[i].short_name)
			shorts = true;
	for (size_t i = 0; !at_end(&opts[i]); i++) {
		int w = is_option(&opts[i]) ? left_column(&opts[i], shorts, left, sizeof(left)) : 0;
		if (w + 2 <= LEFT_MAX && w + 2 > col)
			col = w + 2;
	}
	for (size_t i = 0;; i++) {
		const struct fslab_opt *o = at_end(&opts[i]) ? &help_opt : &opts[i];
		int w;

		if (!is_option(o)) {
			fprintf(out, "%s%s\n", i ? "\n" : "", o->help);
			continue;
		}
		w = left_column(o, shorts, left, sizeof(left));
		if (w + 2 > col)
			fprintf(out, "%s\n%*s", left, col, "");
		else
			fprintf(out, "%-*s", col, left);
		wrap(out, o->help, col);
		if (o == &help_opt)
			break;
	}
}

void fslab_opts_help(const struct fslab_cmd_opts *cmd, FILE *out)
{
	fprintf(out, "%s\n", cmd->synopsis);
	if (cmd->intro)
		fprintf(out, "\n%s", cmd->intro);
	fputc('\n', out);
	help_options(cmd, out);
	if (cmd->outro)
		fprintf(out, "\n%s", cmd->outro);
}

int fslab_opt_size(const char *opt, const char *arg, uint64_t *out)
{
	const char *why = NULL;
	int r = fslab_size_parse(arg, out, &why);

	if (r < 0)
		fslab_error("%s '%s': %s", opt, arg, why ? why : "not a size (e.g. 512M, 20G)");
	return r;
}
