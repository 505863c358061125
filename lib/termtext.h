/* Text that reaches a terminal.
 *
 * Filesystem names, directory paths and labels come from users; printed as
 * they are, an ESC or CR in one can rewrite what the terminal shows (move the
 * cursor, hide a line, set the title).  Everything fslab prints that it did
 * not write itself goes through fslab_escape_ctrl first.
 */
#ifndef FSLAB_TERMTEXT_H
#define FSLAB_TERMTEXT_H

#include <stddef.h>

/* Copies in to out, replacing every control byte (below 0x20, and 0x7f) by
 * the four characters "\xNN" (lower-case hex).  Other bytes, UTF-8
 * included, are copied unchanged.  out is always NUL-terminated when
 * outlen > 0; a result that does not fit is cut before a whole escape and
 * ends in "...".  Returns out, so the call can sit in a printf argument
 * list.  in == NULL gives "(null)". */
char *fslab_escape_ctrl(const char *in, char *out, size_t outlen);

/* A buffer of this size holds the escape of any string of n bytes. */
#define FSLAB_ESCAPE_SIZE(n) (4 * (n) + 1)

/* fslab_escape_ctrl of s (up to PATH_MAX bytes) into one of four
 * rotating static buffers: for up to four strings in one message.  Not
 * thread-safe. */
const char *fslab_esc(const char *s);

#endif
