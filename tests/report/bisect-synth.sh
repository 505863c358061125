#!/bin/sh
# git bisect run over a synthetic history, through fslab report's
# regression mode (docs/report.md, "Did my change make it slower?").
# A tiny git repository of a base and three commits; its "build" is the
# file `slow` (empty, or "FS TEST FACTOR"), its "benchmark"
# synth-results.sh: N fresh runs made from the checked-in fixture with
# between-run noise (CV 2%) and trial noise (CV 1%), scaled by `slow`.
# The second commit plants a 30% slowdown of ext4's write; the step
# compares N runs of the commit with N runs of the base saved before the
# bisect (`fslab report BEFORE,... AFTER,... --fail-on-regression 10`)
# and exits with the report's code.  Checks:
#   - git bisect names the planting commit;
#   - A/A (the base against itself, K seeds): exit 0 or 125, never 1;
#   - one run per side: 125, never 1, however large the slowdown;
#   - a slowdown planted in a page-cache-flagged test (btrfs write): never 1.
# No root, no device.  Exits 77 without git or awk.
set -eu
fslab=${FSLAB:?set FSLAB to the fslab binary}
src=${FSLAB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
for tool in git awk; do
	command -v $tool >/dev/null || { echo "bisect-synth: no $tool: skipped"; exit 77; }
done
synth="$src/tests/report/synth-results.sh"
fixture="$src/tests/report/fixtures/basic"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fslab-bisect.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "bisect-synth: FAIL: $*" >&2; exit 1; }
N=4 PCT=10

# N runs of FS TEST FACTOR (or nothing) from seed base SEED: their comma list
runs() { # PREFIX SEED [FS TEST FACTOR]
	p=$1 s=$2
	shift 2
	list=
	for i in $(seq 1 $N); do
		sh "$synth" "$fixture" "$p$i" $((s * 100 + i)) "$@"
		list=$list${list:+,}$p$i
	done
	echo "$list"
}
report() { "$fslab" report "$@" --fail-on-regression $PCT >"$tmp/out" 2>"$tmp/err"; }

# the history
git init -q "$tmp/repo"
cd "$tmp/repo"
git config user.email bisect@example.invalid
git config user.name bisect
: >slow
git add slow && git commit -q -m "base"
echo "a change that costs nothing" >notes && git add notes && git commit -q -m "one"
echo "ext4 write 0.70" >slow && git commit -q -am "two: ext4 writes 30% slower"
echo "another change" >>notes && git commit -q -am "three"
planted=$(git rev-parse HEAD~1)
before=$(runs "$tmp/before" 1)
cat >"$tmp/step.sh" <<STEP
#!/bin/sh
# one bisect step: N fresh runs of this commit against the saved BEFORE
n=\$(git rev-list --count HEAD)
rm -rf "$tmp/after-\$n"
list=
for i in \$(seq 1 $N); do
	sh "$synth" "$fixture" "$tmp/after-\$n-\$i" \$((n * 1000 + i)) \$(cat slow) || exit 125
	list=\$list\${list:+,}$tmp/after-\$n-\$i
done
"$fslab" report "$before" "\$list" --fail-on-regression $PCT
STEP
git bisect start HEAD HEAD~3 >/dev/null
git bisect run sh "$tmp/step.sh" >"$tmp/bisect.log" 2>&1 || { cat "$tmp/bisect.log"; fail "git bisect run failed"; }
grep -c "^running" "$tmp/bisect.log" | sed 's/^/bisect steps: /'
grep -q "^$planted is the first bad commit" "$tmp/bisect.log" ||
	{ cat "$tmp/bisect.log"; fail "git bisect did not name $planted"; }
git bisect reset >/dev/null 2>&1
echo "git bisect run named the planted commit $(git log --format='%h %s' -1 "$planted")"

# A/A: never regressed
zero=0 skip=0
for k in 2 3 4 5 6 7 8 9; do
	rc=0
	report "$before" "$(runs "$tmp/aa$k-" $k)" || rc=$?
	case $rc in
	0) zero=$((zero + 1)) ;;
	125) skip=$((skip + 1)) ;;
	*) cat "$tmp/err"; fail "A/A seed $k: exit $rc" ;;
	esac
done
echo "A/A, $N runs a side, 8 comparisons: exit 0 $zero, exit 125 $skip, exit 1 0"

# the planted slowdown, 4 runs a side: 1, naming the test
rc=0
report "$before" "$(runs "$tmp/slow-" 20 ext4 write 0.70)" || rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "planted slowdown: exit $rc, not 1"; }
grep -q "regressed: ext4 write" "$tmp/err" || fail "planted slowdown: the test is not named"

# one run a side: 125, never 1
rc=0
report "$tmp/before1" "$tmp/slow-1" || rc=$?
[ $rc -eq 125 ] || { cat "$tmp/err"; fail "one run a side: exit $rc, not 125"; }

# a slowdown only where the figures are flagged page cache: never 1
rc=0
report "$before" "$(runs "$tmp/pc-" 30 btrfs write 0.50)" || rc=$?
[ $rc -ne 1 ] || { cat "$tmp/err"; fail "a flagged test decided the exit code"; }
echo "one run a side: 125; a flagged-only slowdown: $rc"
