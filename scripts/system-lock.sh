# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the steps that change the machine itself, not a checkout:
# DKMS's tree (vroce/<version>, /usr/src/vroce-*) and the installed
# packages (vroce-dkms, libvroce). Two checkouts testing at once take
# turns there: the lock is on a file of the cache both share, and is held
# until the sourcing script exits.
vroce_lock_dir=${VROCE_CACHE:-$HOME/.cache/vroce}
mkdir -p "$vroce_lock_dir"
exec 9>"$vroce_lock_dir/system.lock"
if ! flock -n 9; then
	echo "waiting for another checkout's DKMS or package step ($vroce_lock_dir/system.lock)" >&2
	flock 9
fi
