#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of a bindgen new enough for a CONFIG_RUST 6.12 kernel,
# building it on first use.
#
# Linux 6.12 needs bindgen >= 0.65.1. Debian 12's bindgen is 0.60.1, and
# Debian 13's prebuilt binary needs a newer glibc than Debian 12 has. So
# this builds Debian 13 (trixie)'s bindgen library from its source
# packages on Debian 12:
#
#  1. A private APT configuration (its own sources.list pointing at trixie
#     on the mirror the system uses, and its own lists, cache and state
#     dirs in a temp dir under the cache dir) finds librust-bindgen-dev and
#     the closure of its Depends restricted to librust-*-dev, and
#     `apt-get download`s them. The system's APT sources and state are not
#     touched; nothing from trixie is installed.
#  2. dpkg-deb -x unpacks them: the crate sources land in
#     usr/share/cargo/registry/<crate>-<version>/, each with the
#     .cargo-checksum.json that a cargo directory source needs.
#  3. Debian 12's cargo-web and rustc-web (never a rustup toolchain that
#     comes first in PATH) build offline, with crates.io replaced by that
#     directory, a small command-line front end: bindgen's own flag parser
#     (the library's __cli feature, builder_from_flags), then generate and
#     write. It links Debian 12's libclang (libclang-dev) dynamically.
#
# The binary lands in $VROCE_CACHE/bindgen-<version>/bin/bindgen (default
# ~/.cache/vroce), <version> being librust-bindgen-dev's upstream version.
# Idempotent: when a cached binary runs, prints its path and does nothing
# else. Otherwise installs the Debian 12 packages it needs, builds in a temp
# dir and moves the result into place in one rename, so an interrupted run
# leaves no half cache. Progress goes to stderr; stdout is the path alone.
# Needs no network but the Debian mirror. Must run as root to install
# missing packages.
set -euo pipefail

cache=${VROCE_CACHE:-$HOME/.cache/vroce}
suite=trixie
min_version=0.65.1

log() { echo "install-bindgen: $*" >&2; }
die() { log "$*"; exit 1; }

# A cached bindgen-<version>/bin/bindgen that runs and says it is <version>;
# the newest one if there are several.
cached_bindgen() {
	local d v out best=
	for d in "$cache"/bindgen-*/; do
		v=${d%/}
		v=${v##*/bindgen-}
		[ -x "$d/bin/bindgen" ] || continue
		out=$("$d/bin/bindgen" --version 2>/dev/null) || continue
		[ "$out" = "bindgen $v" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "${best%%/*}"; then
			best="$v/${d}bin/bindgen"
		fi
	done
	[ -n "$best" ] || return 1
	echo "${best#*/}"
}

if bin=$(cached_bindgen); then
	echo "$bin"
	exit 0
fi

mkdir -p "$cache"
# One build at a time; a run that waited here finds the other's result.
exec 9>"$cache/.install-bindgen.lock"
flock 9
if bin=$(cached_bindgen); then
	echo "$bin"
	exit 0
fi

# --- Debian 12 packages: the Rust toolchain, libclang, a C linker --------
pkgs=(cargo-web rustc-web libclang-dev gcc libc6-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}; run as root"
	export DEBIAN_FRONTEND=noninteractive
	log "apt-get update"
	apt-get -q -o=Dpkg::Use-Pty=0 update >/dev/null
	log "installing ${missing[*]}"
	apt-get -q -o=Dpkg::Use-Pty=0 install -y --no-install-recommends \
		"${missing[@]}" >/dev/null
fi

# Debian's cargo and rustc, by the packages' own file lists.
cargo=$(dpkg -L cargo-web | grep -E '^/usr/bin/cargo(-web)?$' | head -n1) ||
	die "cargo-web ships no /usr/bin/cargo"
rustc=$(dpkg -L rustc-web | grep -E '^/usr/bin/rustc(-web)?$' | head -n1) ||
	die "rustc-web ships no /usr/bin/rustc"

# --- The mirror: the first one the system uses for bookworm --------------
mirror_of_bookworm() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		# deb [options] URI SUITE COMPONENT...
		awk '$1 == "deb" {
			i = 2
			if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			if ($(i + 1) == "bookworm") { print $i; exit }
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# deb822 stanzas: Types, URIs, Suites.
		awk 'function flush() {
			if (!found && types ~ /(^| )deb( |$)/ &&
			    suites ~ /(^| )bookworm( |$)/ && uris != "") {
				split(uris, u, " "); print u[1]; found = 1
			}
			types = suites = uris = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^[ \t]*#/ { next }
		tolower($1) == "types:" { $1 = ""; types = $0 }
		tolower($1) == "uris:" { $1 = ""; uris = $0 }
		tolower($1) == "suites:" { $1 = ""; suites = $0 }
		END { flush() }' "$f"
	done
}
mirror=$(mirror_of_bookworm)
mirror=${mirror%%$'\n'*}
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}

# --- Work dir, on the cache's filesystem for the final rename ------------
# What an interrupted run left: no other run is using it, we hold the lock.
rm -rf "$cache"/.bindgen-build.*
work=$(mktemp -d "$cache/.bindgen-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

apt_dir=$work/apt
mkdir -p "$apt_dir"/{etc/sources.list.d,etc/preferences.d,lists/partial} \
	"$apt_dir"/{cache/archives/partial,state} "$work/debs"
touch "$apt_dir/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
	>"$apt_dir/etc/sources.list"
cat >"$apt_dir/apt.conf" <<EOF
Dir::Etc::SourceList "$apt_dir/etc/sources.list";
Dir::Etc::SourceParts "$apt_dir/etc/sources.list.d";
Dir::Etc::Preferences "$apt_dir/etc/preferences";
Dir::Etc::PreferencesParts "$apt_dir/etc/preferences.d";
Dir::State "$apt_dir/state";
Dir::State::Lists "$apt_dir/lists";
Dir::State::status "$apt_dir/status";
Dir::Cache "$apt_dir/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
papt() { APT_CONFIG="$apt_dir/apt.conf" "$@"; }

log "apt-get update ($suite at $mirror, private lists)"
papt apt-get -q -o=Dpkg::Use-Pty=0 update >/dev/null

debver=$(papt apt-cache show --no-all-versions librust-bindgen-dev |
	 awk '/^Version:/ { print $2; exit }')
[ -n "$debver" ] || die "no librust-bindgen-dev in $suite"
version=${debver#*:}
version=${version%-*}
version=${version%%[+~]*}
dpkg --compare-versions "$version" ge "$min_version" ||
	die "$suite's bindgen $version is older than $min_version"
dest=$cache/bindgen-$version

# The closure of librust-bindgen-dev's Depends (every alternative, every
# provider of a virtual package), cut to the crate-source packages: the
# rest (libclang-19, rustc, ...) is what Debian 12 provides itself.
papt apt-cache depends --recurse --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances \
	librust-bindgen-dev | grep -E '^librust-' | sort -u >"$work/packages" ||
	die "no dependency closure for librust-bindgen-dev"
log "downloading librust-bindgen-dev $debver and $(($(wc -l <"$work/packages") - 1)) crate packages"
(cd "$work/debs" &&
 xargs -a "$work/packages" env APT_CONFIG="$apt_dir/apt.conf" \
	apt-get -q -o=Dpkg::Use-Pty=0 download >/dev/null)

log "unpacking"
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$work/root"
done
registry=$work/root/usr/share/cargo/registry
[ -f "$registry/bindgen-$version/Cargo.toml" ] ||
	die "librust-bindgen-dev has no bindgen-$version crate source"
for d in "$registry"/*/; do
	[ -f "$d.cargo-checksum.json" ] || die "no .cargo-checksum.json in $d"
done

# --- The front end crate, built offline against that registry ------------
src=$work/bindgen-cli
mkdir -p "$src/src" "$work/cargo-home"
cat >"$src/Cargo.toml" <<EOF
[package]
name = "vroce-bindgen-cli"
version = "$version"
edition = "2021"
publish = false

[[bin]]
name = "bindgen"
path = "src/main.rs"

# bindgen's own CLI (__cli) and the features upstream's bindgen-cli turns
# on; clang-sys links libclang dynamically (neither runtime nor static).
[dependencies.bindgen]
version = "=$version"
default-features = false
features = ["__cli", "experimental", "prettyplease"]

[profile.release]
strip = true
EOF
cat >"$src/src/main.rs" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
// The bindgen command line: bindgen's own flag parser, then generate and
// write, as upstream's bindgen-cli does.
use std::{env, panic, process};

fn main() {
    let (builder, output, verbose) = match bindgen::builder_from_flags(env::args()) {
        Ok(parsed) => parsed,
        Err(err) => {
            eprintln!("{err}");
            process::exit(1);
        }
    };
    match panic::catch_unwind(panic::AssertUnwindSafe(|| builder.generate())) {
        Ok(Ok(bindings)) => bindings.write(output).expect("Unable to write output"),
        Ok(Err(err)) => {
            eprintln!("Unable to generate bindings: {err}");
            process::exit(1);
        }
        Err(_) => {
            if verbose {
                eprintln!("bindgen unexpectedly panicked");
            }
            process::exit(1);
        }
    }
}
EOF
# A private CARGO_HOME: no user config, no registry index, no network.
cat >"$work/cargo-home/config.toml" <<EOF
[source.crates-io]
replace-with = "debian-trixie"

[source.debian-trixie]
directory = "$registry"

[net]
offline = true
EOF

log "building with $("$rustc" --version) (a few minutes)"
(cd "$src" &&
 env -u RUSTC_WRAPPER -u RUSTC_WORKSPACE_WRAPPER -u RUSTFLAGS \
	-u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_TARGET -u RUSTUP_TOOLCHAIN \
	CARGO_HOME="$work/cargo-home" CARGO_TARGET_DIR="$work/target" \
	CARGO="$cargo" RUSTC="$rustc" \
	"$cargo" build --offline --release --quiet >&2)

built=$work/target/release/bindgen
[ "$("$built" --version)" = "bindgen $version" ] ||
	die "the built bindgen does not say it is $version"
log "built: $("$built" --version --verbose | tr '\n' ' ')"

# Smoke test: bindings for a tiny header.
printf 'struct vroce_probe { unsigned int a; };\nint vroce_probe_fn(struct vroce_probe *p);\n' \
	>"$work/probe.h"
"$built" "$work/probe.h" >"$work/probe.rs" 2>"$work/probe.err" ||
	die "the built bindgen fails on a tiny header: $(cat "$work/probe.err")"
grep -q 'pub fn vroce_probe_fn' "$work/probe.rs" ||
	die "the built bindgen generated no binding for a tiny header"

# Lay out the cache entry, with what it was built from, then rename it in.
mkdir -p "$work/out/bin"
cp "$built" "$work/out/bin/bindgen"
{
	echo "# bindgen $version for Debian 12, built by scripts/install-bindgen.sh"
	echo "# with $("$rustc" --version), from these $suite packages ($mirror):"
	for deb in "$work"/debs/*.deb; do
		dpkg-deb -f "$deb" Package Version | paste -sd' ' |
			sed 's/^Package: \(.*\) Version: /\1 /'
	done | sort
} >"$work/out/packages"
rm -rf "$dest"
mv -T "$work/out" "$dest"
log "installed $dest/bin/bindgen"
echo "$dest/bin/bindgen"
