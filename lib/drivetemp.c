/* A drive's temperature and SMART verdict (see drivetemp.h). */
#include "drivetemp.h"
#include "clock.h"
#include "device_identity.h"
#include "exec.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TEMP_MIN_C (-60.0)
#define TEMP_MAX_C 200.0
#define SMARTCTL_OUT_MAX (1 << 20)

#define TEST_SYSDIR_ENV "FSLAB_TEST_DRIVE_SYSDIR"

void fslab_drive_conditions_unknown(struct fslab_drive_conditions *dc)
{
	memset(dc, 0, sizeof(*dc));
	dc->smart_passed = -1;
	dc->alarm = -1;
	dc->warn_minutes = -1;
}

/* A millidegree reading of the sensor in sub, in C; false when absent or
 * out of range (a sensor below 0 C reads as a negative number, which
 * fslab_sysfs_read_u64 refuses: not a drive's condition). */
static bool dc_milli(const char *sub, const char *attr, double *c)
{
	uint64_t milli;

	if (fslab_sysfs_read_u64(sub, attr, &milli) < 0 || milli >= 200000)
		return false;
	*c = (double)milli / 1000.0;
	return true;
}

/* The first hwmonN directory in dir with a temp1_input: the temperature,
 * the warning threshold (temp1_max) and the alarms into dc.  0 or -ENOENT. */
static int dc_hwmon_in(const char *dir, struct fslab_drive_conditions *dc)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = -ENOENT;

	if (!d)
		return -ENOENT;
	while (r < 0 && (e = readdir(d))) {
		char sub[PATH_MAX];
		uint64_t a1 = 0, a2 = 0;
		bool h1, h2;

		if (strncmp(e->d_name, "hwmon", 5) != 0 || !e->d_name[5])
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (!dc_milli(sub, "temp1_input", &dc->temp_c))
			continue;
		dc->has_temp = true;
		snprintf(dc->temp_source, sizeof(dc->temp_source), "hwmon");
		dc->has_warn = dc_milli(sub, "temp1_max", &dc->warn_c);
		h1 = fslab_sysfs_read_u64(sub, "temp1_alarm", &a1) == 0;
		h2 = fslab_sysfs_read_u64(sub, "temp1_max_alarm", &a2) == 0;
		if (h1 || h2)
			dc->alarm = a1 || a2;
		r = 0;
	}
	closedir(d);
	return r;
}

/* The disk's hwmon sensor: device/hwmonN (NVMe), device/hwmon/hwmonN
 * (drivetemp on SCSI/ATA), device/device/hwmonN (older NVMe drivers
 * registered it on the PCI function). */
static int dc_hwmon(const char *sysdir, struct fslab_drive_conditions *dc)
{
	static const char *const where[] = { "device", "device/hwmon", "device/device" };
	char dir[PATH_MAX];

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if (snprintf(dir, sizeof(dir), "%s/%s", sysdir, where[i]) >= (int)sizeof(dir))
			continue;
		if (dc_hwmon_in(dir, dc) == 0)
			return 0;
	}
	return -ENOENT;
}

/* A number of an object's member, when it is one. */
static bool dc_json_num(json_object *o, const char *key, double *v)
{
	json_object *x;

	if (!o || !json_object_object_get_ex(o, key, &x) ||
	    !(json_object_is_type(x, json_type_int) || json_object_is_type(x, json_type_double)))
		return false;
	*v = json_object_get_double(x);
	return true;
}

static void dc_host_written(struct fslab_drive_conditions *dc, double bytes)
{
	dc->has_host_written = true;
	dc->host_written_bytes = (uint64_t)bytes;
}

int fslab_drive_smartctl_parse(const char *text, size_t len, struct fslab_drive_conditions *dc)
{
	struct json_tokener *tok;
	struct json_object *root, *o, *v, *temp = NULL;
	const char *start = memchr(text, '{', len);
	double t, n;

	if (!start)
		return -EINVAL;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, start, (int)(len - (size_t)(start - text)));
	json_tokener_free(tok);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return -EINVAL;
	}
	json_object_object_get_ex(root, "temperature", &temp);
	if (dc_json_num(temp, "current", &t) && t >= TEMP_MIN_C && t <= TEMP_MAX_C) {
		dc->has_temp = true;
		dc->temp_c = t;
		snprintf(dc->temp_source, sizeof(dc->temp_source), "smartctl");
	}
	if (json_object_object_get_ex(root, "smart_status", &o) &&
	    json_object_object_get_ex(o, "passed", &v) && json_object_is_type(v, json_type_boolean))
		dc->smart_passed = json_object_get_boolean(v) ? 1 : 0;
	/* ATA's SCT limit: the recommended operating maximum */
	if (dc_json_num(temp, "op_limit_max", &t) && t > TEMP_MIN_C && t <= TEMP_MAX_C) {
		dc->has_warn = true;
		dc->warn_c = t;
	}
	if (json_object_object_get_ex(root, "nvme_smart_health_information_log", &o)) {
		/* critical_warning bit 1: temperature out of range */
		if (dc_json_num(o, "critical_warning", &n) && n >= 0 && n < 256)
			dc->alarm = ((unsigned)n & 2u) != 0;
		if (dc_json_num(o, "warning_temp_time", &n) && n >= 0 && n < 9e15)
			dc->warn_minutes = (long long)n;
		if (dc_json_num(o, "data_units_written", &n) && n >= 0 && n < 9e15 / 512000)
			dc_host_written(dc, n * 512000);
	}
	if (json_object_object_get_ex(root, "ata_smart_attributes", &o) &&
	    json_object_object_get_ex(o, "table", &o) && json_object_is_type(o, json_type_array)) {
		double lbs = 512;

		dc_json_num(root, "logical_block_size", &lbs);
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			json_object *a = json_object_array_get_idx(o, i), *raw = NULL;

			if (dc_json_num(a, "id", &n) && n == 241 && json_object_object_get_ex(a, "raw", &raw) &&
			    dc_json_num(raw, "value", &n) && n >= 0 && lbs >= 512 && n < 9e15 / lbs)
				dc_host_written(dc, n * lbs);
		}
	}
	json_object_put(root);
	return 0;
}

/* smartctl --json -a dev into dc, when smartctl is installed.  Its output
 * goes to a memory file (lib/exec logs a child's output; it keeps no
 * pipe). */
static void dc_smartctl(const char *dev, struct fslab_drive_conditions *dc)
{
	const char *argv[] = { "smartctl", "--json", "-a", dev, NULL };
	struct fslab_exec_result res;
	char prog[PATH_MAX], *buf;
	struct fslab_exec_opts eo = { .cwd = "/", .log_fd = -1, .timeout_s = 30 };
	struct stat st;
	int fd;

	if (fslab_exec_find("smartctl", prog, sizeof(prog)) < 0)
		return;
	argv[0] = prog;
	fd = memfd_create("fslab-smartctl", MFD_CLOEXEC);
	if (fd < 0)
		return;
	eo.log_fd = fd;
	/* Bits 0 and 1 of its exit status: the command line or the device
	 * open failed, so there is nothing to read; the other bits report
	 * the drive's condition and come with the JSON. */
	if (fslab_exec_run_opts(argv, &eo, &res) == 0 && (res.exit_status & 3) == 0 &&
	    fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= SMARTCTL_OUT_MAX &&
	    (buf = malloc((size_t)st.st_size))) {
		ssize_t n = pread(fd, buf, (size_t)st.st_size, 0);

		if (n > 0)
			fslab_drive_smartctl_parse(buf, (size_t)n, dc);
		free(buf);
	}
	close(fd);
}

/* The reading's start, shared by both readers: the time, and the hwmon
 * sensor of the disk holding disk.  1 with the disk's sysfs directory in
 * sysdir when smartctl may be asked next, 0 when not (a loop device: a
 * file, not a drive; the test hook), or -ENOENT (no block device). */
static int dc_read_start(const char *disk, struct fslab_drive_conditions *dc, char *sysdir)
{
	const char *hook = getenv(TEST_SYSDIR_ENV);
	uint64_t bytes;
	int r;

	fslab_drive_conditions_unknown(dc);
	fslab_utc_now("%Y-%m-%dT%H:%M:%SZ", dc->read_at, sizeof(dc->read_at));
	r = fslab_devinfo_sysdir(disk, sysdir, &bytes, NULL);
	if (r < 0)
		return r == -ENOENT || r == -ENOTBLK ? -ENOENT : 0;
	if (hook && hook[0]) {
		dc_hwmon(hook, dc);
		return 0;
	}
	if (strstr(sysdir, "/virtual/block/"))
		return 0;
	dc_hwmon(sysdir, dc);
	return 1;
}

int fslab_drive_conditions_read_hwmon(const char *disk, struct fslab_drive_conditions *dc)
{
	char sysdir[PATH_MAX];
	int r = dc_read_start(disk, dc, sysdir);

	return r < 0 ? r : 0;
}

int fslab_drive_conditions_read(const char *disk, struct fslab_drive_conditions *dc)
{
	char sysdir[PATH_MAX];
	int r;

	r = dc_read_start(disk, dc, sysdir);
	if (r <= 0)
		return r;
	{
		struct fslab_drive_conditions sm;
		const char *name = strrchr(sysdir, '/') + 1;
		char whole[PATH_MAX];

		fslab_drive_conditions_unknown(&sm);
		snprintf(whole, sizeof(whole), "/dev/%s", name);
		dc_smartctl(whole, &sm);
		dc->smart_passed = sm.smart_passed;
		dc->warn_minutes = sm.warn_minutes;
		if (dc->alarm < 0 || sm.alarm == 1)
			dc->alarm = sm.alarm;
		if (!dc->has_warn && sm.has_warn) {
			dc->has_warn = true;
			dc->warn_c = sm.warn_c;
		}
		if (!dc->has_temp && sm.has_temp) {
			dc->has_temp = true;
			dc->temp_c = sm.temp_c;
			snprintf(dc->temp_source, sizeof(dc->temp_source), "%s", sm.temp_source);
		}
	}
	return 0;
}

bool fslab_drive_thermal(const struct fslab_drive_conditions *base,
			 const struct fslab_drive_conditions *now, char *why, size_t len)
{
	char t[32] = "";

	if (now->has_temp)
		snprintf(t, sizeof(t), "%.0f C", now->temp_c);
	if (now->alarm == 1) {
		snprintf(why, len, "the drive reports a temperature alarm%s%s%s", t[0] ? " (" : "", t, t[0] ? ")" : "");
		return true;
	}
	if (now->has_temp && now->has_warn && now->temp_c >= now->warn_c) {
		snprintf(why, len, "%s, at or above its warning threshold %.0f C", t, now->warn_c);
		return true;
	}
	if (base && base->warn_minutes >= 0 && now->warn_minutes > base->warn_minutes) {
		snprintf(why, len, "%lld minute(s) more above its warning threshold (the drive throttles there)",
			 now->warn_minutes - base->warn_minutes);
		return true;
	}
	return false;
}

char *fslab_drive_conditions_format(const struct fslab_drive_conditions *dc, char *buf,
				    size_t len)
{
	char t[48];

	if (dc->has_temp)
		snprintf(t, sizeof(t), "%.0f C (%s)", dc->temp_c, dc->temp_source);
	else
		snprintf(t, sizeof(t), "temperature unknown");
	snprintf(buf, len, "%s%s, SMART %s", t, dc->alarm == 1 ? ", TEMPERATURE ALARM" : "",
		 dc->smart_passed < 0 ? "unknown" : dc->smart_passed ? "passed" : "FAILED");
	return buf;
}

struct json_object *fslab_drive_conditions_to_json(const struct fslab_drive_conditions *dc)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "temperature_c", dc->has_temp ? json_object_new_double(dc->temp_c) : NULL);
	json_object_object_add(o, "temperature_source",
			       dc->temp_source[0] ? json_object_new_string(dc->temp_source) : NULL);
	json_object_object_add(o, "smart_passed",
			       dc->smart_passed < 0 ? NULL : json_object_new_boolean(dc->smart_passed));
	json_object_object_add(o, "read_at", dc->read_at[0] ? json_object_new_string(dc->read_at) : NULL);
	json_object_object_add(o, "warning_threshold_c", dc->has_warn ? json_object_new_double(dc->warn_c) : NULL);
	json_object_object_add(o, "temperature_alarm", dc->alarm < 0 ? NULL : json_object_new_boolean(dc->alarm));
	json_object_object_add(o, "warning_temp_minutes",
			       dc->warn_minutes < 0 ? NULL : json_object_new_int64(dc->warn_minutes));
	json_object_object_add(o, "host_written_bytes",
			       dc->has_host_written ? json_object_new_int64((int64_t)dc->host_written_bytes) : NULL);
	return o;
}

static int dc_get_str(struct json_object *o, const char *key, char *out, size_t len)
{
	struct json_object *v;

	out[0] = '\0';
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= len)
		return -EINVAL;
	snprintf(out, len, "%s", json_object_get_string(v));
	return 0;
}

/* A temperature member: absent or null leaves *has false; 0, or -EINVAL
 * for a wrong type or a value outside TEMP_MIN_C..TEMP_MAX_C. */
static int dc_get_temp(struct json_object *o, const char *key, bool *has, double *c)
{
	struct json_object *v;
	double t;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return -EINVAL;
	t = json_object_get_double(v);
	if (!(t >= TEMP_MIN_C && t <= TEMP_MAX_C))
		return -EINVAL;
	*has = true;
	*c = t;
	return 0;
}

/* A boolean member into *out (1 or 0); absent or null leaves it. */
static int dc_get_bool(struct json_object *o, const char *key, int *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*out = json_object_get_boolean(v) ? 1 : 0;
	return 0;
}

int fslab_drive_conditions_from_json(struct json_object *o, struct fslab_drive_conditions *dc)
{
	struct json_object *v;

	fslab_drive_conditions_unknown(dc);
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	if (dc_get_temp(o, "temperature_c", &dc->has_temp, &dc->temp_c) < 0 ||
	    dc_get_temp(o, "warning_threshold_c", &dc->has_warn, &dc->warn_c) < 0 ||
	    dc_get_bool(o, "smart_passed", &dc->smart_passed) < 0 ||
	    dc_get_bool(o, "temperature_alarm", &dc->alarm) < 0)
		return -EINVAL;
	if (json_object_object_get_ex(o, "warning_temp_minutes", &v) && v) {
		int64_t n;

		if (!json_object_is_type(v, json_type_int))
			return -EINVAL;
		n = json_object_get_int64(v);
		if (n < 0 || n > (INT64_C(1) << 53))
			return -EINVAL;
		dc->warn_minutes = n;
	}
	if (json_object_object_get_ex(o, "host_written_bytes", &v) && v) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return -EINVAL;
		dc->has_host_written = true;
		dc->host_written_bytes = (uint64_t)json_object_get_int64(v);
	}
	if (dc_get_str(o, "temperature_source", dc->temp_source, sizeof(dc->temp_source)) < 0 ||
	    dc_get_str(o, "read_at", dc->read_at, sizeof(dc->read_at)) < 0)
		return -EINVAL;
	return 0;
}
