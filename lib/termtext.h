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
#include <stdio.h>

/* Copies in to out, replacing every control byte (below 0x20, and 0x7f) and
 * every byte of no valid UTF-8 by the four characters "\xNN" (lower-case
 * hex), and every C1 control (U+0080-U+009F), bidirectional mark, embedding,
 * override or isolate (U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069) and line or paragraph separator by "\uNNNN".  Other
 * UTF-8 is copied unchanged.  out is always NUL-terminated when
 * outlen > 0; a result that does not fit is cut before a whole escape and
 * ends in "...".  Returns out, so the call can sit in a printf argument
 * list.  in == NULL gives "(null)". */
char *fslab_escape_ctrl(const char *in, char *out, size_t outlen);

/* The sink's form: s to f escaped as above but for its newlines, kept.
 * Messages on stderr, notes and the text report are written through it.
 * 0, or EOF on a write error. */
int fslab_put_text(const char *s, FILE *f);

/* fslab_put_text for JSON text (--format json, status --json): a byte of
 * no valid UTF-8 or DEL as "\u00NN", so the output stays JSON and shows
 * no hidden character. */
int fslab_put_json(const char *s, FILE *f);

/* A buffer of this size holds the escape of any string of n bytes. */
#define FSLAB_ESCAPE_SIZE(n) (4 * (n) + 1)

/* fslab_escape_ctrl of s (up to PATH_MAX bytes) into one of four
 * rotating static buffers: for up to four strings in one message.  Not
 * thread-safe. */
const char *fslab_esc(const char *s);

#endif
