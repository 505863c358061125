#include "stopsig.h"

#include <string.h>

void fslab_stopsig_catch(struct fslab_stopsig *saved, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* sigaction fails only for a bad signal number or handler */
	sigaction(SIGINT, &sa, &saved->old_int);
	sigaction(SIGTERM, &sa, &saved->old_term);
}

void fslab_stopsig_restore(const struct fslab_stopsig *saved)
{
	sigaction(SIGINT, &saved->old_int, NULL);
	sigaction(SIGTERM, &saved->old_term, NULL);
}
