#!/usr/bin/env bash
# Installs the SAT tools the evaluator and its tests use, cached outside the repository:
#   - Debian: cadical (a real solver with DRAT proofs), berkeley-abc (multiplier miters: hard UNSAT
#     instances no one here wrote), xz-utils (for .cnf.xz), build tools, and bubblewrap (the sandbox
#     every build and solver run goes through)
#   - drat-trim built from Debian's upstream source tarball into the cache
# Prints KEY=VALUE lines (DRAT_TRIM=..., CADICAL=...) on stdout. Safe to re-run.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${SATLUTION_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/satlution-dev}"
mkdir -p "$CACHE/bin"
log() { echo "[setup-sat-tools] $*" >&2; }
SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo)

need=()
command -v cadical >/dev/null 2>&1 || need+=(cadical)
command -v xz >/dev/null 2>&1 || need+=(xz-utils)
command -v berkeley-abc >/dev/null 2>&1 || need+=(berkeley-abc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
if [ ${#need[@]} -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  "${SUDO[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need[@]}" >&2
fi

DT="$CACHE/bin/drat-trim"
if [ ! -x "$DT" ]; then
  src=$(bash "$HERE/fetch-solver-source.sh" drat-trim)
  log "building drat-trim from $src"
  if ! make -C "$src" drat-trim >&2; then
    log "drat-trim could not be built on this machine (see the compiler output above); set evaluation.drat_trim in satlution.yaml to an existing binary"
    exit 1
  fi
  cp "$src/drat-trim" "$DT.tmp" && mv "$DT.tmp" "$DT"
fi
echo "DRAT_TRIM=$DT"
echo "CADICAL=$(command -v cadical)"
echo "BWRAP=$(command -v bwrap)"
