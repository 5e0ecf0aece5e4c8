#!/usr/bin/env bash
# Fetches the upstream source tarball of a Debian-packaged SAT solver (default: kissat) into a cache
# outside the repository and prints the unpacked directory. Third-party solver code is never committed.
#   usage: scripts/fetch-solver-source.sh [PACKAGE]
#
# The system's apt configuration is only read, never written: `apt-get source` runs with a private
# configuration in the cache (its own source list naming Debian's deb-src for SUITE, its own package
# lists and caches), so no root is needed and nothing under /etc/apt or /var changes.
#   SATLUTION_SOURCE_SUITE  the Debian release to take the source from (default: trixie, kissat 4.0.2)
#   SATLUTION_SOURCE_MIRROR the Debian mirror (default: the one the system's apt sources name, else deb.debian.org)
#   SATLUTION_APT_ETC       the apt configuration directory to read (default: /etc/apt; tests point it elsewhere)
set -euo pipefail
PKG="${1:-kissat}"
CACHE="${SATLUTION_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/satlution-dev}/sources"
SUITE="${SATLUTION_SOURCE_SUITE:-trixie}"
ETC="${SATLUTION_APT_ETC:-/etc/apt}"
mkdir -p "$CACHE"
log() { echo "[fetch-source] $*" >&2; }

# Earlier versions of this script enabled deb-src system-wide; say so, it is no longer needed.
OLD="$ETC/sources.list.d/satlution-debsrc.sources"
if [ -e "$OLD" ]; then
  log "$OLD was written by an earlier version of this script and is no longer used."
  log "  Every apt-get update on this machine reads source indexes because of it. To remove it:"
  log "  sudo rm $OLD && sudo apt-get update"
fi

# $CACHE/$PKG/ROOT names the unpacked source root (tarballs differ: one top directory or none).
if [ -f "$CACHE/$PKG/ROOT" ] && [ -d "$(cat "$CACHE/$PKG/ROOT")" ]; then cat "$CACHE/$PKG/ROOT"; exit 0; fi

command -v apt-get >/dev/null || { log "apt-get is not available: fetch $PKG's source yourself and point SATLUTION_KISSAT_SRC (or the seed) at it"; exit 1; }
mirror="${SATLUTION_SOURCE_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror=$( { sed -n 's/^URIs:[[:space:]]*\(https\?:\/\/[^ ]*\/debian\/\?\)$/\1/p' "$ETC"/sources.list.d/*.sources 2>/dev/null
              sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\(https\?:\/\/[^ ]*\/debian\/\?\)[[:space:]].*/\2/p' "$ETC"/sources.list "$ETC"/sources.list.d/*.list 2>/dev/null
            } | head -n1 || true)
  mirror="${mirror:-http://deb.debian.org/debian}"
fi
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || { log "$KEYRING is missing (Debian's package debian-archive-keyring): cannot check the source index's signature"; exit 1; }

# The private apt configuration: a source list of one deb-src line, and lists, caches and state of its own.
APT="$CACHE/.apt"
mkdir -p "$APT/sources.list.d" "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/state"
echo "deb-src [signed-by=$KEYRING] $mirror $SUITE main" > "$APT/sources.list"
: > "$APT/state/status"
opts=(
  -o "Dir::Etc::SourceList=$APT/sources.list"
  -o "Dir::Etc::SourceParts=$APT/sources.list.d"
  -o "Dir::State=$APT/state"
  -o "Dir::State::Lists=$APT/lists"
  -o "Dir::State::status=$APT/state/status"
  -o "Dir::Cache=$APT/cache"
  -o "APT::Sandbox::User=$(id -un)"
)
log "reading the source index of Debian $SUITE from $mirror (private apt configuration in $APT; /etc/apt untouched)"
apt-get "${opts[@]}" update -qq >&2 || { log "apt-get update failed for $mirror $SUITE (see above): is the mirror reachable?"; exit 1; }
tmp=$(mktemp -d "$CACHE/.$PKG.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && apt-get "${opts[@]}" source --tar-only "$PKG" >&2 ) || { log "apt-get source $PKG failed (see above)"; exit 1; }
tarball=$(find "$tmp" -maxdepth 1 -name "*.orig.tar.*" | head -n1)
[ -n "$tarball" ] || { log "apt-get source gave no tarball for $PKG"; exit 1; }
mkdir -p "$tmp/src" && tar -xf "$tarball" -C "$tmp/src"
rm -rf "$CACHE/$PKG" && mkdir -p "$CACHE/$PKG"
mv "$tmp/src" "$CACHE/$PKG/src"
root="$CACHE/$PKG/src"
entries=("$root"/*)
if [ ${#entries[@]} -eq 1 ] && [ -d "${entries[0]}" ]; then root="${entries[0]}"; fi
echo "$root" > "$CACHE/$PKG/ROOT"
echo "$root"
