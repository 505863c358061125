/* The test hook that lets a test signal setup or teardown at a named step. */
#include "prov_int.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void prov_test_pause(const char *step, volatile sig_atomic_t *stop)
{
	const char *want = getenv("FSLAB_TEST_PAUSE_AT");

	if (!want || strcmp(want, step) != 0)
		return;
	fprintf(stderr, "%s: test hook: paused at %s (pid %d)\n", fslab_log_prefix(), step,
		(int)getpid());
	fflush(stderr);
	/* FSLAB_TEST_CONTINUE_FILE: the pause ends once that file exists (a
	 * test that changes the machine at this step, then lets it go on) */
	const char *cont = getenv("FSLAB_TEST_CONTINUE_FILE");

	for (int i = 0; i < 1200 && !(stop && *stop); i++) {
		if (cont && access(cont, F_OK) == 0)
			break;
		usleep(100000);
	}
}
