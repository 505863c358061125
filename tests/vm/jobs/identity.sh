# Device identity as the manifest records it, for each transport: a SCSI
# SSD (virtio-scsi), a SATA SSD (AHCI), an NVMe namespace and a loop
# device, each with ext4 on the whole disk, benchmarked in one run.
. /fslab-job/env
. "$FSLAB_SOURCE_DIR/tests/vm/guest-lib.sh"
scsi=$(vm_dev scsi) || exit 1
sata=$(vm_dev sata) || exit 1
nvme=$(vm_dev nvme) || exit 1
truncate -s 1G /root/loop.img
loop=$(losetup --find --show /root/loop.img)
dirs=
for d in scsi:$scsi sata:$sata nvme:$nvme loop:$loop; do
	n=${d%%:*} dev=${d#*:}
	mkfs.ext4 -q "$dev"
	mkdir -p "/root/id/$n"
	mount "$dev" "/root/id/$n"
	dirs="$dirs --dir $n=/root/id/$n"
done
expect_rc "run on four transports" 0 fslab run $dirs --out "$VM_OUT" --tests write \
	--file-sizes 64K --record-sizes 64K --no-device-probe --quiet
cp "$VM_OUT/manifest.json" /fslab-job/manifest.json
di() { jq -r ".filesystems[] | select(.name == \"$1\") | .device_info.$2" "$VM_OUT/manifest.json"; }
echo "identity as recorded (manifest device_info):"
for n in scsi sata nvme loop; do
	echo "  $n: $(jq -c ".filesystems[] | select(.name == \"$n\") | .device_info" "$VM_OUT/manifest.json")"
done
expect_eq "scsi transport" "$(di scsi transport)" scsi
expect_eq "sata transport" "$(di sata transport)" sata
expect_eq "nvme transport" "$(di nvme transport)" nvme
expect_eq "loop transport" "$(di loop transport)" loop
for n in scsi sata nvme; do
	expect_eq "$n serial" "$(di $n serial)" "fslab-$n"
	expect_eq "$n manifest device_serial" \
		"$(jq -r ".filesystems[] | select(.name == \"$n\") | .device_serial" "$VM_OUT/manifest.json")" "fslab-$n"
	expect_eq "$n rotational" "$(di $n rotational)" false
	check "$n firmware recorded" test "$(di $n firmware)" != null
	check "$n model recorded" test "$(di $n model)" != null
	check "$n discard_max_bytes > 0 (discard=unmap)" test "$(di $n discard_max_bytes)" -gt 0
done
expect_eq "scsi serial from" "$(di scsi serial_source)" device/vpd_pg80
expect_eq "sata model" "$(di sata model)" FSLAB-SATA-SSD
expect_eq "sata vendor" "$(di sata vendor)" ATA
expect_eq "nvme model" "$(di nvme model)" "QEMU NVMe Ctrl"
expect_eq "scsi physical sector" "$(di scsi physical_sector_bytes)" 4096
expect_eq "scsi logical sector" "$(di scsi logical_sector_bytes)" 512
expect_eq "loop backing file" "$(di loop backing_file)" /root/loop.img
expect_eq "loop serial" "$(di loop serial)" null
expect_eq "size of the nvme disk" "$(di nvme size_bytes)" 2147483648
for n in scsi sata nvme loop; do umount "/root/id/$n"; done
losetup -d "$loop"
vm_done
