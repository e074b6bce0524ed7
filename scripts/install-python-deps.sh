#!/usr/bin/env bash
# The Python packages the interoperability tests drive: pyarrow and Hugging Face datasets read
# what vtask writes, the OpenAI SDK's grader types, and the trainers that score through
# `vtask serve` (TRL's GRPOTrainer on torch with transformers and accelerate; Ray Data). Nothing
# at run time needs Python: only the tests, so this is a test dependency like the VS Code runtime.
#
# A machine whose pip has a local index configured (`pip config list` shows it) installs from
# it alone: pip's default index may be unreachable there and is retried slowly. torch is the CPU
# build (about 1 GB less than a CUDA one, and the tests train on CPU): a `+cpu` wheel in pip's
# find-links folder is installed by file, so pip never weighs the CUDA builds.
set -euo pipefail
packages=(pyarrow pandas datasets openai transformers trl accelerate ray)
# Found, not imported: importing torch, TRL and Ray takes seconds; the tests import them anyway.
if python3 -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in sys.argv[1:]))' \
  pyarrow pandas datasets openai torch transformers trl accelerate ray; then
  echo "[python-deps] torch ${packages[*]}: already installed"
  exit 0
fi
config=$(pip config list 2>/dev/null || true)
args=()
indexes=$(sed -n "s/^[a-z:.]*extra-index-url='\(.*\)'$/\1/p" <<<"$config" | head -1)
if [ -n "$indexes" ]; then
  first=1
  for url in $indexes; do
    if [ $first = 1 ]; then args+=(--index-url "$url"); first=0; else args+=(--extra-index-url "$url"); fi
  done
fi
torch=torch
pyver=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
for dir in $(sed -n "s/^[a-z:.]*find-links='\(.*\)'$/\1/p" <<<"$config" | sort -u); do
  wheel=$(ls "$dir"/torch-*+cpu-"$pyver"-*.whl 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$wheel" ]; then torch=$wheel; break; fi
done
echo "[python-deps] pip install $torch ${packages[*]} ${args[*]}"
python3 -m pip install --disable-pip-version-check --quiet "${args[@]}" "$torch" "${packages[@]}"
