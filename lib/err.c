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

int fslab_err_prefix(struct fslab_err *e, const char *fmt, ...)
{
	char head[FSLAB_ERR_MSG_MAX], old[FSLAB_ERR_MSG_MAX];
	va_list ap;

	if (!e)
		return -EIO;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	snprintf(old, sizeof(old), "%s", fslab_err_msg(e));
	size_t n = strlen(head);
	if (n + 2 < sizeof(e->msg)) {
		memcpy(e->msg, head, n);
		memcpy(e->msg + n, ": ", 2);
		snprintf(e->msg + n + 2, sizeof(e->msg) - n - 2, "%s", old);
	} else {
		snprintf(e->msg, sizeof(e->msg), "%s", head);
	}
	return e->code ? e->code : -EIO;
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
