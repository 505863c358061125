#include "termtext.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

static bool is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

char *fslab_escape_ctrl(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;
	size_t need = 0, room, o = 0;

	if (!out || outlen == 0)
		return out;
	if (!in)
		in = "(null)";
	for (p = (const unsigned char *)in; *p; p++)
		need += is_ctrl(*p) ? 4 : 1;
	/* Everything fits, or we stop early enough to append "...". */
	room = need < outlen ? need : (outlen > 4 ? outlen - 4 : 0);
	for (p = (const unsigned char *)in; *p; p++) {
		size_t n = is_ctrl(*p) ? 4 : 1;

		if (o + n > room)
			break;
		if (n == 4) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 0xf];
		} else {
			out[o++] = (char)*p;
		}
	}
	if (*p) {
		size_t dots = outlen - 1 - o < 3 ? outlen - 1 - o : 3;

		memcpy(out + o, "...", dots);
		o += dots;
	}
	out[o] = '\0';
	return out;
}

const char *fslab_esc(const char *s)
{
	static char bufs[4][FSLAB_ESCAPE_SIZE(PATH_MAX)];
	static unsigned next;
	char *b = bufs[next++ % 4];

	return fslab_escape_ctrl(s, b, sizeof(bufs[0]));
}
