#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int fslab_err_set(struct fslab_err *e, int err, const char *fmt, ...)
{
	int code = err > 0 ? -err : err;
	va_list ap;

	if (code == 0)
		code = -EIO;
	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

void fslab_err_clear(struct fslab_err *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}

const char *fslab_err_msg(const struct fslab_err *e)
{
	if (!e)
		return "";
	if (e->msg[0])
		return e->msg;
	return e->code ? strerror(-e->code) : "";
}
