/* The device probe (bench/probe.c) through the engine's I/O layer: every
 * call on the probe file goes through the ops struct it is given (so a
 * recorder sees all of them and a fault injected there fails the probe,
 * said), its cache drop is the filesystem's cold-mode policy, and it
 * leaves nothing behind. */
#include "testutil.h"

#include "run_int.h"
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rec {
	unsigned opens, closes, reads, writes, fsyncs, unlinks, timer_starts, timer_stops;
	int open_fds;           /* opened and not closed */
	unsigned fail_write_at; /* 0: never; else the write that fails with EIO */
};

#define R(ctx) ((struct rec *)(ctx))

static int rec_open(void *ctx, int dfd, const char *name, int flags, mode_t mode)
{
	int fd = fslab_io_posix.open(NULL, dfd, name, flags, mode);

	R(ctx)->opens++;
	if (fd >= 0)
		R(ctx)->open_fds++;
	return fd;
}

static int rec_close(void *ctx, int fd)
{
	R(ctx)->closes++;
	R(ctx)->open_fds--;
	return fslab_io_posix.close(NULL, fd);
}

static ssize_t rec_read(void *ctx, int fd, void *buf, size_t len)
{
	R(ctx)->reads++;
	return fslab_io_posix.read(NULL, fd, buf, len);
}

static ssize_t rec_write(void *ctx, int fd, const void *buf, size_t len)
{
	if (++R(ctx)->writes == R(ctx)->fail_write_at) {
		errno = EIO;
		return -1;
	}
	return fslab_io_posix.write(NULL, fd, buf, len);
}

static int rec_fsync(void *ctx, int fd)
{
	R(ctx)->fsyncs++;
	return fslab_io_posix.fsync(NULL, fd);
}

static int rec_unlink(void *ctx, int dfd, const char *name)
{
	R(ctx)->unlinks++;
	return fslab_io_posix.unlink(NULL, dfd, name);
}

static void rec_timer(void *ctx, bool start)
{
	if (start)
		R(ctx)->timer_starts++;
	else
		R(ctx)->timer_stops++;
}

static struct fslab_io_ops rec_ops(struct rec *r)
{
	struct fslab_io_ops o = fslab_io_posix;

	o.name = "recorder";
	o.ctx = r;
	o.open = rec_open;
	o.close = rec_close;
	o.read = rec_read;
	o.write = rec_write;
	o.fsync = rec_fsync;
	o.unlink = rec_unlink;
	o.timer = rec_timer;
	return o;
}

static char *dir;
static int dfd = -1;

static void setup(void)
{
	dir = ft_mkdtemp("fslab-probe");
	ck_assert_ptr_nonnull(dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	if (dfd >= 0)
		close(dfd);
	dfd = -1;
	ft_rm_rf(dir);
	free(dir);
}

/* 4 MiB probes of 1 MiB records where O_DIRECT works: 3 x (4 O_DIRECT
 * writes, then the file made again and 4 buffered writes with their
 * fsync), at least 3 x 4 reads, all through the ops; every timed pass
 * inside a timer pair; every fd closed; the file removed. */
START_TEST(every_call_goes_through_the_ops)
{
	struct rec r = { 0 };
	struct fslab_io_ops ops = rec_ops(&r);
	struct fslab_cache_ctl cache;
	struct fslab_probe_result res;
	int e;

	fslab_cache_ctl_init(&cache, NULL, NULL);
	e = fslab_device_probe(&ops, &dfd, dir, &cache, 4u << 20, &res);
	ck_assert_msg(e == 0, "probe failed: %s", res.note);
	ck_assert_uint_eq(res.runs, FSLAB_PROBE_RUNS);
	ck_assert(res.write_kib_s > 0 && res.read_kib_s > 0);
	ck_assert_str_eq(res.source, "measured");
	ck_assert(res.measured_at > 0);
	ck_assert_str_eq(res.method, "o_direct");
	ck_assert_uint_eq(r.writes, 3 * 2 * 4);
	ck_assert_uint_ge(r.reads, 3 * 4);
	ck_assert_uint_ge(r.fsyncs, 3 * 2);
	ck_assert_uint_eq(r.unlinks, 3 * 2);
	ck_assert_uint_ge(r.opens, 3 * 3);
	ck_assert_int_eq(r.open_fds, 0);
	ck_assert_uint_eq(r.opens, r.closes);
	ck_assert_uint_ge(r.timer_starts, 6);
	ck_assert_uint_eq(r.timer_starts, r.timer_stops);
	/* the cold-mode policy did the drops (it looked at the filesystem) */
	ck_assert(cache.checked);
	ck_assert_int_eq(ft_dir_entries(dir), 0);
}
END_TEST

/* A write that fails in the ops fails the probe, saying so; the file is
 * removed and no fd stays open. */
START_TEST(a_fault_in_the_ops_fails_the_probe)
{
	struct rec r = { .fail_write_at = 2 };
	struct fslab_io_ops ops = rec_ops(&r);
	struct fslab_probe_result res;
	int e = fslab_device_probe(&ops, &dfd, dir, NULL, 4u << 20, &res);

	ck_assert_int_eq(e, -EIO);
	ck_assert_str_eq(res.method, "failed");
	ck_assert_msg(strstr(res.note, "probe I/O") && strstr(res.note, strerror(EIO)), "%s", res.note);
	ck_assert(res.write_kib_s == 0 && res.read_kib_s == 0);
	ck_assert_int_eq(r.open_fds, 0);
	ck_assert_int_eq(ft_dir_entries(dir), 0);
}
END_TEST

/* The bound is the fastest write and the fastest read of the probes,
 * each with the word on how it was made: when probe 1's read came from
 * readahead but probe 2's O_DIRECT read was faster, the read's word is
 * probe 2's (none), not probe 1's "readahead beat O_DIRECT"; the same for
 * the write and writeback. */
START_TEST(the_word_is_the_fastest_passes)
{
	static const char ra[] = "read figure from buffered reads after fadvise (readahead beat O_DIRECT)";
	static const char wb[] = "write figure from buffered writes with fsync (writeback beat O_DIRECT)";
	struct fslab_probe_result r, one[3];

	memset(&r, 0, sizeof(r));
	memset(one, 0, sizeof(one));
	one[0].write_kib_s = 900, one[0].read_kib_s = 1200;
	snprintf(one[0].read_how, sizeof(one[0].read_how), "%s", ra);
	snprintf(one[0].write_how, sizeof(one[0].write_how), "%s", wb);
	one[1].write_kib_s = 1000, one[1].read_kib_s = 1500;
	one[2].write_kib_s = 800, one[2].read_kib_s = 1100;
	snprintf(one[2].read_how, sizeof(one[2].read_how), "%s", ra);
	snprintf(one[2].write_how, sizeof(one[2].write_how), "%s", wb);
	for (unsigned k = 0; k < 3; k++)
		fslab_probe_fold(&r, &one[k], k);
	ck_assert_uint_eq(r.runs, 3);
	ck_assert(r.write_kib_s == 1000 && r.read_kib_s == 1500);
	ck_assert(r.read_runs_kib_s[0] == 1200 && r.read_runs_kib_s[2] == 1100);
	ck_assert_msg(r.read_how[0] == '\0', "the bound's read was O_DIRECT, yet: %s", r.read_how);
	ck_assert_msg(r.write_how[0] == '\0', "the bound's write was O_DIRECT, yet: %s", r.write_how);

	/* and the other way round: probe 2's buffered passes are the bound */
	memset(&r, 0, sizeof(r));
	one[1].read_kib_s = 1000, one[2].read_kib_s = 1300;
	one[1].write_kib_s = 700;
	for (unsigned k = 0; k < 3; k++)
		fslab_probe_fold(&r, &one[k], k);
	ck_assert(r.read_kib_s == 1300 && r.write_kib_s == 900);
	ck_assert_str_eq(r.read_how, ra);
	ck_assert_str_eq(r.write_how, wb);
}
END_TEST

/* On a filesystem that takes O_DIRECT, a probe's note says which of its
 * bounds came from the buffered pass, and only those. */
START_TEST(the_note_names_the_buffered_bounds)
{
	struct fslab_cache_ctl cache;
	struct fslab_probe_result res;

	fslab_cache_ctl_init(&cache, NULL, NULL);
	ck_assert_int_eq(fslab_device_probe(&fslab_io_posix, &dfd, dir, &cache, 4u << 20, &res), 0);
	ck_assert_str_eq(res.method, "o_direct");
	ck_assert_msg(!res.write_how[0] == !strstr(res.note, "writeback beat O_DIRECT"), "write '%s', note '%s'",
		      res.write_how, res.note);
	ck_assert_msg(!res.read_how[0] == !strstr(res.note, "readahead beat O_DIRECT"), "read '%s', note '%s'",
		      res.read_how, res.note);
}
END_TEST

/* An ops struct of another layout is refused, not called. */
START_TEST(another_ops_version_is_refused)
{
	struct rec r = { 0 };
	struct fslab_io_ops ops = rec_ops(&r);
	struct fslab_probe_result res;

	ops.version = FSLAB_IO_OPS_VERSION + 1;
	ck_assert_int_eq(fslab_device_probe(&ops, &dfd, dir, NULL, 4u << 20, &res), -EPROTO);
	ck_assert_str_eq(res.method, "failed");
	ck_assert_ptr_nonnull(strstr(res.note, "version"));
	ck_assert_uint_eq(r.opens + r.writes + r.reads, 0);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("probe");
	TCase *tc = ft_tcase(s, "probe", 0);

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_call_goes_through_the_ops);
	tcase_add_test(tc, a_fault_in_the_ops_fails_the_probe);
	tcase_add_test(tc, another_ops_version_is_refused);
	tcase_add_test(tc, the_word_is_the_fastest_passes);
	tcase_add_test(tc, the_note_names_the_buffered_bounds);
	return ft_suite_run(s, argc, argv);
}
