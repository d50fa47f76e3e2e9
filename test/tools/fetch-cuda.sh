#!/bin/sh
# fetch-cuda.sh [DEST] — put NVIDIA's ptxas (CUDA 11.8) and libdevice.10.bc
# under DEST (default <repo>/.deps/cuda) as bin/ptxas and
# nvvm/libdevice/libdevice.10.bc, for the tests that check generated PTX.
#
# Both files ship in Debian bookworm's nvidia-cuda-toolkit package
# (component non-free; ptxas is statically linked apart from libc/libm).
# The package is fetched with a private apt configuration (its own
# sources.list, lists and cache in a temporary folder, the system's Debian
# archive keyring), never installed: nothing under /etc/apt or /var/lib/apt
# changes and root is not needed. Only the two files (and NVIDIA's licence
# text) are extracted; the .deb and the apt lists are removed afterwards.
#
# Idempotent: exits at once when both files are already there. When the
# fetch is impossible (no apt-get, no network, ...) it prints one line
# saying why and exits 0, so `make deps` goes on and the PTX tests skip.
#
# Environment: CUDA_MIRROR (default http://deb.debian.org/debian),
# CUDA_SUITE (default bookworm).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$root/.deps/cuda}
case $dest in /*) ;; *) dest=$(pwd)/$dest ;; esac
mirror=${CUDA_MIRROR:-http://deb.debian.org/debian}
suite=${CUDA_SUITE:-bookworm}
pkg=nvidia-cuda-toolkit
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
ptxas_in=./usr/bin/ptxas
libdevice_in=./usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc
licence_in=./usr/share/doc/nvidia-cuda-toolkit/copyright

if [ -x "$dest/bin/ptxas" ] && [ -s "$dest/nvvm/libdevice/libdevice.10.bc" ]; then
	exit 0
fi

skip() {
	echo "fetch-cuda: ptxas/libdevice not fetched ($*); PTX tests will skip" >&2
	exit 0
}

for t in apt-get dpkg-deb tar; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found: not a Debian-like system"
done
[ -r "$keyring" ] || skip "$keyring missing (apt-get install debian-archive-keyring)"

start=$(date +%s)
parent=$(dirname "$dest")
mkdir -p "$parent" 2>/dev/null || skip "cannot create $parent"
work=$(mktemp -d "$parent/.fetch-cuda.XXXXXX") || skip "cannot create a temporary folder in $parent"
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/deb" "$work/root"
echo "deb [signed-by=$keyring] $mirror $suite non-free" >"$work/sources.list"

# Private apt configuration: only our sources.list, our lists and cache, an
# empty dpkg status (nothing is installed) and no preferences. As root, apt
# would drop to the _apt user for downloads, who cannot write to our
# folder; the archives are checked against the signed Release file anyway.
set -- \
	-o Dir::Etc::SourceList="$work/sources.list" \
	-o Dir::Etc::SourceParts=/dev/null \
	-o Dir::Etc::Preferences=/dev/null \
	-o Dir::Etc::PreferencesParts=/dev/null \
	-o Dir::State::Lists="$work/lists" \
	-o Dir::State::status=/dev/null \
	-o Dir::Cache="$work/cache" \
	-o Debug::NoLocking=true \
	-o Acquire::Retries=1 \
	-o Acquire::http::Timeout=20 \
	-o Acquire::Languages=none \
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false \
	-o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false \
	-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false
[ "$(id -u)" -eq 0 ] && set -- "$@" -o APT::Sandbox::User=root

log=$work/apt.log
firsterror() { grep -o 'E: .*' "$log" | head -n 1 | tr -s ' ' | cut -c1-200; }

if ! apt-get "$@" -q --error-on=any update >"$log" 2>&1; then
	skip "apt-get update of $mirror $suite non-free failed: $(firsterror)"
fi
if ! (cd "$work/deb" && apt-get "$@" -q download "$pkg") >"$log" 2>&1; then
	skip "apt-get download $pkg failed: $(firsterror)"
fi
deb=$(ls "$work"/deb/"$pkg"_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || skip "apt-get download $pkg produced no .deb"
size=$(wc -c <"$deb")

if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/root" "$ptxas_in" "$libdevice_in" "$licence_in"; then
	skip "could not extract ptxas and libdevice.10.bc from $(basename "$deb")"
fi

new=$work/cuda
mkdir -p "$new/bin" "$new/nvvm/libdevice"
mv "$work/root/$ptxas_in" "$new/bin/ptxas"
mv "$work/root/$libdevice_in" "$new/nvvm/libdevice/libdevice.10.bc"
mv "$work/root/$licence_in" "$new/LICENSE.nvidia-cuda-toolkit"
echo "$(basename "$deb")" >"$new/SOURCE"
chmod 0755 "$new/bin/ptxas"
if ! version=$("$new/bin/ptxas" --version 2>&1 | grep -o 'release [0-9.]*'); then
	skip "the fetched ptxas does not run on this machine"
fi

rm -rf "$dest"
mv "$new" "$dest" || skip "cannot move the files into $dest"
end=$(date +%s)
echo "fetch-cuda: ptxas ($version) and libdevice.10.bc in $dest" \
	"($((size / 1000000)) MB .deb, $((end - start)) s)"
