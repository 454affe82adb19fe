# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Building the small root file system (an initramfs) that the QEMU guests
# of scripts/qemu-load-test.sh and scripts/qemu-bench.sh boot Debian's
# kernel with: busybox, modules of that kernel, programs with every
# library they load, and packing it. Sourced; the functions exit on error
# under the caller's set -e.

# qemu_root_init ROOT REPO: busybox and its applets, the KTAP and splat
# helpers of REPO.
qemu_root_init() {
	local root=$1 repo=$2 a
	mkdir -p "$root"/{bin,sbin,lib,lib64,etc,proc,sys,dev,tmp,modules,provider}
	cp /bin/busybox "$root/bin/busybox"
	for a in sh mount umount insmod rmmod lsmod cat grep dmesg sleep echo \
		 ip poweroff ls wc kill sed tr printf tail awk env timeout \
		 mktemp rm cut seq dd cmp head mkdir rmdir ln date; do
		ln -s busybox "$root/bin/$a"
	done
	cp "$repo/scripts/ktap.sh" "$repo/scripts/splat.sh" \
	   "$repo/scripts/guest-verbs.sh" "$root/"
}

# qemu_root_module ROOT REL NAME: kernel REL's module NAME, uncompressed,
# as ROOT/modules/NAME.ko.
qemu_root_module() {
	local root=$1 rel=$2 name=$3 path
	path=$(modinfo -k "$rel" -n "$name")
	case $path in
	*.xz) xz -dc "$path" >"$root/modules/$name.ko" ;;
	*) cp "$path" "$root/modules/$name.ko" ;;
	esac
}

# qemu_root_modules ROOT REL NAME...: each module NAME of kernel REL
# that REL has as a module (not built in, not absent: the caller checks
# for what it needs), and every module it depends on (modinfo), as
# ROOT/modules/<name>.ko; their names appended to ROOT/modules/order,
# dependencies first: the order insmod loads them in.
qemu_root_modules() {
	local root=$1 rel=$2 name path dep
	shift 2
	for name in "$@"; do
		name=${name//-/_}
		grep -qx "$name" "$root/modules/order" 2>/dev/null && continue
		path=$(modinfo -k "$rel" -n "$name" 2>/dev/null) || continue
		[ -f "$path" ] || continue
		for dep in $(modinfo -k "$rel" -F depends "$name" | tr ',' ' '); do
			qemu_root_modules "$root" "$rel" "$dep"
		done
		qemu_root_module "$root" "$rel" "$name"
		echo "$name" >>"$root/modules/order"
	done
}

# qemu_root_vroce ROOT REL KO: the modules kernel REL loads KO (a vroce.ko,
# maybe xz-compressed) after, then KO itself as ROOT/modules/vroce.ko, last
# in ROOT/modules/order.
qemu_root_vroce() {
	local root=$1 rel=$2 ko=$3 m
	for m in $(modinfo -F depends "$ko" | tr ',' ' '); do
		qemu_root_modules "$root" "$rel" "$m"
	done
	case $ko in
	*.xz) xz -dc "$ko" >"$root/modules/vroce.ko" ;;
	*) cp "$ko" "$root/modules/vroce.ko" ;;
	esac
	echo vroce >>"$root/modules/order"
}

# qemu_root_program ROOT PATH...: each program (or library) into ROOT/bin,
# unless it is under ROOT already, and every library it loads at its path.
qemu_root_program() {
	local root=$1 p lib
	shift
	for p in "$@"; do
		[ "$p" = "${p#"$root"}" ] && cp "$p" "$root/bin/"
		ldd "$p" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}

# qemu_root_pack ROOT INITRD: the gzipped cpio of ROOT.
qemu_root_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# qemu_root_boot KERNEL INITRD KTAP QEMU_OPTION...: boot KERNEL with
# INITRD on two CPUs under QEMU (TCG, one host thread for both: with a
# thread per CPU, 2 of 38 boots of Debian's 6.12-rt kernel here and one
# in CI died of "Oops: int3" at a jump label the other CPU had just
# patched back (urandom_read_iter, sched_clock_cpu), a translated block
# outliving the text_poke; with one thread, 25 of 25 were clean), no network
# device (-nic none: the guest talks to nothing but itself), console on
# the serial port; write
# the guest's KTAP, from its version line to its exit status, into KTAP
# (the firmware's terminal escapes may come first on the version's line)
# and the whole console into KTAP.console. Sets qemu_took, in seconds.
qemu_root_boot() {
	local kernel=$1 initrd=$2 ktap=$3 t0
	shift 3
	t0=$(date +%s)
	timeout "${VROCE_QEMU_TIMEOUT:-600}" qemu-system-x86_64 "$@" -smp 2 \
		-accel tcg,thread=single \
		-nic none -nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
		</dev/null >"$ktap.console" 2>&1 || true
	# shellcheck disable=SC2034 # read by the scripts that source this
	qemu_took=$(( $(date +%s) - t0 ))
	tr -d '\r' <"$ktap.console" |
		sed -n 's/^.*\(KTAP version 1\)$/\1/; /^KTAP version 1$/,/^# qemu: tests exited/p' \
		>"$ktap"
}

# qemu_root_console_clean KTAP: true when the console qemu_root_boot kept
# (KTAP.console) has no splat (scripts/splat.sh, sourced by the caller);
# else its first one, as KTAP diagnostic lines. The guest checks its own
# dmesg before it ends; this sees what came after, or what the kernel
# printed while the tests' output hid it.
qemu_root_console_clean() {
	tr -d '\r' <"$1.console" >"$1.console.txt"
	grep -qE "$SPLAT_PATTERN" "$1.console.txt" || return 0
	echo "# qemu: a splat on the console:"
	grep -m1 -E -A30 "$SPLAT_PATTERN" "$1.console.txt" | sed 's/^/# /'
	return 1
}

# qemu_root_verbs ROOT REPO PROGRAM...: the provider built from REPO into
# ROOT/provider, and rdma-core's rdma, ibv_devinfo, ibv_rc_pingpong and
# rping with the PROGRAMs, each with the libraries it loads; and
# libgcc_s, which glibc loads when a thread exits (rping's do) and ldd
# does not list.
qemu_root_verbs() {
	local root=$1 repo=$2 gcc_s
	shift 2
	make -s -C "$repo" provider PROVIDER_OUT="$root/provider" >&2
	qemu_root_program "$root" /usr/bin/rdma /usr/bin/ibv_devinfo \
		/usr/bin/ibv_rc_pingpong /usr/bin/rping "$@" \
		"$root/provider/libvroce-rdmav34.so"
	# (awk reads it all: an early exit could kill ldconfig with SIGPIPE.)
	gcc_s=$(ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ && !f { print $NF; f = 1 }')
	mkdir -p "$root$(dirname "$gcc_s")"
	cp -L "$gcc_s" "$root$gcc_s"
}

# qemu_root_initscript ROOT STOP: ROOT/init mounts /proc, /sys and /dev,
# runs /tests.sh with the provider found, says its exit status, and stops
# the machine with STOP (poweroff -f; reboot -f where the kernel has no
# ACPI: a reset, which -no-reboot turns into QEMU's exit).
qemu_root_initscript() {
	cat >"$1/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
export PATH=/bin RDMAV_DRIVERS=/provider/libvroce LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
sh /tests.sh
echo "# qemu: tests exited \$?"
$2
INIT
	chmod +x "$1/init"
}
