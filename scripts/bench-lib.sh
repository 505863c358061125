# What the lab benchmark scripts (bench-aa.sh, bench-cdm.sh, bench-ssd.sh,
# bench-time-to-answer.sh, bench-eta.sh, ...) share, sourced by them: their
# arguments, the checks before a lab is made, a small image lab's spec, and
# its teardown on every path.  Set before sourcing: top (the source tree)
# and name (the script's name, for messages); bench_lab_args sets fslab
# (the binary), state (the lab's state file) and work (bench_lab_spec's
# directory), or the script sets them itself.

# bench_lab_args DEFAULT_WORK "$@": the arguments [WORK_DIR] [-- fslab run
# options]: sets work (WORK_DIR or DEFAULT_WORK), fslab ($FSLAB or the
# build tree's), state and PATH (with the sbin directories mkfs lives in);
# bench_args_used is how many arguments the caller shifts away (what is
# left is the fslab run options).
bench_lab_args() {
	work=$1
	shift
	bench_args_used=0
	if [ $# -gt 0 ] && [ "$1" != "--" ]; then
		work=$1
		bench_args_used=1
		shift
	fi
	[ "${1:-}" = "--" ] && bench_args_used=$((bench_args_used + 1))
	fslab=${FSLAB:-$top/build/fslab}
	state=$work/state.json
	PATH=$PATH:/usr/sbin:/sbin
}

# bench_lab_checks TOOL...: root, the fslab binary, the tools, and no
# earlier lab of this script still set up; then, and only then, the lab
# this script makes is torn down when it ends (bench_lab_cleanup).
bench_lab_checks() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$name: run as root (setup attaches a loop device, formats and mounts)" >&2
		exit 1
	fi
	if [ ! -x "$fslab" ]; then
		echo "$name: no fslab at $fslab: build it (cmake -S . -B build && cmake --build build) or set FSLAB" >&2
		exit 1
	fi
	for tool in "$@"; do
		command -v "$tool" >/dev/null ||
			{ echo "$name: $tool is needed to read the results (scripts/install-deps.sh --tests)" >&2; exit 1; }
	done
	if [ -e "$state" ]; then
		echo "$name: $state exists: an earlier lab is still set up; remove it with: $fslab teardown --state $state --yes" >&2
		exit 1
	fi
	trap bench_lab_cleanup EXIT INT TERM
}

# The lab named by $state is torn down when the script ends, however it
# ends; bench_lab_extra_cleanup (when the script defines it) runs first.
bench_lab_cleanup() {
	status=$?
	if command -v bench_lab_extra_cleanup >/dev/null 2>&1; then
		bench_lab_extra_cleanup || true
	fi
	if [ -e "$state" ]; then
		"$fslab" teardown --state "$state" --yes >/dev/null || true
	fi
	exit $status
}

# bench_lab_spec SIZE TYPE...: $work/spec.ini for an image lab of one
# partition of SIZE per filesystem TYPE, each named as its type.
bench_lab_spec() {
	size=$1
	shift
	: >"$work/spec.ini"
	for type in "$@"; do
		printf '[fs %s]\ntype = %s\nsize = %s\n\n' "$type" "$type" "$size" >>"$work/spec.ini"
	done
}
