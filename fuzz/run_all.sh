#!/usr/bin/env bash
# Runs every fuzz target one after another (not in parallel: the CPU is shared) for RUNS inputs
# each, starting from the committed seeds. Needs cargo-fuzz; RUSTC_BOOTSTRAP lets stable rustc
# accept the sanitizer flags cargo-fuzz passes.
set -euo pipefail
cd "$(dirname "$0")"
RUNS="${RUNS:-1000000}"
for target in fen iccs wxf chinese parse_move; do
    mkdir -p "corpus/$target"
    cp -n seeds/$target/* "corpus/$target/" 2>/dev/null || true
    start=$(date +%s)
    mkdir -p logs
    RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" -- -runs="$RUNS" -max_len=256 2>&1 | tee "logs/$target.log" | tail -n 3
    echo "== $target: $RUNS runs in $(( $(date +%s) - start )) s"
done
