/* What libblkid sees on a device: signatures, the filesystem, the GPT's
 * disk GUID.  Read-only. */
#include "prov_int.h"
#include "blkprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

blkid_probe prov_blkid_open(const char *dev, int flags, uint64_t off, uint64_t size, int *fdp)
{
	blkid_probe pr;
	int fd = open(dev, flags | O_CLOEXEC);

	*fdp = fd;
	if (fd < 0)
		return NULL;
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) < 0) {
		blkid_free_probe(pr);
		close(fd);
		*fdp = -1;
		errno = ENOMEM;
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_VERSION |
						      BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	return pr;
}

int prov_probe_signature_each(const char *dev, int (*fn)(const char *type, void *ctx), void *ctx)
{
	blkid_probe pr;
	int fd, n = 0, r;

	pr = prov_blkid_open(dev, O_RDONLY, 0, 0, &fd);
	if (!pr)
		return -errno;
	while ((r = blkid_do_probe(pr)) == 0) {
		const char *v = NULL;

		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) != 0 &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) != 0)
			v = "unknown";
		n++;
		if (fn(v, ctx) != 0 || n > 16)
			break;
	}
	blkid_free_probe(pr);
	close(fd);
	return r < 0 && n == 0 ? -EIO : n;
}

struct probe_list {
	char *buf;
	size_t len, used;
};

static int probe_list_add(const char *type, void *ctx)
{
	struct probe_list *l = ctx;
	int w = snprintf(l->buf + l->used, l->len - l->used, "%s%s", l->used ? ", " : "", type);

	if (w > 0)
		l->used = l->used + (size_t)w < l->len ? l->used + (size_t)w : l->len - 1;
	return 0;
}

int prov_probe_signatures(const char *dev, char *found, size_t len)
{
	struct probe_list l = { found, len, 0 };

	found[0] = '\0';
	return prov_probe_signature_each(dev, probe_list_add, &l);
}

int prov_probe_fs(const char *dev, char *type, size_t tlen, char *version, size_t vlen)
{
	blkid_probe pr;
	const char *v;
	int fd, r;

	type[0] = version[0] = '\0';
	pr = prov_blkid_open(dev, O_RDONLY, 0, 0, &fd);
	if (!pr)
		return -errno;
	blkid_probe_enable_partitions(pr, 0);
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			snprintf(type, tlen, "%s", v);
		if (blkid_probe_lookup_value(pr, "VERSION", &v, NULL) == 0)
			snprintf(version, vlen, "%s", v);
	}
	blkid_free_probe(pr);
	close(fd);
	return r < 0 ? -EIO : 0;
}

int prov_gpt_guid(const char *dev, char *guid, size_t len)
{
	blkid_probe pr;
	blkid_partlist ls;
	blkid_parttable tab;
	const char *id, *pt;
	int fd, r = -ENOENT;

	guid[0] = '\0';
	pr = prov_blkid_open(dev, O_RDONLY, 0, 0, &fd);
	if (!pr)
		return -errno;
	blkid_probe_enable_superblocks(pr, 0);
	ls = blkid_probe_get_partitions(pr);
	if (ls && (tab = blkid_partlist_get_table(ls)) && (pt = blkid_parttable_get_type(tab)) &&
	    strcmp(pt, "gpt") == 0 && (id = blkid_parttable_get_id(tab)) && *id) {
		snprintf(guid, len, "%s", id);
		for (char *c = guid; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		r = 0;
	}
	blkid_free_probe(pr);
	close(fd);
	return r;
}
