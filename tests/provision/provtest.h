/* Shared fixture for the provisioning integration tests.
 *
 * The tcase's unchecked fixture (run in the parent process, so it runs even
 * when a test fails and its forked child exits early) makes one suite root
 * under /tmp; each test works in its own directory below it: image, state
 * file, mount root, spec.  The parent's teardown runs fslab teardown on
 * every state file left there and then removes every mount and loop device
 * below the suite root (ft_cleanup_under), never anything else. */
#ifndef FSLAB_PROVTEST_H
#define FSLAB_PROVTEST_H

#include "testutil.h"

#include <limits.h>

/* ext4 32M, ext2 32M, xfs 300M, fat32 40M, btrfs 120M: 526 MiB with GPT. */
extern const char pt_small_spec[];
#define PT_SMALL_BYTES (526ull << 20)

struct pt_env {
	char dir[1024];
	char image[1100];
	char state[1100];
	char mnt[1100];
	char spec[1100];
};

/* Unchecked fixture pair for a tcase. */
void pt_suite_setup(void);
void pt_suite_teardown(void);
/* A TCase of s needing `needs`, with that fixture and a timeout of
 * timeout_s seconds per test. */
TCase *pt_tcase(struct ft_suite *s, const char *name, unsigned needs, int timeout_s);

/* A fresh per-test directory with the small spec written to e->spec. */
void pt_env_init(struct pt_env *e);
/* fslab setup --device dev (NULL: --image e->image) --spec e->spec
 * --state --mount-root, plus extra arguments (NULL-terminated). */
int pt_setup(struct pt_env *e, const char *dev, struct ft_output *o, ...) __attribute__((sentinel));
#define pt_setup_image(e, o, ...) pt_setup(e, NULL, o, __VA_ARGS__)
#define pt_setup_device(e, dev, o, ...) pt_setup(e, dev, o, __VA_ARGS__)
int pt_teardown(struct pt_env *e, struct ft_output *o);
/* The same, asserting that they succeed (exit 0). */
void pt_setup_image_ok(struct pt_env *e);
void pt_teardown_ok(struct pt_env *e);
/* Asserts nothing of the lab is left: no mount and no loop device below
 * the test dir, no image, no state file, and (when dev is given) blkid
 * finds nothing on dev. */
void pt_assert_nothing_left(struct pt_env *e, const char *dev);
/* Asserts o exited with status and its stderr contains text. */
void pt_assert_result(const struct ft_output *o, int status, const char *text);
/* True when blkid -p finds any signature on dev. */
int pt_blkid_finds_something(const char *dev);

#endif
