/* The results contract (docs/design.md): <results>/<fs>.csv, header first, one
 * row per cell.  The first six columns are fixed; fslab writes four more:
 *
 *   filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,
 *   elapsed_s,cache_mode,status,flag
 *
 * and, when the run asked for them, the queue columns and the latency
 * columns below.
 * status is "ok", "failed: REASON" or "skipped: REASON" (throughput 0 when
 * not ok); flag is empty or a ';'-separated list of the markers below
 * (FSLAB_FLAG_*).  Fields holding ',' or '"' are quoted as RFC 4180
 * says.  The reader accepts any extra columns after the six (by name, in any
 * order) and ignores those it does not know. */
#ifndef FSLAB_RESULTS_H
#define FSLAB_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "names.h"
#include "spec.h"
#include "stats.h"

#define FSLAB_RESULTS_HEADER                                                          \
	"filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s," \
	"cache_mode,status,flag"
/* The flag column's markers, named once: fslab run writes them and fslab
 * report's flag table (report/load.c) gives each its letter and words.
 * docs/run.md "Flags" says when each is set. */
#define FSLAB_FLAG_PAGE_CACHE "page-cache"         /* served from memory: the device counters say so, or (without them) faster than the probe's bound */
#define FSLAB_FLAG_BEYOND_DEVICE "beyond-device"   /* with device counters: also faster than the device probe's bound */
#define FSLAB_FLAG_FUSE "fuse"                     /* a FUSE filesystem (fusefat) */
#define FSLAB_FLAG_BUFFERED_LOOP "buffered-loop"   /* on a loop device without direct I/O */
#define FSLAB_FLAG_THERMAL "thermal"               /* measured while the drive was hot */
#define FSLAB_FLAG_MEMORY "memory"                 /* cold, fsync or direct on tmpfs or ramfs: no device */
#define FSLAB_FLAG_BUFFERED "buffered"             /* ran buffered where the mode promised O_DIRECT */
#define FSLAB_FLAG_REDONE_STOPPED "redone-stopped" /* run again: the process was stopped while timed */
#define FSLAB_FLAG_REDONE_SLOW "redone-slow"       /* run again: a pass > 10x the median of its trials */

/* fslab run --latency adds five columns after flag: per-operation latency
 * of the cell in microseconds (p50, p99, p99.9, p99.99 from a log-bucket
 * histogram, within 6.25%, and the maximum; lib/stats.h FSLAB_LAT_*);
 * empty when the row is not ok or the pass too short for the quantile.
 * A CSV without lat_p999_us/lat_p9999_us reads them as empty. */
#define FSLAB_RESULTS_LATENCY_COLUMNS ",lat_p50_us,lat_p99_us,lat_p999_us,lat_p9999_us,lat_max_us"
/* A run holding queued or many-files tests adds three columns after flag
 * (before the latency columns): the queue depth and the number of
 * threads of the row (1 and 1 for a synchronous test), and operations a
 * second (I/O requests for IOzone's and the queued tests, files for the
 * many-files tests).  A CSV without them reads as depth 1, one thread
 * and the operations a second its throughput and record size give. */
#define FSLAB_RESULTS_QUEUE_COLUMNS ",iodepth,jobs,iops"
/* The device columns, last: what the pass's partition did, from the block
 * layer's counters (/sys/class/block/PART/stat) read outside the timed
 * region (docs/run.md "Device bytes" gives the counting window).
 * io_bytes: what the pass read or wrote as the program saw it;
 * dev_read_bytes, dev_write_bytes: what the partition read and wrote in
 * the window, which ends after a sync of the filesystem that follows the
 * pass; dev_write_timed_bytes: of those written, the ones that reached
 * the device by the end of the timed region.  Empty when unknown (no
 * counters for the target, or a row that is not ok). */
#define FSLAB_RESULTS_DEVICE_COLUMNS ",io_bytes,dev_read_bytes,dev_write_bytes,dev_write_timed_bytes"

/* The bounds of the queue columns, which are also the bounds of
 * fslab run --iodepth and --jobs (lib/settings.c's rows use these). */
#define FSLAB_RESULTS_IODEPTH_MAX 256
#define FSLAB_RESULTS_JOBS_MAX 64

/* The optional column groups of a header (fslab_results_write_header_ex). */
enum {
	FSLAB_RESULTS_COLS_QUEUE = 1 << 0,   /* FSLAB_RESULTS_QUEUE_COLUMNS */
	FSLAB_RESULTS_COLS_LATENCY = 1 << 1, /* FSLAB_RESULTS_LATENCY_COLUMNS */
	FSLAB_RESULTS_COLS_DEVICE = 1 << 2,  /* FSLAB_RESULTS_DEVICE_COLUMNS */
};

struct fslab_result_row {
	char filesystem[FSLAB_FS_NAME_MAX];
	enum fslab_test test;
	uint64_t file_kib;
	uint64_t record_kib;
	unsigned trial;           /* 1-based */
	double throughput_kib_s;  /* 0 when status is not ok */
	double elapsed_s;         /* timed region; negative when unknown */
	enum fslab_cache_mode cache; /* FSLAB_CACHE_MODE_INVALID when unknown */
	char status[256];
	char flag[64];
	/* The latency columns: latency true when the CSV has them; a value
	 * below 0 is empty. */
	bool latency;
	double lat_us[FSLAB_LAT_N];
	/* The queue columns: queue true when the CSV has them (the writer
	 * writes them when it is set).  iodepth and jobs are 1 without them;
	 * iops is below 0 when unknown (fslab_result_iops derives it). */
	bool queue;
	unsigned iodepth, jobs;
	double iops;
	/* The device columns: device true when the CSV has them (the writer
	 * writes them when it is set); a value below 0 is unknown. */
	bool device;
	int64_t io_bytes, dev_read_bytes, dev_write_bytes, dev_write_timed_bytes;
};

/* Operations a second of an ok row: its iops column, or else (a CSV
 * without it) throughput / record size; 0 for a row that is not ok. */
double fslab_result_iops(const struct fslab_result_row *row);

/* The last trial a run of trials trials, its stopping rule's cap max_trials
 * (0: none), can have written: fslab run --resume and fslab report refuse
 * a row past it. */
#define FSLAB_RESULTS_LAST_TRIAL(trials, max_trials) ((max_trials) > (trials) ? (max_trials) : (trials))

/* True when status is "ok". */
bool fslab_result_ok(const struct fslab_result_row *row);
/* What a row gives the stopping rule (bench/run_stop.c): not ok, ok, or
 * ok with a flag the report sets its figure aside by (any but
 * beyond-device and the redone ones). */
enum fslab_row_use { FSLAB_ROW_FAILED, FSLAB_ROW_OK, FSLAB_ROW_ASIDE };
enum fslab_row_use fslab_result_use(const struct fslab_result_row *row);

/* The header with the optional column groups cols (FSLAB_RESULTS_COLS_*;
 * 0: the ten columns). */
int fslab_results_write_header_ex(FILE *out, unsigned cols);
/* Writes one row (no flush: for streams that are not a run's journal). */
int fslab_results_write_row(FILE *out, const struct fslab_result_row *row);
/* A run's journal: writes one row and flushes it; fdatasync's the file
 * when the last sync (*synced_ns, fslab_now_ns(); 0: never, kept by the
 * caller per file) is FSLAB_RESULTS_SYNC_WINDOW_NS old or more, so the row
 * and all before it are on the disk before the next cell starts.  The
 * durability window: a crash or power loss loses at most the rows of the
 * last second and the cell in flight (a cell that takes longer than that
 * is synced as soon as it ends), and `fslab run --resume` continues from
 * the last row on the disk.  A sync per row cost 50% of the quick sweep's
 * wall time on this project's test VM (scripts/bench-engine.sh part 5:
 * ~5 ms cells); one a second is within its noise, under 2%.
 * 0 or -errno (the write's, the flush's or the sync's). */
int fslab_results_append_row(FILE *out, const struct fslab_result_row *row, uint64_t *synced_ns);
#define FSLAB_RESULTS_SYNC_WINDOW_NS UINT64_C(1000000000)

/* The physical bound on a figure, checked on every row read: 10 TiB/s in
 * KiB/s.  One thread copying from the page cache moves tens of GiB/s; the
 * fastest memory a CPU has (HBM, a few TiB/s across all its stacks) stays
 * below this, so a figure above it was not measured (a corrupt or forged
 * row), and the reader refuses it instead of ranking it. */
#define FSLAB_RESULTS_KIB_S_MAX (10.0 * 1024 * 1024 * 1024)

struct fslab_results_reader;

/* Opens a results CSV and checks its header.  On error returns a negative
 * errno and e names the file and line ("ext4.csv:1: expected column ..."). */
int fslab_results_open(const char *path, struct fslab_results_reader **rd, struct fslab_err *e);
/* The same for name in the directory dfd (path: how messages name it),
 * for readers of a results directory another user may write to: a symlink
 * is not followed (-ELOOP), anything but a regular file is refused
 * (-EINVAL, a FIFO without hanging). */
int fslab_results_open_at(int dfd, const char *name, const char *path,
			  struct fslab_results_reader **rd, struct fslab_err *e);
/* The same on an open stream (a file read by fd, or memory); the reader
 * owns f from here and fclose's it in fslab_results_close, also when the
 * open fails.  path names the file in messages. */
int fslab_results_open_stream(FILE *f, const char *path, struct fslab_results_reader **rd,
			      struct fslab_err *e);
/* Reads the next row: 1 a row, 0 end of file, negative errno on a bad row
 * (e: "file:line: what is wrong"): a figure that is not finite or above
 * FSLAB_RESULTS_KIB_S_MAX, a line holding a NUL byte, a field that does
 * not parse.  -EILSEQ (the NUL line) leaves the reader on the next line:
 * a caller may name the damage, count it and go on.  A last line without its newline is
 * an error (a truncated write), not a row. */
int fslab_results_next(struct fslab_results_reader *rd, struct fslab_result_row *row,
		       struct fslab_err *e);
/* The line the last fslab_results_next read (1: the header). */
unsigned long fslab_results_line(const struct fslab_results_reader *rd);
void fslab_results_close(struct fslab_results_reader *rd);

#endif
