# Shared by scripts/ci-*.sh (sourced, not run).  Sets $top and helpers.
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

ci_now() { date +%s; }

# ci_stage NAME COMMAND...: runs one stage, prints its duration, keeps the
# exit status.
ci_stage() {
	_name=$1
	shift
	_t0=$(ci_now)
	echo "==== stage $_name: start $(date -u +%H:%M:%S)"
	_rc=0
	"$@" || _rc=$?
	echo "==== stage $_name: $([ $_rc -eq 0 ] && echo passed || echo "FAILED (exit $_rc)") in $(($(ci_now) - _t0)) s"
	return $_rc
}
