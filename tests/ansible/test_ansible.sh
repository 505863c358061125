#!/bin/bash
# ansible/lab.yml across two hosts (root).  Both "hosts" are this machine,
# reached over SSH on two loopback addresses (127.0.0.2 and 127.0.0.3),
# each served by its own sshd that this test starts with its own config,
# host key and a throwaway client key, all in a temporary directory.  Each
# host has its own image, mount root, state file and work directory.
#
#   1. ansible-playbook is killed (SIGKILL, as an SSH drop or a closed
#      laptop would) while both hosts benchmark; hostA's benchmark is then
#      interrupted too (SIGTERM), hostB's is left running.
#   2. A second ansible-playbook must wait for hostB's benchmark (it is
#      continued only once the playbook is seen waiting) instead of
#      starting another, resume hostA's (fslab run --resume) instead of
#      starting over, fetch both hosts' results, tear both labs down and
#      write one report that names both hosts.
#   A third host, hostC (in the second playbook only), names a disk that holds a filesystem and does not
#   set fslab_wipe: its setup is refused, it fails alone, and its disk is
#   byte-identical afterwards.
#
# At the end no loop device, mount, state file or image of the test is
# left, and the package is removed again.  Exit 77 (skip) when not root,
# when a tool is missing, or when fslab is already installed here.
#
# Environment (set by ctest): FSLAB_BIN, FSLAB_SOURCE_DIR, FSLAB_BUILD_DIR.
set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() {
	local log
	for log in "${tmp:-/nonexistent}"/play[12].log; do
		[ -f "$log" ] && { echo "==== $log"; cat "$log"; }
	done
	echo "FAIL: $*" >&2
	exit 1
}
note() { echo "[$(date +%T)] $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg -i, loop devices, sshd)"
: "${FSLAB_BIN:?set by ctest}" "${FSLAB_SOURCE_DIR:?set by ctest}" "${FSLAB_BUILD_DIR:?set by ctest}"
for t in ansible-playbook ssh ssh-keygen cpack dpkg-shlibdeps losetup mkfs.ext4 python3 setsid; do
	command -v "$t" >/dev/null || skip "$t is missing (scripts/install-deps.sh --tests)"
done
sshd=/usr/sbin/sshd
[ -x "$sshd" ] || skip "$sshd is missing (openssh-server; scripts/install-deps.sh --tests)"
/usr/bin/python3 -c 'import apt' 2>/dev/null || skip "python3-apt is missing (Ansible's apt module needs it)"
if dpkg-query -W -f '${Status}\n' fslab 2>/dev/null | grep -qv 'not-installed'; then
	skip "a package fslab is already known to dpkg here; not touching it"
fi
[ ! -e /usr/bin/fslab ] || skip "/usr/bin/fslab exists and is not from a package; not touching it"

tmp=$(mktemp -d /tmp/fslab-ansible-test.XXXXXX) || fail "mktemp"
chmod 700 "$tmp"
sshd_pids=()
play_pid=""
made_run_sshd=no
victim_loop=""

# Processes with an argument under $tmp (fslab runs, Ansible's async
# wrappers, ssh control masters): only this test starts those.
test_pids() {
	local d pid
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" != $$ ] || continue
		tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -qF "$tmp" && echo "$pid"
	done
}

# The pid of the fslab run benchmarking into HOST's work directory.
fslab_run_pid() {
	local d argv
	for d in /proc/[0-9]*; do
		argv=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
		case $argv in
		"fslab run "*"$tmp/$1/work/"* | "/usr/bin/fslab run "*"$tmp/$1/work/"*) echo "${d#/proc/}"; return ;;
		esac
	done
}

cleanup() {
	local p h
	[ -z "$play_pid" ] || kill -KILL -- "-$play_pid" 2>/dev/null
	for p in $(test_pids); do kill -TERM "$p" 2>/dev/null; done
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -z "$(test_pids)" ] && break
		sleep 0.5
	done
	for p in $(test_pids); do kill -KILL "$p" 2>/dev/null; done
	for _ in $(seq 60); do # a process in the kernel (D state) dies on its return
		[ -z "$(test_pids)" ] && break
		sleep 1
	done
	for h in hostA hostB hostC; do
		if [ -e "$tmp/$h/state.json" ]; then
			"$FSLAB_BIN" teardown --yes --state "$tmp/$h/state.json" >/dev/null 2>&1 ||
				echo "cleanup: fslab teardown --state $tmp/$h/state.json failed" >&2
		fi
	done
	for p in "${sshd_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	[ -z "$victim_loop" ] || losetup -d "$victim_loop" 2>/dev/null
	# Loop devices on this test's images that a killed setup left.
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | grep -F " $tmp/" | while read -r p _; do
		losetup -d "$p" || echo "cleanup: losetup -d $p failed" >&2
	done
	[ "$made_run_sshd" = no ] || rmdir /run/sshd 2>/dev/null
	if dpkg-query -W -f '${Status}\n' fslab 2>/dev/null | grep -qv 'not-installed'; then
		dpkg -P fslab >/dev/null 2>&1 || echo "cleanup: dpkg -P fslab failed" >&2
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# -- the package the playbook installs ---------------------------------
note "building the package"
cpack -G DEB -B "$tmp/deb" --config "$FSLAB_BUILD_DIR/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1 ||
	{ cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$tmp"/deb/fslab_*.deb) || fail "cpack made no .deb"

# -- two SSH servers ------------------------------------------------------
if [ ! -d /run/sshd ]; then # sshd's privilege separation directory
	mkdir -m 0755 /run/sshd || fail "mkdir /run/sshd"
	made_run_sshd=yes
fi
ssh-keygen -q -t ed25519 -N '' -C fslab-test-host -f "$tmp/host_key" || fail "ssh-keygen (host key)"
ssh-keygen -q -t ed25519 -N '' -C fslab-test-client -f "$tmp/client_key" || fail "ssh-keygen (client key)"
install -m 0600 "$tmp/client_key.pub" "$tmp/authorized_keys"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0)); print(s.getsockname()[1])') ||
	fail "no free port"
for addr in 127.0.0.2 127.0.0.3; do
	cat >"$tmp/sshd-$addr.conf" <<EOF
ListenAddress $addr:$port
HostKey $tmp/host_key
PidFile $tmp/sshd-$addr.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
	"$sshd" -t -f "$tmp/sshd-$addr.conf" || fail "sshd -t rejects $tmp/sshd-$addr.conf"
	"$sshd" -D -e -f "$tmp/sshd-$addr.conf" 2>"$tmp/sshd-$addr.log" &
	sshd_pids+=($!)
done
ssh_opts=(-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR
	-o BatchMode=yes -i "$tmp/client_key" -p "$port")
for addr in 127.0.0.2 127.0.0.3; do
	for i in $(seq 50); do
		ssh "${ssh_opts[@]}" "root@$addr" true 2>/dev/null && break
		[ "$i" -lt 50 ] || { cat "$tmp/sshd-$addr.log"; fail "no SSH login to root@$addr:$port"; }
		sleep 0.2
	done
done
note "sshd on 127.0.0.2:$port and 127.0.0.3:$port"

# -- hostC's disk: a filesystem on a loop device, not to be touched ---------
truncate -s 256M "$tmp/victim.img" || fail "truncate"
victim_loop=$(losetup --show -f "$tmp/victim.img") || fail "losetup"
mkfs.ext4 -q -L fslab-victim "$victim_loop" || fail "mkfs.ext4 $victim_loop"
victim_sum=$(sha256sum <"$victim_loop")

# -- inventory ------------------------------------------------------------
printf '[fs ext4]\nsize = 64M\n[fs ext2]\nsize = 64M\n' >"$tmp/spec.ini"
# A few seconds per host (the test stops each run once it has rows).
run_args="--sweep quick --file-sizes 64K-1M --record-sizes 4K-64K --tests write,read --cache fsync --trials 10 --no-device-probe"
host_vars() { # HOST ADDR
	cat <<EOF
    $1:
      ansible_host: $2
      fslab_image: $tmp/$1/disk.img
      fslab_mount_root: $tmp/$1/mnt
      fslab_state: $tmp/$1/state.json
      fslab_work_dir: $tmp/$1/work
EOF
}
{
	cat <<EOF
all:
  vars:
    ansible_user: root
    ansible_port: $port
    ansible_ssh_private_key_file: $tmp/client_key
    ansible_python_interpreter: /usr/bin/python3
    fslab_deb: $deb
    fslab_results_dir: $tmp/results
    fslab_spec: $tmp/spec.ini
    fslab_run_args: "$run_args"
    fslab_poll: 1
  hosts:
EOF
	host_vars hostA 127.0.0.2
	host_vars hostB 127.0.0.3
	cat <<EOF
    hostC:
      ansible_host: 127.0.0.2
      fslab_device: $victim_loop
      fslab_mount_root: $tmp/hostC/mnt
      fslab_state: $tmp/hostC/state.json
      fslab_work_dir: $tmp/hostC/work
EOF
} >"$tmp/inventory.yml"
mkdir -p "$tmp/hostA" "$tmp/hostB" "$tmp/hostC" "$tmp/ansible" "$tmp/async" || fail "mkdir"
: >"$tmp/ansible/ansible.cfg"

export ANSIBLE_HOME=$tmp/ansible ANSIBLE_LOCAL_TEMP=$tmp/ansible/tmp ANSIBLE_REMOTE_TEMP=$tmp/ansible/remote
export ANSIBLE_ASYNC_DIR=$tmp/async ANSIBLE_SSH_CONTROL_PATH_DIR=$tmp/ansible/cp
export ANSIBLE_SSH_ARGS="-F /dev/null -o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR"
export ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_PIPELINING=True ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False
export ANSIBLE_CONFIG=$tmp/ansible/ansible.cfg # empty: nothing from the caller's ansible.cfg
# play LOG [ARGS]: ansible-playbook in the background, from $tmp, as the leader of
# its own process group (pid $play_pid), so it can be killed with its ssh
# clients and forks - as a dropped connection would end it.
play() {
	local log=$1
	shift
	(cd "$tmp" && exec setsid ansible-playbook -i "$tmp/inventory.yml" "$@" "$FSLAB_SOURCE_DIR/ansible/lab.yml") >"$log" 2>&1 &
	play_pid=$!
	sleep 0.1
	[ "$(ps -o pgid= -p "$play_pid" | tr -d ' ')" = "$play_pid" ] ||
		fail "ansible-playbook (pid $play_pid) is not leading its own process group"
}
data_rows() { [ -f "$1" ] && echo $(($(wc -l <"$1") - 1)) || echo 0; }
manifest() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$@"; }

# -- 1. a playbook killed mid-run ---------------------------------------
# Each host's benchmark is stopped (SIGSTOP) as soon as it has written
# rows, so what follows does not depend on how fast this machine is.
note "playbook 1 (to be killed mid-run)"
t0=$(date +%s)
play "$tmp/play1.log" --limit hostA,hostB
pid_a="" pid_b=""
for i in $(seq 1500); do
	if [ -z "$pid_a" ] && [ "$(data_rows "$tmp/hostA/work/lab/ext4.csv")" -gt 0 ]; then
		pid_a=$(fslab_run_pid hostA) && [ -n "$pid_a" ] && kill -STOP "$pid_a"
	fi
	if [ -z "$pid_b" ] && [ "$(data_rows "$tmp/hostB/work/lab/ext4.csv")" -gt 0 ]; then
		pid_b=$(fslab_run_pid hostB) && [ -n "$pid_b" ] && kill -STOP "$pid_b"
	fi
	[ -n "$pid_a" ] && [ -n "$pid_b" ] && break
	kill -0 "$play_pid" 2>/dev/null || { cat "$tmp/play1.log"; fail "playbook 1 ended before both hosts benchmarked"; }
	if [ "$i" -ge 1500 ] || [ $(($(date +%s) - t0)) -gt 300 ]; then
		# which host had nothing, and what its benchmark was doing
		cat "$tmp/play1.log"
		for h in hostA hostB; do
			p=$(fslab_run_pid "$h")
			note "$h: $(data_rows "$tmp/$h/work/lab/ext4.csv") ext4 rows; fslab run pid ${p:-none}${p:+, state $(ps -o stat= -p "$p"), wchan $(ps -o wchan= -p "$p")}"
		done
		fail "no results on both hosts after $(($(date +%s) - t0)) s (hostA stopped: ${pid_a:-no}, hostB stopped: ${pid_b:-no})"
	fi
	sleep 0.2
done
for h in hostA hostB; do
	[ "$(manifest "$tmp/$h/work/lab/manifest.json" finished_at)" = None ] ||
		fail "$h's benchmark finished before it could be stopped; make the sweep longer"
done
kill -KILL -- "-$play_pid" || fail "kill playbook 1"
wait "$play_pid" 2>/dev/null
play_pid=""
note "killed playbook 1 after $(($(date +%s) - t0)) s"
for p in "$pid_a" "$pid_b"; do
	kill -0 "$p" 2>/dev/null || fail "benchmark pid $p did not outlive the killed playbook (it should run on as an async job)"
done
# hostA's benchmark is interrupted; hostB's stays stopped until playbook 2
# looks for it, so playbook 2 finds it running.
kill -TERM "$pid_a" && kill -CONT "$pid_a"
for i in $(seq 300); do
	kill -0 "$pid_a" 2>/dev/null || break
	[ "$i" -lt 300 ] || fail "hostA's fslab run (pid $pid_a) ignores SIGTERM"
	sleep 0.2
done
[ "$(manifest "$tmp/hostA/work/lab/manifest.json" interrupted)" = True ] ||
	fail "hostA's manifest does not say interrupted after SIGTERM"
for h in hostA hostB; do
	sed '$d' "$tmp/$h/work/lab/ext4.csv" >"$tmp/$h.before.csv" # all but a line being written
done
note "hostA interrupted with $(data_rows "$tmp/hostA/work/lab/ext4.csv") ext4 rows; hostB stopped with $(data_rows "$tmp/hostB/work/lab/ext4.csv")"

# -- 2. the playbook again --------------------------------------------------
note "playbook 2 (resume)"
t0=$(date +%s)
play "$tmp/play2.log"
for i in $(seq 1500); do # until playbook 2 has seen hostB's benchmark running
	grep -q 'RETRYING: \[hostB\]: Wait while a benchmark' "$tmp/play2.log" && break
	kill -0 "$play_pid" 2>/dev/null || break
	sleep 0.2
done
kill -CONT "$pid_b"
grep -q 'RETRYING: \[hostB\]: Wait while a benchmark' "$tmp/play2.log" ||
	fail "playbook 2 did not wait for hostB's running benchmark"
wait "$play_pid"
rc=$?
play_pid=""
t_play2=$(($(date +%s) - t0))
note "playbook 2 exited $rc after $t_play2 s"
sed -n '/PLAY RECAP/,$p' "$tmp/play2.log"
recap() { grep -E "^$1 +:" "$tmp/play2.log"; }
[ "$rc" -eq 2 ] || { cat "$tmp/play2.log"; fail "playbook 2 exited $rc; want 2 (hostC failed, hostA and hostB not)"; }
recap hostA | grep -q ' failed=0 ' || { cat "$tmp/play2.log"; fail "hostA failed"; }
recap hostB | grep -q ' failed=0 ' || { cat "$tmp/play2.log"; fail "hostB failed"; }
recap hostC | grep -q ' failed=1 ' || { cat "$tmp/play2.log"; fail "hostC did not fail"; }
grep -q 'unreachable=[1-9]' "$tmp/play2.log" && fail "a host was unreachable"

# hostC: refused without --wipe, its disk untouched, nothing fetched.
grep -A3 'hostC' "$tmp/play2.log" | grep -qi 'signature\|partition table\|--wipe' ||
	{ cat "$tmp/play2.log"; fail "hostC's failure does not show fslab's refusal"; }
[ "$(sha256sum <"$victim_loop")" = "$victim_sum" ] || fail "hostC's disk $victim_loop changed"
[ ! -e "$tmp/results/hostC" ] || fail "results fetched for hostC, whose setup was refused"

# Both hosts' results fetched, complete, hostA's resumed (not restarted),
# hostB's run once.
for h in hostA hostB; do
	for f in ext4.csv ext2.csv manifest.json; do
		[ -s "$tmp/results/$h/$f" ] || fail "$tmp/results/$h/$f was not fetched"
	done
	[ "$(manifest "$tmp/results/$h/manifest.json" interrupted)" = False ] || fail "$h's run is not finished"
	[ "$(manifest "$tmp/results/$h/manifest.json" finished_at)" != None ] || fail "$h's run has no finished_at"
	n=$(cut -d, -f1-5 "$tmp/results/$h/ext4.csv" | sort | uniq -d | wc -l)
	[ "$n" -eq 0 ] || fail "$h's ext4.csv holds $n cells twice"
	head -c "$(stat -c %s "$tmp/$h.before.csv")" "$tmp/results/$h/ext4.csv" | cmp -s - "$tmp/$h.before.csv" ||
		fail "$h's rows from before the interruption were not kept"
done
[ "$(data_rows "$tmp/results/hostA/ext4.csv")" -eq "$(data_rows "$tmp/results/hostB/ext4.csv")" ] ||
	fail "hostA has $(data_rows "$tmp/results/hostA/ext4.csv") ext4 rows, hostB $(data_rows "$tmp/results/hostB/ext4.csv"): the same sweep should give the same cells"
[ "$(manifest "$tmp/results/hostA/manifest.json" sessions)" = 2 ] ||
	fail "hostA's run has $(manifest "$tmp/results/hostA/manifest.json" sessions) sessions; want 2 (started, resumed once)"
[ "$(manifest "$tmp/results/hostA/manifest.json" resumed_with)" != None ] || fail "hostA's manifest has no resumed_with"
[ "$(manifest "$tmp/results/hostB/manifest.json" sessions)" = 1 ] ||
	fail "hostB's run has $(manifest "$tmp/results/hostB/manifest.json" sessions) sessions; want 1 (playbook 2 waits for it)"

# Each run is labelled with its host; the merged report compares the
# hosts' filesystems as hostA/ext4 against hostB/ext4 and ranks each host's
# own filesystems.
for h in hostA hostB; do
	[ "$(manifest "$tmp/results/$h/manifest.json" label)" = "$h" ] || fail "$h's manifest is not labelled $h"
done
html=$tmp/results/report/report.html txt=$tmp/results/report/report.txt
[ -s "$html" ] && [ -s "$txt" ] || fail "no merged report in $tmp/results/report"
for e in hostA/ext4 hostB/ext4 hostA/ext2 hostB/ext2; do
	grep -q "$e" "$html" || fail "the merged report.html does not show $e"
done
grep -q "each run's own ranking" "$txt" || fail "report.txt has no per-host ranking"
grep -qE '^write +hostA +1 ' "$txt" && grep -qE '^write +hostB +1 ' "$txt" ||
	fail "report.txt does not rank hostA's and hostB's filesystems each on their own"
grep -q hostC "$html" && fail "the merged report names hostC, which failed"

# Nothing left: no mount, loop device, state file or image of the test.
left=$(findmnt -rn -o TARGET | grep -F "$tmp/")
[ -z "$left" ] || fail "mounts left: $left"
for h in hostA hostB; do
	[ -z "$(losetup -j "$tmp/$h/disk.img" 2>/dev/null)" ] || fail "loop device left for $h: $(losetup -j "$tmp/$h/disk.img")"
	[ ! -e "$tmp/$h/disk.img" ] || fail "$h's image was not removed by teardown"
	[ ! -e "$tmp/$h/state.json" ] || fail "$h's state file is left"
done
[ ! -e "$tmp/hostC/state.json" ] || fail "hostC has a state file"
echo "PASS (playbook 2: $t_play2 s)"
