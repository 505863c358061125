/* IOzone <-> fslab results: `fslab import iozone` and `fslab export iozone`.
 * Both return FSLAB_EXIT_* with, when it is not FSLAB_EXIT_OK, the error in
 * e for the command to print. */
#ifndef FSLAB_EXCHANGE_H
#define FSLAB_EXCHANGE_H

#include <stdbool.h>

#include "err.h"
#include "names.h"

struct fslab_import_opts {
	const char *report;    /* IOzone output (text report, with or without -R) */
	const char *fs;        /* filesystem name: writes <out>/<fs>.csv */
	const char *out;       /* results directory (created if missing) */
	enum fslab_cache_mode cache; /* for the rows and manifest (IOzone -a: warm) */
	bool force;            /* replace an existing <fs>.csv (never the report read
				* or a state file) */
	int argc;              /* the command line, recorded in manifest.json */
	char **argv;
};

/* Parses the report, then writes <out>/<fs>.csv (each cell one trial: a
 * value > 0 is an "ok" row, IOzone's 0 a "skipped: ..." row; cells absent
 * from the report get no row) and creates or extends <out>/manifest.json.
 * Both files are written atomically; nothing is written on bad input.  A
 * manifest.json that an earlier import with the same cache mode did not
 * write is refused, never rewritten. */
int fslab_import_iozone(const struct fslab_import_opts *o, struct fslab_err *e);

/* Writes one results CSV in IOzone's text report layout (plus the -R
 * section when excel) to out_path (atomically) or stdout when NULL.  Each
 * cell is the median of its ok trials; a cell without an ok trial is 0.
 * An existing out_path is replaced only with force, and never when it is
 * the CSV read or a lab state file. */
int fslab_export_iozone(const char *csv, const char *out_path, bool excel, bool force,
			struct fslab_err *e);

#endif
