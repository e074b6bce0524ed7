#!/usr/bin/env bash
# The Python packages the interoperability tests use to read what vtask writes (pyarrow and
# Hugging Face datasets for Parquet, the OpenAI SDK's grader types). Nothing at run time needs
# Python: only the tests, so this is a test dependency like the VS Code runtime.
#
# A machine whose pip has a local index configured (`pip config list` shows it) installs from
# it alone: pip's default index may be unreachable there and is retried slowly.
set -euo pipefail
packages=(pyarrow pandas datasets openai)
if python3 -c 'import pyarrow, pandas, datasets, openai' 2>/dev/null; then
  echo "[python-deps] ${packages[*]}: already installed"
  exit 0
fi
args=()
indexes=$(pip config list 2>/dev/null | sed -n "s/^[a-z:.]*extra-index-url='\(.*\)'$/\1/p" | head -1)
if [ -n "$indexes" ]; then
  first=1
  for url in $indexes; do
    if [ $first = 1 ]; then args+=(--index-url "$url"); first=0; else args+=(--extra-index-url "$url"); fi
  done
fi
echo "[python-deps] pip install ${packages[*]} ${args[*]}"
python3 -m pip install --disable-pip-version-check --quiet "${args[@]}" "${packages[@]}"
