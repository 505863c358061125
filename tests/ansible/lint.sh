#!/bin/sh
# ansible/lab.yml and the fslab role: ansible-playbook --syntax-check, then
# ansible-lint (offline) where it is installed.  Needs no root.
set -u
src=${FSLAB_SOURCE_DIR:?set by ctest}
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook is missing (scripts/install-deps.sh --tests)"; exit 77; }
tmp=$(mktemp -d /tmp/fslab-ansible-lint.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export ANSIBLE_HOME=$tmp ANSIBLE_LOCAL_TEMP=$tmp/tmp ANSIBLE_NOCOLOR=1
printf 'all:\n  hosts:\n    hostA:\n' >"$tmp/inventory.yml"
ansible-playbook -i "$tmp/inventory.yml" --syntax-check "$src/ansible/lab.yml" || exit 1
if command -v ansible-lint >/dev/null; then
	(cd "$src" && ansible-lint --offline --nocolor -q ansible/lab.yml) || { echo "FAIL: ansible-lint"; exit 1; }
	echo "ansible-lint: clean"
else
	echo "ansible-lint is not installed; --syntax-check only"
fi
