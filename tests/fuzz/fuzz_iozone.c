/* Fuzz target: the IOzone report importer (report/iozone.h), which reads
 * text a user downloaded from anywhere (`fslab import`).  Properties
 * checked on every input:
 *  - fslab_iozone_parse returns 0 or a negative errno with a message, and
 *    reads nothing outside the buffer (the input is not NUL-terminated;
 *    ASan);
 *  - an accepted report has 1..FSLAB_IOZONE_MAX_CELLS cells, sorted by
 *    file, record, test, without duplicates, with known tests and finite,
 *    non-negative throughputs;
 *  - fslab_iozone_write (text table, then also with the -R section) writes
 *    it as a report that parses back to the same cells (`fslab export`
 *    then `fslab import` loses nothing), throughputs rounded to whole
 *    KiB/s as IOzone prints them. */
#include "fuzz_check.h"
#include "iozone.h"

#include <errno.h>
#include <math.h>

static int cell_order(const struct fslab_iozone_cell *a, const struct fslab_iozone_cell *b)
{
	if (a->file_kib != b->file_kib)
		return a->file_kib < b->file_kib ? -1 : 1;
	if (a->record_kib != b->record_kib)
		return a->record_kib < b->record_kib ? -1 : 1;
	return a->test < b->test ? -1 : a->test > b->test;
}

static void check_sane(const struct fslab_iozone_report *rep)
{
	FUZZ_CHECK(rep->n >= 1 && rep->n <= FSLAB_IOZONE_MAX_CELLS);
	FUZZ_CHECK(memchr(rep->command, '\0', sizeof(rep->command)));
	for (size_t i = 0; i < rep->n; i++) {
		const struct fslab_iozone_cell *c = &rep->cells[i];
		FUZZ_CHECK(c->test >= 0 && c->test < FSLAB_TEST_MAX);
		FUZZ_CHECK(isfinite(c->kib_s) && c->kib_s >= 0);
		if (i)
			FUZZ_CHECK(cell_order(&rep->cells[i - 1], c) < 0);
	}
}

static void check_round_trip(const struct fslab_iozone_report *rep, bool excel)
{
	struct fslab_iozone_report back = { 0 };
	char *text = NULL;
	struct fslab_err err = FSLAB_ERR_INIT;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(fslab_iozone_write(f, rep, excel) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	r = fslab_iozone_parse(text, len, &back, &err);
	if (r != 0) {
		fprintf(stderr, "written report does not parse back (excel %d): %s\n--- written:\n%s",
			excel, err.msg, text);
		abort();
	}
	/* Cells missing inside a row come back as 0 ("not measured"), and a
	 * row of nothing but 0 is left out as IOzone leaves it out: every
	 * measured cell must come back with its value; extra ones must be 0. */
	size_t j = 0;
	for (size_t i = 0; i < rep->n; i++) {
		const struct fslab_iozone_cell *c = &rep->cells[i];
		while (j < back.n && cell_order(&back.cells[j], c) < 0) {
			FUZZ_CHECK(back.cells[j].kib_s == 0);
			j++;
		}
		if (c->kib_s == 0 && (j >= back.n || cell_order(&back.cells[j], c) != 0))
			continue;
		FUZZ_CHECK(j < back.n && cell_order(&back.cells[j], c) == 0);
		if (c->kib_s < 9e15)
			FUZZ_CHECK(fabs(back.cells[j].kib_s - llround(c->kib_s)) < 1);
		j++;
	}
	fslab_iozone_report_free(&back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fslab_iozone_report rep = { 0 };
	struct fslab_err err = FSLAB_ERR_INIT;
	/* An exact-size copy: the parser must not read a terminator that is
	 * not there. */
	char *text = malloc(size ? size : 1);
	int r;

	FUZZ_CHECK(text != NULL);
	memcpy(text, data, size);
	r = fslab_iozone_parse(text, size, &rep, &err);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM || r == -E2BIG);
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(rep.cells == NULL && rep.n == 0);
	} else {
		FUZZ_CHECK(r == 0);
		check_sane(&rep);
		if (rep.n <= 4096) {
			check_round_trip(&rep, false);
			check_round_trip(&rep, true);
		}
		fslab_iozone_report_free(&rep);
	}
	free(text);
	return 0;
}
