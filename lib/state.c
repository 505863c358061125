#include "state.h"
#include "fileutil.h"
#include "spec_options.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A state file is a few KiB: anything far bigger is not one. */
#define STATE_SIZE_MAX (4u << 20)

static const char *const mount_method_names[FSLAB_MOUNT_METHOD_MAX] = {
	[FSLAB_MOUNT_NONE] = "none",
	[FSLAB_MOUNT_KERNEL] = "kernel",
	[FSLAB_MOUNT_FUSE] = "fuse",
};

const char *fslab_mount_method_to_string(enum fslab_mount_method m)
{
	return (m >= 0 && m < FSLAB_MOUNT_METHOD_MAX) ? mount_method_names[m] : NULL;
}

static const char *const phase_names[FSLAB_PHASE_MAX] = {
	[FSLAB_PHASE_NONE] = "",
	[FSLAB_PHASE_CLAIMED] = "claimed",
	[FSLAB_PHASE_ATTACHED] = "attached",
	[FSLAB_PHASE_PARTITIONING] = "partitioning",
	[FSLAB_PHASE_PARTITIONED] = "partitioned",
	[FSLAB_PHASE_FORMATTED] = "formatted",
	[FSLAB_PHASE_READY] = "ready",
	[FSLAB_PHASE_WIPING] = "wiping",
	[FSLAB_PHASE_WIPED] = "wiped",
};

const char *fslab_phase_to_string(enum fslab_phase p)
{
	return (p >= 0 && p < FSLAB_PHASE_MAX) ? phase_names[p] : NULL;
}

const char *fslab_state_default_path(void)
{
	const char *env = getenv("FSLAB_STATE");

	return env && *env ? env : FSLAB_STATE_DEFAULT_PATH;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

static void add_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

static void add_id(struct json_object *o, const char *k, const struct fslab_state_id *id)
{
	struct json_object *v;

	if (!id->known)
		return;
	v = json_object_new_object();
	add_u64(v, "dev", id->dev);
	add_u64(v, "ino", id->ino);
	json_object_object_add(o, k, v);
}

struct json_object *fslab_state_precondition_to_json(const struct fslab_state_precondition *pc)
{
	struct json_object *o;

	if (!pc->status[0] || !(o = json_object_new_object()))
		return NULL;
	add_str(o, "status", pc->status);
	add_str(o, "note", pc->note);
	add_str(o, "purge", fslab_purge_to_string(pc->purge));
	add_str(o, "purge_result", pc->purge_result);
	add_u64(o, "target_bytes", pc->target_bytes);
	add_u64(o, "bytes", pc->bytes);
	add_u64(o, "block_bytes", pc->block_bytes);
	json_object_object_add(o, "seconds", json_object_new_double(pc->seconds));
	json_object_object_add(o, "mib_s", json_object_new_double(pc->mib_s));
	json_object_object_add(o, "drive_before", fslab_drive_conditions_to_json(&pc->before));
	json_object_object_add(o, "drive_after", fslab_drive_conditions_to_json(&pc->after));
	return o;
}

/* The state as JSON text ending in a newline (malloc'd), or NULL. */
static char *state_to_text(const struct fslab_state *st, size_t *lenp)
{
	struct json_object *root = json_object_new_object();
	struct json_object *parts = json_object_new_array();
	const char *text;
	char *buf = NULL;

	if (!root || !parts) {
		json_object_put(root);
		json_object_put(parts);
		return NULL;
	}
	json_object_object_add(root, "version", json_object_new_int(FSLAB_STATE_VERSION));
	add_str(root, "phase", fslab_phase_to_string(st->phase));
	add_str(root, "lab_id", st->lab_id);
	add_u64(root, "disk_rdev", st->disk_rdev);
	add_id(root, "image_id", &st->image_id);
	add_id(root, "mount_root_id", &st->mount_root_id);
	json_object_object_add(root, "mkfs_pid", json_object_new_int64(st->mkfs_pid));
	add_str(root, "disk", st->disk);
	add_str(root, "disk_guid", st->disk_guid);
	add_str(root, "disk_serial", st->disk_serial);
	add_str(root, "disk_wwid", st->disk_wwid);
	add_id(root, "disk_backing_id", &st->disk_backing_id);
	add_str(root, "image", st->image);
	add_bool(root, "image_created", st->image_created);
	add_str(root, "loop_io", st->loop_io);
	add_str(root, "mount_root", st->mount_root);
	add_bool(root, "mount_root_created", st->mount_root_created);
	add_str(root, "spec_source", st->spec_source);
	add_str(root, "created_at", st->created_at);
	json_object_object_add(root, "precondition", fslab_state_precondition_to_json(&st->precondition));
	for (size_t i = 0; i < st->n_partitions; i++) {
		const struct fslab_state_partition *p = &st->partitions[i];
		struct json_object *o = json_object_new_object();

		add_str(o, "name", p->name);
		add_str(o, "type", fslab_fs_type_to_string(p->type));
		add_u64(o, "number", p->number);
		add_str(o, "device", p->device);
		add_str(o, "partuuid", p->partuuid);
		add_u64(o, "start_sector", p->start_sector);
		add_u64(o, "size_sectors", p->size_sectors);
		add_str(o, "mkfs_options", p->mkfs_options);
		add_str(o, "mkfs_command", p->mkfs_command);
		add_str(o, "mkfs_version", p->mkfs_version);
		add_str(o, "mount_options", p->mount_options);
		add_str(o, "mountpoint", p->mountpoint);
		add_bool(o, "mountpoint_created", p->mountpoint_created);
		add_id(o, "mountpoint_id", &p->mountpoint_id);
		add_bool(o, "formatted", p->formatted);
		add_bool(o, "discarded", p->discarded);
		add_str(o, "mount_method", fslab_mount_method_to_string(p->mount_method));
		if (p->fuse_pid > 0) {
			add_u64(o, "fuse_pid", (uint64_t)p->fuse_pid);
			add_u64(o, "fuse_conn", p->fuse_conn);
		}
		add_str(o, "quiet", p->quiet);
		add_str(o, "quiet_note", p->quiet_note);
		json_object_object_add(o, "quiet_wait_s", json_object_new_double(p->quiet_wait_s));
		json_object_array_add(parts, o);
	}
	json_object_object_add(root, "partitions", parts);

	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text) {
		size_t n = strlen(text);

		buf = malloc(n + 2);
		if (buf) {
			memcpy(buf, text, n);
			buf[n] = '\n';
			buf[n + 1] = '\0';
			*lenp = n + 1;
		}
	}
	json_object_put(root);
	return buf;
}

int fslab_state_save_at(int dfd, const char *name, const struct fslab_state *st, unsigned flags)
{
	size_t len = 0;
	char *buf = state_to_text(st, &len);
	int r;

	if (!buf)
		return -ENOMEM;
	r = fslab_write_file_atomic_flags_at(dfd, name, buf, len, 0600, flags);
	free(buf);
	return r;
}

/* Every parse error below writes what is wrong into sub (the caller adds
 * the path) and returns -EINVAL. */
static int bad(char *sub, size_t sublen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int get_str(struct json_object *o, const char *k, char *dst, size_t len, bool required,
		   char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v)) {
		if (required)
			return bad(err, errlen, "missing \"%s\"", k);
		dst[0] = '\0';
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return bad(err, errlen, "\"%s\" is not a string", k);
	const char *s = json_object_get_string(v);
	if (strlen(s) >= len)
		return bad(err, errlen, "\"%s\" is too long", k);
	snprintf(dst, len, "%s", s);
	return 0;
}

static bool get_bool(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_get_boolean(v);
}

static uint64_t get_u64(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		return 0;
	int64_t x = json_object_get_int64(v);
	return x < 0 ? 0 : (uint64_t)x;
}

static int get_id(struct json_object *o, const char *k, struct fslab_state_id *id, char *err,
		  size_t errlen)
{
	struct json_object *v, *d, *i;

	memset(id, 0, sizeof(*id));
	if (!json_object_object_get_ex(o, k, &v))
		return 0;
	if (!json_object_is_type(v, json_type_object) || !json_object_object_get_ex(v, "dev", &d) ||
	    !json_object_object_get_ex(v, "ino", &i) || !json_object_is_type(d, json_type_int) ||
	    !json_object_is_type(i, json_type_int))
		return bad(err, errlen, "\"%s\" is not an identity {\"dev\": N, \"ino\": N}", k);
	id->known = true;
	id->dev = (uint64_t)json_object_get_int64(d);
	id->ino = (uint64_t)json_object_get_int64(i);
	return 0;
}

static int state_parse(const char *path, char *text, struct fslab_state *st, struct fslab_err *e);

int fslab_state_load(const char *path, struct fslab_state *st, struct fslab_err *e)
{
	char *text = NULL;
	int r;

	memset(st, 0, sizeof(*st));
	r = fslab_read_file(path, &text, NULL, STATE_SIZE_MAX);
	if (r < 0)
		return fslab_err_set(e, r, "%s: %s", path, fslab_input_strerror(r));
	return state_parse(path, text, st, e);
}

int fslab_state_load_at(int dfd, const char *name, const char *label, struct fslab_state *st,
			struct fslab_err *e)
{
	char *text = NULL;
	int fd, r;

	memset(st, 0, sizeof(*st));
	fd = fslab_open_regular_at(dfd, name, O_RDONLY);
	if (fd < 0)
		return fslab_err_set(e, fd, "%s: %s", label,
				     fd == -ELOOP ? "is a symbolic link (not followed)"
						  : fd == -EINVAL ? "is not a regular file" : strerror(-fd));
	r = fslab_read_fd(fd, &text, NULL, STATE_SIZE_MAX);
	close(fd);
	if (r < 0)
		return fslab_err_set(e, r, "%s: %s", label, strerror(-r));
	return state_parse(label, text, st, e);
}

static int bad(char *sub, size_t sublen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sub, sublen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The phase: one of the names fslab writes ("" or absent: none yet). */
static int parse_phase(struct json_object *root, struct fslab_state *st, char *sub, size_t sublen)
{
	char name[32];
	int r = get_str(root, "phase", name, sizeof(name), false, sub, sublen);

	if (r < 0)
		return r;
	st->phase = (enum fslab_phase)fslab_name_index(phase_names, FSLAB_PHASE_MAX, name);
	if (st->phase == FSLAB_PHASE_INVALID)
		return bad(sub, sublen, "unknown phase '%s' (fslab writes claimed, attached, "
				       "partitioning, partitioned, formatted, ready, wiping or wiped)",
			   name);
	return 0;
}

/* A number that is finite and in [0, max]; absent: 0. */
static int get_seconds(struct json_object *o, const char *k, double max, double *out, char *err,
		       size_t errlen)
{
	struct json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(o, k, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return bad(err, errlen, "\"%s\" is not a number", k);
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < 0 || *out > max)
		return bad(err, errlen, "\"%s\" is %g, outside 0..%g", k, *out, max);
	return 0;
}

int fslab_state_precondition_from_json(struct json_object *o, struct fslab_state_precondition *pc,
				       char *err, size_t errlen)
{
	struct json_object *v;
	char purge[16];
	int r;

	memset(pc, 0, sizeof(*pc));
	pc->before.smart_passed = pc->after.smart_passed = -1;
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(err, errlen, "\"precondition\" is not an object");
	if ((r = get_str(o, "status", pc->status, sizeof(pc->status), true, err, errlen)) ||
	    (r = get_str(o, "note", pc->note, sizeof(pc->note), false, err, errlen)) ||
	    (r = get_str(o, "purge", purge, sizeof(purge), false, err, errlen)) ||
	    (r = get_str(o, "purge_result", pc->purge_result, sizeof(pc->purge_result), false, err,
			 errlen)) ||
	    (r = get_seconds(o, "seconds", 1e9, &pc->seconds, err, errlen)) ||
	    (r = get_seconds(o, "mib_s", 1e9, &pc->mib_s, err, errlen)))
		return r;
	pc->purge = purge[0] ? fslab_purge_from_string(purge) : FSLAB_PURGE_NONE;
	if (pc->purge == FSLAB_PURGE_INVALID)
		return bad(err, errlen, "\"precondition\": unknown purge '%s'", purge);
	pc->target_bytes = get_u64(o, "target_bytes");
	pc->bytes = get_u64(o, "bytes");
	pc->block_bytes = get_u64(o, "block_bytes");
	if ((json_object_object_get_ex(o, "drive_before", &v) &&
	     fslab_drive_conditions_from_json(v, &pc->before) < 0) ||
	    (json_object_object_get_ex(o, "drive_after", &v) &&
	     fslab_drive_conditions_from_json(v, &pc->after) < 0))
		return bad(err, errlen, "\"precondition\": a drive's conditions do not parse");
	return 0;
}

/* The lab-wide fields. */
static int parse_lab(struct json_object *root, struct fslab_state *st, char *sub, size_t sublen)
{
	struct json_object *v;
	int r;

	if ((r = parse_phase(root, st, sub, sublen)) ||
	    (r = get_str(root, "disk", st->disk, sizeof(st->disk), true, sub, sublen)) ||
	    (r = get_str(root, "disk_guid", st->disk_guid, sizeof(st->disk_guid), false, sub, sublen)) ||
	    (r = get_str(root, "image", st->image, sizeof(st->image), false, sub, sublen)) ||
	    (r = get_str(root, "mount_root", st->mount_root, sizeof(st->mount_root), false, sub, sublen)) ||
	    (r = get_str(root, "spec_source", st->spec_source, sizeof(st->spec_source), false, sub, sublen)) ||
	    (r = get_str(root, "loop_io", st->loop_io, sizeof(st->loop_io), false, sub, sublen)) ||
	    (r = get_str(root, "created_at", st->created_at, sizeof(st->created_at), false, sub, sublen)) ||
	    (r = get_str(root, "lab_id", st->lab_id, sizeof(st->lab_id), false, sub, sublen)) ||
	    (r = get_str(root, "disk_serial", st->disk_serial, sizeof(st->disk_serial), false, sub, sublen)) ||
	    (r = get_str(root, "disk_wwid", st->disk_wwid, sizeof(st->disk_wwid), false, sub, sublen)) ||
	    (r = get_id(root, "disk_backing_id", &st->disk_backing_id, sub, sublen)) ||
	    (r = get_id(root, "image_id", &st->image_id, sub, sublen)) ||
	    (r = get_id(root, "mount_root_id", &st->mount_root_id, sub, sublen)))
		return r;
	if (json_object_object_get_ex(root, "precondition", &v) &&
	    (r = fslab_state_precondition_from_json(v, &st->precondition, sub, sublen)))
		return r;
	st->disk_rdev = get_u64(root, "disk_rdev");
	if (json_object_object_get_ex(root, "mkfs_pid", &v))
		st->mkfs_pid = json_object_get_int64(v);
	st->image_created = get_bool(root, "image_created");
	st->mount_root_created = get_bool(root, "mount_root_created");
	return 0;
}

/* Partition i (0-based) from the object o. */
static int parse_partition(struct json_object *o, size_t i, struct fslab_state_partition *p,
			   char *sub, size_t sublen)
{
	char type[16], method[16];
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(sub, sublen, "partition %zu is not an object", i + 1);
	if ((r = get_str(o, "name", p->name, sizeof(p->name), true, sub, sublen)) ||
	    (r = get_str(o, "type", type, sizeof(type), true, sub, sublen)) ||
	    (r = get_str(o, "device", p->device, sizeof(p->device), false, sub, sublen)) ||
	    (r = get_str(o, "partuuid", p->partuuid, sizeof(p->partuuid), false, sub, sublen)) ||
	    (r = get_str(o, "mkfs_options", p->mkfs_options, sizeof(p->mkfs_options), false, sub, sublen)) ||
	    (r = get_str(o, "mkfs_command", p->mkfs_command, sizeof(p->mkfs_command), false, sub, sublen)) ||
	    (r = get_str(o, "mkfs_version", p->mkfs_version, sizeof(p->mkfs_version), false, sub, sublen)) ||
	    (r = get_str(o, "mount_options", p->mount_options, sizeof(p->mount_options), false, sub, sublen)) ||
	    (r = get_str(o, "mountpoint", p->mountpoint, sizeof(p->mountpoint), false, sub, sublen)) ||
	    (r = get_str(o, "mount_method", method, sizeof(method), false, sub, sublen)) ||
	    (r = get_str(o, "quiet", p->quiet, sizeof(p->quiet), false, sub, sublen)) ||
	    (r = get_str(o, "quiet_note", p->quiet_note, sizeof(p->quiet_note), false, sub, sublen)) ||
	    (r = get_seconds(o, "quiet_wait_s", 1e6, &p->quiet_wait_s, sub, sublen)) ||
	    (r = get_id(o, "mountpoint_id", &p->mountpoint_id, sub, sublen)))
		return r;
	p->type = fslab_fs_type_from_string(type);
	if (p->type == FSLAB_FS_TYPE_INVALID)
		return bad(sub, sublen, "partition '%s' has unknown type '%s'", p->name, type);
	/* What fslab passes to mkfs and mount again must pass the spec's
	 * allowlist: a state file is not a way round it. */
	if ((r = fslab_spec_options_check(p->type, FSLAB_SPEC_MKFS_OPTIONS, p->mkfs_options, sub,
					  sublen)) ||
	    (r = fslab_spec_options_check(p->type, FSLAB_SPEC_MOUNT_OPTIONS, p->mount_options, sub,
					  sublen)))
		return r;
	p->mount_method = method[0] ? (enum fslab_mount_method)fslab_name_index(
					      mount_method_names, FSLAB_MOUNT_METHOD_MAX, method)
				    : FSLAB_MOUNT_NONE;
	if (p->mount_method == FSLAB_MOUNT_METHOD_INVALID)
		return bad(sub, sublen, "partition '%s' has unknown mount_method '%s'", p->name, method);
	p->number = (unsigned)get_u64(o, "number");
	p->start_sector = get_u64(o, "start_sector");
	p->size_sectors = get_u64(o, "size_sectors");
	p->mountpoint_created = get_bool(o, "mountpoint_created");
	p->formatted = get_bool(o, "formatted");
	p->discarded = get_bool(o, "discarded");
	{
		uint64_t pid = get_u64(o, "fuse_pid"), conn = get_u64(o, "fuse_conn");

		/* bounded: a pid_t and a minor device number */
		if (pid > INT32_MAX || conn > (1u << 20))
			return bad(sub, sublen, "partition '%s' has an impossible fuse_pid or fuse_conn",
				   p->name);
		p->fuse_pid = (int64_t)pid;
		p->fuse_conn = (unsigned)conn;
	}
	return 0;
}

static int parse_partitions(struct json_object *root, struct fslab_state *st, char *sub,
			    size_t sublen)
{
	struct json_object *parts;
	size_t n;
	int r;

	if (!json_object_object_get_ex(root, "partitions", &parts))
		return 0;
	if (!json_object_is_type(parts, json_type_array))
		return bad(sub, sublen, "\"partitions\" is not an array");
	n = json_object_array_length(parts);
	if (n > FSLAB_MAX_FS)
		return bad(sub, sublen, "more than %d partitions", FSLAB_MAX_FS);
	for (size_t i = 0; i < n; i++) {
		r = parse_partition(json_object_array_get_idx(parts, i), i, &st->partitions[i], sub,
				    sublen);
		if (r < 0)
			return r;
		st->n_partitions++;
	}
	return 0;
}

/* Parses and frees text. */
static int state_parse(const char *path, char *text, struct fslab_state *st, struct fslab_err *e)
{
	struct json_object *root, *v;
	char sub[256] = "";
	int r, version;

	root = json_tokener_parse(text);
	free(text);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return fslab_err_set(e, -EINVAL, "%s: not a JSON object; is this an fslab state file?",
				     path);
	}
	version = json_object_object_get_ex(root, "version", &v) && json_object_is_type(v, json_type_int)
			  ? json_object_get_int(v)
			  : 0;
	if (version < FSLAB_STATE_VERSION_MIN || version > FSLAB_STATE_VERSION) {
		json_object_put(root);
		return fslab_err_set(e, -EINVAL,
				     "%s: state version is not %d to %d; was it written by this fslab?",
				     path, FSLAB_STATE_VERSION_MIN, FSLAB_STATE_VERSION);
	}
	st->version = version;
	r = parse_lab(root, st, sub, sizeof(sub));
	if (r == 0)
		r = parse_partitions(root, st, sub, sizeof(sub));
	json_object_put(root);
	if (r < 0)
		return fslab_err_set(e, r, "%s: damaged state file: %s", path, sub);
	return 0;
}

const struct fslab_state_partition *fslab_state_find(const struct fslab_state *st,
						     const char *name)
{
	for (size_t i = 0; i < st->n_partitions; i++)
		if (strcmp(st->partitions[i].name, name) == 0)
			return &st->partitions[i];
	return NULL;
}
