/* What a block device is: identity and the properties that shape a
 * benchmark (sector sizes, rotational, discard), read from sysfs, with
 * ioctls where sysfs lacks a field.  The one reader of a device's
 * identity: fslab status (provision/) and the run's manifest (bench/). */
#ifndef FSLAB_DEVICE_IDENTITY_H
#define FSLAB_DEVICE_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct json_object;

struct fslab_devinfo {
	char disk[64];          /* whole disk's kernel name: sda, nvme0n1, loop0 */
	char transport[16];     /* nvme, sata, scsi, virtio, loop, usb, mmc, "" unknown */
	char vendor[64];        /* SCSI vendor ("ATA" for SATA), "" otherwise */
	char model[128];
	char serial[128];       /* "" when the device reports none */
	char serial_source[32]; /* where serial came from: sysfs file or ioctl */
	char firmware[64];
	char wwid[160];         /* world wide id (sysfs wwid), "" when none */
	char backing_file[256]; /* loop only */
	int rotational;         /* 1, 0, or -1 unknown */
	unsigned logical_sector;  /* bytes, 0 unknown */
	unsigned physical_sector; /* bytes, 0 unknown */
	uint64_t size_bytes;      /* the whole disk */
	uint64_t dev_size_bytes;  /* dev itself (a partition: its own size); not in the JSON */
	uint64_t discard_granularity; /* bytes; 0: no discard */
	uint64_t discard_max_bytes;   /* bytes per request; 0: no discard */
};

/* Fills di for dev (a /dev path of a disk or of one of its partitions: the
 * whole disk is described).  Fields the device does not report stay empty
 * or 0.  Returns 0, or -errno when dev is no block device the kernel knows
 * (message in e). */
int fslab_devinfo_read(const char *dev, struct fslab_devinfo *di, struct fslab_err *e);

/* The sysfs directory (PATH_MAX bytes) of the whole disk holding dev (a
 * disk or one of its partitions, found by its device number):
 * /sys/devices/.../sdb; *dev_bytes gets dev's own size when sysfs says
 * it.  0, or -errno with the message in e (-ENOTBLK: no block device). */
int fslab_devinfo_sysdir(const char *dev, char *sysdir, uint64_t *dev_bytes, struct fslab_err *e);

/* One line for people: "nvme QEMU NVMe Ctrl, serial X, firmware Y;
 * 512/4096-byte sectors; non-rotational; discard 4 KiB granularity, up to
 * 2 GiB per request". */
void fslab_devinfo_describe(const struct fslab_devinfo *di, char *buf, size_t len);

/* di as a JSON object (new reference): empty strings and unknown numbers
 * become null. */
struct json_object *fslab_devinfo_to_json(const struct fslab_devinfo *di);

#endif
