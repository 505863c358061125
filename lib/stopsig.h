/* SIGINT and SIGTERM as a request to stop: a long command (setup, run,
 * reproduce) catches them, finishes the step in flight, cleans up and
 * says where it stopped, then gives the old handlers back. */
#ifndef FSLAB_STOPSIG_H
#define FSLAB_STOPSIG_H

#include <signal.h>
#include <stdbool.h>

struct fslab_stopsig {
	struct sigaction old_int, old_term, old_cont;
	bool caught, cont;
};

/* Installs handler (SA_RESTART, nothing blocked) for SIGINT and SIGTERM,
 * and on_cont (NULL: none) for SIGCONT, keeping the old handlers in
 * saved.  The handlers should only set a volatile sig_atomic_t. */
void fslab_stopsig_catch(struct fslab_stopsig *saved, void (*handler)(int), void (*on_cont)(int));

/* Puts back the handlers fslab_stopsig_catch replaced (none when it did
 * not run: saved zeroed). */
void fslab_stopsig_restore(const struct fslab_stopsig *saved);

#endif
