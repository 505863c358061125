/* Sizes as users type them: a positive integer with an optional K, M, G or T
 * suffix (powers of 1024; "KiB", "MB", "MiB" spellings are accepted too, all
 * binary).  No fractions, no negative numbers, no zero. */
#ifndef FSLAB_SIZE_H
#define FSLAB_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSLAB_KiB (UINT64_C(1) << 10)
#define FSLAB_MiB (UINT64_C(1) << 20)
#define FSLAB_GiB (UINT64_C(1) << 30)
#define FSLAB_TiB (UINT64_C(1) << 40)

/* Largest size fslab accepts anywhere: 1 EiB.  Guards the arithmetic that
 * follows (sectors, alignment) against overflow. */
#define FSLAB_SIZE_MAX (UINT64_C(1) << 60)

/* The one whole-number parser: decimal digits only (no sign, no blank, no
 * "0x"), at least one.  Returns 0 and sets *out, -EINVAL when s is not a
 * whole number ("", "abc", "-1", "1.5", "12abc"), -ERANGE when it is one but
 * below min or above max (overflow included). */
int fslab_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* The one parser of numbers with a fraction: digits, optionally '.' and
 * digits ("5", "2.5"); no sign, blank, exponent, hex, inf or nan (-EINVAL),
 * no overflow or underflow (-ERANGE).  The caller checks the range. */
int fslab_parse_decimal(const char *s, double *out);

/* The one message for what fslab_parse_uint returned (err < 0):
 * "not a whole number; give one from 1 to 1000" or "out of range; give a
 * whole number from 1 to 1000".  Returns buf. */
char *fslab_uint_problem(int err, uint64_t min, uint64_t max, char *buf, size_t len);

/* Returns 0 and sets *bytes, or a negative errno:
 *   -EINVAL  not a size ("20Q", "-5G", "", "1.5G"); why says what is wrong
 *   -ERANGE  zero, or larger than FSLAB_SIZE_MAX
 * why (may be NULL) receives a short reason for the message. */
int fslab_size_parse(const char *s, uint64_t *bytes, const char **why);

/* "MIN-MAX" or a single size (MIN = MAX).  MIN must not exceed MAX. */
int fslab_size_range_parse(const char *s, uint64_t *min, uint64_t *max, const char **why);

/* Shortest exact spelling: "20G", "64K", "1536M", "4097" (bytes).  Returns
 * buf. */
char *fslab_size_format(uint64_t bytes, char *buf, size_t len);

/* The sweep's size rule, said once for the command line, the sweep file,
 * the run's own check and the manifest reader: every file and record size is
 * a multiple of FSLAB_SWEEP_SIZE_MIN (a record is whole pages, aligned for
 * O_DIRECT on any device of 4K sectors or less; a smaller file could hold
 * no record). */
#define FSLAB_SWEEP_SIZE_MIN (4 * FSLAB_KiB)
bool fslab_is_pow2(uint64_t v);
/* NULL when bytes obeys the rule, else why not ("is not a multiple of 4K
 * ...", "is below 4K, the smallest file or record"), to follow the size in
 * a message. */
const char *fslab_sweep_size_problem(uint64_t bytes);

/* Human form for messages: "20.0 GiB", "512 B". */
char *fslab_size_human(uint64_t bytes, char *buf, size_t len);

#endif
