#include "log.h"
#include "err.h"
#include "termtext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char log_prefix[64] = "fslab";
/* -1: not read from the environment yet.  Atomic because report/plot.c's
 * threads may ask first at the same time (they compute the same value). */
static _Atomic int debug_mask = -1;

void fslab_log_set_prefix(const char *prefix)
{
	snprintf(log_prefix, sizeof(log_prefix), "%s", prefix);
}

const char *fslab_log_prefix(void)
{
	return log_prefix;
}

/* One message on stderr, through the terminal filter (lib/termtext.h):
 * names and strings read from files are in it. */
static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char *text = NULL;

	fflush(stdout);
	fprintf(stderr, "%s: %s", log_prefix, kind);
	fslab_put_text(vasprintf(&text, fmt, ap) < 0 ? fmt : text, stderr);
	fputc('\n', stderr);
	free(text);
}

void fslab_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void fslab_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static int parse_debug_env(void)
{
	static const struct {
		const char *name;
		int bit;
	} cats[] = {
		{ "provision", FSLAB_DBG_PROVISION }, { "bench", FSLAB_DBG_BENCH },
		{ "report", FSLAB_DBG_REPORT },       { "exec", FSLAB_DBG_EXEC },
		{ "spec", FSLAB_DBG_SPEC },
	};
	const char *env = getenv("FSLAB_DEBUG");
	int mask = 0;

	if (!env || !*env)
		return 0;
	if (strcmp(env, "all") == 0)
		return ~0;
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (strstr(env, cats[i].name))
			mask |= cats[i].bit;
	return mask;
}

int fslab_debug_enabled(enum fslab_debug_cat cat)
{
	int mask = debug_mask;

	if (mask == -1) {
		mask = parse_debug_env();
		debug_mask = mask;
	}
	return (mask & (int)cat) != 0;
}

void fslab_debug(enum fslab_debug_cat cat, const char *fmt, ...)
{
	va_list ap;

	if (!fslab_debug_enabled(cat))
		return;
	va_start(ap, fmt);
	vmsg("debug: ", fmt, ap);
	va_end(ap);
}

int fslab_error_said(int ret, const struct fslab_err *e)
{
	if (e && e->code)
		fslab_error("%s", fslab_err_msg(e));
	return ret;
}
