#include "clock.h"

double fslab_now(void)
{
	return (double)fslab_now_ns() / 1e9;
}

char *fslab_utc_now(const char *fmt, char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	strftime(buf, len, fmt, gmtime_r(&now, &tm));
	return buf;
}
