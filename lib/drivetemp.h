/* A drive's conditions: its temperature and its own health verdict, read
 * before and after setup preconditions it (and available to a run before
 * and after each filesystem).  A drive's speed moves with its
 * temperature (a hot SSD throttles), so a figure is only comparable with
 * one measured at a like temperature.
 *
 * Sources, first found wins for the temperature:
 *   - the kernel's hwmon sensor of the disk: /sys/block/DISK/device/hwmon*
 *     (NVMe controllers, and SATA/SAS disks with the drivetemp module),
 *     temp1_input in millidegrees Celsius;
 *   - smartctl --json -a DISK (smartmontools), when installed:
 *     temperature.current and smart_status.passed.
 * A loop device, a disk without a sensor and a machine without smartctl
 * give "unknown", never an error: these are facts about the run, not
 * conditions for it.
 *
 * Heat: the warning threshold is hwmon's temp1_max (the NVMe driver's
 * WCTEMP, drivetemp's limit) or smartctl's temperature.op_limit_max; the
 * drive's own alarm is hwmon's temp1_alarm / temp1_max_alarm or bit 1 of
 * NVMe's critical_warning; NVMe's warning_temp_time counts the minutes
 * spent above the threshold (the drive throttles there).
 *
 * Tests: FSLAB_TEST_DRIVE_SYSDIR=DIR reads every disk's hwmon sensor
 * under DIR (DIR/device/hwmon/hwmonN/temp1_input ...), a loop device's
 * too, and runs no smartctl. */
#ifndef FSLAB_DRIVETEMP_H
#define FSLAB_DRIVETEMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

struct fslab_drive_conditions {
	bool has_temp;
	double temp_c;          /* degrees Celsius when has_temp */
	char temp_source[16];   /* "hwmon", "smartctl"; "" when unknown */
	int smart_passed;       /* 1 passed, 0 failed, -1 unknown */
	char read_at[32];       /* UTC, ISO 8601; "" never read */
	bool has_warn;
	double warn_c;          /* the warning threshold, when has_warn */
	int alarm;              /* the drive's temperature alarm: 1 on, 0 off, -1 unknown */
	long long warn_minutes; /* NVMe warning_temp_time; -1 unknown */
	/* The drive's own count of what the host wrote to it, in bytes:
	 * NVMe's Data Units Written (x 512,000), or ATA attribute 241
	 * (Total_LBAs_Written, x the logical block size; a few vendors count
	 * it in other units, so it is a fact to compare with the block
	 * layer's, never a figure of its own).  Only from smartctl. */
	bool has_host_written;
	uint64_t host_written_bytes;
};

/* Conditions with nothing known (smart_passed, alarm, warn_minutes -1). */
void fslab_drive_conditions_unknown(struct fslab_drive_conditions *dc);

/* Reads the conditions of disk (a /dev path: a whole disk or one of its
 * partitions).  Always fills *dc (unknowns as such); returns 0, or
 * -ENOENT when disk is no block device. */
int fslab_drive_conditions_read(const char *disk, struct fslab_drive_conditions *dc);

/* Parses smartctl's --json output (text of len bytes, need not end in a
 * NUL) into dc's temperature and smart_passed; the fields smartctl left
 * out stay unknown.  0, or -EINVAL when text is no JSON object. */
int fslab_drive_smartctl_parse(const char *text, size_t len, struct fslab_drive_conditions *dc);

/* Was the drive hot at now: its alarm on, a temperature at or above its
 * warning threshold, or (since base, when given) more minutes above the
 * threshold.  True with the reason in why ("71 C, at or above its
 * warning threshold 70 C"). */
bool fslab_drive_thermal(const struct fslab_drive_conditions *base,
			 const struct fslab_drive_conditions *now, char *why, size_t len);

/* The hwmon sensor only (cheap: a few sysfs reads, no smartctl), for
 * checks between the tests of a sweep; fills *dc as
 * fslab_drive_conditions_read does.  0 or -ENOENT (no block device). */
int fslab_drive_conditions_read_hwmon(const char *disk, struct fslab_drive_conditions *dc);

/* "41 C (hwmon), SMART passed" / "temperature unknown, SMART unknown". */
char *fslab_drive_conditions_format(const struct fslab_drive_conditions *dc, char *buf,
				    size_t len);

/* As JSON ({"temperature_c": 41.0 | null, "temperature_source": ...,
 * "smart_passed": true | false | null, "read_at": ...,
 * "warning_threshold_c": 70.0 | null, "temperature_alarm": bool | null,
 * "warning_temp_minutes": N | null, "host_written_bytes": N | null}), and back; the
 * one encoding the state and the manifest share.  from_json: 0, or
 * -EINVAL (a temperature outside -60..200 C, a wrong type). */
struct json_object *fslab_drive_conditions_to_json(const struct fslab_drive_conditions *dc);
int fslab_drive_conditions_from_json(struct json_object *o, struct fslab_drive_conditions *dc);

#endif
