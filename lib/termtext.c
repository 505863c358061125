#include "termtext.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The code point of the UTF-8 sequence at p into *cp, its length returned;
 * 0 when p starts none (a stray byte, overlong, a surrogate, cut short). */
static size_t utf8_decode(const unsigned char *p, unsigned *cp)
{
	static const unsigned lowest[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = *p > 0xf4 ? 0 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc0 ? 2 : 0;

	*cp = *p & (0x7fu >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3fu);
	}
	return n && *cp >= lowest[n] && *cp <= 0x10ffff && (*cp < 0xd800 || *cp > 0xdfff) ? n : 0;
}

/* Controls (C0, DEL, C1) and the marks that reorder or hide what follows
 * (bidirectional embeddings, overrides, isolates; line separators). */
static bool hidden(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The character at p as shown into out (char[12]): itself, "\xNN" for a
 * control byte or a byte of no valid UTF-8, "\uNNNN" for a hidden
 * character beyond ASCII.  Returns its length, the bytes of p it covers in
 * *used. */
static size_t shown(const unsigned char *p, char *out, size_t *used)
{
	unsigned cp = *p;
	size_t n = *p < 0x80 ? 1 : utf8_decode(p, &cp);

	*used = n ? n : 1;
	if (n && !hidden(cp))
		return (size_t)snprintf(out, 12, "%.*s", (int)n, (const char *)p);
	return (size_t)snprintf(out, 12, n > 1 ? "\\u%04x" : "\\x%02x", n > 1 ? cp : *p);
}

char *fslab_escape_ctrl(const char *in, char *out, size_t outlen)
{
	const unsigned char *p;
	size_t need = 0, room, o = 0, used, n;
	char c[12];

	if (!out || outlen == 0)
		return out;
	if (!in)
		in = "(null)";
	for (p = (const unsigned char *)in; *p; p += used)
		need += shown(p, c, &used);
	/* Everything fits, or we stop early enough to append "...". */
	room = need < outlen ? need : (outlen > 4 ? outlen - 4 : 0);
	for (p = (const unsigned char *)in; *p; p += used) {
		n = shown(p, c, &used);
		if (o + n > room)
			break;
		memcpy(out + o, c, n);
		o += n;
	}
	if (*p) {
		size_t dots = outlen - 1 - o < 3 ? outlen - 1 - o : 3;

		memcpy(out + o, "...", dots);
		o += dots;
	}
	out[o] = '\0';
	return out;
}

/* s to f as shown, its newlines kept; in JSON "\xNN" is "\u00NN" (a
 * JSON escape), so the text stays JSON. */
static int put_shown(const char *s, FILE *f, bool json)
{
	char c[12];
	size_t used, n;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += used) {
		used = 1;
		n = *p == '\n' ? 0 : shown(p, c, &used);
		bool x = json && n && c[0] == '\\' && c[1] == 'x';

		if (!n ? putc('\n', f) == EOF : fprintf(f, "%s%s", x ? "\\u00" : "", x ? c + 2 : c) < 0)
			return EOF;
	}
	return 0;
}

int fslab_put_text(const char *s, FILE *f)
{
	return put_shown(s, f, false);
}

int fslab_put_json(const char *s, FILE *f)
{
	return put_shown(s, f, true);
}

const char *fslab_esc(const char *s)
{
	static char bufs[4][FSLAB_ESCAPE_SIZE(PATH_MAX)];
	static unsigned next;
	char *b = bufs[next++ % 4];

	return fslab_escape_ctrl(s, b, sizeof(bufs[0]));
}
