#!/bin/bash
# The fslab role against hostile inventory names (no root, no SSH: every
# host is this machine through ansible_connection=local, and the fslab the
# role would run is a stand-in that fails, so nothing is set up).
#
# A host named "..", "x/../../victim" or "." made the role compute
# <fslab_results_dir>/<name> and, on the way to fetching the results,
# delete it: the results directory's parent, with a victim beside it.
# Each such name must now fail that host alone, naming the rule, before
# any task acts; the victim stays byte-identical, nothing is created
# under the work directories; a good host in the same play still fetches
# its results into <fslab_results_dir>/<host>/, replacing an earlier fetch
# without deleting a path computed from the inventory.
set -u
src=${FSLAB_SOURCE_DIR:?set by ctest}
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook is missing (scripts/install-deps.sh --tests)"; exit 77; }
fail() {
	[ -f "$tmp/play.log" ] && cat "$tmp/play.log"
	echo "FAIL: $*" >&2
	exit 1
}
tmp=$(mktemp -d /tmp/fslab-ansible-names.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export ANSIBLE_HOME=$tmp/home ANSIBLE_LOCAL_TEMP=$tmp/home/tmp ANSIBLE_REMOTE_TEMP=$tmp/home/remote ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0

# The controller: results in ctl/results, the victim beside them.
mkdir -p "$tmp/ctl/results/good" "$tmp/ctl/victim" "$tmp/bin"
echo "do not lose" >"$tmp/ctl/victim/thesis.txt"
echo "an earlier fetch" >"$tmp/ctl/results/good/old.txt"
# The stand-in fslab: every command fails (so the role goes straight to
# fetching and tearing down, as after a failed setup).
printf '#!/bin/sh\necho "stand-in fslab: $*" >&2\nexit 1\n' >"$tmp/bin/fslab"
chmod 755 "$tmp/bin/fslab"
sum_before=$(cd "$tmp/ctl" && find victim -type f -exec sha256sum {} + | sort)

# Each host: its own work directory holding a finished run's file, so the
# role has results to fetch.
host_vars() { # name dir
	mkdir -p "$tmp/$2/lab"
	echo "s,write" >"$tmp/$2/lab/s.csv"
	cat <<EOF
    "$1":
      ansible_connection: local
      ansible_python_interpreter: $(command -v python3)
      fslab_work_dir: $tmp/$2
      fslab_state: $tmp/$2.state.json
      fslab_image: $tmp/$2.img
EOF
}
{
	echo "all:"
	echo "  hosts:"
	host_vars ".." w1
	host_vars "x/../../victim" w2
	host_vars "." w3
	host_vars "good" w4
} >"$tmp/inventory.yml"

PATH=$tmp/bin:$PATH timeout 300 ansible-playbook -i "$tmp/inventory.yml" "$src/ansible/lab.yml" \
	-e fslab_install=false -e "fslab_results_dir=$tmp/ctl/results" >"$tmp/play.log" 2>&1
rc=$?
[ "$rc" -ne 124 ] || fail "ansible-playbook did not end within 300 s"
[ "$rc" -ne 0 ] || fail "the play succeeded with hostile host names"

sum_after=$(cd "$tmp/ctl" && find victim -type f -exec sha256sum {} + 2>/dev/null | sort)
[ "$sum_before" = "$sum_after" ] || fail "the victim beside the results directory changed"
[ -d "$tmp/ctl/results" ] || fail "the results directory itself was removed"
for h in '\.\.' 'x/\.\./\.\./victim' '\.'; do
	grep -qE "fatal: \[$h\].*letters, digits" "$tmp/play.log" ||
		fail "host '$h' was not refused naming the rule"
done
# refused before any task acted: nothing fetched for them
[ -z "$(find "$tmp/ctl" -path "$tmp/ctl/results/good" -prune -o -name s.csv -print)" ] ||
	fail "results of a refused host were fetched: $(find "$tmp/ctl" -name s.csv)"
# the good host: its results fetched in place of the earlier fetch, and
# no temporary directory left beside them
[ -f "$tmp/ctl/results/good/s.csv" ] || fail "the good host's results were not fetched"
[ ! -e "$tmp/ctl/results/good/old.txt" ] || fail "the good host's earlier fetch is still mixed in"
leftover=$(find "$tmp/ctl/results" -mindepth 1 -maxdepth 1 ! -name good)
[ -z "$leftover" ] || fail "left beside the results: $leftover"
echo "PASS: hostile host names refused, the victim intact, the good host fetched"
