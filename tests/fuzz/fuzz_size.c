/* Fuzz target: lib/size.h.  Properties checked on every input:
 *  - fslab_size_parse either fails with -EINVAL/-ERANGE and a reason, or
 *    returns a size in 1..FSLAB_SIZE_MAX whose fslab_size_format spelling
 *    parses back to the same size;
 *  - fslab_size_range_parse either fails with a reason or returns
 *    min <= max, both in range, and the single-size form agrees with
 *    fslab_size_parse. */
#include "fuzz_check.h"
#include "size.h"

#include <errno.h>

static void check_size(const char *s)
{
	const char *why = NULL;
	uint64_t b = 0, back = 0;
	char buf[64], human[64];
	int r = fslab_size_parse(s, &b, &why);

	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
		FUZZ_CHECK(why && *why);
		return;
	}
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(b > 0 && b <= FSLAB_SIZE_MAX);
	fslab_size_format(b, buf, sizeof(buf));
	FUZZ_CHECK(fslab_size_parse(buf, &back, NULL) == 0);
	FUZZ_CHECK(back == b);
	fslab_size_human(b, human, sizeof(human));
	FUZZ_CHECK(human[0] != '\0');
}

static void check_range(const char *s)
{
	const char *why = NULL;
	uint64_t lo = 0, hi = 0, one = 0;
	int r = fslab_size_range_parse(s, &lo, &hi, &why);

	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
		FUZZ_CHECK(why && *why);
		return;
	}
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(lo > 0 && lo <= hi && hi <= FSLAB_SIZE_MAX);
	if (!strchr(s, '-')) {
		FUZZ_CHECK(fslab_size_parse(s, &one, NULL) == 0);
		FUZZ_CHECK(one == lo && one == hi);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);

	check_size(s);
	check_range(s);
	free(s);
	return 0;
}
