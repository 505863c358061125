#!/bin/sh
# The report module's layers, read off its objects: each object's defined
# and undefined symbols (nm) joined into the calls between its files.  The
# format leaf calls no other report file, no model file calls a view, and
# no calls go round in a circle (tsort finds none).  Exit 77 without nm.
# usage: layers.sh OBJECT...
set -u
command -v nm >/dev/null 2>&1 && command -v tsort >/dev/null 2>&1 || exit 77
export LC_ALL=C
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/defs"
: >"$tmp/uses"
for o in "$@"; do
	f=$(basename "$o")
	f=${f%%.*}
	nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /^[TDRB]$/ { print $3, f }' >>"$tmp/defs"
	nm -u "$o" | awk -v f="$f" '{ print $NF, f }' >>"$tmp/uses"
done
sort -o "$tmp/defs" "$tmp/defs"
sort -o "$tmp/uses" "$tmp/uses"
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/calls"
[ -s "$tmp/calls" ] || { echo "no calls between report files found: wrong objects?"; exit 1; }
models=" load rank infer summary order latency cdm claims "
views=" text html json plot verdict cdm_view claims_view "
fail=0
while read -r a b; do
	if [ "$a" = format ]; then
		echo "the format leaf calls $b"
		fail=1
	fi
	case "$models" in *" $a "*)
		case "$views" in *" $b "*)
			echo "model file $a calls view $b"
			fail=1 ;;
		esac ;;
	esac
done <"$tmp/calls"
if ! tsort "$tmp/calls" >/dev/null 2>"$tmp/tsort"; then
	echo "a circle of calls between report files:"
	cat "$tmp/tsort"
	fail=1
fi
[ "$fail" = 0 ] && echo "report: $(wc -l <"$tmp/calls") calls between files; format a leaf, no model file calls a view, no circle"
exit "$fail"
