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
say() { echo "[install-vscode-floor] $*"; }

if [ -f "$DIR/.complete" ] && [ -f "$ENTRY" ]; then
  say "code-server $CODE_SERVER_FLOOR (VS Code 1.90): installed in $DIR"
  exit 0
fi
[ "$(uname -m)" = x86_64 ] || { echo "install-vscode-floor: x86-64 Linux only" >&2; exit 1; }
say "installing code-server $CODE_SERVER_FLOOR (VS Code 1.90, about 600 MB) into $DIR; log: $LOG"

if ! command -v rg >/dev/null; then
  say "apt-get install ripgrep (Debian's ripgrep, for code-server's search)"
  apt-get install -y -qq ripgrep >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq ripgrep >/dev/null; }
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
# runs npm again as root.
if ! (cd "$DIR" && env npm_config_unsafe_perm=true CXXFLAGS=-fpermissive npm install --no-package-lock --foreground-scripts --no-audit --no-fund >"$LOG" 2>&1); then
  tail -n 40 "$LOG" >&2
  echo "install-vscode-floor: npm install failed (log: $LOG)" >&2
  exit 1
fi
home=$(mktemp -d)
version=$(HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" node "$ENTRY" --version 2>>"$LOG" | grep -m 1 -E '^[0-9]+\.[0-9]+\.[0-9]+') || true
rm -rf "$home"
case "$version" in
  "$CODE_SERVER_FLOOR"*) ;;
  *) echo "install-vscode-floor: code-server --version printed '$version', expected $CODE_SERVER_FLOOR" >&2; tail -n 40 "$LOG" >&2; exit 1 ;;
esac
touch "$DIR/.complete"
say "code-server $version"
