#include "stopsig.h"

#include <string.h>

void fslab_stopsig_catch(struct fslab_stopsig *saved, void (*handler)(int), void (*on_cont)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* sigaction fails only for a bad signal number or handler */
	sigaction(SIGINT, &sa, &saved->old_int);
	sigaction(SIGTERM, &sa, &saved->old_term);
	sa.sa_handler = on_cont;
	if (on_cont)
		sigaction(SIGCONT, &sa, &saved->old_cont);
	saved->cont = on_cont != NULL;
	saved->caught = true;
}

void fslab_stopsig_restore(const struct fslab_stopsig *saved)
{
	if (!saved->caught)
		return;
	sigaction(SIGINT, &saved->old_int, NULL);
	sigaction(SIGTERM, &saved->old_term, NULL);
	if (saved->cont)
		sigaction(SIGCONT, &saved->old_cont, NULL);
}
