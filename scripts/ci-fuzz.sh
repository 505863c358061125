#!/bin/sh
# CI stage: build the libFuzzer targets with clang (-DFSLAB_FUZZ=ON) and run
# each for FUZZ_SECONDS (default 60) on a copy of its seed corpus.  A crash
# fails the stage; the crashing input is left in the artifact directory
# (printed) to be fixed and copied to tests/fuzz/regressions/<target>/.
# Usage: scripts/ci-fuzz.sh [BUILD_DIR]   (default build-fuzz)
set -eu
. "$(dirname "$0")/ci-lib.sh"
build=${1:-$top/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null || { echo "ci-fuzz: $cc is not installed (scripts/install-deps.sh: clang libclang-rt-14-dev)" >&2; exit 1; }
CC=$cc cmake -S "$top" -B "$build" -DFSLAB_WERROR=ON -DFSLAB_TESTS=ON -DFSLAB_FUZZ=ON
targets=$(cd "$top/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
# Only the targets whose sources are present in this checkout's CMake list.
built=""
for t in $targets; do
	if cmake --build "$build" -j"$jobs" --target "fuzz_$t"; then
		built="$built $t"
	else
		echo "ci-fuzz: fuzz_$t does not build" >&2
		exit 1
	fi
done
out=${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/fslab-fuzz.XXXXXX")}
rc=0
for t in $built; do
	mkdir -p "$out/$t/corpus" "$out/$t/artifacts"
	cp "$top/tests/fuzz/corpus/$t/"* "$out/$t/corpus/" 2>/dev/null || true
	for f in "$top/tests/fuzz/regressions/$t/"*; do
		[ -f "$f" ] && cp "$f" "$out/$t/corpus/"
	done
	t0=$(ci_now)
	echo "== fuzz_$t for $seconds s"
	if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/$t/artifacts/" \
		"$out/$t/corpus" >"$out/$t/log" 2>&1; then
		echo "ci-fuzz: fuzz_$t CRASHED; input(s) in $out/$t/artifacts:" >&2
		ls -l "$out/$t/artifacts" >&2
		tail -60 "$out/$t/log" >&2
		rc=1
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t/log" | tail -1)
	echo "== fuzz_$t: ${execs:-?} executions in $(($(ci_now) - t0)) s"
done
[ -z "${FUZZ_OUT:-}" ] && [ $rc -eq 0 ] && rm -rf "$out"
exit $rc
