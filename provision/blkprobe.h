/* provision/'s libblkid probe, shared by blkprobe.c (reading) and wipe.c
 * (erasing): private to those two files. */
#ifndef FSLAB_PROV_BLKPROBE_H
#define FSLAB_PROV_BLKPROBE_H

#include <blkid.h>
#include <stdint.h>

/* Opens dev (open(2) flags, O_CLOEXEC added) and a probe on its byte range
 * [off, off + size) (size 0: to the end) looking for superblocks (type,
 * version, magic, also with a bad checksum) and partition tables (magic,
 * GPT even behind a foreign MBR).  The fd goes to *fdp; NULL with errno
 * set on failure (nothing left open). */
blkid_probe prov_blkid_open(const char *dev, int flags, uint64_t off, uint64_t size, int *fdp);

#endif
