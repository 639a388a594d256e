#!/usr/bin/env bash
# PyTorch side of the xq-nn benchmark: creates .venv-torch (PyPI `torch`; the default Linux
# wheel pulls CUDA libraries, several GB, but runs on the CPU here), then runs
# scripts/bench_torch.py at 1 and 2 threads. Arguments are passed to bench_torch.py.
# Compare with: cargo run --release -p xq-nn --example bench_nn
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-torch/bin/python ]; then
  python3 -m venv .venv-torch
fi
if ! .venv-torch/bin/python -c "import torch" >/dev/null 2>&1; then
  .venv-torch/bin/pip install --quiet --disable-pip-version-check torch
fi
exec .venv-torch/bin/python scripts/bench_torch.py "$@"
