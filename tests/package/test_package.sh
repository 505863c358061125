#!/bin/bash
# The Debian package as a user meets it (root): build it with CPack from
# the build directory, check it with lintian, dpkg -i it, find the man page
# with man -w, run fslab --version, let bash-completion load the installed
# completion and complete `fslab se<TAB>`, find the Ansible playbook and
# role under /usr/share/fslab/ansible/ (and syntax-check it there); set up
# a small lab on an image and check that dpkg -r refuses while it is
# mounted (prerm); then dpkg -r and dpkg -P and check that every file the
# package installed is gone, and /var/lib/fslab with fslab's locks and logs
# (postrm purge).
#
# Exit 77 (skip) when not root, when a tool is missing, or when fslab is
# already installed on this machine (by the package or by hand): the test
# never replaces or removes an fslab it did not install.
#
# Environment (set by ctest): FSLAB_BIN, FSLAB_BUILD_DIR, FSLAB_SOURCE_DIR.
set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg -i)"
: "${FSLAB_BUILD_DIR:?set by ctest}" "${FSLAB_BIN:?set by ctest}"
for t in cpack dpkg dpkg-deb dpkg-shlibdeps lintian man; do
	command -v "$t" >/dev/null || skip "$t is missing (scripts/install-deps.sh --tests)"
done
completion_lib=/usr/share/bash-completion/bash_completion
[ -r "$completion_lib" ] || skip "bash-completion is missing (scripts/install-deps.sh --tests)"
if grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
	skip "dpkg is configured to leave out man pages (/etc/dpkg/dpkg.cfg.d)"
fi
if dpkg-query -W -f '${Status}\n' fslab 2>/dev/null | grep -qv 'not-installed'; then
	skip "a package fslab is already known to dpkg here; not touching it"
fi
if [ -e /usr/bin/fslab ]; then
	skip "/usr/bin/fslab exists and is not from a package; not touching it"
fi

tmp=$(mktemp -d /tmp/fslab-package-test.XXXXXX) || fail "mktemp"
installed=no
cleanup() {
	if [ "${lab_state:-no}" = yes ] && [ -f /var/lib/fslab/state.json ]; then
		env -u FSLAB_STATE "$FSLAB_BIN" teardown --yes >/dev/null 2>&1 || echo "cleanup: fslab teardown failed" >&2
	fi
	if [ "${lab_state:-no}" = yes ] && [ -d /var/lib/fslab ]; then
		rm -rf /var/lib/fslab
	fi
	if [ "$installed" = yes ]; then
		dpkg -P fslab >/dev/null 2>&1 || echo "cleanup: dpkg -P fslab failed" >&2
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# -- build -------------------------------------------------------------
cpack -G DEB -B "$tmp/out" --config "$FSLAB_BUILD_DIR/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1 ||
	{ cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$tmp"/out/fslab_*.deb 2>/dev/null)
[ -n "$deb" ] && [ "$(echo "$deb" | wc -l)" -eq 1 ] || fail "expected one fslab_*.deb in $tmp/out, found: $deb"
version=$("$FSLAB_BIN" --version) || fail "$FSLAB_BIN --version failed"
echo "built $(basename "$deb") ($(stat -c %s "$deb") bytes); the build's binary says: $version"
pkg_version=$(dpkg-deb -f "$deb" Version)
[ "fslab ${pkg_version%-*}" = "$version" ] ||
	fail "package version $pkg_version does not match '$version' from fslab --version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
case $depends in
*libfdisk1*libmount1* | *libmount1*libfdisk1*) ;;
*) fail "Depends lacks the libraries dpkg-shlibdeps should have found: $depends" ;;
esac
case $depends in
*libsmartcols1*) ;;
*) fail "Depends lacks libsmartcols1 (the text tables) that dpkg-shlibdeps should have found: $depends" ;;
esac
case $depends in
*liburing2*) ;;
*) fail "Depends lacks liburing2 (the queued tests' io_uring) that dpkg-shlibdeps should have found: $depends" ;;
esac
echo "Recommends: $(dpkg-deb -f "$deb" Recommends)"

# -- the Ansible playbook and role: every YAML file of ansible/ is in the
# package under /usr/share/fslab/ansible/, at the same relative path ----
src=${FSLAB_SOURCE_DIR:?set by ctest}
want=$(cd "$src/ansible" && find . -type f -name '*.yml' | sed 's|^\./||' | sort)
[ -n "$want" ] || fail "no YAML file under $src/ansible"
got=$(dpkg-deb -c "$deb" | awk '{print $NF}' | sed -n 's|^\./usr/share/fslab/ansible/\(.*[^/]\)$|\1|p' | sort)
[ "$want" = "$got" ] ||
	fail "the package's /usr/share/fslab/ansible differs from ansible/:$(diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/ &/p' | tr '\n' ' ') (< tree only, > package only)"
echo "ansible: $(echo "$want" | wc -l) files in /usr/share/fslab/ansible/"

# -- lintian: no errors ------------------------------------------------
lintian --allow-root "$deb" >"$tmp/lintian.log" 2>&1
cat "$tmp/lintian.log"
if grep -q '^E:' "$tmp/lintian.log"; then
	fail "lintian reports errors (above)"
fi

# -- install -----------------------------------------------------------
installed=yes
dpkg -i "$deb" >"$tmp/dpkg-i.log" 2>&1 || { cat "$tmp/dpkg-i.log"; fail "dpkg -i $deb failed"; }
dpkg-query -L fslab | sort >"$tmp/files" || fail "dpkg -L fslab failed"
owned=()
while IFS= read -r f; do
	[ -d "$f" ] || owned+=("$f")
done <"$tmp/files"
echo "installed ${#owned[@]} files"

[ "$(command -v fslab)" = /usr/bin/fslab ] || fail "fslab is not /usr/bin/fslab on PATH after dpkg -i"
[ "$(/usr/bin/fslab --version)" = "$version" ] ||
	fail "installed fslab --version says '$(/usr/bin/fslab --version)', the build says '$version'"
man_path=$(man -w fslab) || fail "man -w fslab found no man page"
[ "$man_path" = /usr/share/man/man1/fslab.1.gz ] || fail "man -w fslab gives $man_path, want /usr/share/man/man1/fslab.1.gz"
zcat "$man_path" | grep -q "^\.TH FSLAB 1 .*\"$version\"" ||
	fail "the man page's header does not name '$version'"
for f in /usr/share/doc/fslab/copyright /usr/share/doc/fslab/changelog.Debian.gz /usr/share/doc/fslab/README.md; do
	[ -s "$f" ] || fail "$f is missing"
done
zcat /usr/share/doc/fslab/changelog.Debian.gz | head -n 1 | grep -qF "fslab ($pkg_version)" ||
	fail "the top entry of changelog.Debian.gz is not version $pkg_version"

# The installed playbook is the tree's, and it runs from there: ansible
# finds the role in roles/ beside lab.yml (a syntax check loads it).
while IFS= read -r f; do
	cmp -s "$src/ansible/$f" "/usr/share/fslab/ansible/$f" ||
		fail "/usr/share/fslab/ansible/$f differs from ansible/$f"
	[ "$(stat -c %a "/usr/share/fslab/ansible/$f")" = 644 ] ||
		fail "/usr/share/fslab/ansible/$f has mode $(stat -c %a "/usr/share/fslab/ansible/$f"), want 644"
done <<<"$want"
if command -v ansible-playbook >/dev/null; then
	printf 'all:\n  hosts:\n    hostA:\n' >"$tmp/inventory.yml"
	(cd "$tmp" && ANSIBLE_HOME=$tmp/ansible ANSIBLE_LOCAL_TEMP=$tmp/ansible/tmp ANSIBLE_NOCOLOR=1 \
		ansible-playbook -i "$tmp/inventory.yml" --syntax-check /usr/share/fslab/ansible/lab.yml) \
		>"$tmp/ansible.log" 2>&1 ||
		{ cat "$tmp/ansible.log"; fail "ansible-playbook --syntax-check /usr/share/fslab/ansible/lab.yml failed"; }
	echo "ansible-playbook --syntax-check /usr/share/fslab/ansible/lab.yml: ok"
else
	echo "ansible-playbook is not installed: the installed playbook's syntax is not checked"
fi

# -- bash completion, loaded the way an interactive shell loads it ------
# complete WORDS...: the completions bash offers for the command line
# WORDS (the last word is the one being completed), one per line.
cat >"$tmp/complete.bash" <<'EOF'
. /usr/share/bash-completion/bash_completion
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	local spec fn
	spec=$(complete -p "$1" 2>/dev/null) || {
		__load_completion "$1" || { echo "no completion for $1" >&2; return 1; }
		spec=$(complete -p "$1") || return 1
	}
	fn=${spec#*-F }
	fn=${fn%% *}
	"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}"
}
complete_words "$@"
EOF
got=$(bash "$tmp/complete.bash" fslab se) || fail "bash-completion did not load a completion for fslab"
[ "$got" = setup ] || fail "fslab se<TAB> completes to '$got', want 'setup'"
echo "fslab se<TAB> -> $got"

# The completion's vocabulary against fslab's own: the commands of
# fslab --help, the cache modes of fslab run --help, and each command's
# options (the lines of its --help that describe an option).
want=$(fslab --help | sed -n 's/^  \([a-z]\{1,\}\)  .*/\1/p' | sort)
got=$(bash "$tmp/complete.bash" fslab "" | grep -v '^-' | sort)
[ "$want" = "$got" ] || fail "completed commands differ from fslab --help: want [$want] got [$got]"
want=$(fslab run --help | grep -o -- '--cache [a-z|]*' | head -n 1 | cut -d' ' -f2 | tr '|' '\n' | sort)
got=$(bash "$tmp/complete.bash" fslab run --cache "" | sort)
[ -n "$want" ] && [ "$want" = "$got" ] || fail "completed --cache modes [$got] differ from fslab run --help [$want]"
for cmd in $(fslab --help | sed -n 's/^  \([a-z]\{1,\}\)  .*/\1/p'); do
	want=$(fslab "$cmd" --help | sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' | sort -u)
	got=$(bash "$tmp/complete.bash" fslab "$cmd" -- | sort -u)
	[ "$want" = "$got" ] ||
		fail "fslab $cmd: completed options differ from its --help:$(diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/ &/p' | tr '\n' ' ') (< help only, > completion only)"
done
echo "completion: commands, --cache modes and every command's options match fslab's --help"

# -- the maintainer scripts: a mounted lab refuses removal (prerm) -------
# A small lab on an image, set up with the default state file, as a user
# would; only when /var/lib/fslab does not exist yet (it is then this
# test's alone, and purge must remove what fslab left there).
lab_state=no
if [ ! -e /var/lib/fslab ] && command -v mkfs.ext4 >/dev/null; then
	lab_state=yes
	printf '[fs a]\ntype = ext4\nsize = 16M\n' >"$tmp/spec.ini"
	mkdir "$tmp/mnt"
	env -u FSLAB_STATE /usr/bin/fslab setup --image "$tmp/lab.img" --spec "$tmp/spec.ini" \
		--mount-root "$tmp/mnt" --yes >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; fail "fslab setup of the small lab failed"; }
	[ -f /var/lib/fslab/state.json ] || fail "setup wrote no /var/lib/fslab/state.json"
	if dpkg -r fslab >"$tmp/dpkg-r-lab.log" 2>&1; then
		fail "dpkg -r removed fslab while its lab was mounted"
	fi
	grep -q "a lab is mounted (/var/lib/fslab/state.json names it): run 'fslab teardown' first" "$tmp/dpkg-r-lab.log" ||
		{ cat "$tmp/dpkg-r-lab.log"; fail "the refused removal does not name the lab and the fix"; }
	[ -x /usr/bin/fslab ] || fail "/usr/bin/fslab is gone after the refused removal"
	env -u FSLAB_STATE /usr/bin/fslab teardown --yes >"$tmp/teardown.log" 2>&1 ||
		{ cat "$tmp/teardown.log"; fail "fslab teardown of the small lab failed"; }
	[ "$(find /var/lib/fslab -maxdepth 1 -type f \( -name '*.lock' -o -name '*.log' \) | wc -l)" -gt 0 ] ||
		echo "note: the lab left no *.lock or *.log in /var/lib/fslab"
	echo "prerm: removal refused while the lab was mounted, allowed after teardown"
fi

# -- remove, purge: nothing left behind ------------------------------------
dpkg -r fslab >"$tmp/dpkg-r.log" 2>&1 || { cat "$tmp/dpkg-r.log"; fail "dpkg -r fslab failed"; }
left=()
for f in "${owned[@]}"; do
	[ -e "$f" ] || [ -L "$f" ] && left+=("$f")
done
[ ${#left[@]} -eq 0 ] || fail "dpkg -r left files behind: ${left[*]}"
dpkg -P fslab >"$tmp/dpkg-p.log" 2>&1 || { cat "$tmp/dpkg-p.log"; fail "dpkg -P fslab failed"; }
installed=no
if dpkg-query -W -f '${Status}\n' fslab 2>/dev/null | grep -qv 'not-installed'; then
	fail "dpkg still knows fslab after dpkg -P: $(dpkg-query -W -f '${Status}' fslab)"
fi
for d in /usr/share/doc/fslab /usr/share/fslab; do
	[ ! -e "$d" ] || fail "$d is left after purge"
done
[ ! -e /usr/bin/fslab ] || fail "/usr/bin/fslab is left after purge"
if [ "$lab_state" = yes ]; then
	[ ! -e /var/lib/fslab ] || fail "purge left /var/lib/fslab: $(ls -A /var/lib/fslab | tr '\n' ' ')"
	echo "postrm purge: /var/lib/fslab removed (its locks and logs)"
fi
echo "dpkg -r and -P removed all ${#owned[@]} files"
echo "PASS"
