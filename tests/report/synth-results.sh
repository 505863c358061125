#!/bin/sh
# A synthetic results directory from a checked-in fixture: every
# throughput of FIXTURE's CSVs scaled by the noise of a fresh setup (one
# draw per filesystem and test: the between-run noise, CV RUN_CV) and of a
# trial (one draw per row: CV TRIAL_CV), and by SLOW for the rows of test
# TEST of filesystem FS (0.70: a planted 30% slowdown).  The manifest is
# copied.  No root, no device: for the report's tests (git bisect run over
# a synthetic history, A/A false alarms).
#
# Usage: synth-results.sh FIXTURE OUT SEED [FS TEST SLOW]
#   RUN_CV (default 0.02) and TRIAL_CV (default 0.01) from the environment.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 FIXTURE OUT SEED [FS TEST SLOW]" >&2; exit 2; }
fixture=$1 out=$2 seed=$3 fs=${4:-} test=${5:-} slow=${6:-1}
mkdir -p "$out"
cp "$fixture/manifest.json" "$out/"
for csv in "$fixture"/*.csv; do
	seed=$((seed + 7919))
	awk -F, -v OFS=, -v seed="$seed" -v rcv="${RUN_CV:-0.02}" -v tcv="${TRIAL_CV:-0.01}" \
	    -v fs="$fs" -v test="$test" -v slow="$slow" '
	function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
	BEGIN { srand(seed) }
	NR == 1 { print; next }
	$9 == "ok" {
		if (!(($1, $2) in run))
			run[$1, $2] = rcv * gauss()
		$6 = sprintf("%.0f", $6 * exp(run[$1, $2] + tcv * gauss()) * ($1 == fs && $2 == test ? slow : 1))
	}
	{ print }' "$csv" >"$out/$(basename "$csv")"
done
