/* Device identity from sysfs (/sys/dev/block/MAJ:MIN and its device/
 * directory), with ioctls for what sysfs does not say: SG_IO INQUIRY page
 * 0x80 for a SCSI serial without device/vpd_pg80, BLK*GET for sizes and
 * sector sizes. */
#include "device_identity.h"
#include "procfs.h"
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

/* How the disk is attached: decides which sysfs files name it and
 * whether a SCSI INQUIRY may fill in its serial. */
enum di_transport {
	DI_UNKNOWN,
	DI_LOOP,
	DI_NVME,
	DI_VIRTIO,
	DI_MMC,
	DI_SCSI, /* DI_SCSI and after: SCSI command set (SG_IO) */
	DI_SATA,
	DI_USB,
};

static const char *const di_transport_names[] = {
	[DI_UNKNOWN] = "", [DI_LOOP] = "loop", [DI_NVME] = "nvme", [DI_VIRTIO] = "virtio",
	[DI_MMC] = "mmc",  [DI_SCSI] = "scsi", [DI_SATA] = "sata", [DI_USB] = "usb",
};

/* From the disk's kernel name, and for a SCSI host the device's sysfs
 * path (devreal, "" when none). */
static enum di_transport di_transport_of(const char *disk, const char *devreal)
{
	if (strncmp(disk, "loop", 4) == 0)
		return DI_LOOP;
	if (strncmp(disk, "nvme", 4) == 0)
		return DI_NVME;
	if (strncmp(disk, "vd", 2) == 0)
		return DI_VIRTIO;
	if (strncmp(disk, "mmcblk", 6) == 0)
		return DI_MMC;
	if (!devreal[0] || !strstr(devreal, "/host"))
		return DI_UNKNOWN;
	if (strstr(devreal, "/ata"))
		return DI_SATA;
	if (strstr(devreal, "/usb"))
		return DI_USB;
	return DI_SCSI;
}

/* A serial read from dir/serial, noting where it came from. */
static void di_serial_from(struct fslab_devinfo *di, const char *dir, const char *source)
{
	di_read(dir, "serial", di->serial, sizeof(di->serial));
	if (di->serial[0])
		snprintf(di->serial_source, sizeof(di->serial_source), "%s", source);
}

static void di_scsi(struct fslab_devinfo *di, const char *devdir)
{
	char raw[512];
	char path[PATH_MAX + 32];
	char *data = NULL;
	size_t n = 0;

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

/* Identity (model, serial, firmware, wwid) where the transport keeps it in
 * sysfs: sysdir the disk's directory, devdir its device/ directory. */
static void di_identity(struct fslab_devinfo *di, enum di_transport t, const char *sysdir,
			const char *devdir)
{
	snprintf(di->transport, sizeof(di->transport), "%s", di_transport_names[t]);
	switch (t) {
	case DI_LOOP:
		di_read(sysdir, "loop/backing_file", di->backing_file, sizeof(di->backing_file));
		break;
	case DI_NVME:
		di_read(devdir, "model", di->model, sizeof(di->model));
		di_serial_from(di, devdir, "device/serial");
		di_read(devdir, "firmware_rev", di->firmware, sizeof(di->firmware));
		di_read(sysdir, "wwid", di->wwid, sizeof(di->wwid));
		break;
	case DI_VIRTIO:
		di_serial_from(di, sysdir, "serial");
		break;
	case DI_MMC:
		di_read(devdir, "name", di->model, sizeof(di->model));
		di_serial_from(di, devdir, "device/serial");
		di_read(devdir, "fwrev", di->firmware, sizeof(di->firmware));
		break;
	case DI_SCSI:
	case DI_SATA:
	case DI_USB:
		di_scsi(di, devdir);
		break;
	case DI_UNKNOWN:
		break;
	}
}

/* Sizes and queue properties from sysfs. */
static void di_queue(struct fslab_devinfo *di, const char *sysdir)
{
	uint64_t v;

	if (!fslab_sysfs_read_u64(sysdir, "size", &v))
		di->size_bytes = v * 512;
	if (!fslab_sysfs_read_u64(sysdir, "queue/rotational", &v))
		di->rotational = v ? 1 : 0;
	if (!fslab_sysfs_read_u64(sysdir, "queue/logical_block_size", &v))
		di->logical_sector = (unsigned)v;
	if (!fslab_sysfs_read_u64(sysdir, "queue/physical_block_size", &v))
		di->physical_sector = (unsigned)v;
	if (!fslab_sysfs_read_u64(sysdir, "queue/discard_granularity", &v))
		di->discard_granularity = v;
	if (!fslab_sysfs_read_u64(sysdir, "queue/discard_max_bytes", &v))
		di->discard_max_bytes = v;
	if (!di->discard_max_bytes)
		di->discard_granularity = 0;
}

/* What sysfs did not say, the device may: ioctls (read-only open, no I/O
 * except a SCSI INQUIRY for the serial). */
static void di_ioctls(struct fslab_devinfo *di, const char *dev, bool scsi)
{
	int fd, ss = 0;
	unsigned int ps = 0;
	uint64_t b = 0;

	if (di->logical_sector && di->physical_sector && di->size_bytes && (di->serial[0] || !scsi))
		return;
	fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return; /* what sysfs said is all there is */
	if (!di->logical_sector && ioctl(fd, BLKSSZGET, &ss) == 0 && ss > 0)
		di->logical_sector = (unsigned)ss;
	if (!di->physical_sector && ioctl(fd, BLKPBSZGET, &ps) == 0 && ps > 0)
		di->physical_sector = ps;
	if (!di->size_bytes && ioctl(fd, BLKGETSIZE64, &b) == 0)
		di->size_bytes = b;
	if (!di->serial[0] && scsi && di_sg_serial(fd, di->serial, sizeof(di->serial)) == 0)
		snprintf(di->serial_source, sizeof(di->serial_source), "SG_IO INQUIRY 0x80");
	close(fd);
}

int fslab_devinfo_sysdir(const char *dev, char *sysdir, uint64_t *dev_bytes, struct fslab_err *e)
{
	uint64_t sectors;
	char link[64], tmp[PATH_MAX], probe[PATH_MAX + 32];
	struct stat st;

	if (stat(dev, &st) < 0)
		return fslab_err_set(e, errno, "%s: %s", dev, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return fslab_err_set(e, -ENOTBLK, "%s is not a block device", dev);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, sysdir))
		return fslab_err_set(e, errno, "%s: the kernel has no %s (%s): the device is gone", dev,
				     link, strerror(errno));
	if (fslab_sysfs_read_u64(sysdir, "size", &sectors) == 0)
		*dev_bytes = sectors * 512;
	/* A partition's sysfs directory sits inside its disk's. */
	snprintf(probe, sizeof(probe), "%s/partition", sysdir);
	if (access(probe, F_OK) == 0) {
		snprintf(tmp, sizeof(tmp), "%s", sysdir);
		snprintf(sysdir, PATH_MAX, "%s", dirname(tmp));
	}
	return 0;
}

int fslab_devinfo_read(const char *dev, struct fslab_devinfo *di, struct fslab_err *e)
{
	char sysdir[PATH_MAX], tmp[PATH_MAX], devdir[PATH_MAX + 16], devreal[PATH_MAX];
	enum di_transport t;
	int r;

	memset(di, 0, sizeof(*di));
	di->rotational = -1;
	r = fslab_devinfo_sysdir(dev, sysdir, &di->dev_size_bytes, e);
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s", sysdir);
	snprintf(di->disk, sizeof(di->disk), "%s", basename(tmp));
	di_queue(di, sysdir);
	snprintf(devdir, sizeof(devdir), "%s/device", sysdir);
	if (!realpath(devdir, devreal))
		devreal[0] = '\0';
	t = di_transport_of(di->disk, devreal);
	di_identity(di, t, sysdir, devdir);
	di_ioctls(di, dev, t >= DI_SCSI);
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
