/* SIGINT and SIGTERM as a request to stop: a long command (setup, run,
 * reproduce) catches them, finishes the step in flight, cleans up and
 * says where it stopped, then gives the old handlers back. */
#ifndef FSLAB_STOPSIG_H
#define FSLAB_STOPSIG_H

#include <signal.h>

struct fslab_stopsig {
	struct sigaction old_int, old_term;
};

/* Installs handler (SA_RESTART, nothing blocked) for SIGINT and SIGTERM,
 * keeping the old handlers in saved.  handler should only set a
 * volatile sig_atomic_t. */
void fslab_stopsig_catch(struct fslab_stopsig *saved, void (*handler)(int));

/* Puts back the handlers fslab_stopsig_catch replaced. */
void fslab_stopsig_restore(const struct fslab_stopsig *saved);

#endif
