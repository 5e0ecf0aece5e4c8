#!/usr/bin/env bash
# Fetches the upstream source tarball of a Debian-packaged SAT solver (default: kissat) into a cache
# outside the repository and prints the unpacked directory. Third-party solver code is never committed.
#   usage: scripts/fetch-solver-source.sh [PACKAGE]
set -euo pipefail
PKG="${1:-kissat}"
CACHE="${SATLUTION_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/satlution-dev}/sources"
mkdir -p "$CACHE"
log() { echo "[fetch-source] $*" >&2; }
# $CACHE/$PKG/ROOT names the unpacked source root (tarballs differ: one top directory or none).
if [ -f "$CACHE/$PKG/ROOT" ] && [ -d "$(cat "$CACHE/$PKG/ROOT")" ]; then cat "$CACHE/$PKG/ROOT"; exit 0; fi

SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo)
if ! apt-get source --tar-only --print-uris "$PKG" 2>/dev/null | grep -q "'"; then
  # deb-src is off by default: enable it for the mirror this machine already uses.
  mirror=$( { sed -n 's/^URIs:[[:space:]]*\(https\?:\/\/[^ ]*\/debian\/\?\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null
              sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\(https\?:\/\/[^ ]*\/debian\/\?\)[[:space:]].*/\2/p' /etc/apt/sources.list 2>/dev/null
            } | head -n1 || true)
  [ -n "$mirror" ] || { log "no Debian mirror configured; cannot fetch $PKG source"; exit 1; }
  log "enabling deb-src for $mirror"
  "${SUDO[@]}" tee /etc/apt/sources.list.d/satlution-debsrc.sources >/dev/null <<X
Types: deb-src
URIs: $mirror
Suites: bookworm bookworm-updates trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
X
  "${SUDO[@]}" apt-get update -qq >&2
fi
tmp=$(mktemp -d "$CACHE/.$PKG.XXXXXX")
( cd "$tmp" && apt-get source --tar-only "$PKG" >&2 )
tarball=$(find "$tmp" -maxdepth 1 -name "*.orig.tar.*" | head -n1)
[ -n "$tarball" ] || { log "apt-get source gave no tarball for $PKG"; exit 1; }
mkdir -p "$tmp/src" && tar -xf "$tarball" -C "$tmp/src"
rm -rf "$CACHE/$PKG" && mkdir -p "$CACHE/$PKG"
mv "$tmp/src" "$CACHE/$PKG/src" && rm -rf "$tmp"
root="$CACHE/$PKG/src"
entries=("$root"/*)
if [ ${#entries[@]} -eq 1 ] && [ -d "${entries[0]}" ]; then root="${entries[0]}"; fi
echo "$root" > "$CACHE/$PKG/ROOT"
echo "$root"
