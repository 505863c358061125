/* Replays fuzz inputs through a fuzz target's LLVMFuzzerTestOneInput with
 * the normal compiler, so every build checks the seed corpus and every
 * input a fuzzer once crashed on (tests/fuzz/regressions/<target>/).
 *
 * Usage: fuzz_replay_<target> DIR|FILE...   Files whose names start with
 * '.' are skipped (.gitkeep).  Fails when no input was found at all. */
#include "fuzz_check.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rbe");
	uint8_t *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* Exact-size copy so ASan sees a read past the input. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int r = 0;

	if (!d) {
		if (errno == ENOENT) {
			fprintf(stderr, "replay: %s does not exist (no inputs there)\n", dir);
			return 0;
		}
		fprintf(stderr, "replay: cannot open %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names || asprintf(&names[n], "%s/%s", dir, e->d_name) < 0)
			abort();
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (replay_file(names[i]) < 0)
			r = -1;
		else
			(*count)++;
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int r = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i]) < 0)
				r = 1;
			else
				count++;
		} else if (replay_dir(argv[i], &count) < 0) {
			r = 1;
		}
	}
	printf("replayed %u inputs\n", count);
	if (count == 0) {
		fprintf(stderr, "replay: no inputs found; the seed corpus is missing\n");
		return 1;
	}
	return r;
}
