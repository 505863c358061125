/* The secure-erase plan (provision/nvme_erase.c) from the drive's answers,
 * given as fixed Identify pages: which drives it refuses, with which
 * sentence, and the Format NVM command it would send.  No device is used:
 * the plan asks through struct fslab_nvme_ask, which here answers from
 * the pages below.  The vm precondition job runs the real ioctl path on
 * QEMU's NVMe drive, which has one namespace; a controller that formats
 * all its namespaces together while another one is active is only here. */
#include "nvme_erase.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Identify offsets (NVMe base specification 2.0: Identify Controller and
 * Identify Namespace data structures) */
#define CTRL_OACS 256
#define CTRL_NN 516
#define CTRL_FNA 524
#define NS_NLBAF 25
#define NS_FLBAS 26
#define NS_DPS 29

struct drive {
	int nsid;                     /* NVME_IOCTL_ID's answer */
	unsigned oacs, fna, nn;       /* Identify Controller */
	unsigned active[4];           /* the active namespace list (0 ends it) */
	unsigned nlbaf, flbas, dps;   /* Identify Namespace */
	int ctrl_status;              /* a status for Identify Controller (0: ok) */
	unsigned asked_active;        /* how often the list was asked for */
};

static void put32(unsigned char *b, size_t off, unsigned v)
{
	for (int i = 0; i < 4; i++)
		b[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static int drive_nsid(void *ctx)
{
	return ((struct drive *)ctx)->nsid;
}

static int drive_identify(void *ctx, unsigned cns, unsigned nsid, void *buf)
{
	struct drive *d = ctx;
	unsigned char *b = buf;

	memset(b, 0, FSLAB_NVME_IDENTIFY_BYTES);
	switch (cns) {
	case 0x01: /* controller */
		if (d->ctrl_status)
			return d->ctrl_status;
		b[CTRL_OACS] = (unsigned char)d->oacs;
		b[CTRL_OACS + 1] = (unsigned char)(d->oacs >> 8);
		put32(b, CTRL_NN, d->nn);
		b[CTRL_FNA] = (unsigned char)d->fna;
		return 0;
	case 0x02: /* active namespace ids */
		d->asked_active++;
		for (size_t i = 0; i < 4 && d->active[i]; i++)
			put32(b, 4 * i, d->active[i]);
		return 0;
	case 0x00: /* namespace */
		ck_assert_int_eq(nsid, d->nsid);
		b[NS_NLBAF] = (unsigned char)d->nlbaf;
		b[NS_FLBAS] = (unsigned char)d->flbas;
		b[NS_DPS] = (unsigned char)d->dps;
		return 0;
	}
	ck_abort_msg("the plan asked for Identify CNS %u, which it has no use for", cns);
	return -EINVAL;
}

static int plan(struct drive *d, struct fslab_nvme_erase_plan *p, char *err, size_t len)
{
	const struct fslab_nvme_ask a = { drive_nsid, drive_identify, d };

	struct fslab_err e = FSLAB_ERR_INIT;
	int r = fslab_nvme_erase_plan(&a, "/dev/nvme0n1", p, &e);

	snprintf(err, len, "%s", e.msg);
	return r;
}

/* One namespace, Format NVM supported: the plan keeps the current LBA
 * format (2), its extended metadata (FLBAS bit 4), protection type 1 with
 * the PI first (DPS 0x9), and asks for a user data erase (SES 1). */
START_TEST(one_namespace_keeps_its_format)
{
	struct drive d = { .nsid = 1, .oacs = 0x2, .nn = 1, .nlbaf = 3, .flbas = 0x12, .dps = 0x9 };
	struct fslab_nvme_erase_plan p;
	char err[512];

	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.nsid, 1);
	ck_assert_uint_eq(p.lbaf, 2);
	ck_assert(!p.together);
	/* LBAF 2, MSET 1 (bit 4), PI 1 (bits 5-7), PIL 1 (bit 8), SES 1 (bits 9-11) */
	ck_assert_uint_eq(p.cdw10, 2u | 1u << 4 | 1u << 5 | 1u << 8 | 1u << 9);
	ck_assert_uint_eq(d.asked_active, 0);
}
END_TEST

/* With more than 16 formats the LBA format's upper bits are FLBAS bits
 * 5-6, and Format NVM takes them in CDW10 bits 12-13. */
START_TEST(many_formats_use_the_upper_bits)
{
	struct drive d = { .nsid = 1, .oacs = 0x2, .nn = 1, .nlbaf = 20, .flbas = 0x21 };
	struct fslab_nvme_erase_plan p;
	char err[512];

	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p.lbaf, 0x11);
	ck_assert_uint_eq(p.cdw10, 1u | 1u << 9 | 1u << 12);
}
END_TEST

/* A controller that formats all its namespaces together (FNA bit 0) with
 * another active namespace: refused, naming both, since the safety checks
 * passed only this one. */
START_TEST(another_namespace_formatted_together_is_refused)
{
	struct drive d = { .nsid = 1, .oacs = 0x2, .fna = 0x1, .nn = 4, .active = { 1, 2 } };
	struct fslab_nvme_erase_plan p;
	char err[512];

	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), -EBUSY);
	ck_assert_msg(strstr(err, "/dev/nvme0n1: its controller formats all its namespaces together"), "%s", err);
	ck_assert_msg(strstr(err, "namespace 2 besides this one (1)"), "%s", err);
	/* the same with secure erase applying to all (FNA bit 1) only */
	d.fna = 0x2;
	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), -EBUSY);
}
END_TEST

/* Formatted together, but this is its only active namespace (the others
 * are allocated, not attached): allowed, and the plan says together. */
START_TEST(together_with_no_other_active_namespace_is_allowed)
{
	struct drive d = { .nsid = 3, .oacs = 0x2, .fna = 0x1, .nn = 8, .active = { 3 } };
	struct fslab_nvme_erase_plan p;
	char err[512];

	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), 0);
	ck_assert(p.together);
	ck_assert_uint_eq(p.nsid, 3);
	ck_assert_uint_eq(d.asked_active, 1);
}
END_TEST

/* No Format NVM (OACS bit 1 clear), no namespace id (an ATA or SCSI disk
 * answers ENOTTY), an Identify that fails: each refused with its reason. */
START_TEST(what_cannot_be_erased_says_why)
{
	struct drive d = { .nsid = 1, .oacs = 0x4, .nn = 1 };
	struct fslab_nvme_erase_plan p;
	char err[512];

	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), -EOPNOTSUPP);
	ck_assert_msg(strstr(err, "does not support Format NVM (Identify Controller OACS bit 1 is clear)"), "%s", err);

	d = (struct drive){ .nsid = -ENOTTY };
	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), -ENOTTY);
	ck_assert_msg(strstr(err, "/dev/nvme0n1 is no NVMe namespace"), "%s", err);

	d = (struct drive){ .nsid = 1, .ctrl_status = 0x4002 };
	ck_assert_int_eq(plan(&d, &p, err, sizeof(err)), -EIO);
	ck_assert_msg(strstr(err, "Identify Controller failed (the drive returned an error status)"), "%s", err);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("nvme secure erase plan");
	TCase *tc = ft_tcase(s, "plan", 0);

	tcase_add_test(tc, one_namespace_keeps_its_format);
	tcase_add_test(tc, many_formats_use_the_upper_bits);
	tcase_add_test(tc, another_namespace_formatted_together_is_refused);
	tcase_add_test(tc, together_with_no_other_active_namespace_is_allowed);
	tcase_add_test(tc, what_cannot_be_erased_says_why);
	return ft_suite_run(s, argc, argv);
}
