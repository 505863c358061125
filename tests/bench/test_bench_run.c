/* fslab run end to end on temporary directories (--dir): the CSV contract,
 * the manifest, resume after SIGKILL, SIGINT, direct mode, --until-ci,
 * usage errors, and (root) a full filesystem giving failed rows. */
#include "testutil.h"

#include "clock.h"
#include "names.h"
#include "results.h"
#include "fslab/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *tmp; /* holds a/, b/ and out dirs */
static char dir_a[600], dir_b[600], arg_a[700], arg_b[700];

static void setup(void)
{
	tmp = ft_mkdtemp("fslab-run");
	ck_assert_ptr_nonnull(tmp);
	snprintf(dir_a, sizeof(dir_a), "%s/a", tmp);
	snprintf(dir_b, sizeof(dir_b), "%s/b", tmp);
	ck_assert_int_eq(mkdir(dir_a, 0755), 0);
	ck_assert_int_eq(mkdir(dir_b, 0755), 0);
	snprintf(arg_a, sizeof(arg_a), "a=%s", dir_a);
	snprintf(arg_b, sizeof(arg_b), "b=%s", dir_b);
}

static void teardown(void)
{
	ft_rm_rf(tmp);
	free(tmp);
}

static char *out_path(const char *name)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", tmp, name), 0);
	return p;
}

/* A tmpfs of the given size mounted on a new directory name under the
 * test's directory (returned, to free); arg gets "key=<dir>" for --dir
 * when key is not NULL. */
static char *tmpfs_dir(const char *name, const char *size, const char *key, char *arg, size_t len)
{
	char *mnt = out_path(name), opts[32];

	snprintf(opts, sizeof(opts), "size=%s", size);
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_msg(mount("fslab-test", mnt, "tmpfs", 0, opts) == 0, "mount tmpfs %s: %s", mnt,
		      strerror(errno));
	if (key)
		snprintf(arg, len, "%s=%s", key, mnt);
	return mnt;
}

/* One key per row: "test file record trial". */
struct keyset {
	char **keys;
	size_t n;
	size_t ok, failed, skipped;
};

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void keyset_load(struct keyset *ks, const char *csv, const char *fs)
{
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	struct fslab_err fe = FSLAB_ERR_INIT;
	int r;

	memset(ks, 0, sizeof(*ks));
	r = fslab_results_open(csv, &rd, &fe);
	ck_assert_msg(r == 0, "%s", fe.msg);
	while ((r = fslab_results_next(rd, &row, &fe)) == 1) {
		char *k;
		ck_assert_str_eq(row.filesystem, fs);
		ck_assert_int_ge(asprintf(&k, "%s %llu %llu %u", fslab_test_to_string(row.test),
					  (unsigned long long)row.file_kib,
					  (unsigned long long)row.record_kib, row.trial),
				 0);
		ks->keys = realloc(ks->keys, (ks->n + 1) * sizeof(*ks->keys));
		ks->keys[ks->n++] = k;
		if (fslab_result_ok(&row))
			ks->ok++;
		else if (strncmp(row.status, "failed: ", 8) == 0)
			ks->failed++;
		else if (strncmp(row.status, "skipped: ", 9) == 0)
			ks->skipped++;
		else
			ck_abort_msg("bad status '%s'", row.status);
	}
	ck_assert_msg(r == 0, "%s", fe.msg);
	fslab_results_close(rd);
	qsort(ks->keys, ks->n, sizeof(*ks->keys), key_cmp);
	for (size_t i = 1; i < ks->n; i++)
		ck_assert_msg(strcmp(ks->keys[i - 1], ks->keys[i]) != 0, "cell '%s' twice in %s",
			      ks->keys[i], csv);
}

static void keyset_free(struct keyset *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->keys[i]);
	free(ks->keys);
}

static void keyset_equal(const struct keyset *a, const struct keyset *b)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		ck_assert_str_eq(a->keys[i], b->keys[i]);
}

static json_object *manifest(const char *out)
{
	char p[1024];
	json_object *root;

	snprintf(p, sizeof(p), "%s/manifest.json", out);
	root = json_object_from_file(p);
	ck_assert_msg(root != NULL, "%s is not JSON", p);
	return root;
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "manifest key '%s' missing", key);
	return v;
}

/* Starts fslab in the background (output discarded); returns its pid. */
static pid_t spawn_fslab(const char *const *args)
{
	const char *argv[64];
	size_t n = 0;
	pid_t pid;

	argv[n++] = ft_fslab_bin();
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static size_t file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Waits until the two CSVs of out hold at least rows lines together, or
 * the child exits; returns true when the child is still running. */
static bool wait_rows(pid_t pid, const char *out, size_t rows)
{
	char a[1024], b[1024];

	snprintf(a, sizeof(a), "%s/a.csv", out);
	snprintf(b, sizeof(b), "%s/b.csv", out);
	for (int i = 0; i < 3000; i++) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			return false;
		if (file_lines(a) + file_lines(b) >= rows)
			return true;
		sleep_ms(5);
	}
	return true;
}

START_TEST(csv_and_manifest)
{
	struct ft_output o;
	char *out = out_path("out");
	struct keyset ka, kb;
	char line[256];
	FILE *f;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--dir", arg_b, "--out", out,
				  "--sweep", "quick", "--file-sizes", "64K-256K", "--record-sizes",
				  "4K-64K", "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "status %d: %s", o.status, o.err);
	ck_assert_str_eq(o.out, "");
	ft_output_free(&o);

	char csv[1024];
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	f = fopen(csv, "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	/* the device columns where the directory's device has counters */
	if (strstr(line, "dev_read_bytes"))
		ck_assert_str_eq(line, FSLAB_RESULTS_HEADER FSLAB_RESULTS_DEVICE_COLUMNS "\n");
	else
		ck_assert_str_eq(line, "filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,"
				       "elapsed_s,cache_mode,status,flag\n");
	keyset_load(&ka, csv, "a");
	snprintf(csv, sizeof(csv), "%s/b.csv", out);
	keyset_load(&kb, csv, "b");
	/* 64K, 128K, 256K files x 4K..64K records = 15 cells, 13 tests each */
	ck_assert_uint_eq(ka.n, 15 * 13);
	ck_assert_uint_eq(ka.ok, 15 * 13);
	keyset_equal(&ka, &kb);
	/* every planned cell and test */
	for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++)
		for (unsigned fk = 64; fk <= 256; fk *= 2)
			for (unsigned rk = 4; rk <= 64; rk *= 2) {
				char k[128];
				char *kp = k;
				snprintf(k, sizeof(k), "%s %u %u 1", fslab_test_to_string(t), fk, rk);
				ck_assert_msg(bsearch(&kp, ka.keys, ka.n, sizeof(char *), key_cmp),
					      "missing %s", k);
			}
	keyset_free(&ka);
	keyset_free(&kb);
	ck_assert_int_eq(ft_dir_entries(dir_a), 0);
	ck_assert_int_eq(ft_dir_entries(dir_b), 0);

	json_object *m = manifest(out), *sw, *fsa, *fs0, *mach;
	static const char *const top[] = { "fslab_version", "command", "started_at", "finished_at",
					   "cache_mode", "trials", "until_ci_pct", "max_trials",
					   "seed", "sweep", "machine", "page_cache_factor",
					   "filesystems", "spec" };
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		jget(m, top[i]);
	ck_assert_str_eq(json_object_get_string(jget(m, "cache_mode")), "warm");
	ck_assert(json_object_is_type(jget(m, "finished_at"), json_type_string));
	ck_assert(json_object_is_type(jget(m, "until_ci_pct"), json_type_null));
	ck_assert_double_eq(json_object_get_double(jget(m, "page_cache_factor")), 1.5);
	/* IOzone's calls and the per-filesystem flush by default; --dir has no
	 * block device to fsync, and the manifest says so */
	ck_assert_str_eq(json_object_get_string(jget(m, "io_mode")), "seek");
	ck_assert_str_eq(json_object_get_string(jget(m, "sync_policy")), "fs");
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "sync_note")),
				     "syncfs only"));
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(jget(m, "command"), 0)), "run");
	sw = jget(m, "sweep");
	ck_assert_str_eq(json_object_get_string(jget(sw, "preset")), "quick");
	ck_assert_int_eq(json_object_get_int(jget(sw, "file_min_kib")), 64);
	ck_assert_int_eq(json_object_get_int(jget(sw, "file_max_kib")), 256);
	ck_assert_int_eq(json_object_get_int(jget(sw, "record_min_kib")), 4);
	ck_assert_int_eq(json_object_get_int(jget(sw, "record_max_kib")), 64);
	ck_assert_int_eq((int)json_object_array_length(jget(sw, "tests")), 13);
	jget(sw, "keep_small_records");
	mach = jget(m, "machine");
	static const char *const mk[] = { "hostname", "kernel", "cpu_model", "cpus", "memory_kib" };
	for (size_t i = 0; i < sizeof(mk) / sizeof(mk[0]); i++)
		jget(mach, mk[i]);
	fsa = jget(m, "filesystems");
	ck_assert_int_eq((int)json_object_array_length(fsa), 2);
	fs0 = json_object_array_get_idx(fsa, 0);
	static const char *const fk[] = { "name", "type", "path", "device", "mount_method",
					  "mkfs_options", "mount_options", "mkfs_tool_version",
					  "device_model", "device_serial", "device_size_bytes",
					  "device_write_kib_s", "device_read_kib_s", "device_probe",
					  "cache_drop_method" };
	for (size_t i = 0; i < sizeof(fk) / sizeof(fk[0]); i++)
		jget(fs0, fk[i]);
	ck_assert_str_eq(json_object_get_string(jget(fs0, "device_probe")), "skipped");
	ck_assert_str_eq(json_object_get_string(jget(fs0, "mount_method")), "kernel");
	json_object_put(m);
	free(out);
}
END_TEST

START_TEST(resume_after_sigkill)
{
	char *full = out_path("full"), *killed = out_path("killed");
	const char *common[] = { "--dir", arg_a, "--dir", arg_b, "--sweep", "quick", "--file-sizes",
				 "64K-8M", "--record-sizes", "16K-1M", "--trials", "2",
				 "--cache", "fsync", "--no-device-probe", "--quiet", NULL };
	const char *args[40];
	struct keyset kf, kk;
	char csv[1024];
	size_t n = 0;
	int st;
	bool interrupted_once = false;

	args[n++] = "run";
	for (size_t i = 0; common[i]; i++)
		args[n++] = common[i];
	args[n++] = "--out";
	args[n++] = full;
	args[n] = NULL;
	/* uninterrupted */
	pid_t pid = spawn_fslab(args);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* killed with SIGKILL twice, resumed after each */
	args[n - 1] = killed;
	for (int round = 0; round < 3; round++) {
		const char *resume[] = { "run", "--resume", killed, "--quiet", NULL };
		pid = spawn_fslab(round == 0 ? args : resume);
		if (round < 2 && wait_rows(pid, killed, 40 + 150 * (size_t)round)) {
			kill(pid, SIGKILL);
			interrupted_once = true;
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		if (round == 2)
			ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "resume status %d", st);
	}
	ck_assert_msg(interrupted_once, "the run finished before it could be killed");

	for (int f = 0; f < 2; f++) {
		const char *name = f ? "b" : "a";
		snprintf(csv, sizeof(csv), "%s/%s.csv", full, name);
		keyset_load(&kf, csv, name);
		snprintf(csv, sizeof(csv), "%s/%s.csv", killed, name);
		keyset_load(&kk, csv, name);
		ck_assert_uint_gt(kf.n, 0);
		ck_assert_uint_eq(kk.failed, 0);
		keyset_equal(&kf, &kk);
		keyset_free(&kf);
		keyset_free(&kk);
	}
	/* the killed runs' test files are gone */
	ck_assert_int_eq(ft_dir_entries(dir_a), 0);
	ck_assert_int_eq(ft_dir_entries(dir_b), 0);
	json_object *m = manifest(killed);
	ck_assert_int_ge(json_object_get_int(jget(m, "sessions")), 2);
	ck_assert(json_object_is_type(jget(m, "finished_at"), json_type_string));
	json_object_put(m);
	free(full);
	free(killed);
}
END_TEST

/* A CSV written before the device columns (its header without them)
 * resumes: the rows the resumed run adds have its header's columns, and
 * the whole file reads. */
START_TEST(resume_keeps_an_old_csvs_columns)
{
	char *out = out_path("old"), csv[1024], *text, *p;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	struct ft_output o;
	size_t rows = 0;
	FILE *f;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K-128K",
				  "--record-sizes", "64K", "--tests", "write,read", "--trials", "1", "--stop",
				  "fixed", "--no-device-probe", "--steady-state", "off", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	/* the older CSV: the ten columns, the 64K cell's two rows */
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	text = ft_read_text(csv);
	f = fopen(csv, "r+");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ftruncate(fileno(f), 0), 0);
	p = text;
	for (int line = 0; line < 3; line++) {
		char *nl = strchr(p, '\n'), *c = p;

		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		for (int k = 0; k < 9 && c; k++)
			c = strchr(c + 1, ',');
		ck_assert_ptr_nonnull(c);
		if ((c = strchr(c + 1, ',')))
			*c = '\0'; /* the columns after flag */
		fprintf(f, "%s\n", p);
		p = nl + 1;
	}
	ck_assert_int_eq(fclose(f), 0);
	free(text);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert(fslab_result_ok(&row));
		ck_assert(!row.device);
		rows++;
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(rows, 4);
	free(out);
}
END_TEST

START_TEST(sigint_stops_after_the_cell)
{
	char *out = out_path("int");
	const char *args[] = { "run", "--dir", arg_a, "--dir", arg_b, "--sweep", "quick",
			       "--file-sizes", "64K-8M", "--record-sizes", "16K-1M", "--cache",
			       "fsync", "--no-device-probe", "--out", out, NULL };
	struct ft_output o;
	int st;

	pid_t pid = spawn_fslab(args);
	ck_assert_msg(wait_rows(pid, out, 30), "the run finished before SIGINT");
	kill(pid, SIGINT);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
	/* no test file left, every row complete, manifest says interrupted */
	ck_assert_int_eq(ft_dir_entries(dir_a), 0);
	ck_assert_int_eq(ft_dir_entries(dir_b), 0);
	json_object *m = manifest(out);
	ck_assert(json_object_get_boolean(jget(m, "interrupted")));
	ck_assert(json_object_is_type(jget(m, "finished_at"), json_type_null));
	json_object_put(m);
	struct keyset k;
	char csv[1024];
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&k, csv, "a");
	keyset_free(&k);

	/* a run made with --dir used no lab: a --state would be ignored, so
	 * it is refused, naming what to drop, and nothing is run */
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--state", "/nonexistent/state.json",
				  "--quiet", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "made with --dir") && strstr(o.err, "drop --state"), "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&k, csv, "a");
	/* 64K..8M files, 16K..1M records: 3+4+5+6+7+7+7+7 = 46 cells */
	ck_assert_uint_eq(k.n, 46 * 13);
	keyset_free(&k);
	free(out);
}
END_TEST

/* SIGINT stops a run within a couple of seconds even inside a long pass
 * (the engine checks the stop flag per request, the warm-up's too): a
 * row of passes of 30 s, SIGINT 2 s in.  The run exits with the
 * interruption's status within 5 s, its manifest says interrupted and
 * its CSV is there for --resume (an engine that finished the pass first
 * took 28 s more). */
START_TEST(sigint_stops_inside_a_long_pass)
{
	char arg[600], csv[1024];
	char *mnt = tmpfs_dir("long", "64m", "a", arg, sizeof(arg)), *out = out_path("long-int");
	const char *args[] = { "run", "--dir", arg, "--sweep", "cdm", "--cdm-size", "16M", "--cdm-time", "30",
			       "--cache", "warm", "--no-device-probe", "--out", out, NULL };
	pid_t pid = spawn_fslab(args), w = 0;
	double t0;
	int st = 0;

	sleep_ms(2000);
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	t0 = fslab_now();
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 && fslab_now() - t0 < 5)
		sleep_ms(20);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(w == pid, "the run was still going 5 s after SIGINT");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
	json_object *m = manifest(out);
	ck_assert(json_object_get_boolean(jget(m, "interrupted")));
	json_object_put(m);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	ck_assert_int_eq(access(csv, R_OK), 0);
	free(mnt);
	free(out);
}
END_TEST

START_TEST(direct_mode_runs_stdio_buffered)
{
	char *out = out_path("direct");
	struct ft_output o;
	struct keyset k;
	char csv[1024];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K-128K",
				  "--record-sizes", "4K-8K", "--cache", "direct", "--trials", "1", "--no-device-probe",
				  "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&k, csv, "a");
	ck_assert_uint_eq(k.n, 4 * 13);
	ck_assert_uint_eq(k.failed, 0);
	keyset_free(&k);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		bool stdio = row.test >= FSLAB_TEST_FWRITE;
		ck_assert_int_eq(row.cache, FSLAB_CACHE_DIRECT);
		if (stdio) {
			/* IOzone -I runs them buffered: so does fslab, and says so */
			ck_assert_msg(fslab_result_ok(&row), "%s", row.status);
			ck_assert_msg(strstr(row.flag, "buffered") != NULL, "flag '%s'", row.flag);
		} else {
			ck_assert_msg(strstr(row.flag, "buffered") == NULL, "flag '%s'", row.flag);
			/* O_DIRECT works on this filesystem, or every row says why not */
			ck_assert_msg(fslab_result_ok(&row) || strstr(row.status, "O_DIRECT"), "%s",
				      row.status);
		}
	}
	fslab_results_close(rd);
	free(out);
}
END_TEST

START_TEST(latency_columns)
{
	char *out = out_path("latency");
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	char csv[1024], head[512];
	size_t n = 0;
	FILE *f;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K-128K",
				  "--record-sizes", "4K-64K", "--tests", "write,random_read,fread",
				  "--cache", "warm", "--trials", "1", "--latency", "--io", "positional",
				  "--sync", "global", "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	f = fopen(csv, "r");
	ck_assert_ptr_nonnull(fgets(head, sizeof(head), f));
	fclose(f);
	ck_assert_str_eq(head, strstr(head, "dev_read_bytes")
				       ? FSLAB_RESULTS_HEADER FSLAB_RESULTS_LATENCY_COLUMNS FSLAB_RESULTS_DEVICE_COLUMNS "\n"
				       : FSLAB_RESULTS_HEADER FSLAB_RESULTS_LATENCY_COLUMNS "\n");
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert(fslab_result_ok(&row));
		ck_assert(row.latency);
		ck_assert_msg(row.lat_us[FSLAB_LAT_P50] > 0 && row.lat_us[FSLAB_LAT_P50] <= row.lat_us[FSLAB_LAT_P99] &&
				      row.lat_us[FSLAB_LAT_P99] <= row.lat_us[FSLAB_LAT_MAX],
			      "p50 %g p99 %g max %g", row.lat_us[FSLAB_LAT_P50], row.lat_us[FSLAB_LAT_P99],
			      row.lat_us[FSLAB_LAT_MAX]);
		n++;
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(n, (5 + 5) * 3); /* 64K and 128K files x 4K-64K records; 3 tests */
	json_object *m = manifest(out);
	ck_assert(json_object_get_boolean(jget(m, "latency")));
	/* --io and --sync are recorded; the CSV is the same either way */
	ck_assert_str_eq(json_object_get_string(jget(m, "io_mode")), "positional");
	ck_assert_str_eq(json_object_get_string(jget(m, "sync_policy")), "global");
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(fs0, "sync_note")), "sync()"));
	json_object_put(m);
	free(out);
}
END_TEST

/* --pass-gap: a pause before every pass, outside its timer.  4 passes
 * (2 tests x 2 trials) of a 64K file take milliseconds each, so the run
 * lasts at least 4 pauses while no row's timed region holds one; the
 * manifest records the pause and the resume of the finished run keeps it
 * (a --pass-gap given to --resume is refused with the rest). */
START_TEST(pass_gap_pauses_outside_the_timer)
{
	char *out = out_path("gap");
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	char csv[1024];
	size_t n = 0;
	double t0, wall;

	t0 = fslab_now();
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K",
				  "--record-sizes", "64K", "--tests", "write,read", "--cache", "warm", "--trials",
				  "2", "--stop", "fixed", "--pass-gap", "400", "--no-device-probe", "--quiet", NULL),
			 0);
	wall = fslab_now() - t0;
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	ck_assert_msg(wall >= 4 * 0.4, "4 passes with --pass-gap 400 took %.3f s", wall);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_msg(fslab_result_ok(&row), "%s", row.status);
		ck_assert_msg(row.elapsed_s >= 0 && row.elapsed_s < 0.4, "%s trial %u timed %.3f s: the pause is in it",
			      fslab_test_to_string(row.test), row.trial, row.elapsed_s);
		n++;
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(n, 4);
	json_object *m = manifest(out);
	ck_assert_int_eq(json_object_get_int(jget(m, "pass_gap_ms")), 400);
	json_object_put(m);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	m = manifest(out);
	ck_assert_int_eq(json_object_get_int(jget(m, "pass_gap_ms")), 400);
	json_object_put(m);
	free(out);
}
END_TEST

START_TEST(until_ci_keeps_every_sample)
{
	char *out = out_path("ci");
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	char csv[1024];
	unsigned max_trial[8] = { 0 }, count[8] = { 0 };

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K-128K",
				  "--record-sizes", "32K-64K", "--tests", "write,read", "--cache", "warm",
				  "--until-ci", "0.001", "--max-trials", "4", "--no-device-probe", "--quiet",
				  NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		unsigned cell = (row.file_kib == 128) * 4 + (row.record_kib == 64) * 2 +
				(row.test == FSLAB_TEST_READ);
		ck_assert(row.test == FSLAB_TEST_WRITE || row.test == FSLAB_TEST_READ);
		count[cell]++;
		if (row.trial > max_trial[cell])
			max_trial[cell] = row.trial;
	}
	fslab_results_close(rd);
	/* 0.001% is never reached on a busy machine: 4 samples each, trials 1..4 */
	for (int i = 0; i < 8; i++) {
		ck_assert_uint_eq(count[i], 4);
		ck_assert_uint_eq(max_trial[i], 4);
	}
	json_object *m = manifest(out);
	ck_assert_double_eq(json_object_get_double(jget(m, "until_ci_pct")), 0.001);
	ck_assert_int_eq(json_object_get_int(jget(m, "max_trials")), 4);
	json_object_put(m);

	/* a wide target converges at the minimum of two samples */
	char *out2 = out_path("ci2");
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out2, "--file-sizes", "64K",
				  "--record-sizes", "64K", "--tests", "write", "--cache", "warm", "--trials",
				  "2", "--until-ci", "100", "--max-trials", "5", "--no-device-probe", "--quiet",
				  NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out2);
	ck_assert_uint_le(file_lines(csv), 1 + 5);
	ck_assert_uint_ge(file_lines(csv), 1 + 2);
	free(out);
	free(out2);
}
END_TEST

/* The default rule (--stop decided, what --max-trials alone asks for):
 * the manifest says, for every test of every cell, why it stopped and
 * after how many trials; a test ran no trial past its stop unless its
 * partner in the test file (a second pass) was still open, and none past
 * the cap. */
START_TEST(decided_rule_records_why_each_test_stopped)
{
	char *out = out_path("decided");
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	char csv[1024];
	unsigned rows[2][4][FSLAB_TEST_MAX] = { { { 0 } } };

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--dir", arg_b, "--out", out,
				  "--file-sizes", "64K-128K", "--record-sizes", "32K-64K", "--cache", "warm",
				  "--max-trials", "6", "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	for (int f = 0; f < 2; f++) {
		snprintf(csv, sizeof(csv), "%s/%s.csv", out, f ? "b" : "a");
		ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
		while (fslab_results_next(rd, &row, NULL) == 1)
			rows[f][(row.file_kib == 128) * 2 + (row.record_kib == 64)][row.test]++;
		fslab_results_close(rd);
	}
	json_object *m = manifest(out);
	ck_assert_str_eq(json_object_get_string(jget(m, "stop")), "decided");
	ck_assert_int_eq(json_object_get_int(jget(m, "trials")), 3);
	ck_assert_int_eq(json_object_get_int(jget(m, "max_trials")), 6);
	json_object *st = jget(m, "stopping"), *sum = jget(st, "summary"), *cells = jget(st, "cells");
	ck_assert_str_eq(json_object_get_string(jget(st, "rule")), "decided");
	ck_assert_int_eq(json_object_get_int(jget(sum, "open")), 0);
	ck_assert_int_eq(json_object_get_int(jget(sum, "decided")) + json_object_get_int(jget(sum, "undecidable")) +
				 json_object_get_int(jget(sum, "max_trials")),
			 4 * FSLAB_TEST_IOZONE_COUNT);
	ck_assert_uint_eq(json_object_array_length(cells), 4);
	ck_assert(fabs(json_object_get_double(jget(st, "futility")) - FSLAB_STOP_FUTILITY) < 1e-12);
	int und_sum = 0;
	for (size_t i = 0; i < 4; i++) {
		json_object *cell = json_object_array_get_idx(cells, i);
		unsigned ci = (json_object_get_int(jget(cell, "file_kib")) == 128) * 2 +
			      (json_object_get_int(jget(cell, "record_kib")) == 64);
		for (int t = 0; t < FSLAB_TEST_IOZONE_COUNT; t++) {
			json_object *one = jget(jget(cell, "tests"), fslab_test_to_string(t));
			const char *why = json_object_get_string(jget(one, "why"));
			unsigned n = (unsigned)json_object_get_int(jget(one, "trials"));

			ck_assert_msg(n >= 3 && n <= 6, "%s: %u trials", fslab_test_to_string(t), n);
			ck_assert_msg(strcmp(why, "max_trials") != 0 || n == 6, "%s: max_trials after %u",
				      fslab_test_to_string(t), n);
			/* why it stopped, in counts: an undecidable test has
			 * every comparison decided or undecidable, some of them
			 * undecidable */
			int pairs = json_object_get_int(jget(one, "comparisons"));
			int dec = json_object_get_int(jget(one, "decided"));
			int und = json_object_get_int(jget(one, "undecidable"));
			ck_assert_msg(json_object_object_get_ex(one, "undecidable", NULL), "%s: no undecidable count",
				      fslab_test_to_string(t));
			if (strcmp(why, "undecidable") == 0)
				ck_assert_msg(und > 0 && dec + und == pairs, "%s: undecidable with %d+%d of %d",
					      fslab_test_to_string(t), dec, und, pairs);
			if (strcmp(why, "decided") == 0)
				ck_assert_msg(und == 0 && dec == pairs, "%s: decided with %d of %d",
					      fslab_test_to_string(t), dec, pairs);
			und_sum += und;
			for (int f = 0; f < 2; f++)
				ck_assert_msg(rows[f][ci][t] >= n && rows[f][ci][t] <= 6,
					      "%s stopped after %u trials (%s) but has %u rows",
					      fslab_test_to_string(t), n, why, rows[f][ci][t]);
		}
	}
	ck_assert_int_eq(json_object_get_int(jget(sum, "comparisons_undecidable")), und_sum);
	int decided = json_object_get_int(jget(sum, "decided"));
	json_object_put(m);

	/* --resume keeps the rule and, judging the same trials again, comes to
	 * the same record (a trial whose tests all ran is not the end) */
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	m = manifest(out);
	ck_assert_str_eq(json_object_get_string(jget(m, "stop")), "decided");
	sum = jget(jget(m, "stopping"), "summary");
	ck_assert_int_eq(json_object_get_int(jget(sum, "open")), 0);
	ck_assert_int_eq(json_object_get_int(jget(sum, "decided")), decided);
	json_object_put(m);
	free(out);
}
END_TEST

/* The share done after the first of 3 fixed trials is about a third with
 * the many-files tests in the plan too: they run in one cell per file
 * size, and the trials to come are priced on each cell's own tests (they
 * were once priced on every cell, which put the share after trial 1 at
 * 8% on a fusefat lab and the demo's ETA at 18 minutes for 4). */
START_TEST(eta_prices_each_cells_own_tests)
{
	char *out = out_path("eta-files");
	struct ft_output o;
	double pct = -1;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--tests", "all,files", "--file-sizes",
				  "64K-256K", "--cache", "warm", "--trials", "3", "--stop", "fixed",
				  "--no-device-probe", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	const char *l = strstr(o.err, "trial 1/3"), *next;

	/* the last line of trial 1 (a line per cell) */
	while (l && (next = strstr(l + 1, "trial 1/3")))
		l = next;
	ck_assert_msg(l && strstr(l, "done_pct="), "no pass line of trial 1 in:\n%s", o.err);
	ck_assert_int_eq(sscanf(strstr(l, "done_pct="), "done_pct=%lf", &pct), 1);
	ck_assert_msg(pct > 20 && pct < 50, "after trial 1 of 3, %g%% of the plan is done", pct);
	ft_output_free(&o);
	free(out);
}
END_TEST

/* The ETA covers the whole plan: off a terminal each pass's line says
 * eta_s=, eta_lo_s=, eta_hi_s= and done_pct=.  The figure counts the
 * trials past the minimum as likely (one in RUN_COST_PAST_MIN of a test
 * still open), the range goes from the minimum to the cap (here 3 and 6:
 * at most twice as wide), and the share done is of the figure's work.
 * While work is left the ETA is never 0, the figure stays inside the
 * range, the range narrows as tests stop, and the share of the plan done
 * never goes back (100 only at the end). */
START_TEST(eta_covers_the_whole_plan)
{
	char *out = out_path("eta");
	struct ft_output o;
	double lo[64], hi[64], pct[64], pt[64];
	unsigned trial[64];
	size_t n = 0;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--dir", arg_b, "--out", out,
				  "--file-sizes", "256K-1M", "--record-sizes", "64K-256K", "--cache", "fsync",
				  "--max-trials", "6", "--no-device-probe", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	for (const char *l = o.err; l && *l && n < 64; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		const char *t = strstr(l, "trial "), *e = strstr(l, "eta_s="), *nl = strchr(l, '\n');

		if (!e || (nl && e > nl) || !t || t > e)
			continue;
		ck_assert_int_eq(sscanf(t, "trial %u/", &trial[n]), 1);
		ck_assert_int_eq(sscanf(e, "eta_s=%lf eta_lo_s=%lf eta_hi_s=%lf done_pct=%lf", &pt[n], &lo[n],
					&hi[n], &pct[n]),
				 4);
		n++;
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(pt[i] >= lo[i] && pt[i] <= hi[i], "pass %zu: figure %g, range %g..%g", i, pt[i], lo[i], hi[i]);
	/* 3 trials certain, 3 more possible: the cap doubles the time left */
	ck_assert_msg(hi[0] <= 2.2 * lo[0] + 1, "the first range %g..%g is more than twice as wide", lo[0], hi[0]);
	size_t k1 = 0; /* the last line of trial 1 (a line per cell: 9 cells) */

	while (k1 + 1 < n && trial[k1 + 1] == 1)
		k1++;
	ck_assert_msg(n >= 27 && k1 == 8, "%zu lines, %zu of trial 1, in:\n%s", n, k1 + 1, o.err); /* 3 trials at least */
	/* the share is of the planned time, and the first trial's time is
	 * the machine's (a loaded CI runner makes it slower than the model's
	 * guess for the rest): a sixth of the plan, within a factor of 2 */
	ck_assert_msg(pct[k1] > 100.0 / 12 && pct[k1] < 100.0 / 3,
		      "after the first trial %g%% of the plan is done (about a sixth with 6 trials planned)",
		      pct[k1]);
	ck_assert_msg(hi[0] > lo[0] || hi[0] < 2, "no range after the first pass: %g..%g", lo[0], hi[0]);
	/* a pass line cannot know the rule will stop every test at the next
	 * look: only the cap's last pass is sure to be the end */
	for (size_t i = 0; i < n; i++) {
		if (pct[i] < 100)
			ck_assert_msg(lo[i] >= 1 && hi[i] >= lo[i], "pass %zu (trial %u, %g%%): ETA %g..%g with work left",
				      i, trial[i], pct[i], lo[i], hi[i]);
		else
			ck_assert_msg(lo[i] == 0 && hi[i] == 0 && i == n - 1, "pass %zu: 100%% but ETA %g..%g",
				      i, lo[i], hi[i]);
		if (i)
			ck_assert_msg(pct[i] >= pct[i - 1], "share went back: %g%% after %g%%", pct[i], pct[i - 1]);
	}
	ck_assert_msg(trial[n - 1] < 6 || pct[n - 1] == 100, "the cap's last pass is not 100%%: %g", pct[n - 1]);
	/* narrows: past the first trial the range only shrinks as tests stop
	 * (a re-fit may move it by the noise of a cell or two) */
	for (size_t i = k1 + 1; i < n; i++)
		ck_assert_msg(hi[i] - lo[i] <= 1.5 * (hi[k1] - lo[k1]) + 1, "line %zu: range %g..%g wider than after trial 1 (%g..%g)",
			      i, lo[i], hi[i], lo[k1], hi[k1]);
	ck_assert_double_le(hi[n - 1] - lo[n - 1], hi[0] - lo[0]);
	ft_output_free(&o);
	free(out);

	/* --until-ci: a range from the first pass too (no cell has a sample
	 * to call it converged yet) */
	out = out_path("eta-ci");
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--dir", arg_b, "--out", out,
				  "--file-sizes", "64K-1M", "--cache", "fsync", "--until-ci", "5", "--trials", "2", "--max-trials", "4", "--no-device-probe", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	const char *e = strstr(o.err, "trial 1/4"), *next;

	while (e && (next = strstr(e + 1, "trial 1/4"))) /* the last line of trial 1 */
		e = next;
	ck_assert_ptr_nonnull(e);
	e = strstr(e, "eta_lo_s=");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(sscanf(e, "eta_lo_s=%lf eta_hi_s=%lf done_pct=%lf", &lo[0], &hi[0], &pct[0]), 3);
	/* 4 trials planned, not 2 */
	/* a share of planned time, which load moves: within a factor of 2 */
	ck_assert_msg(pct[0] > 100.0 / 8 && pct[0] < 100.0 / 2,
		      "--until-ci: %g%% done after the first trial (about a quarter with 4 trials planned)", pct[0]);
	ck_assert_msg(hi[0] > lo[0] || hi[0] < 2, "--until-ci: no range after the first trial: %g..%g", lo[0], hi[0]);
	ft_output_free(&o);
	free(out);
}
END_TEST

START_TEST(device_probe_flags)
{
	char *out = out_path("probe");
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	char csv[1024];

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K-256K",
				  "--record-sizes", "64K", "--probe-size", "4M", "--cache", "warm",
				  "--trials", "1", "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	json_object *m = manifest(out);
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	const char *method = json_object_get_string(jget(fs0, "device_probe"));
	ck_assert_msg(strcmp(method, "o_direct") == 0 || strcmp(method, "buffered+fsync") == 0, "%s",
		      method);
	double w = json_object_get_double(jget(fs0, "device_write_kib_s"));
	double r = json_object_get_double(jget(fs0, "device_read_kib_s"));
	ck_assert(w > 0 && r > 0);
	/* three probes, all recorded; the figures used are the fastest */
	json_object *runs = jget(fs0, "device_probe_runs");
	double wmax = 0, rmax = 0;
	ck_assert_uint_eq(json_object_array_length(runs), 3);
	for (size_t k = 0; k < 3; k++) {
		json_object *pr = json_object_array_get_idx(runs, k);
		double pw = json_object_get_double(jget(pr, "write_kib_s"));
		double prd = json_object_get_double(jget(pr, "read_kib_s"));
		ck_assert(pw > 0 && prd > 0);
		wmax = pw > wmax ? pw : wmax;
		rmax = prd > rmax ? prd : rmax;
	}
	ck_assert_double_eq_tol(w, wmax, 1);
	ck_assert_double_eq_tol(r, rmax, 1);
	ck_assert_double_eq_tol(json_object_get_double(jget(m, "page_cache_factor")), 1.5, 1e-9);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		bool writes = row.test == FSLAB_TEST_WRITE || row.test == FSLAB_TEST_REWRITE ||
			      row.test == FSLAB_TEST_RANDOM_WRITE || row.test == FSLAB_TEST_RECORD_REWRITE ||
			      row.test == FSLAB_TEST_FWRITE || row.test == FSLAB_TEST_FREWRITE;
		double dev = writes ? w : r;
		/* with the device's counters, page-cache is their fact
		 * and the probe's bound says beyond-device */
		bool has = row.device && row.dev_read_bytes >= 0;
		bool cached = has && (double)(writes ? row.dev_write_timed_bytes : row.dev_read_bytes) <
					     0.9 * (double)row.io_bytes;
		if (row.throughput_kib_s > 1.5 * dev + 1)
			ck_assert_str_eq(row.flag, !has ? "page-cache" : cached ? "page-cache;beyond-device" : "beyond-device");
		else if (row.throughput_kib_s < 1.5 * dev - 1)
			ck_assert_str_eq(row.flag, cached ? "page-cache" : "");
	}
	fslab_results_close(rd);
	json_object_put(m);
	ck_assert_int_eq(ft_dir_entries(dir_a), 0);
	free(out);
}
END_TEST

START_TEST(usage_errors)
{
	static const char *const bad[][12] = {
		{ "run", "--cache", "lukewarm", NULL },
		{ "run", "--dir", "noequals", NULL },
		{ "run", "--dir", "bad/name=/tmp", NULL },
		{ "run", "--dir", "x=/nonexistent/fslab-dir", NULL },
		{ "run", "--file-sizes", "3K", "--dir", "x=/tmp", NULL },
		{ "run", "--tests", "write,flush", NULL },
		{ "run", "--stop", "fixed", "--max-trials", "3", NULL },
		{ "run", "--stop", "sometimes", NULL },
		{ "run", "--stop", "fixed", "--until-ci", "5", NULL },
		{ "run", "--resume", "/tmp", "--stop", "ci", NULL },
		{ "run", "--until-ci", "-5", NULL },
		{ "run", "--trials", "0", NULL },
		{ "run", "--sweep", "/nonexistent/sweep.ini", "--dir", "x=/tmp", NULL },
		{ "run", "--resume", "/tmp", "--tests", "write", NULL },
		{ "run", "--dir", "x=/tmp", "--dir", "x=/tmp", NULL },
		{ "run", "--io", "mmap", "--dir", "x=/tmp", NULL },
		{ "run", "--sync", "never", "--dir", "x=/tmp", NULL },
		{ "run", "--resume", "/tmp", "--latency", NULL },
		/* --resume refuses every explicit setting, the defaults' words too
		 * (seek and fs used to pass: 0 meant both "not given" and them) */
		{ "run", "--resume", "/tmp", "--io", "seek", NULL },
		{ "run", "--resume", "/tmp", "--io", "positional", NULL },
		{ "run", "--resume", "/tmp", "--sync", "fs", NULL },
		{ "run", "--resume", "/tmp", "--sync", "global", NULL },
		{ "run", "--pass-gap", "60001", "--dir", "x=/tmp", NULL },
		{ "run", "--pass-gap", "-1", "--dir", "x=/tmp", NULL },
		{ "run", "--resume", "/tmp", "--pass-gap", "0", NULL },
	};
	struct ft_output o;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[16] = { ft_fslab_bin() };
		size_t n = 1;
		for (size_t j = 0; bad[i][j]; j++)
			argv[n++] = bad[i][j];
		argv[n] = NULL;
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_msg(o.status == 2, "case %zu (%s %s): status %d, stderr %s", i, bad[i][1],
			      bad[i][2], o.status, o.err);
		ck_assert_msg(strlen(o.err) > 10, "case %zu: no message", i);
		ft_output_free(&o);
	}
	/* no lab: a failure (1) that says what to do */
	char *state = out_path("nostate.json");
	ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--quiet", NULL), 0);
	ck_assert_int_eq(o.status, 1);
	ck_assert_ptr_nonnull(strstr(o.err, "fslab setup"));
	ft_output_free(&o);
	free(state);
	ck_assert_int_eq(ft_fslab(&o, "run", "--help", NULL), 0);
	ck_assert_int_eq(o.status, 0);
	ck_assert_ptr_nonnull(strstr(o.out, "--resume DIR"));
	ft_output_free(&o);
	/* nothing was written into the directories */
	ck_assert_int_eq(ft_dir_entries(dir_a), 0);
}
END_TEST

START_TEST(full_filesystem_gives_failed_rows)
{
	char *mnt, *out = out_path("full-out"), arg[1100], csv[1100];
	struct ft_output o;
	struct keyset k;

	mnt = tmpfs_dir("small", "1m", "small", arg, sizeof(arg));
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--file-sizes", "256K-4M",
				  "--record-sizes", "256K", "--tests", "write,read", "--cache", "warm",
				  "--trials", "1", "--no-device-probe", "--quiet", NULL),
			 0);
	int status = o.status;
	char *errs = strdup(o.err);
	ft_output_free(&o);
	int left = ft_dir_entries(mnt);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(status == 1, "status %d: %s", status, errs);
	ck_assert_ptr_nonnull(strstr(errs, "failed"));
	free(errs);
	snprintf(csv, sizeof(csv), "%s/small.csv", out);
	keyset_load(&k, csv, "small");
	/* 256K, 512K fit in 1M; 1M (no room with metadata), 2M, 4M do not */
	ck_assert_uint_eq(k.n, 5 * 2);
	ck_assert_uint_ge(k.failed, 4);
	ck_assert_uint_ge(k.ok, 4);
	keyset_free(&k);
	ck_assert_int_eq(left, 0);
	free(mnt);
	free(out);

	/* the results directory on a full filesystem: the run fails and says
	 * which results file could not be written and why (no write to the
	 * CSVs or the manifest goes unchecked) */
	mnt = tmpfs_dir("small-out", "16k", NULL, NULL, 0);
	out = out_path("small-out/r");
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "64K-2M",
				  "--record-sizes", "4K-64K", "--tests", "write,rewrite,read,reread",
				  "--cache", "warm", "--trials", "1", "--no-device-probe", "--quiet", NULL),
			 0);
	status = o.status;
	errs = strdup(o.err);
	ft_output_free(&o);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(status == 1, "status %d: %s", status, errs);
	ck_assert_msg(strstr(errs, "No space left on device") &&
			      (strstr(errs, "manifest.json") || strstr(errs, ".csv") || strstr(errs, ".fslab-run")),
		      "%s", errs);
	free(errs);
	free(mnt);
	free(out);
}
END_TEST


/* Cold mode drops only the test file's pages where the filesystem lets it:
 * on an ordinary directory fadvise is used (mincore found the file gone
 * from the page cache), and the manifest says so. */
/* A filesystem that keeps a file's pages in the page cache and can drop
 * them: not tmpfs or ramfs, whose pages are the file itself. */
static bool drops_pages(const char *path)
{
	struct statfs sf;

	ck_assert_msg(statfs(path, &sf) == 0, "statfs %s: %s", path, strerror(errno));
	return sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC;
}

START_TEST(cold_drops_the_file_by_fadvise)
{
	char *out = out_path("cold-out"), csv[1100], *disk = NULL, arg[1200];
	const char *build = getenv("FSLAB_BUILD_DIR");
	struct ft_output o;
	struct keyset k;

	/* The test's own directory is where TMPDIR is: on a machine whose /tmp
	 * is a tmpfs, the test runs in a directory of its own in the build
	 * tree instead (a disk filesystem: the build was compiled there). */
	snprintf(arg, sizeof(arg), "%s", arg_a);
	if (!drops_pages(dir_a)) {
		ck_assert_msg(build && *build, "FSLAB_BUILD_DIR is not set (run the test under ctest)");
		ck_assert_int_ge(asprintf(&disk, "%s/test-cold-fadvise.XXXXXX", build), 0);
		ck_assert_msg(mkdtemp(disk), "mkdtemp %s: %s", disk, strerror(errno));
		if (!drops_pages(disk)) {
			printf("SKIP bench_run/cold_drops_the_file_by_fadvise: %s and %s are both in memory (tmpfs): no filesystem here can drop a file's pages\n",
			       dir_a, disk);
			ft_rm_rf(disk);
			free(disk);
			free(out);
			return;
		}
		snprintf(arg, sizeof(arg), "a=%s", disk);
	}
	int r = ft_fslab(&o, "run", "--dir", arg, "--out", out, "--file-sizes", "64K-256K",
			 "--record-sizes", "64K", "--tests", "write,read", "--cache", "cold",
			 "--trials", "1", "--no-device-probe", "--quiet", NULL);
	if (disk) {
		ft_rm_rf(disk);
		free(disk);
	}
	ck_assert_int_eq(r, 0);
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&k, csv, "a");
	ck_assert_uint_eq(k.ok, 3 * 2);
	keyset_free(&k);
	json_object *m = manifest(out);
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	ck_assert_str_eq(json_object_get_string(jget(fs0, "cache_drop_method")), "fadvise");
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(fs0, "cache_drop_note")), "mincore"));
	json_object_put(m);
	free(out);
}
END_TEST

/* tmpfs cannot drop a file's pages: the filesystem falls back to
 * drop_caches (root) and the manifest says why. */
START_TEST(cold_tmpfs_falls_back)
{
	char *mnt, *out = out_path("cold-tmpfs-out"), arg[1100];
	struct ft_output o;

	mnt = tmpfs_dir("cold-tmpfs", "8m", "t", arg, sizeof(arg));
	ft_fslab(&o, "run", "--dir", arg, "--out", out, "--file-sizes", "64K", "--record-sizes", "64K",
		 "--tests", "write,read", "--cache", "cold", "--trials", "1", "--no-device-probe",
		 "--quiet", NULL);
	int status = o.status;
	char *errs = strdup(o.err);
	ft_output_free(&o);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(status == 0, "status %d: %s", status, errs);
	free(errs);
	json_object *m = manifest(out);
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	ck_assert_str_eq(json_object_get_string(jget(fs0, "cache_drop_method")), "drop_caches");
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(fs0, "cache_drop_note")), "tmpfs"));
	json_object_put(m);
	free(mnt);
	free(out);
}
END_TEST

/* --dry-run prints the plan (the default lab preset narrowed to 64K-1M
 * files: 35 cells, 3..24 trials), the bytes, the free space and a time
 * estimate from a probe, and leaves nothing behind: no results directory,
 * nothing in the directory under test. */
START_TEST(dry_run_prints_the_plan_and_writes_nothing)
{
	char *out = out_path("dry-out");
	struct ft_output o;
	struct stat st;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dry-run", "--dir", arg_a, "--out", out, "--file-sizes",
				  "64K-1M", "--probe-size", "4M", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out, "35 cells x 13 tests"));
	ck_assert_ptr_nonnull(strstr(o.out, "trials: 3..24"));
	ck_assert_ptr_nonnull(strstr(o.out, "cache: cold"));
	/* 35 cells' files x 13 tests: 205.6 MiB a trial */
	ck_assert_ptr_nonnull(strstr(o.out, "bytes to move: 205.6 MiB per filesystem and trial"));
	ck_assert_ptr_nonnull(strstr(o.out, "needs 12.5 MiB: ok"));
	ck_assert_ptr_nonnull(strstr(o.out, "time: about "));
	ft_output_free(&o);
	ck_assert_int_eq(ft_dir_entries(dir_a), 0);
	ck_assert_int_eq(stat(out, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	free(out);
}
END_TEST

/* A plan whose largest file cannot fit is refused, exit 1, before any
 * probe or file: the message names the filesystem, the need and the free
 * space. */
START_TEST(dry_run_refuses_a_plan_too_big)
{
	char *mnt, *out = out_path("dry-small-out"), arg[1100];
	struct ft_output o;
	struct stat st;

	mnt = tmpfs_dir("dry-small", "8m", "small", arg, sizeof(arg));
	ft_fslab(&o, "run", "--dry-run", "--dir", arg, "--out", out, "--file-sizes", "64K-16M",
		 "--probe-size", "4M", NULL);
	int left = ft_dir_entries(mnt);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "small ("));
	ck_assert_ptr_nonnull(strstr(o.err, "needs 26.0 MiB free"));
	ck_assert_ptr_nonnull(strstr(o.err, "has 8.0 MiB"));
	ck_assert_ptr_null(strstr(o.out, "time:"));
	ft_output_free(&o);
	ck_assert_int_eq(left, 0);
	ck_assert_int_eq(stat(out, &st), -1);
	free(mnt);
	free(out);
}
END_TEST

/* The default (the lab preset: files 64K-2G) on a 40 MiB filesystem: its
 * files halved until the largest fits (16M: 18 MiB + 8 MiB, where 32M
 * would need 44 MiB), said, and the plan that fits printed and checked;
 * the seed preset's bytes (docs/reproduce.md's table: 469.2 GiB a
 * filesystem and trial) refused, not capped: its sizes are the 2023
 * experiment's. */
START_TEST(dry_run_caps_the_default_files)
{
	char *mnt, *out = out_path("dry-cap-out"), arg[1100];
	struct ft_output o, seed;

	mnt = tmpfs_dir("dry-cap", "40m", "small", arg, sizeof(arg));
	ft_fslab(&o, "run", "--dry-run", "--dir", arg, "--out", out, "--probe-size", "4M", NULL);
	ft_fslab(&seed, "run", "--dry-run", "--dir", arg, "--out", out, "--sweep", "seed", "--no-device-probe", NULL);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(o.status == 0, "status %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "files up to 16M, not 2G: the largest that fits the fullest filesystem"), "%s", o.out);
	ck_assert_msg(strstr(o.out, "grid: files 64K-16M x records 4K-16M (coarse, below)") &&
			      strstr(o.out, "records (the lab preset's): records 4K, 64K, 1M, 16M (up to the file") &&
			      strstr(o.out, ": 24 cells x 13 tests") && strstr(o.out, "needs 26.0 MiB: ok"),
		      "%s", o.out);
	ck_assert_msg(seed.status == 1 && strstr(seed.out, "bytes to move: 469.2 GiB per filesystem and trial") &&
			      strstr(seed.err, "lower --file-sizes"),
		      "%d: %s%s", seed.status, seed.out, seed.err);
	ft_output_free(&o);
	ft_output_free(&seed);
	free(mnt);
	free(out);
}
END_TEST

/* The default plan run, then resumed: on a 40 MiB tmpfs its files stop at
 * 16M (24 coarse cells, each a write row), the manifest names the records
 * rule and the capped size, and --resume rebuilds the same plan from them
 * (a row outside it would be refused) and finds nothing left to run. */
START_TEST(default_run_records_its_rule_and_resumes)
{
	char *mnt, *out = out_path("cap-run-out"), arg[1100], csv[1200];
	struct ft_output o, res;
	struct keyset k;

	mnt = tmpfs_dir("cap-run", "40m", "t", arg, sizeof(arg));
	ft_fslab(&o, "run", "--dir", arg, "--out", out, "--tests", "write", "--cache", "warm", "--trials", "1",
		 "--no-device-probe", "--quiet", NULL);
	ft_fslab(&res, "run", "--resume", out, "--quiet", NULL);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ck_assert_msg(res.status == 0, "--resume: %d: %s", res.status, res.err);
	ft_output_free(&o);
	ft_output_free(&res);
	snprintf(csv, sizeof(csv), "%s/t.csv", out);
	keyset_load(&k, csv, "t");
	ck_assert_uint_eq(k.ok, 24);
	ck_assert_uint_eq(k.n, 24);
	keyset_free(&k);
	json_object *m = manifest(out), *sw = jget(m, "sweep");
	ck_assert_int_eq(json_object_get_int64(jget(sw, "file_max_kib")), 16384);
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(sw, "records_rule")), "from 128M the 1M record"));
	json_object_put(m);
	free(mnt);
	free(out);
}
END_TEST

/* When the device probe's scratch file is what does not fit, the refusal
 * says so and names --probe-size, not --file-sizes (which cannot help). */
START_TEST(dry_run_names_the_probe_when_it_is_the_largest_file)
{
	char *mnt, *out = out_path("dry-probe-out"), arg[1100];
	struct ft_output o;

	mnt = tmpfs_dir("dry-probe", "8m", "small", arg, sizeof(arg));
	ft_fslab(&o, "run", "--dry-run", "--dir", arg, "--out", out, "--file-sizes", "64K-1M", NULL);
	umount2(mnt, MNT_DETACH);
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.err, "the device probe's file, 64.0 MiB") &&
			      strstr(o.err, "lower --probe-size") && !strstr(o.err, "--file-sizes"),
		      "%s", o.err);
	ft_output_free(&o);
	free(mnt);
	free(out);
}
END_TEST

START_TEST(vanished_filesystem_is_skipped_and_resumed)
{
	char *mnt, *out = out_path("gone-out"), arg[1100], csv[1100], v[1300];
	struct ft_output o;
	struct keyset k;
	int st;

	mnt = tmpfs_dir("gone", "256m", "a", arg, sizeof(arg));
	const char *args[] = { "run", "--dir", arg, "--dir", arg_b, "--sweep", "quick", "--file-sizes",
			       "64K-8M", "--record-sizes", "16K-1M", "--cache", "fsync", "--seed", "3",
			       "--no-device-probe", "--out", out, NULL };
	pid_t pid = spawn_fslab(args);
	bool running = wait_rows(pid, out, 20);
	umount2(mnt, MNT_DETACH);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(running, "the run finished before the unmount");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&k, csv, "a");
	ck_assert_uint_eq(k.n, 46 * 13); /* every cell has a row */
	ck_assert_uint_gt(k.failed, 0);
	keyset_free(&k);
	snprintf(v, sizeof(v), "grep -q 'failed: filesystem vanished' %s", csv);
	ck_assert_int_eq(system(v), 0);

	/* back again: --resume runs exactly the vanished cells */
	ck_assert_int_eq(mount("fslab-test", mnt, "tmpfs", 0, "size=256m"), 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	int status = o.status;
	ft_output_free(&o);
	int left = ft_dir_entries(mnt);
	umount2(mnt, MNT_DETACH);
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(left, 0);
	keyset_load(&k, csv, "a");
	ck_assert_uint_eq(k.n, 46 * 13);
	ck_assert_uint_eq(k.failed, 0);
	keyset_free(&k);
	free(mnt);
	free(out);
}
END_TEST


START_TEST(lab_run_cold_remount)
{
	char *spec = out_path("spec.ini"), *img = out_path("lab.img"), *mnt = out_path("mnt"),
	     *state = out_path("state.json"), *out = out_path("lab-out"), csv[1100];
	struct ft_output o;
	struct keyset k;

	ck_assert_int_eq(ft_write_file(spec, "[fs one]\ntype = ext4\nsize = 32M\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--spec", spec, "--mount-root", mnt,
				  "--state", state, "--yes", NULL),
			 0);
	int setup_status = o.status;
	ft_output_free(&o);
	if (setup_status != 0) {
		ft_fslab(&o, "teardown", "--state", state, "--yes", NULL);
		ft_output_free(&o);
		ck_abort_msg("setup failed (%d)", setup_status);
	}
	/* the remount path of cold mode, on the lab's own partition */
	setenv("FSLAB_DROP_METHOD", "remount", 1);
	ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--file-sizes", "64K-256K",
				  "--record-sizes", "64K", "--cache", "cold", "--trials", "1", "--probe-size", "4M",
				  "--out", out, "--quiet", NULL),
			 0);
	int run_status = o.status;
	char *run_err = strdup(o.err);
	ft_output_free(&o);
	unsetenv("FSLAB_DROP_METHOD");
	ft_fslab(&o, "teardown", "--state", state, "--yes", NULL);
	int td_status = o.status;
	ft_output_free(&o);
	ck_assert_msg(run_status == 0, "run: %d: %s", run_status, run_err);
	ck_assert_int_eq(td_status, 0);
	free(run_err);
	snprintf(csv, sizeof(csv), "%s/one.csv", out);
	keyset_load(&k, csv, "one");
	ck_assert_uint_eq(k.n, 3 * 13);
	ck_assert_uint_eq(k.ok, 3 * 13);
	keyset_free(&k);
	json_object *m = manifest(out);
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	ck_assert_str_eq(json_object_get_string(jget(fs0, "cache_drop_method")), "remount");
	ck_assert_str_eq(json_object_get_string(jget(fs0, "type")), "ext4");
	ck_assert_str_eq(json_object_get_string(jget(fs0, "mount_method")), "kernel");
	ck_assert_str_eq(json_object_get_string(jget(m, "cache_mode")), "cold");
	/* the device bytes come from the lab's own partition */
	const char *dev = json_object_get_string(jget(fs0, "device")), *cnt = json_object_get_string(jget(fs0, "device_counters"));
	char want[128];
	ck_assert_ptr_nonnull(dev);
	snprintf(want, sizeof(want), "/%s/stat", strrchr(dev, '/') + 1);
	ck_assert_msg(cnt && strstr(cnt, want), "device_counters %s is not %s's", cnt ? cnt : "null", dev);
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1)
		ck_assert_msg(row.device && row.dev_read_bytes >= 0 && row.io_bytes == (int64_t)row.file_kib * 1024,
			      "%s: no device bytes", fslab_test_to_string(row.test));
	fslab_results_close(rd);
	/* the version setup recorded of the mkfs that made it, not a fresh
	 * exec of whatever mkfs is installed at run time */
	ck_assert(json_object_is_type(jget(fs0, "mkfs_tool_version"), json_type_string));
	ck_assert_msg(strncmp(json_object_get_string(jget(fs0, "mkfs_tool_version")), "mke2fs ", 7) == 0,
		      "mkfs_tool_version: %s", json_object_get_string(jget(fs0, "mkfs_tool_version")));
	json_object_put(m);
	free(spec);
	free(img);
	free(mnt);
	free(state);
	free(out);
}
END_TEST


START_TEST(sweep_file_then_flags)
{
	char *sweep = out_path("sweep.ini"), *out = out_path("sw"), csv[1100];
	struct ft_output o;
	struct keyset k;

	/* a file holding only [sweep]: the preset's keys it does not set stay */
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 64K-128K\nrecord_sizes = 64K\n"
					      "tests = write,read,fread\ntrials = 2\ncache = fsync\n"),
			 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--sweep", sweep, "--trials", "1",
				  "--tests", "write,read", "--out", out, "--no-device-probe", "--quiet",
				  NULL),
			 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&k, csv, "a");
	/* 2 files x 1 record x 2 tests (flag) x 1 trial (flag) */
	ck_assert_uint_eq(k.n, 4);
	ck_assert_str_eq(k.keys[0], "read 128 64 1");
	keyset_free(&k);
	json_object *m = manifest(out);
	ck_assert_str_eq(json_object_get_string(jget(m, "cache_mode")), "fsync"); /* from the file */
	ck_assert_int_eq(json_object_get_int(jget(m, "trials")), 1);
	ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(jget(m, "spec"), "text")), "[sweep]"));
	json_object_put(m);

	/* a bad sweep file is a usage error naming the line */
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\ncache = tepid\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--sweep", sweep, "--out", out,
				  "--no-device-probe", "--quiet", NULL),
			 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "tepid"));
	ft_output_free(&o);

	/* a comment that mentions a section is a comment: the file still holds
	 * only [sweep] (it used to be refused: "no [fs NAME] section") */
	ck_assert_int_eq(ft_write_file(sweep, "# copied from a spec whose [fs ext4] had ...\n"
					      "[sweep]\nfile_sizes = 64K\nrecord_sizes = 64K\n"
					      "tests = write\ntrials = 1\n"),
			 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--sweep", sweep, "--out", out,
				  "--no-device-probe", "--quiet", "--dry-run", NULL),
			 0);
	ck_assert_msg(o.status == 0, "a sweep file with a comment naming [fs ext4]: %s", o.err);
	ft_output_free(&o);
	free(sweep);
	free(out);
}
END_TEST

/* btrfs gives its files an anonymous st_dev (major 0) that no block device
 * has: cold mode must find the loop device from the filesystem's source
 * device, and drop the pages of the loop's backing file as it does for
 * ext4 (the image in the host's page cache would serve the reads). */
START_TEST(cold_btrfs_on_buffered_loop_drops_the_backing_file)
{
	char *mnt = out_path("btrfs"), *out = out_path("btrfs-out"), arg[1100], note[2048] = "";
	char method[64] = "", image[sizeof(((struct ft_loop *)0)->image)];
	struct ft_loop l;
	struct ft_output o;
	struct stat st;
	int r, status;

	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(ft_loop_create(&l, tmp, 256ull << 20), 0);
	r = ft_run((const char *const[]){ "mkfs.btrfs", "-q", l.device, NULL }, NULL, &o);
	status = o.status;
	ft_output_free(&o);
	if (r == 0 && status == 0)
		r = mount(l.device, mnt, "btrfs", 0, NULL);
	if (r != 0 || status != 0) {
		ft_loop_destroy(&l);
		ck_abort_msg("mkfs.btrfs or mount of %s failed", l.device);
	}
	ck_assert_int_eq(stat(mnt, &st), 0);
	snprintf(image, sizeof(image), "%s", l.image);
	snprintf(arg, sizeof(arg), "b=%s", mnt);
	r = ft_fslab(&o, "run", "--dir", arg, "--out", out, "--file-sizes", "64K-256K", "--record-sizes",
		     "64K", "--tests", "write,read", "--cache", "cold", "--trials", "1",
		     "--no-device-probe", "--quiet", NULL);
	status = o.status;
	ft_output_free(&o);
	umount2(mnt, 0);
	ft_loop_destroy(&l);
	ck_assert_int_eq(r, 0);
	ck_assert_msg(major(st.st_dev) == 0, "btrfs gave st_dev %u:%u, not an anonymous one: the test proves nothing",
		      major(st.st_dev), minor(st.st_dev));
	ck_assert_int_eq(status, 0);
	json_object *m = manifest(out);
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	snprintf(method, sizeof(method), "%s", json_object_get_string(jget(fs0, "cache_drop_method")));
	snprintf(note, sizeof(note), "%s", json_object_get_string(jget(fs0, "cache_drop_note")));
	/* an anonymous st_dev names no partition: no device bytes for --dir */
	ck_assert(json_object_is_type(jget(fs0, "device_counters"), json_type_null));
	json_object_put(m);
	ck_assert_str_eq(method, "fadvise");
	ck_assert_msg(strstr(note, "backing file of its loop device") && strstr(note, image),
		      "btrfs on a buffered loop: the backing file %s is not dropped: %s", image, note);
	free(mnt);
	free(out);
}
END_TEST

START_TEST(fuse_directory_is_flagged)
{
	char *img = out_path("fat.img"), *mnt = out_path("fat"), *out = out_path("fat-out"),
	     arg[1100], csv[1100];
	struct ft_output o;
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	size_t rows = 0;

	ft_fusefat_mount(img, "40M", mnt);
	snprintf(arg, sizeof(arg), "fat=%s", mnt);
	/* fusefat reports no blocks: the dry run cannot say it fits, and
	 * must not say it does not. */
	ft_fslab(&o, "run", "--dry-run", "--dir", arg, "--out", out, "--file-sizes", "64K-128K",
		 "--no-device-probe", NULL);
	ck_assert_msg(o.status == 0 && strstr(o.out, "free unknown"), "dry run %d:\n%s%s",
		      o.status, o.out, o.err);
	ft_output_free(&o);
	ft_fslab_then_umount(mnt, mnt, "run", "--dir", arg, "--out", out, "--file-sizes", "64K-128K",
			     "--record-sizes", "64K", "--cache", "warm", "--trials", "1", "--no-device-probe",
			     "--quiet", NULL);
	snprintf(csv, sizeof(csv), "%s/fat.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_str_eq(row.flag, "fuse");
		rows++;
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(rows, 2 * 13);
	json_object *m = manifest(out);
	json_object *fs0 = json_object_array_get_idx(jget(m, "filesystems"), 0);
	ck_assert_str_eq(json_object_get_string(jget(fs0, "mount_method")), "fuse");
	json_object_put(m);
	free(img);
	free(mnt);
	free(out);
}
END_TEST

/* The blocks' order as the run logs it (FSLAB_DEBUG=bench): names[k] the
 * k-th filesystem run, trial[k] and cell[k] its block. */
struct blocks {
	char names[64][8];
	unsigned trial[64], cell[64];
	size_t n;
};

static void blocks_run(const char *out, const char *seed, const char *arg_c, struct blocks *b)
{
	struct ft_output o;

	memset(b, 0, sizeof(*b));
	setenv("FSLAB_DEBUG", "bench", 1);
	ft_fslab(&o, "run", "--dir", arg_a, "--dir", arg_b, "--dir", arg_c, "--out", out, "--file-sizes",
		 "64K-256K", "--record-sizes", "64K", "--tests", "write,read", "--cache", "warm", "--trials",
		 "3", "--stop", "fixed", "--seed", seed, "--no-device-probe", NULL);
	unsetenv("FSLAB_DEBUG");
	ck_assert_msg(o.status == 0, "%s", o.err);
	for (const char *l = strstr(o.err, "block: "); l && b->n < 64; l = strstr(l + 1, "block: ")) {
		ck_assert_int_eq(sscanf(l, "block: trial %u cell %u %7s", &b->trial[b->n], &b->cell[b->n],
					b->names[b->n]),
				 3);
		b->n++;
	}
	ft_output_free(&o);
}

/* Randomized blocks: a cell's filesystems run back to back (each once),
 * the blocks trial by trial and cell by cell, each in the trial's order
 * rotated by one more place per cell (so the order changes from cell to
 * cell), the same for the same --seed; the manifest names the rule. */
START_TEST(blocks_interleave_the_filesystems_per_cell)
{
	char *out = out_path("blocks"), *again = out_path("blocks-again"), *dir_c = out_path("c"), arg_c[700];
	struct blocks b, b2;
	bool changed = false;

	ck_assert_int_eq(mkdir(dir_c, 0755), 0);
	snprintf(arg_c, sizeof(arg_c), "c=%s", dir_c);
	blocks_run(out, "7", arg_c, &b);
	ck_assert_uint_eq(b.n, 3 * 3 * 3); /* 3 trials x 3 cells x 3 filesystems */
	for (size_t k = 0; k < b.n; k += 3) {
		ck_assert_uint_eq(b.trial[k], 1 + k / 9);
		ck_assert_uint_eq(b.cell[k], 1 + (k / 3) % 3);
		ck_assert(b.trial[k + 1] == b.trial[k] && b.trial[k + 2] == b.trial[k]);
		ck_assert(b.cell[k + 1] == b.cell[k] && b.cell[k + 2] == b.cell[k]);
		ck_assert(strcmp(b.names[k], b.names[k + 1]) && strcmp(b.names[k], b.names[k + 2]) &&
			  strcmp(b.names[k + 1], b.names[k + 2]));
		if (b.cell[k] > 1) /* rotated by one: the first is the last block's second */
			ck_assert_str_eq(b.names[k], b.names[k - 2]);
		changed |= k && strcmp(b.names[k], b.names[k - 3]) != 0;
	}
	ck_assert(changed);
	blocks_run(again, "7", arg_c, &b2);
	ck_assert_uint_eq(b2.n, b.n);
	for (size_t k = 0; k < b.n; k++)
		ck_assert_str_eq(b2.names[k], b.names[k]);
	json_object *m = manifest(out);
	ck_assert_str_eq(json_object_get_string(jget(jget(m, "sweep"), "blocks")), "cell");
	json_object_put(m);
	free(out);
	free(again);
	free(dir_c);
}
END_TEST

/* The FUSE plan: on a FUSE mount only files up to 16M are measured, in
 * the minimum trials; each cell it leaves out is a row "skipped: FUSE
 * plan" (never a figure), while the kernel filesystem beside it runs its
 * whole plan and the trials --until-ci adds. */
START_TEST(fuse_runs_the_fuse_plan)
{
	char *img = out_path("fat-plan.img"), *mnt = out_path("fat-plan"), *out = out_path("fuse-plan"), arg[1100],
	     csv[1100];
	struct fslab_results_reader *rd;
	struct fslab_result_row row;
	size_t ok = 0, skipped = 0;
	struct keyset ka;

	ft_fusefat_mount(img, "64M", mnt);
	snprintf(arg, sizeof(arg), "fat=%s", mnt);
	ft_fslab_then_umount(mnt, mnt, "run", "--dir", arg, "--dir", arg_a, "--out", out, "--file-sizes", "8M-32M",
			     "--record-sizes", "1M", "--tests", "write,read", "--cache", "warm", "--trials", "2",
			     "--until-ci", "1", "--max-trials", "4", "--no-device-probe", "--quiet", NULL);
	snprintf(csv, sizeof(csv), "%s/fat.csv", out);
	ck_assert_int_eq(fslab_results_open(csv, &rd, NULL), 0);
	while (fslab_results_next(rd, &row, NULL) == 1) {
		ck_assert_uint_le(row.trial, 2);
		if (row.file_kib > 16 * 1024) {
			ck_assert_msg(strncmp(row.status, "skipped: FUSE plan", 18) == 0, "%s", row.status);
			ck_assert(isnan(row.throughput_kib_s) || row.throughput_kib_s <= 0);
			skipped++;
		} else {
			ck_assert_str_eq(row.status, "ok");
			ok++;
		}
	}
	fslab_results_close(rd);
	ck_assert_uint_eq(ok, 2 * 2 * 2);
	ck_assert_uint_eq(skipped, 2 * 2);
	/* a kernel filesystem's warm passes within 1% in 2 trials: hardly */
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	keyset_load(&ka, csv, "a");
	ck_assert_uint_gt(ka.ok, 3 * 2 * 2); /* 3 cells x 2 tests x 2 trials, and more */
	keyset_free(&ka);
	free(img);
	free(mnt);
	free(out);
}
END_TEST

/* A sweep that IOzone's auto-mode rule empties (4K records on a 1G file)
 * is refused before anything is written, with the rule and the option that
 * keeps its cells; with that option the same kind of sweep has its cell. */
/* The rows of a CSV as "test,file_kib,record_kib,iodepth", sorted and
 * joined by blanks, into buf. */
static char *csv_cells(const char *path, char *buf, size_t len)
{
	char *text = ft_read_text(path), *save = NULL, *rows[64];
	size_t n = 0;
	int depth = -1;

	buf[0] = '\0';
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[40], *fs = NULL;
		int k = 0;

		for (char *t = strtok_r(line, ",", &fs); t && k < 40; t = strtok_r(NULL, ",", &fs))
			f[k++] = t;
		for (int i = 0; depth < 0 && i < k; i++)
			if (strcmp(f[i], "iodepth") == 0)
				depth = i;
		if (strcmp(f[0], "filesystem") != 0 && depth > 0 && depth < k && n < 64 &&
		    asprintf(&rows[n], "%s,%s,%s,%s", f[1], f[2], f[3], f[depth]) > 0)
			n++;
	}
	qsort(rows, n, sizeof(rows[0]), key_cmp);
	for (size_t i = 0; i < n; i++) {
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "", rows[i]);
		free(rows[i]);
	}
	free(text);
	return buf;
}

/* An engineer's grid: a 48M file (no power of two), records 4K and 16K
 * (a list), IOzone's write kept on them by --small-records keep, the
 * queued test (the auto-mode rule is not its) at depths 1, 2 and 4.
 * The CSV has one row per cell; the manifest records the lists; --resume
 * after two rows are lost runs exactly them again, and the report reads
 * the run (its 8 rows more than the 6 the records' doubling range and one
 * depth would allow). */
START_TEST(lists_of_sizes_and_depths_run_and_resume)
{
	char *out = out_path("lists"), *rep = out_path("lists-report"), csv[1200], cells[2048];
	const char *want = "queued_read,49152,16,1 queued_read,49152,16,2 queued_read,49152,16,4 "
			   "queued_read,49152,4,1 queued_read,49152,4,2 queued_read,49152,4,4 "
			   "write,49152,16,1 write,49152,4,1";
	struct ft_output o;
	char *text;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg_a, "--out", out, "--file-sizes", "48M", "--record-sizes",
				  "4K,16K", "--tests", "write,queued_read", "--small-records", "keep", "--iodepth",
				  "1,2,4", "--cache", "warm", "--stop", "fixed", "--trials", "1", "--no-device-probe",
				  "--quiet", NULL),
			 0);
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	ck_assert_str_eq(csv_cells(csv, cells, sizeof(cells)), want);
	json_object *m = manifest(out), *sw = jget(m, "sweep");
	ck_assert_str_eq(json_object_get_string(jget(sw, "record_sizes")), "4K,16K");
	ck_assert_str_eq(json_object_get_string(jget(sw, "iodepths")), "1,2,4");
	ck_assert_int_eq(json_object_get_int64(jget(sw, "file_min_kib")), 49152);
	json_object_put(m);
	/* two rows lost: --resume runs those two cells, from the manifest's plan */
	text = ft_read_text(csv);
	for (int i = 0; i < 2; i++) {
		*strrchr(text, '\n') = '\0';
		strrchr(text, '\n')[1] = '\0';
	}
	ck_assert_int_eq(ft_write_file(csv, text), 0);
	free(text);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "--resume: %d: %s", o.status, o.err);
	ft_output_free(&o);
	ck_assert_str_eq(csv_cells(csv, cells, sizeof(cells)), want);
	ck_assert_int_eq(ft_fslab(&o, "report", out, "--out", rep, NULL), 0);
	ck_assert_msg(o.status == 0, "report: %d: %s", o.status, o.err);
	ft_output_free(&o);
	free(out);
	free(rep);
}
END_TEST

START_TEST(empty_sweep_names_small_records_keep)
{
	char *out = out_path("no-cell");
	struct ft_output o;
	struct stat st;

	for (int dry = 0; dry < 2; dry++) {
		ck_assert_int_eq(ft_fslab(&o, "run", "--tests", "random_read", "--record-sizes", "4K",
					  "--file-sizes", "1G", "--dir", arg_a, "--out", out, "--quiet",
					  dry ? "--dry-run" : NULL, NULL),
				 0);
		ck_assert_msg(o.status == 2, "status %d: %s", o.status, o.err);
		ck_assert_msg(strstr(o.err, "the sweep has no cell to run: IOzone's auto-mode rule skips "
					    "records below 64K on files above 16M") &&
				      strstr(o.err, "add --small-records keep to run them"),
			      "the refusal does not name --small-records keep:\n%s", o.err);
		ft_output_free(&o);
		ck_assert_int_ne(stat(out, &st), 0);
		ck_assert_int_eq(ft_dir_entries(dir_a), 0);
	}
	ck_assert_int_eq(ft_fslab(&o, "run", "--tests", "random_read", "--record-sizes", "4K",
				  "--file-sizes", "32M", "--small-records", "keep", "--dir", arg_a,
				  "--out", out, "--dry-run", "--no-device-probe", NULL),
			 0);
	ck_assert_msg(o.status == 0 && strstr(o.out, ": 1 cells x 1 tests (random_read)"),
		      "status %d:\n%s%s", o.status, o.out, o.err);
	ft_output_free(&o);
	free(out);
}
END_TEST

/* fslab with stderr in a file (stdout to /dev/null). */
static pid_t spawn_fslab_err(const char *const *args, const char *err_path)
{
	const char *argv[64];
	size_t n = 0;
	pid_t pid;

	argv[n++] = ft_fslab_bin();
	while (*args)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		int efd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || efd < 0 || dup2(fd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* An interrupted run ends on how to continue it, never on "done"; the
 * resumed run that finishes says done. */
START_TEST(interrupted_run_does_not_say_done)
{
	char *out = out_path("int-stop"), *err_path = out_path("int-stop.err");
	const char *args[] = { "run", "--dir", arg_a, "--dir", arg_b, "--sweep", "quick",
			       "--file-sizes", "64K-8M", "--record-sizes", "16K-1M", "--cache",
			       "fsync", "--no-device-probe", "--out", out, NULL };
	struct ft_output o;
	char text[65536], want[1300];
	size_t len;
	int st;

	pid_t pid = spawn_fslab_err(args, err_path);
	ck_assert_msg(wait_rows(pid, out, 30), "the run finished before SIGINT");
	kill(pid, SIGINT);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
	FILE *f = fopen(err_path, "r");
	ck_assert_msg(f, "%s: %s", err_path, strerror(errno));
	len = fread(text, 1, sizeof(text) - 1, f);
	ck_assert_int_eq(ferror(f), 0);
	fclose(f);
	text[len] = '\0';
	snprintf(want, sizeof(want), "continue with: fslab run --resume %s", out);
	ck_assert_msg(strstr(text, want), "no '%s' in:\n%s", want, text);
	ck_assert_msg(!strstr(text, ": done: "), "an interrupted run says done:\n%s", text);

	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	snprintf(want, sizeof(want), "done: %s", out);
	ck_assert_msg(strstr(o.err, want), "the finished run does not say '%s':\n%s", want, o.err);
	ft_output_free(&o);
	free(err_path);
	free(out);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_run");
	TCase *tc = ft_tcase(s, "run", 0);
	TCase *root = ft_tcase(s, "run_root", FT_ROOT | FT_MKFS_EXT); /* mount a tmpfs or a lab */
	TCase *fuse = ft_tcase(s, "fuse", FT_ROOT | FT_FUSE | FT_MKFS_ALL);

	/* unchecked: runs in the parent, so the temporary directory goes away
	 * even when a test fails (a failing forked test skips checked teardown) */
	for (TCase **t = (TCase *[]){ tc, root, fuse, NULL }; *t; t++) {
		tcase_set_timeout(*t, 120);
		tcase_add_unchecked_fixture(*t, setup, teardown);
	}
	tcase_add_test(tc, csv_and_manifest);
	tcase_add_test(tc, resume_after_sigkill);
	tcase_add_test(tc, resume_keeps_an_old_csvs_columns);
	tcase_add_test(tc, sigint_stops_after_the_cell);
	tcase_add_test(tc, direct_mode_runs_stdio_buffered);
	tcase_add_test(tc, until_ci_keeps_every_sample);
	tcase_add_test(tc, decided_rule_records_why_each_test_stopped);
	tcase_add_test(tc, latency_columns);
	tcase_add_test(tc, pass_gap_pauses_outside_the_timer);
	tcase_add_test(tc, device_probe_flags);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, sweep_file_then_flags);
	tcase_add_test(tc, cold_drops_the_file_by_fadvise);
	tcase_add_test(tc, dry_run_prints_the_plan_and_writes_nothing);
	tcase_add_test(root, dry_run_refuses_a_plan_too_big);
	tcase_add_test(root, sigint_stops_inside_a_long_pass);
	tcase_add_test(root, dry_run_caps_the_default_files);
	tcase_add_test(root, default_run_records_its_rule_and_resumes);
	tcase_add_test(root, dry_run_names_the_probe_when_it_is_the_largest_file);
	tcase_add_test(root, cold_tmpfs_falls_back);
	tcase_add_test(root, full_filesystem_gives_failed_rows);
	tcase_add_test(root, vanished_filesystem_is_skipped_and_resumed);
	tcase_add_test(root, lab_run_cold_remount);
	tcase_add_test(fuse, fuse_directory_is_flagged);
	tcase_add_test(fuse, fuse_runs_the_fuse_plan);
	tcase_add_test(tc, blocks_interleave_the_filesystems_per_cell);
	tcase_add_test(fuse, cold_btrfs_on_buffered_loop_drops_the_backing_file);
	tcase_add_test(tc, empty_sweep_names_small_records_keep);
	tcase_add_test(tc, lists_of_sizes_and_depths_run_and_resume);
	tcase_add_test(tc, interrupted_run_does_not_say_done);
	tcase_add_test(tc, eta_covers_the_whole_plan);
	tcase_add_test(tc, eta_prices_each_cells_own_tests);
	return ft_suite_run(s, argc, argv);
}
