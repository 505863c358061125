/* The helpers every test's pass uses (the IOzone tests', bench/engine/
 * engine.c, the queued tests', queued.c, the many-files tests', files.c),
 * all outside the timed region: a pass's failure, its open, IOzone's
 * random order. */
#include "engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- access patterns ---- */

/* IOzone's random order.  IOzone 3.489 shuffles the record numbers 0..N-1
 * once per test with a 64-bit Mersenne Twister (MT19937-64) seeded from
 * the fixed key {0x12345, 0x23456, 0x34567, 0x45678}, walking the array
 * from its end (Durstenfeld's Fisher-Yates): slot i swaps with slot
 * draw % (i + 1).  Its random read and random write both visit the
 * result, and so does fslab: the same lseek offsets, one for one (checked
 * against IOzone's own calls in tests/bench/test_bench_engine.c).  A
 * different permutation is not the same work: on ext4 and xfs with large
 * folios one order cost 6% more CPU than another on the same cached file
 * (docs/tests.md, "Side by side with IOzone"). */
enum { MT64_N = 312, MT64_M = 156 };

struct mt64 {
	uint64_t s[MT64_N];
	unsigned next;
};

static void mt64_init(struct mt64 *m, uint64_t seed)
{
	m->s[0] = seed;
	for (unsigned i = 1; i < MT64_N; i++)
		m->s[i] = UINT64_C(6364136223846793005) * (m->s[i - 1] ^ (m->s[i - 1] >> 62)) + i;
	m->next = MT64_N;
}

static void mt64_init_key(struct mt64 *m, const uint64_t *key, unsigned len)
{
	unsigned i = 1, j = 0;

	mt64_init(m, UINT64_C(19650218));
	for (unsigned k = MT64_N > len ? MT64_N : len; k; k--) {
		m->s[i] = (m->s[i] ^ ((m->s[i - 1] ^ (m->s[i - 1] >> 62)) * UINT64_C(3935559000370003845))) +
			  key[j] + j;
		if (++i >= MT64_N) {
			m->s[0] = m->s[MT64_N - 1];
			i = 1;
		}
		if (++j >= len)
			j = 0;
	}
	for (unsigned k = MT64_N - 1; k; k--) {
		m->s[i] = (m->s[i] ^ ((m->s[i - 1] ^ (m->s[i - 1] >> 62)) * UINT64_C(2862933555777941757))) - i;
		if (++i >= MT64_N) {
			m->s[0] = m->s[MT64_N - 1];
			i = 1;
		}
	}
	m->s[0] = UINT64_C(1) << 63;
}

static uint64_t mt64_draw(struct mt64 *m)
{
	const uint64_t upper = UINT64_C(0xFFFFFFFF80000000), lower = UINT64_C(0x7FFFFFFF);
	uint64_t x;

	if (m->next >= MT64_N) {
		for (unsigned i = 0; i < MT64_N; i++) {
			x = (m->s[i] & upper) | (m->s[(i + 1) % MT64_N] & lower);
			m->s[i] = m->s[(i + MT64_M) % MT64_N] ^ (x >> 1) ^
				  ((x & 1) ? UINT64_C(0xB5026F5AA96619E9) : 0);
		}
		m->next = 0;
	}
	x = m->s[m->next++];
	x ^= (x >> 29) & UINT64_C(0x5555555555555555);
	x ^= (x << 17) & UINT64_C(0x71D67FFFEDA60000);
	x ^= (x << 37) & UINT64_C(0xFFF7EEE000000000);
	x ^= x >> 43;
	return x;
}

int fslab_random_order(uint32_t *order, uint64_t n)
{
	static const uint64_t key[] = { 0x12345, 0x23456, 0x34567, 0x45678 };
	struct mt64 m;

	if (n > (uint64_t)UINT32_MAX + 1)
		return -EOVERFLOW;
	for (uint64_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	mt64_init_key(&m, key, sizeof(key) / sizeof(key[0]));
	for (uint64_t i = n; i-- > 1;) {
		uint64_t j = mt64_draw(&m) % (i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	return 0;
}

double fslab_pass_timer_start(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;

	fslab_pass_dev_read(p, 0);
	if (ops->timer)
		ops->timer(ops->ctx, true);
	return fslab_now();
}

double fslab_pass_timer_stop(struct fslab_bench_pass *p)
{
	const struct fslab_io_ops *ops = p->cell->ops;
	double t = fslab_now();

	if (ops->timer)
		ops->timer(ops->ctx, false);
	fslab_pass_dev_read(p, 1);
	return t;
}

int fslab_pass_fail(struct fslab_bench_pass *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, p->whylen, fmt, ap);
	va_end(ap);
	if (err)
		fslab_catf(p->why, p->whylen, ": %s", strerror(err));
	return err ? -err : -EIO;
}

void fslab_cell_warn(const struct fslab_cell *c, int err, const char *fmt, ...)
{
	struct fslab_err e = { .code = err > 0 ? -err : err };
	va_list ap;

	if (!c->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	c->warn(&e);
}

/* Opens the test file in the private directory.  With O_CREAT, the first
 * creation in a cell is O_EXCL; once the cell may have made the file (an
 * earlier pass, or an open that created it and then refused O_DIRECT), it
 * is truncated instead.  O_NOFOLLOW always (the io ops add it). */
int fslab_cell_open(const struct fslab_cell *c, int dfd, bool *exists, int flags)
{
	const struct fslab_io_ops *ops = c->ops;
	int fd;

	if (!(flags & O_CREAT))
		return ops->open(ops->ctx, dfd, c->name, flags, 0600);
	flags &= ~(O_EXCL | O_TRUNC);
	fd = ops->open(ops->ctx, dfd, c->name, flags | (*exists ? O_TRUNC : O_EXCL), 0600);
	if (fd < 0 && errno == EEXIST && !*exists)
		fd = ops->open(ops->ctx, dfd, c->name, (flags & ~O_CREAT) | O_TRUNC, 0600);
	*exists = true;
	return fd;
}

int fslab_pass_open(struct fslab_bench_pass *p, int flags)
{
	double t = fslab_now();
	const bool direct = fslab_pass_direct(p);
	int fd;

	if (direct)
		flags |= O_DIRECT;
	fd = fslab_cell_open(p->cell, p->dfd, p->file_exists, flags);
	if (fd < 0) {
		int e = errno;
		if (direct && e == EINVAL) {
			p->refused_direct = true;
			return fslab_pass_fail(p, 0, "the filesystem refuses O_DIRECT (open: EINVAL)");
		}
		return fslab_pass_fail(p, e, "open %s", p->cell->name);
	}
	p->untimed += fslab_now() - t;
	return fd;
}

/* IOzone's random order for n records (the pass's N, or a queued job's
 * region), made once per n and kept with the buffers (4 bytes a record),
 * before the open.  0 or the pass's failure. */
int fslab_pass_shuffle(struct fslab_bench_pass *p, uint64_t n)
{
	struct fslab_bench_buffers *b = p->buf;
	uint32_t *order;

	if (b->order && b->order_n == n)
		return 0;
	if (n > (uint64_t)UINT32_MAX + 1)
		return fslab_pass_fail(p, 0, "random order: %llu records is more than 2^32 (use a larger record size)",
				       (unsigned long long)n);
	order = realloc(b->order, (size_t)n * sizeof(*order));
	if (!order)
		return fslab_pass_fail(p, ENOMEM, "random order: cannot allocate %llu KiB for %llu records",
				       (unsigned long long)(n * sizeof(*order) / 1024), (unsigned long long)n);
	b->order = order;
	b->order_n = 0;
	if (fslab_random_order(order, n) < 0)
		return fslab_pass_fail(p, EOVERFLOW, "random order for %llu records", (unsigned long long)n);
	b->order_n = n;
	return 0;
}

/* The stat file's third and seventh fields (Documentation/block/stat.rst):
 * sectors read and written, 512 bytes each.  pread at 0 reads it afresh. */
void fslab_pass_dev_read(struct fslab_bench_pass *p, unsigned k)
{
	char buf[256];
	unsigned long long rd, wr;
	ssize_t n;

	if (p->stat_fd < 0)
		return;
	n = pread(p->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%*u %*u %llu %*u %*u %*u %llu", &rd, &wr) != 2)
		return;
	p->dev[k][0] = rd;
	p->dev[k][1] = wr;
	p->dev_ok |= 1u << k;
}
