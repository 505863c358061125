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
	char old[FSLAB_ERR_MSG_MAX];
	size_t n;
	va_list ap;

	if (!e)
		return -EIO;
	snprintf(old, sizeof(old), "%s", fslab_err_msg(e));
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	if (n + 2 < sizeof(e->msg)) {
		size_t room = sizeof(e->msg) - n - 2, len = strlen(old);

		memcpy(e->msg + n, ": ", 2);
		if (len >= room)
			len = room - 1;
		memcpy(e->msg + n + 2, old, len);
		e->msg[n + 2 + len] = '\0';
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
