/* Shared by the fuzz targets: an oracle failure is a crash, so libFuzzer
 * keeps the input and the replay test (fuzz_replay_*) fails on it. */
#ifndef FSLAB_FUZZ_CHECK_H
#define FSLAB_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: fuzz oracle failed: %s\n", __FILE__, \
				__LINE__, #cond);                                     \
			abort();                                                      \
		}                                                                     \
	} while (0)

/* The input as a NUL-terminated string (cut at the first NUL byte, as a C
 * caller would see it).  Caller frees. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
