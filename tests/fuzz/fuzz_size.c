/* Fuzz target: lib/size.h.  Properties checked on every input:
 *  - fslab_size_parse either fails with -EINVAL/-ERANGE and a reason, or
 *    returns a size in 1..FSLAB_SIZE_MAX whose fslab_size_format spelling
 *    parses back to the same size;
 *  - fslab_size_range_parse either fails with a reason or returns
 *    min <= max, both in range, and the single-size form agrees with
 *    fslab_size_parse;
 *  - fslab_parse_uint accepts exactly the strings of decimal digits, gives
 *    -ERANGE beyond its bounds (overflow included), and an accepted value
 *    printed back is the input without its leading zeros. */
#include "fuzz_check.h"
#include "size.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

static void check_uint(const char *s)
{
	size_t digits = strspn(s, "0123456789");
	bool number = digits > 0 && s[digits] == '\0';
	uint64_t v = 0, w = 0;
	char buf[32];
	int r = fslab_parse_uint(s, 0, UINT64_MAX, &v);

	FUZZ_CHECK(number ? (r == 0 || r == -ERANGE) : r == -EINVAL);
	if (r < 0) {
		FUZZ_CHECK(number ? digits - strspn(s, "0") > 19 : true); /* 2^64 has 20 digits */
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	FUZZ_CHECK(strcmp(buf, s + (strspn(s, "0") == digits ? digits - 1 : strspn(s, "0"))) == 0);
	/* the bounds: v itself is in [v, v], v + 1 is not */
	FUZZ_CHECK(fslab_parse_uint(s, v, v, &w) == 0 && w == v);
	if (v < UINT64_MAX)
		FUZZ_CHECK(fslab_parse_uint(s, v + 1, UINT64_MAX, &w) == -ERANGE);
	if (v > 0)
		FUZZ_CHECK(fslab_parse_uint(s, 0, v - 1, &w) == -ERANGE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);

	check_size(s);
	check_range(s);
	check_uint(s);
	free(s);
	return 0;
}
