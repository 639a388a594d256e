#!/usr/bin/env bash
# Creates .venv with the Python packages the tests use to cross-check xq: pyffish
# (Fairy-Stockfish, an independent move generator, and a PGN replayer), pyarrow (reads
# xq-data's Parquet shards in the interop test), cchess (reads xq's PGN files), and polars,
# pandas and duckdb (the documentation's data snippets are run as written). Idempotent: installs only when a module is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import pyffish, pyarrow, cchess, polars, pandas, duckdb" >/dev/null 2>&1; then
  .venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt
fi
