#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int suffix_shift(const char *s, unsigned *shift)
{
	static const struct {
		const char *name;
		unsigned shift;
	} units[] = {
		{ "", 0 },     { "B", 0 },    { "K", 10 },   { "KB", 10 },  { "KIB", 10 },
		{ "M", 20 },   { "MB", 20 },  { "MIB", 20 }, { "G", 30 },   { "GB", 30 },
		{ "GIB", 30 }, { "T", 40 },   { "TB", 40 },  { "TIB", 40 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(s, units[i].name) == 0) {
			*shift = units[i].shift;
			return 0;
		}
	}
	return -EINVAL;
}

/* Reads the leading decimal digits of s into *v (at least one; none above
 * max, else -ERANGE) and points *end after them. */
static int scan_digits(const char *s, uint64_t max, uint64_t *v, const char **end)
{
	const char *p = s;

	*v = 0;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (*v > (max - d) / 10) {
			while (isdigit((unsigned char)*p))
				p++;
			*end = p;
			return -ERANGE;
		}
		*v = *v * 10 + d;
	}
	*end = p;
	return 0;
}

/* A refusal of fslab_size_parse or fslab_size_range_parse: the reason in
 * *why, err returned. */
static int size_bad(const char **why, const char *text, int err)
{
	*why = text;
	return err;
}

int fslab_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int r;

	if (!s)
		return -EINVAL;
	r = scan_digits(s, UINT64_MAX, &v, &end);
	if (r == -EINVAL || *end)
		return -EINVAL; /* "", "abc", "-1", "+1", " 1", "1.5", "12abc" */
	if (r < 0 || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int fslab_parse_decimal(const char *s, double *out)
{
	size_t n = s ? strspn(s, "0123456789") : 0;
	size_t f = n && s[n] == '.' ? 1 + strspn(s + n + 1, "0123456789") : 0;

	if (n == 0 || f == 1 || s[n + f])
		return -EINVAL; /* "", " 5", "5 ", "-0", "0x10", "1e3", "inf", "nan", "5." */
	errno = 0;
	*out = strtod(s, NULL);
	return errno ? -ERANGE : 0; /* overflow or underflow */
}

char *fslab_uint_problem(int err, uint64_t min, uint64_t max, char *buf, size_t len)
{
	const char *what = err == -ERANGE ? "out of range; give a whole number" :
					    "not a whole number; give one";

	if (max == UINT64_MAX)
		snprintf(buf, len, "%s of %llu or more", what, (unsigned long long)min);
	else
		snprintf(buf, len, "%s from %llu to %llu", what, (unsigned long long)min,
			 (unsigned long long)max);
	return buf;
}

int fslab_size_parse(const char *s, uint64_t *bytes, const char **why)
{
	const char *dummy;
	uint64_t v = 0;
	unsigned shift;
	const char *p;

	if (!why)
		why = &dummy;
	if (!s || !*s)
		return size_bad(why, "empty size", -EINVAL);
	p = s;
	if (*p == '-')
		return size_bad(why, "sizes cannot be negative", -EINVAL);
	switch (scan_digits(p, FSLAB_SIZE_MAX, &v, &p)) {
	case -EINVAL:
		return size_bad(why, "a size starts with a digit (e.g. 20G)", -EINVAL);
	case -ERANGE:
		return size_bad(why, "too large (the limit is 1 EiB)", -ERANGE);
	}
	if (*p == '.' || *p == ',')
		return size_bad(why, "fractions are not accepted; use a smaller unit (1536M, not 1.5G)", -EINVAL);
	if (suffix_shift(p, &shift) < 0)
		return size_bad(why, "unknown unit; use K, M, G or T (powers of 1024)", -EINVAL);
	if (v == 0)
		return size_bad(why, "a size must be greater than zero", -ERANGE);
	if (v > (FSLAB_SIZE_MAX >> shift))
		return size_bad(why, "too large (the limit is 1 EiB)", -ERANGE);
	*bytes = v << shift;
	return 0;
}

int fslab_size_range_parse(const char *s, uint64_t *min, uint64_t *max, const char **why)
{
	const char *dummy;
	char lo[64];
	const char *dash;
	int r;

	if (!why)
		why = &dummy;
	if (!s || !*s)
		return size_bad(why, "empty range", -EINVAL);
	dash = strchr(s, '-');
	if (!dash) {
		r = fslab_size_parse(s, min, why);
		if (r == 0)
			*max = *min;
		return r;
	}
	if (dash == s)
		return size_bad(why, "a range is MIN-MAX, e.g. 64K-64M (sizes cannot be negative)", -EINVAL);
	if ((size_t)(dash - s) >= sizeof(lo))
		return size_bad(why, "range bound too long", -EINVAL);
	memcpy(lo, s, (size_t)(dash - s));
	lo[dash - s] = '\0';
	r = fslab_size_parse(lo, min, why);
	if (r < 0)
		return r;
	r = fslab_size_parse(dash + 1, max, why);
	if (r < 0)
		return r;
	if (*min > *max)
		return size_bad(why, "the range's minimum is larger than its maximum", -EINVAL);
	return 0;
}

char *fslab_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes && (bytes & 1023) == 0) {
		bytes >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
	return buf;
}

char *fslab_size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

bool fslab_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

const char *fslab_sweep_size_problem(uint64_t bytes)
{
	if (bytes < FSLAB_SWEEP_SIZE_MIN)
		return "is below 4K, the smallest file or record";
	if (bytes % FSLAB_SWEEP_SIZE_MIN)
		return "is not a multiple of 4K (records are whole pages, aligned for --cache direct)";
	return NULL;
}
