/* Device identity from sysfs (/sys/dev/block/MAJ:MIN and its device/
 * directory), with ioctls for what sysfs does not say: SG_IO INQUIRY page
 * 0x80 for a SCSI serial without device/vpd_pg80, BLK*GET for sizes and
 * sector sizes. */
#include "devinfo.h"
#include "fileutil.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Copies s into buf without control bytes and surrounding blanks (sysfs
 * pads SCSI strings, VPD pages end in NULs). */
static void di_clean(char *buf, size_t len, const char *s, size_t n)
{
	size_t o = 0, start = 0;

	while (start < n && (s[start] == ' ' || s[start] == '\t'))
		start++;
	for (size_t i = start; i < n && s[i] && o + 1 < len; i++)
		if ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
			buf[o++] = s[i];
	while (o && buf[o - 1] == ' ')
		o--;
	buf[o] = '\0';
}

/* Reads dir/file into buf (cleaned); "" when absent.  Returns bytes read. */
static size_t di_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX + 64];
	char *data = NULL;
	size_t n = 0;

	buf[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return 0;
	if (fslab_read_file(path, &data, &n, 4096) < 0)
		return 0;
	di_clean(buf, len, data, n);
	free(data);
	return n;
}

static bool di_read_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64], *end;

	if (!di_read(dir, file, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno == 0 && end != buf;
}

/* A VPD page 0x80 (unit serial number): 4-byte header, then the serial. */
static void di_vpd80(const unsigned char *p, size_t n, char *buf, size_t len)
{
	size_t plen;

	buf[0] = '\0';
	if (n < 4 || p[1] != 0x80)
		return;
	plen = ((size_t)p[2] << 8) | p[3];
	if (plen > n - 4)
		plen = n - 4;
	di_clean(buf, len, (const char *)p + 4, plen);
}

/* SG_IO INQUIRY with EVPD for page 0x80. */
static int di_sg_serial(int fd, char *buf, size_t len)
{
	unsigned char cdb[6] = { 0x12, 0x01, 0x80, 0, 252, 0 };
	unsigned char resp[252] = { 0 }, sense[32];
	struct sg_io_hdr io = { 0 };

	io.interface_id = 'S';
	io.dxfer_direction = SG_DXFER_FROM_DEV;
	io.cmd_len = sizeof(cdb);
	io.cmdp = cdb;
	io.dxferp = resp;
	io.dxfer_len = sizeof(resp);
	io.sbp = sense;
	io.mx_sb_len = sizeof(sense);
	io.timeout = 5000;
	if (ioctl(fd, SG_IO, &io) < 0)
		return -errno;
	if (io.status || io.host_status || io.driver_status)
		return -EIO;
	di_vpd80(resp, sizeof(resp) - (size_t)io.resid, buf, len);
	return buf[0] ? 0 : -ENODATA;
}

static void di_scsi(struct fslab_devinfo *di, const char *devdir, const char *devreal)
{
	char raw[512];
	char path[PATH_MAX + 32];
	char *data = NULL;
	size_t n = 0;

	if (strstr(devreal, "/ata"))
		snprintf(di->transport, sizeof(di->transport), "sata");
	else if (strstr(devreal, "/usb"))
		snprintf(di->transport, sizeof(di->transport), "usb");
	else
		snprintf(di->transport, sizeof(di->transport), "scsi");
	di_read(devdir, "vendor", di->vendor, sizeof(di->vendor));
	di_read(devdir, "model", di->model, sizeof(di->model));
	di_read(devdir, "rev", di->firmware, sizeof(di->firmware));
	di_read(devdir, "wwid", di->wwid, sizeof(di->wwid));
	snprintf(path, sizeof(path), "%s/vpd_pg80", devdir);
	if (fslab_read_file(path, &data, &n, sizeof(raw)) == 0) {
		di_vpd80((const unsigned char *)data, n, di->serial, sizeof(di->serial));
		free(data);
		if (di->serial[0])
			snprintf(di->serial_source, sizeof(di->serial_source), "device/vpd_pg80");
	}
}

int fslab_devinfo_read(const char *dev, struct fslab_devinfo *di, char *err, size_t errlen)
{
	char link[64], sysdir[PATH_MAX], tmp[PATH_MAX], devdir[PATH_MAX + 16], devreal[PATH_MAX];
	char probe[PATH_MAX + 32];
	struct stat st;
	uint64_t v;
	bool scsi;
	int fd;

	memset(di, 0, sizeof(*di));
	di->rotational = -1;
	if (stat(dev, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", dev, strerror(e));
		return -e;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s is not a block device", dev);
		return -ENOTBLK;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, sysdir)) {
		int e = errno;
		snprintf(err, errlen, "%s: the kernel has no %s (%s): the device is gone", dev, link,
			 strerror(e));
		return -e;
	}
	/* A partition's sysfs directory sits inside its disk's. */
	snprintf(probe, sizeof(probe), "%s/partition", sysdir);
	if (access(probe, F_OK) == 0) {
		snprintf(tmp, sizeof(tmp), "%s", sysdir);
		snprintf(sysdir, sizeof(sysdir), "%s", dirname(tmp));
	}
	snprintf(tmp, sizeof(tmp), "%s", sysdir);
	snprintf(di->disk, sizeof(di->disk), "%s", basename(tmp));

	if (di_read_u64(sysdir, "size", &v))
		di->size_bytes = v * 512;
	if (di_read_u64(sysdir, "queue/rotational", &v))
		di->rotational = v ? 1 : 0;
	if (di_read_u64(sysdir, "queue/logical_block_size", &v))
		di->logical_sector = (unsigned)v;
	if (di_read_u64(sysdir, "queue/physical_block_size", &v))
		di->physical_sector = (unsigned)v;
	if (di_read_u64(sysdir, "queue/discard_granularity", &v))
		di->discard_granularity = v;
	if (di_read_u64(sysdir, "queue/discard_max_bytes", &v))
		di->discard_max_bytes = v;
	if (!di->discard_max_bytes)
		di->discard_granularity = 0;

	snprintf(devdir, sizeof(devdir), "%s/device", sysdir);
	if (!realpath(devdir, devreal))
		devreal[0] = '\0';
	if (strncmp(di->disk, "loop", 4) == 0) {
		snprintf(di->transport, sizeof(di->transport), "loop");
		di_read(sysdir, "loop/backing_file", di->backing_file, sizeof(di->backing_file));
	} else if (strncmp(di->disk, "nvme", 4) == 0) {
		snprintf(di->transport, sizeof(di->transport), "nvme");
		di_read(devdir, "model", di->model, sizeof(di->model));
		di_read(devdir, "serial", di->serial, sizeof(di->serial));
		if (di->serial[0])
			snprintf(di->serial_source, sizeof(di->serial_source), "device/serial");
		di_read(devdir, "firmware_rev", di->firmware, sizeof(di->firmware));
		di_read(sysdir, "wwid", di->wwid, sizeof(di->wwid));
	} else if (strncmp(di->disk, "vd", 2) == 0) {
		snprintf(di->transport, sizeof(di->transport), "virtio");
		di_read(sysdir, "serial", di->serial, sizeof(di->serial));
		if (di->serial[0])
			snprintf(di->serial_source, sizeof(di->serial_source), "serial");
	} else if (strncmp(di->disk, "mmcblk", 6) == 0) {
		snprintf(di->transport, sizeof(di->transport), "mmc");
		di_read(devdir, "name", di->model, sizeof(di->model));
		di_read(devdir, "serial", di->serial, sizeof(di->serial));
		if (di->serial[0])
			snprintf(di->serial_source, sizeof(di->serial_source), "device/serial");
		di_read(devdir, "fwrev", di->firmware, sizeof(di->firmware));
	} else if (devreal[0] && strstr(devreal, "/host")) {
		di_scsi(di, devdir, devreal);
	}

	/* What sysfs did not say, the device may: ioctls (read-only open,
	 * no I/O except a SCSI INQUIRY). */
	scsi = !strcmp(di->transport, "scsi") || !strcmp(di->transport, "sata") ||
	       !strcmp(di->transport, "usb");
	if (di->logical_sector && di->physical_sector && di->size_bytes && (di->serial[0] || !scsi))
		return 0;
	fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0; /* what sysfs said is all there is */
	if (!di->logical_sector) {
		int ss = 0;
		if (ioctl(fd, BLKSSZGET, &ss) == 0 && ss > 0)
			di->logical_sector = (unsigned)ss;
	}
	if (!di->physical_sector) {
		unsigned int ps = 0;
		if (ioctl(fd, BLKPBSZGET, &ps) == 0 && ps > 0)
			di->physical_sector = ps;
	}
	if (!di->size_bytes) {
		uint64_t b = 0;
		if (ioctl(fd, BLKGETSIZE64, &b) == 0)
			di->size_bytes = b;
	}
	if (!di->serial[0] && scsi) {
		if (di_sg_serial(fd, di->serial, sizeof(di->serial)) == 0)
			snprintf(di->serial_source, sizeof(di->serial_source), "SG_IO INQUIRY 0x80");
	}
	close(fd);
	return 0;
}

static void dj_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v && v[0] ? json_object_new_string(v) : NULL);
}

static void dj_u64(struct json_object *o, const char *key, uint64_t v, bool zero_is_null)
{
	json_object_object_add(o, key, v || !zero_is_null ? json_object_new_int64((int64_t)v) : NULL);
}

struct json_object *fslab_devinfo_to_json(const struct fslab_devinfo *di)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	dj_str(o, "disk", di->disk);
	dj_str(o, "transport", di->transport);
	dj_str(o, "vendor", di->vendor);
	dj_str(o, "model", di->model);
	dj_str(o, "serial", di->serial);
	dj_str(o, "serial_source", di->serial_source);
	dj_str(o, "firmware", di->firmware);
	dj_str(o, "wwid", di->wwid);
	dj_str(o, "backing_file", di->backing_file);
	json_object_object_add(o, "rotational",
			       di->rotational < 0 ? NULL : json_object_new_boolean(di->rotational));
	dj_u64(o, "logical_sector_bytes", di->logical_sector, true);
	dj_u64(o, "physical_sector_bytes", di->physical_sector, true);
	dj_u64(o, "size_bytes", di->size_bytes, true);
	dj_u64(o, "discard_granularity_bytes", di->discard_granularity, false);
	dj_u64(o, "discard_max_bytes", di->discard_max_bytes, false);
	return o;
}

void fslab_devinfo_describe(const struct fslab_devinfo *di, char *buf, size_t len)
{
	char g[32], mx[32], d[96] = "no discard";
	const char *rot = di->rotational < 0 ? "rotational unknown"
			  : di->rotational ? "rotational" : "non-rotational";

	if (di->discard_max_bytes)
		snprintf(d, sizeof(d), "discard %s granularity, up to %s a request",
			 fslab_size_human(di->discard_granularity, g, sizeof(g)),
			 fslab_size_human(di->discard_max_bytes, mx, sizeof(mx)));
	snprintf(buf, len, "%s%s%s%s%s, serial %s, firmware %s; %u/%u-byte sectors; %s; %s",
		 di->transport[0] ? di->transport : "unknown transport",
		 di->vendor[0] ? " " : "", di->vendor,
		 di->model[0] || di->backing_file[0] ? " " : "",
		 di->model[0] ? di->model : di->backing_file,
		 di->serial[0] ? di->serial : "none", di->firmware[0] ? di->firmware : "none",
		 di->logical_sector, di->physical_sector, rot, d);
}
