#!/bin/sh
# Times `fslab report` on a synthetic full `seed` sweep: 5 filesystems x 5
# trials x 13 tests x 144 cells = 46,800 rows, gnuplot included.  Goal:
# <= 10 s on the project's 2-core machine.
#
# Usage: scripts/bench-report.sh [FSLAB_BIN] [WORK_DIR]
#   FSLAB_BIN defaults to build/fslab; WORK_DIR (default: a new /tmp dir,
#   removed afterwards) receives results/ and report/.
# Prints the row count and the wall-clock time (hyperfine when installed,
# else /usr/bin/time).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$top/build/fslab}
work=${2:-}
if [ ! -x "$bin" ]; then
	echo "bench-report.sh: $bin is not executable; build first (scripts/test.sh) or pass FSLAB_BIN" >&2
	exit 2
fi
cleanup=
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/fslab-bench-report.XXXXXX)
	cleanup=$work
fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT
res=$work/results
mkdir -p "$res"

# Synthetic seed sweep: file 64K..2G, record 4K..16M (record <= file,
# records < 64K skipped on files > 16M, as IOzone -a does).  Throughput is
# a smooth shape per filesystem and test with 5% noise per trial; cells
# faster than 1.5x the fake device probe are flagged page-cache, fat32 is
# flagged fuse.
awk -v dir="$res" 'BEGIN {
	srand(42);
	nfs = split("ext4 ext2 xfs fat32 btrfs", fs, " ");
	split("1.00 0.90 1.05 0.30 1.10", fsf, " ");
	nt = split("write rewrite read reread random_read random_write backward_read record_rewrite stride_read fwrite frewrite fread freread", tests, " ");
	probe = 500000;
	hdr = "filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,cache_mode,status,flag";
	rows = 0;
	for (i = 1; i <= nfs; i++) {
		out = dir "/" fs[i] ".csv";
		print hdr > out;
		for (trial = 1; trial <= 5; trial++)
			for (t = 1; t <= nt; t++)
				for (f = 6; f <= 21; f++)
					for (r = 2; r <= 14 && r <= f; r++) {
						if (f > 14 && r < 6)
							continue;
						base = 2e6 * fsf[i] * (1 + t / 13) * (1 - 0.6 * exp(-(r - 1) / 2.5));
						if (f > 20)
							base = base * 0.5;
						v = int(base * (1 + 0.05 * (2 * rand() - 1)));
						flag = v > 1.5 * probe ? "page-cache" : "";
						if (fs[i] == "fat32")
							flag = flag == "" ? "fuse" : flag ";fuse";
						el = (2 ^ f) / v;
						printf "%s,%s,%d,%d,%d,%d,%.6f,warm,ok,%s\n", fs[i], tests[t], 2 ^ f, 2 ^ r, trial, v, el, flag > out;
						rows++;
					}
		close(out);
	}
	printf "{\"fslab_version\":\"bench\",\"cache_mode\":\"warm\",\"trials\":5,\"page_cache_factor\":1.5,\"machine\":{\"hostname\":\"synthetic\",\"cpus\":2},\"filesystems\":[" > (dir "/manifest.json");
	for (i = 1; i <= nfs; i++)
		printf "%s{\"name\":\"%s\",\"type\":\"%s\",\"device_write_kib_s\":%d,\"device_read_kib_s\":%d,\"mount_method\":\"%s\"}", (i > 1 ? "," : ""), fs[i], fs[i], probe, probe, (fs[i] == "fat32" ? "fuse" : "kernel") > (dir "/manifest.json");
	print "]}" > (dir "/manifest.json");
	print rows " rows in " nfs " CSV files" > "/dev/stderr";
}'

echo "rows: $(cat "$res"/*.csv | grep -vc '^filesystem,')"
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine --runs 3 --warmup 0 --show-output \
		"$bin report $res --out $work/report --format html" 2>&1 | grep -E "Time|Range|wrote" || true
else
	/usr/bin/time -f "fslab report: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
		"$bin" report "$res" --out "$work/report" --format html
fi
/usr/bin/time -f "single run: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
	"$bin" report "$res" --out "$work/report" >/dev/null
echo "report.html: $(du -k "$work/report/report.html" | cut -f1) KiB, plots: $(ls "$work/report/plots" | grep -c '\.png$') PNG + $(ls "$work/report/plots" | grep -c '\.svg$') SVG"
