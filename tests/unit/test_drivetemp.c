/* lib/drivetemp: smartctl --json parsing (on samples of smartctl 7's
 * output format, abridged), the JSON the state and manifest share, that a
 * loop device reads as "unknown", not as an error, and the heat rule on a
 * fake hwmon sensor (FSLAB_TEST_DRIVE_SYSDIR) and smartctl samples. */
#include "drivetemp.h"
#include "state.h"
#include "testutil.h"

#include <errno.h>
#include <json-c/json.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* An NVMe drive, as smartctl --json -a prints it (values ours). */
static const char nvme_sample[] =
	"{\n"
	"  \"json_format_version\": [1, 0],\n"
	"  \"smartctl\": {\"version\": [7, 3], \"argv\": [\"smartctl\", \"--json\", \"-a\", \"/dev/nvme0n1\"],\n"
	"               \"exit_status\": 0},\n"
	"  \"device\": {\"name\": \"/dev/nvme0n1\", \"info_name\": \"/dev/nvme0n1\", \"type\": \"nvme\",\n"
	"             \"protocol\": \"NVMe\"},\n"
	"  \"model_name\": \"EXAMPLE NVMe 1TB\",\n"
	"  \"smart_support\": {\"available\": true, \"enabled\": true},\n"
	"  \"smart_status\": {\"passed\": true, \"nvme\": {\"value\": 0}},\n"
	"  \"nvme_smart_health_information_log\": {\"critical_warning\": 0, \"temperature\": 43,\n"
	"                                         \"percentage_used\": 2},\n"
	"  \"temperature\": {\"current\": 43},\n"
	"  \"power_on_time\": {\"hours\": 1234}\n"
	"}\n";

/* A SATA drive whose SMART verdict is failed (exit bit 3), with
 * smartctl's banner before the JSON as older versions print on -j
 * errors. */
static const char sata_failing_sample[] =
	"smartctl 7.2 2020-12-30 r5155 [x86_64-linux] (local build)\n"
	"{\"json_format_version\":[1,0],\"smartctl\":{\"exit_status\":8},"
	"\"device\":{\"name\":\"/dev/sda\",\"type\":\"sat\",\"protocol\":\"ATA\"},"
	"\"smart_status\":{\"passed\":false},\"temperature\":{\"current\":61,\"drive_trip\":70}}";

/* A device smartctl could not open: no verdict, no temperature. */
static const char open_failed_sample[] =
	"{\"json_format_version\":[1,0],\"smartctl\":{\"exit_status\":2,\"messages\":[{\"string\":"
	"\"/dev/loop0: Unable to detect device type\",\"severity\":\"error\"}]}}";

START_TEST(parses_nvme_sample)
{
	struct fslab_drive_conditions dc = { .smart_passed = -1 };
	char line[128];

	ck_assert_int_eq(fslab_drive_smartctl_parse(nvme_sample, strlen(nvme_sample), &dc), 0);
	ck_assert(dc.has_temp);
	ck_assert(fabs(dc.temp_c - 43.0) < 1e-9);
	ck_assert_str_eq(dc.temp_source, "smartctl");
	ck_assert_int_eq(dc.smart_passed, 1);
	ck_assert_str_eq(fslab_drive_conditions_format(&dc, line, sizeof(line)),
			 "43 C (smartctl), SMART passed");
}
END_TEST

START_TEST(parses_failing_sata_sample_after_a_banner)
{
	struct fslab_drive_conditions dc = { .smart_passed = -1 };
	char line[128];

	ck_assert_int_eq(fslab_drive_smartctl_parse(sata_failing_sample, strlen(sata_failing_sample), &dc), 0);
	ck_assert(dc.has_temp);
	ck_assert(fabs(dc.temp_c - 61.0) < 1e-9);
	ck_assert_int_eq(dc.smart_passed, 0);
	ck_assert_str_eq(fslab_drive_conditions_format(&dc, line, sizeof(line)),
			 "61 C (smartctl), SMART FAILED");
}
END_TEST

START_TEST(unknowns_stay_unknown)
{
	struct fslab_drive_conditions dc = { .smart_passed = -1 };
	const char bad_temp[] = "{\"temperature\":{\"current\":5000},\"smart_status\":{\"passed\":\"yes\"}}";
	char line[128];

	ck_assert_int_eq(fslab_drive_smartctl_parse(open_failed_sample, strlen(open_failed_sample), &dc), 0);
	ck_assert(!dc.has_temp);
	ck_assert_int_eq(dc.smart_passed, -1);
	ck_assert_int_eq(fslab_drive_smartctl_parse(bad_temp, strlen(bad_temp), &dc), 0);
	ck_assert(!dc.has_temp);
	ck_assert_int_eq(dc.smart_passed, -1);
	ck_assert_str_eq(fslab_drive_conditions_format(&dc, line, sizeof(line)),
			 "temperature unknown, SMART unknown");
	ck_assert_int_eq(fslab_drive_smartctl_parse("no json here", 12, &dc), -EINVAL);
	/* a truncated document is not half read */
	ck_assert_int_eq(fslab_drive_smartctl_parse(nvme_sample, 40, &dc), -EINVAL);
}
END_TEST

/* The drive's own count of host writes: NVMe's data units (512,000
 * bytes each), ATA's attribute 241 in logical blocks; kept through the
 * JSON the manifest records, unknown where smartctl says nothing. */
START_TEST(host_written_counter)
{
	const char nvme[] = "{\"nvme_smart_health_information_log\":{\"data_units_written\":1000}}";
	const char ata[] = "{\"logical_block_size\":4096,\"ata_smart_attributes\":{\"table\":["
			   "{\"id\":9,\"raw\":{\"value\":77}},{\"id\":241,\"raw\":{\"value\":2000}}]}}";
	struct fslab_drive_conditions dc, back;
	struct json_object *o;

	fslab_drive_conditions_unknown(&dc);
	ck_assert_int_eq(fslab_drive_smartctl_parse(open_failed_sample, strlen(open_failed_sample), &dc), 0);
	ck_assert(!dc.has_host_written);
	ck_assert_int_eq(fslab_drive_smartctl_parse(nvme, strlen(nvme), &dc), 0);
	ck_assert(dc.has_host_written);
	ck_assert_uint_eq(dc.host_written_bytes, 512000000u);
	fslab_drive_conditions_unknown(&dc);
	ck_assert_int_eq(fslab_drive_smartctl_parse(ata, strlen(ata), &dc), 0);
	ck_assert_uint_eq(dc.host_written_bytes, 2000u * 4096u);
	o = fslab_drive_conditions_to_json(&dc);
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), 0);
	ck_assert(back.has_host_written);
	ck_assert_uint_eq(back.host_written_bytes, 2000u * 4096u);
	json_object_object_add(o, "host_written_bytes", json_object_new_string("lots"));
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), -EINVAL);
	json_object_put(o);
}
END_TEST

START_TEST(json_round_trip_and_bounds)
{
	struct fslab_drive_conditions dc = { .has_temp = true, .temp_c = 38.5, .smart_passed = 0 },
				      back;
	struct json_object *o;

	snprintf(dc.temp_source, sizeof(dc.temp_source), "hwmon");
	snprintf(dc.read_at, sizeof(dc.read_at), "2026-12-01T23:00:00Z");
	o = fslab_drive_conditions_to_json(&dc);
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), 0);
	ck_assert(back.has_temp && fabs(back.temp_c - 38.5) < 1e-9);
	ck_assert_str_eq(back.temp_source, "hwmon");
	ck_assert_int_eq(back.smart_passed, 0);
	ck_assert_str_eq(back.read_at, dc.read_at);
	json_object_object_add(o, "temperature_c", json_object_new_double(900));
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), -EINVAL);
	json_object_put(o);
	/* null: unknown */
	ck_assert_int_eq(fslab_drive_conditions_from_json(NULL, &back), 0);
	ck_assert(!back.has_temp);
	ck_assert_int_eq(back.smart_passed, -1);
}
END_TEST

/* The state's precondition record: written and read back by its one
 * encoder; "" status is null; a negative or infinite time is refused. */
START_TEST(precondition_record_round_trip)
{
	struct fslab_state_precondition pc = { 0 }, back;
	struct json_object *o;
	char err[256];

	ck_assert_ptr_null(fslab_state_precondition_to_json(&pc));
	snprintf(pc.status, sizeof(pc.status), "done");
	pc.purge = FSLAB_PURGE_TRIM;
	snprintf(pc.purge_result, sizeof(pc.purge_result), "not supported");
	pc.target_bytes = pc.bytes = 2ull << 30;
	pc.block_bytes = 131072;
	pc.seconds = 4.5;
	pc.mib_s = 455.1;
	pc.before.smart_passed = pc.after.smart_passed = -1;
	pc.after.has_temp = true;
	pc.after.temp_c = 51;
	o = fslab_state_precondition_to_json(&pc);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(fslab_state_precondition_from_json(o, &back, err, sizeof(err)), 0);
	ck_assert_str_eq(back.status, "done");
	ck_assert_int_eq(back.purge, FSLAB_PURGE_TRIM);
	ck_assert_str_eq(back.purge_result, "not supported");
	ck_assert_uint_eq(back.bytes, 2ull << 30);
	ck_assert_uint_eq(back.block_bytes, 131072);
	ck_assert(fabs(back.seconds - 4.5) < 1e-9);
	ck_assert(back.after.has_temp && !back.before.has_temp);
	json_object_object_add(o, "seconds", json_object_new_double(-1));
	ck_assert_int_eq(fslab_state_precondition_from_json(o, &back, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "seconds"));
	json_object_object_add(o, "seconds", json_object_new_double(1));
	json_object_object_add(o, "purge", json_object_new_string("shred"));
	ck_assert_int_eq(fslab_state_precondition_from_json(o, &back, err, sizeof(err)), -EINVAL);
	json_object_put(o);
}
END_TEST

START_TEST(a_file_is_no_drive)
{
	struct fslab_drive_conditions dc;

	ck_assert_int_eq(fslab_drive_conditions_read("/etc/hostname", &dc), -ENOENT);
	ck_assert(!dc.has_temp);
	ck_assert_int_eq(dc.smart_passed, -1);
	ck_assert(dc.read_at[0]);
}
END_TEST

/* An NVMe drive that throttled: critical_warning bit 1 (temperature) and
 * minutes above its warning threshold; an ATA drive past its SCT limit. */
static const char nvme_hot_sample[] =
	"{\"smart_status\":{\"passed\":true},\"temperature\":{\"current\":78},"
	"\"nvme_smart_health_information_log\":{\"critical_warning\":2,\"temperature\":78,"
	"\"warning_temp_time\":7,\"critical_comp_time\":0}}";
static const char ata_hot_sample[] =
	"{\"smart_status\":{\"passed\":true},"
	"\"temperature\":{\"current\":61,\"op_limit_max\":60,\"drive_trip\":70}}";

START_TEST(smartctl_heat_fields)
{
	struct fslab_drive_conditions dc, base;
	char why[200], line[128];

	fslab_drive_conditions_unknown(&dc);
	ck_assert_int_eq(fslab_drive_smartctl_parse(nvme_hot_sample, strlen(nvme_hot_sample), &dc), 0);
	ck_assert_int_eq(dc.alarm, 1);
	ck_assert_int_eq(dc.warn_minutes, 7);
	ck_assert(fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
	ck_assert_str_eq(why, "the drive reports a temperature alarm (78 C)");
	ck_assert_str_eq(fslab_drive_conditions_format(&dc, line, sizeof(line)),
			 "78 C (smartctl), TEMPERATURE ALARM, SMART passed");
	/* the counter alone: more minutes above the threshold than at the start */
	base = dc;
	base.warn_minutes = 5;
	dc.alarm = 0;
	ck_assert(fslab_drive_thermal(&base, &dc, why, sizeof(why)));
	ck_assert_str_eq(why, "2 minute(s) more above its warning threshold (the drive throttles there)");
	ck_assert(!fslab_drive_thermal(&dc, &dc, why, sizeof(why)));

	fslab_drive_conditions_unknown(&dc);
	ck_assert_int_eq(fslab_drive_smartctl_parse(ata_hot_sample, strlen(ata_hot_sample), &dc), 0);
	ck_assert(dc.has_warn && fabs(dc.warn_c - 60) < 1e-9);
	ck_assert_int_eq(dc.alarm, -1);
	ck_assert_int_eq(dc.warn_minutes, -1);
	ck_assert(fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
	ck_assert_str_eq(why, "61 C, at or above its warning threshold 60 C");
	dc.temp_c = 59;
	ck_assert(!fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
	/* the cool NVMe sample: no alarm, no threshold, nothing to say */
	fslab_drive_conditions_unknown(&dc);
	ck_assert_int_eq(fslab_drive_smartctl_parse(nvme_sample, strlen(nvme_sample), &dc), 0);
	ck_assert_int_eq(dc.alarm, 0);
	ck_assert(!fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
}
END_TEST

/* The new fields survive the one encoding; unknowns are null and stay
 * unknown; a count of the wrong type is refused. */
START_TEST(heat_fields_round_trip)
{
	struct fslab_drive_conditions dc, back;
	struct json_object *o;

	fslab_drive_conditions_unknown(&dc);
	o = fslab_drive_conditions_to_json(&dc);
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), 0);
	ck_assert(!back.has_warn);
	ck_assert_int_eq(back.alarm, -1);
	ck_assert_int_eq(back.warn_minutes, -1);
	json_object_put(o);
	dc.has_warn = true;
	dc.warn_c = 70;
	dc.alarm = 1;
	dc.warn_minutes = 12;
	o = fslab_drive_conditions_to_json(&dc);
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), 0);
	ck_assert(back.has_warn && fabs(back.warn_c - 70) < 1e-9);
	ck_assert_int_eq(back.alarm, 1);
	ck_assert_int_eq(back.warn_minutes, 12);
	json_object_object_add(o, "warning_temp_minutes", json_object_new_string("12"));
	ck_assert_int_eq(fslab_drive_conditions_from_json(o, &back), -EINVAL);
	json_object_put(o);
}
END_TEST

/* Any block device of this machine (the hook replaces its sensor), or
 * "" when there is none. */
static void some_block_device(char *out, size_t len)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *e;
	struct stat st;

	out[0] = '\0';
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && snprintf(out, len, "/dev/%s", e->d_name) < (int)len &&
		    stat(out, &st) == 0 && S_ISBLK(st.st_mode))
			break;
		else
			out[0] = '\0';
	if (d)
		closedir(d);
}

static void write_sensor(const char *dir, const char *attr, const char *value)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, attr);
	ck_assert_int_eq(ft_write_file(p, value), 0);
}

/* A fake hwmon sensor (drivetemp's layout, device/hwmon/hwmonN): the
 * temperature, the warning threshold and the alarm are read; at the
 * threshold the drive is hot, below it not; the hwmon-only reader sees
 * the same. */
START_TEST(fake_hwmon_sensor)
{
	char *tmp = ft_mkdtemp("fslab-hwmon"), dev[300], sensor[700], why[200];
	struct fslab_drive_conditions dc;

	some_block_device(dev, sizeof(dev));
	if (!dev[0]) {
		ft_rm_rf(tmp);
		free(tmp);
		return; /* no block device to stand for the disk */
	}
	snprintf(sensor, sizeof(sensor), "%s/device", tmp);
	ck_assert_int_eq(mkdir(sensor, 0755), 0);
	snprintf(sensor, sizeof(sensor), "%s/device/hwmon", tmp);
	ck_assert_int_eq(mkdir(sensor, 0755), 0);
	snprintf(sensor, sizeof(sensor), "%s/device/hwmon/hwmon7", tmp);
	ck_assert_int_eq(mkdir(sensor, 0755), 0);
	write_sensor(sensor, "temp1_input", "70000\n");
	write_sensor(sensor, "temp1_max", "70000\n");
	write_sensor(sensor, "temp1_alarm", "0\n");
	ck_assert_int_eq(setenv("FSLAB_TEST_DRIVE_SYSDIR", tmp, 1), 0);

	ck_assert_int_eq(fslab_drive_conditions_read(dev, &dc), 0);
	ck_assert(dc.has_temp && fabs(dc.temp_c - 70) < 1e-9);
	ck_assert_str_eq(dc.temp_source, "hwmon");
	ck_assert(dc.has_warn && fabs(dc.warn_c - 70) < 1e-9);
	ck_assert_int_eq(dc.alarm, 0);
	ck_assert_int_eq(dc.smart_passed, -1); /* no smartctl under the hook */
	ck_assert(fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
	ck_assert_str_eq(why, "70 C, at or above its warning threshold 70 C");

	write_sensor(sensor, "temp1_input", "45500\n");
	ck_assert_int_eq(fslab_drive_conditions_read_hwmon(dev, &dc), 0);
	ck_assert(fabs(dc.temp_c - 45.5) < 1e-9);
	ck_assert(!fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
	write_sensor(sensor, "temp1_alarm", "1\n");
	ck_assert_int_eq(fslab_drive_conditions_read_hwmon(dev, &dc), 0);
	ck_assert(fslab_drive_thermal(NULL, &dc, why, sizeof(why)));
	ck_assert_str_eq(why, "the drive reports a temperature alarm (46 C)");

	unsetenv("FSLAB_TEST_DRIVE_SYSDIR");
	ft_rm_rf(tmp);
	free(tmp);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("drivetemp");
	TCase *tc = ft_tcase(s, "drivetemp", 0);

	tcase_add_test(tc, parses_nvme_sample);
	tcase_add_test(tc, parses_failing_sata_sample_after_a_banner);
	tcase_add_test(tc, unknowns_stay_unknown);
	tcase_add_test(tc, json_round_trip_and_bounds);
	tcase_add_test(tc, host_written_counter);
	tcase_add_test(tc, precondition_record_round_trip);
	tcase_add_test(tc, a_file_is_no_drive);
	tcase_add_test(tc, smartctl_heat_fields);
	tcase_add_test(tc, heat_fields_round_trip);
	tcase_add_test(tc, fake_hwmon_sensor);
	return ft_suite_run(s, argc, argv);
}
