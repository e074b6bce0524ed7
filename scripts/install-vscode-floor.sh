#!/usr/bin/env bash
# The oldest VS Code the extension supports (package.json engines.vscode ^1.90.0), for the
# `e2e-floor` test stage: code-server 4.90.3 (VS Code 1.90.2) from the npm registry, run on the
# machine's Node 20, cached under ~/.cache/vtask (or $VTASK_CACHE).
#
# Its VS Code modules include @vscode/ripgrep, whose postinstall downloads a ripgrep binary from
# GitHub unless an archive is already in its download cache ($TMPDIR/vscode-ripgrep-cache-*).
# Machines that reach only package registries cannot download it, so the cache is seeded with
# Debian's ripgrep (installed with apt when missing). x86-64 Linux only.
set -euo pipefail
CODE_SERVER_FLOOR=4.90.3
RIPGREP_PACKAGE=1.15.9 # the @vscode/ripgrep version in code-server 4.90.3
RIPGREP_TAG=v13.0.0-10 # the ripgrep build that @vscode/ripgrep 1.15.9 asks for
CACHE="${VTASK_CACHE:-$HOME/.cache/vtask}"
DIR="$CACHE/vscode-floor-cs$CODE_SERVER_FLOOR"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
LOG="$DIR.install.log"
T0=$SECONDS
say() { echo "[install-vscode-floor +$((SECONDS - T0))s] $*"; }
# shellcheck source=scripts/install-progress.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-progress.sh"

if [ -f "$DIR/.complete" ] && [ -f "$ENTRY" ]; then
  say "code-server $CODE_SERVER_FLOOR (VS Code 1.90): installed in $DIR"
  exit 0
fi
[ "$(uname -m)" = x86_64 ] || { echo "install-vscode-floor: x86-64 Linux only" >&2; exit 1; }
echo "The e2e-floor tests need the oldest supported VS Code (once; cached for later runs):"
echo "  - code-server $CODE_SERVER_FLOOR (VS Code 1.90, about 600 MB; native modules compile here:"
echo "    5-20 minutes with the machine's load) into $DIR"
command -v rg >/dev/null || echo "  - Debian's ripgrep, with apt-get (root or sudo)"
# On a terminal (outside CI) ask first: nothing is downloaded or installed system-wide unasked.
if [ -t 0 ] && [ -t 1 ] && [ -z "${CI:-}" ] && [ -z "${VTASK_YES:-}" ]; then
  read -r -p "Install? [Y/n] " answer
  case "$answer" in [nN]*) echo "Nothing installed."; exit 1 ;; esac
fi
mkdir -p "$CACHE"
: >"$LOG"
say "log: $LOG"

if ! command -v rg >/dev/null; then
  SUDO=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install-vscode-floor: need root (or sudo) to apt-get install ripgrep" >&2; exit 1; }
    SUDO=(sudo)
  fi
  say "apt-get install ripgrep (Debian's ripgrep, for code-server's search)"
  "${SUDO[@]+"${SUDO[@]}"}" apt-get install -y -qq ripgrep >/dev/null 2>&1 || { "${SUDO[@]+"${SUDO[@]}"}" apt-get update -qq >/dev/null && "${SUDO[@]+"${SUDO[@]}"}" apt-get install -y -qq ripgrep >/dev/null; }
fi
seed="${TMPDIR:-/tmp}/vscode-ripgrep-cache-$RIPGREP_PACKAGE"
mkdir -p "$seed"
staging=$(mktemp -d)
cp "$(command -v rg)" "$staging/rg"
tar czf "$seed/ripgrep-$RIPGREP_TAG-x86_64-unknown-linux-musl.tar.gz" -C "$staging" rg
rm -rf "$staging"

# Run from `npm test`, the outer npm's lifecycle variables would leak into the inner npm.
while read -r var; do
  case "$var" in npm_config_user_agent | npm_lifecycle_* | npm_package_* | npm_node_execpath | npm_execpath | npm_command | NODE) unset "$var" ;; esac
done < <(compgen -e)
rm -rf "$DIR"
mkdir -p "$DIR"
cat >"$DIR/package.json" <<JSON
{
  "name": "vtask-vscode-floor-runtime",
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_FLOOR" },
  "allowScripts": { "code-server": true, "argon2": true }
}
JSON
# -fpermissive: its kerberos module predates the compilers here. unsafe-perm: its postinstall
# runs npm again as root. nodedir: node-gyp takes the headers of the Node that runs it from its
# own installation (a fresh home has none cached, and offline they cannot be downloaded).
nodedir=$(dirname "$(dirname "$(command -v node)")")
[ -f "$nodedir/include/node/node.h" ] || nodedir=
say "npm install code-server@$CODE_SERVER_FLOOR"
(cd "$DIR" && progress env npm_config_unsafe_perm=true CXXFLAGS=-fpermissive ${nodedir:+npm_config_nodedir="$nodedir"} npm install --no-package-lock --foreground-scripts --no-audit --no-fund)
home=$(mktemp -d)
version=$(HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" node "$ENTRY" --version 2>>"$LOG" | grep -m 1 -E '^[0-9]+\.[0-9]+\.[0-9]+') || true
rm -rf "$home"
case "$version" in
  "$CODE_SERVER_FLOOR"*) ;;
  *) echo "install-vscode-floor: code-server --version printed '$version', expected $CODE_SERVER_FLOOR" >&2; tail -n 40 "$LOG" >&2; exit 1 ;;
esac
touch "$DIR/.complete"
say "code-server $version"
