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
 * conditions for it. */
#ifndef FSLAB_DRIVETEMP_H
#define FSLAB_DRIVETEMP_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

struct fslab_drive_conditions {
	bool has_temp;
	double temp_c;          /* degrees Celsius when has_temp */
	char temp_source[16];   /* "hwmon", "smartctl"; "" when unknown */
	int smart_passed;       /* 1 passed, 0 failed, -1 unknown */
	char read_at[32];       /* UTC, ISO 8601; "" never read */
};

/* Reads the conditions of disk (a /dev path: a whole disk or one of its
 * partitions).  Always fills *dc (unknowns as such); returns 0, or
 * -ENOENT when disk is no block device. */
int fslab_drive_conditions_read(const char *disk, struct fslab_drive_conditions *dc);

/* Parses smartctl's --json output (text of len bytes, need not end in a
 * NUL) into dc's temperature and smart_passed; the fields smartctl left
 * out stay unknown.  0, or -EINVAL when text is no JSON object. */
int fslab_drive_smartctl_parse(const char *text, size_t len, struct fslab_drive_conditions *dc);

/* "41 C (hwmon), SMART passed" / "temperature unknown, SMART unknown". */
char *fslab_drive_conditions_format(const struct fslab_drive_conditions *dc, char *buf,
				    size_t len);

/* As JSON ({"temperature_c": 41.0 | null, "temperature_source": ...,
 * "smart_passed": true | false | null, "read_at": ...}), and back; the
 * one encoding the state and the manifest share.  from_json: 0, or
 * -EINVAL (a temperature outside -60..200 C, a wrong type). */
struct json_object *fslab_drive_conditions_to_json(const struct fslab_drive_conditions *dc);
int fslab_drive_conditions_from_json(struct json_object *o, struct fslab_drive_conditions *dc);

#endif
