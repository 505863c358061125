/* A device probe kept for the runs after it (issue 24): a run on a device
 * probed less than FSLAB_PROBE_KEEP_S ago, under the same identity and
 * mount, reuses that probe instead of writing and reading 3 x 64 MiB.
 *
 * The file is input like any other: it lives in fslab's root-only runtime
 * directory (fslab_runtime_dir_open), is read only when it is a regular
 * file of ours, mode 0600, one link, at most FSLAB_PROBE_KEEP_MAX bytes,
 * and every field is bounded; anything else is refused with the reason
 * (the run warns and probes again, replacing it). */
#include "bench_int.h"
#include "fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "results.h"

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U /* Linux 6.8: never reused */
#endif

#define KEEP_VERSION 1
/* A measured_at this far ahead of the clock is no time fslab wrote. */
#define KEEP_CLOCK_SLACK_S 60

static void keep_name(const struct fslab_bench_fs *fs, char *name, size_t len)
{
	snprintf(name, len, "probe-%u-%u.json", major(fs->dev), minor(fs->dev));
}

/* The mount of the directory under test: its unique id where the kernel
 * has one, else the (reusable) mount id; "" when statx cannot tell. */
static void keep_mount_id(const struct fslab_bench_fs *fs, char *buf, size_t len)
{
	struct statx sx;

	buf[0] = '\0';
	if (fs->dir_fd < 0 ||
	    statx(fs->dir_fd, "", AT_EMPTY_PATH, STATX_MNT_ID | STATX_MNT_ID_UNIQUE, &sx) < 0)
		return;
	if (sx.stx_mask & STATX_MNT_ID_UNIQUE)
		snprintf(buf, len, "u%" PRIu64, (uint64_t)sx.stx_mnt_id);
	else if (sx.stx_mask & STATX_MNT_ID)
		snprintf(buf, len, "%" PRIu64, (uint64_t)sx.stx_mnt_id);
}

int fslab_probe_key(const struct fslab_bench_fs *fs, uint64_t bytes, char *key, size_t len)
{
	struct stat st;
	char mnt[32], loop[48] = "";
	dev_t blk = 0;

	if (fs->rec.device[0] == '/' && stat(fs->rec.device, &st) == 0 && S_ISBLK(st.st_mode))
		blk = st.st_rdev;
	if (fs->rec.loop_io[0] && fs->loop_backing[0] && stat(fs->loop_backing, &st) == 0)
		snprintf(loop, sizeof(loop), "%u:%u:%ju", major(st.st_dev), minor(st.st_dev),
			 (uintmax_t)st.st_ino);
	keep_mount_id(fs, mnt, sizeof(mnt));
	if (snprintf(key, len, "fs=%u:%u blk=%u:%u mnt=%s loop=%s serial=%s wwid=%s type=%s opts=%s|%s bytes=%" PRIu64,
		     major(fs->dev), minor(fs->dev), major(blk), minor(blk), mnt, loop,
		     fs->rec.device_serial, fs->have_devinfo ? fs->devinfo.wwid : "",
		     fs->rec.type, fs->rec.mount_options, fs->mount_vfs_options,
		     bytes ? bytes : (uint64_t)FSLAB_PROBE_DEFAULT_BYTES) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* The kept file opened for reading when it is ours: 0600, root's (ours),
 * regular, one link, small.  fd or -errno with why. */
static int keep_open(int dfd, const char *name, char *why, size_t whylen)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return -ENOENT;
		snprintf(why, whylen, "%s", e == ELOOP ? "it is a symbolic link" : strerror(e));
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0)
		snprintf(why, whylen, "fstat: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, whylen, "it is not a regular file");
	else if (st.st_uid != geteuid())
		snprintf(why, whylen, "it belongs to uid %u, not %u", (unsigned)st.st_uid, (unsigned)geteuid());
	else if ((st.st_mode & 07777) != 0600)
		snprintf(why, whylen, "its mode is %04o, not 0600", (unsigned)(st.st_mode & 07777));
	else if (st.st_nlink != 1)
		snprintf(why, whylen, "it has %ju links, not 1", (uintmax_t)st.st_nlink);
	else if (st.st_size > FSLAB_PROBE_KEEP_MAX)
		snprintf(why, whylen, "it has %jd bytes, more than a probe's %d", (intmax_t)st.st_size,
			 FSLAB_PROBE_KEEP_MAX);
	else
		return fd;
	close(fd);
	return -EINVAL;
}

static json_object *keep_get(json_object *o, const char *k, json_type t)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, t) ? v : NULL;
}

/* A rate as the results bound every figure: finite, > 0, at most 10 TiB/s. */
static bool keep_rate(json_object *a, size_t i, double *out)
{
	json_object *v = json_object_array_get_idx(a, i);

	if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out) && *out > 0 && *out <= FSLAB_RESULTS_KIB_S_MAX;
}

/* The probe figures of the file's "probe" object into r; false when a
 * field is missing or out of bounds. */
static bool keep_parse_probe(json_object *p, struct fslab_probe_result *r)
{
	json_object *method = keep_get(p, "method", json_type_string), *note = keep_get(p, "note", json_type_string);
	json_object *bytes = keep_get(p, "bytes", json_type_int);
	json_object *w = keep_get(p, "write_kib_s", json_type_array), *rd = keep_get(p, "read_kib_s", json_type_array);
	size_t n;

	if (!method || !note || !bytes || !w || !rd)
		return false;
	n = json_object_array_length(w);
	if (n < 1 || n > FSLAB_PROBE_RUNS || json_object_array_length(rd) != n)
		return false;
	if (strcmp(json_object_get_string(method), "o_direct") != 0 &&
	    strcmp(json_object_get_string(method), "buffered+fsync") != 0)
		return false;
	if ((size_t)json_object_get_string_len(note) >= sizeof(r->note))
		return false;
	r->bytes = (uint64_t)json_object_get_int64(bytes);
	if (json_object_get_int64(bytes) < 4 * FSLAB_PROBE_RECORD || r->bytes > (UINT64_C(1) << 40))
		return false;
	snprintf(r->method, sizeof(r->method), "%s", json_object_get_string(method));
	snprintf(r->note, sizeof(r->note), "%s", json_object_get_string(note));
	for (size_t i = 0; i < n; i++) {
		if (!keep_rate(w, i, &r->write_runs_kib_s[i]) || !keep_rate(rd, i, &r->read_runs_kib_s[i]))
			return false;
		r->write_kib_s = fmax(r->write_kib_s, r->write_runs_kib_s[i]);
		r->read_kib_s = fmax(r->read_kib_s, r->read_runs_kib_s[i]);
	}
	r->runs = (unsigned)n;
	return true;
}

/* The file's text: a probe for key at most FSLAB_PROBE_KEEP_S old. */
static int keep_parse(const char *text, const char *key, int64_t now, struct fslab_probe_result *r,
		      char *why, size_t whylen)
{
	json_object *j = json_tokener_parse(text), *v, *k, *at, *p;
	int ret = -EINVAL;

	memset(r, 0, sizeof(*r));
	v = j ? keep_get(j, "version", json_type_int) : NULL;
	k = j ? keep_get(j, "key", json_type_string) : NULL;
	at = j ? keep_get(j, "measured_at", json_type_int) : NULL;
	p = j ? keep_get(j, "probe", json_type_object) : NULL;
	if (!v || json_object_get_int64(v) != KEEP_VERSION || !k || !at || !p)
		snprintf(why, whylen, "it is not a probe file of version %d (version, key, measured_at, probe)",
			 KEEP_VERSION);
	else if (!keep_parse_probe(p, r))
		snprintf(why, whylen, "its probe figures are missing or out of bounds");
	else if (json_object_get_int64(at) <= 0 || json_object_get_int64(at) > now + KEEP_CLOCK_SLACK_S)
		snprintf(why, whylen, "its measured_at (%" PRId64 ") is not a time before now",
			 json_object_get_int64(at));
	else if (strcmp(json_object_get_string(k), key) != 0)
		ret = -ESTALE, snprintf(why, whylen, "it was measured on another device or mount (%.900s; now %.900s)",
					json_object_get_string(k), key);
	else if (now - json_object_get_int64(at) > FSLAB_PROBE_KEEP_S)
		ret = -ESTALE, snprintf(why, whylen, "it was measured %" PRId64 " s ago, more than %d s",
					now - json_object_get_int64(at), FSLAB_PROBE_KEEP_S);
	else
		ret = 0;
	if (ret == 0) {
		r->measured_at = json_object_get_int64(at);
		snprintf(r->source, sizeof(r->source), "reused");
	}
	json_object_put(j);
	return ret;
}

int fslab_probe_kept_load(const struct fslab_bench_fs *fs, const char *key, int64_t now,
			  struct fslab_probe_result *r, char *why, size_t whylen)
{
	struct fslab_probe_result got;
	char name[64], *text = NULL;
	size_t len;
	int dfd = fslab_runtime_dir_open(), fd, ret;

	if (dfd == -EACCES)
		return -ENOENT; /* not root: nothing is kept (the directory is root's) */
	if (dfd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", FSLAB_RUNTIME_DIR,
			 dfd == -EPERM ? "it is not root's alone" : strerror(-dfd));
		return -EINVAL;
	}
	keep_name(fs, name, sizeof(name));
	fd = keep_open(dfd, name, why, whylen);
	close(dfd);
	if (fd < 0)
		return fd;
	ret = fslab_read_fd(fd, &text, &len, FSLAB_PROBE_KEEP_MAX);
	close(fd);
	if (ret < 0) {
		snprintf(why, whylen, "cannot read it: %s", fslab_input_strerror(ret));
		return -EINVAL;
	}
	if (strlen(text) != len) {
		free(text);
		snprintf(why, whylen, "it holds a NUL byte");
		return -EINVAL;
	}
	ret = keep_parse(text, key, now, &got, why, whylen);
	free(text);
	if (ret == 0)
		*r = got;
	return ret;
}

int fslab_probe_kept_save(const struct fslab_bench_fs *fs, const char *key,
			  const struct fslab_probe_result *r)
{
	json_object *j = json_object_new_object(), *p = json_object_new_object();
	json_object *w = json_object_new_array(), *rd = json_object_new_array();
	char name[64];
	const char *text;
	int dfd, ret;

	if (!j || !p || !w || !rd) {
		json_object_put(j);
		json_object_put(p);
		json_object_put(w);
		json_object_put(rd);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < r->runs && i < FSLAB_PROBE_RUNS; i++) {
		json_object_array_add(w, json_object_new_double(r->write_runs_kib_s[i]));
		json_object_array_add(rd, json_object_new_double(r->read_runs_kib_s[i]));
	}
	json_object_object_add(p, "method", json_object_new_string(r->method));
	json_object_object_add(p, "note", json_object_new_string(r->note));
	json_object_object_add(p, "bytes", json_object_new_int64((int64_t)r->bytes));
	json_object_object_add(p, "write_kib_s", w);
	json_object_object_add(p, "read_kib_s", rd);
	json_object_object_add(j, "version", json_object_new_int(KEEP_VERSION));
	json_object_object_add(j, "key", json_object_new_string(key));
	json_object_object_add(j, "measured_at", json_object_new_int64(r->measured_at));
	json_object_object_add(j, "probe", p);
	text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY);
	dfd = fslab_runtime_dir_open();
	ret = dfd;
	if (dfd >= 0) {
		keep_name(fs, name, sizeof(name));
		/* /run is memory: the file need not survive a crash */
		ret = text ? fslab_write_file_atomic_flags_at(dfd, name, text, strlen(text), 0600,
							       FSLAB_WRITE_NOSYNC)
			   : -ENOMEM;
		close(dfd);
	}
	json_object_put(j);
	return ret;
}
