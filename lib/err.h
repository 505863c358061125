/* The one error type of fslab's library code (lib/, provision/, bench/,
 * report/): a negative errno-style code and the message a user reads, which
 * names the problem and the fix.  Library code fills one in and returns its
 * code; only the command layer (cmd/, reproduce/) prints it.  A NULL
 * struct fslab_err * is allowed everywhere: the code is still returned and
 * the message dropped. */
#ifndef FSLAB_ERR_H
#define FSLAB_ERR_H

#define FSLAB_ERR_MSG_MAX 1024

struct fslab_err {
	int code;                    /* 0, or a negative errno value */
	char msg[FSLAB_ERR_MSG_MAX]; /* "" when no message was set */
};

#define FSLAB_ERR_INIT { 0, "" }

/* Sets e's code (err given positive or negative; 0 becomes -EIO) and
 * message; returns the negative code, so `return fslab_err_set(e, ...)`. */
int fslab_err_set(struct fslab_err *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fslab_err_clear(struct fslab_err *e);
/* The message, or strerror of the code when no message was set. */
const char *fslab_err_msg(const struct fslab_err *e);

#endif
