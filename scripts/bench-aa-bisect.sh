#!/bin/sh
# A real A/A of fslab report's regression mode (--fail-on-regression, made
# for git bisect run): the same spec on a small loop-image lab, set up
# fresh N times a side (scripts/bisect-step.sh: setup, fslab run,
# teardown per run), K comparisons of two such sides of unchanged code.
# Nothing changed, so every comparison must exit 0 (not regressed) or 125
# (cannot tell); an exit 1 is a false "bad" that would send git bisect the
# wrong way.  Prints each comparison's exit status and the report's line
# on stderr, then the count of exits 0, 1 and 125.  Exits 1 when any
# comparison said 1, else 0.
#
# Usage: scripts/bench-aa-bisect.sh [K] [PCT]   (K default 20, PCT default 5)
# Environment: N (runs a side, default 3), WORK (default
#   /var/tmp/fslab-bench-aa-bisect), FSLAB, FSLAB_BISECT_SPEC and
#   FSLAB_BISECT_RUN as scripts/bisect-step.sh.  Root.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
k=${1:-20} pct=${2:-5}
WORK=${WORK:-/var/tmp/fslab-bench-aa-bisect}
export WORK
[ "$(id -u)" -eq 0 ] || { echo "bench-aa-bisect.sh: run as root (loop devices, mkfs, mount)" >&2; exit 1; }
zero=0 one=0 skip=0 other=0
start=$(date +%s)
i=1
while [ "$i" -le "$k" ]; do
	rm -rf "$WORK/before"
	if ! sh "$top/scripts/bisect-step.sh" --save "$WORK/before" >/dev/null; then
		echo "bench-aa-bisect.sh: comparison $i: the BEFORE runs failed" >&2
		exit 1
	fi
	rc=0
	sh "$top/scripts/bisect-step.sh" "$WORK/before" "$pct" >"$WORK/report.txt" 2>"$WORK/err.txt" || rc=$?
	case $rc in
	0) zero=$((zero + 1)) ;;
	1) one=$((one + 1)) ;;
	125) skip=$((skip + 1)) ;;
	*) other=$((other + 1)) ;;
	esac
	printf '%2d  exit %3d  %s\n' "$i" "$rc" "$(grep -E 'regressed|cannot tell|not regressed' "$WORK/err.txt" | head -3 | tr '\n' ' ')"
	i=$((i + 1))
done
echo "A/A, ${N:-3} runs a side, $k comparisons, --fail-on-regression $pct:" \
	"exit 0 $zero, exit 1 $one, exit 125 $skip$([ $other -eq 0 ] || echo ", other $other") ($(($(date +%s) - start)) s)"
[ "$one" -eq 0 ]
