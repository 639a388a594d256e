#!/usr/bin/env bash
# Self-play throughput of a distributed run against the number of workers on one machine
# (issue 20; docs/STORAGE.md, "Scaling"). For each N in $COUNTS, N `xq worker` processes play
# for $SECONDS_EACH seconds with the same accepted model; the games of the batches they
# committed are counted (a batch cut off by the timer is lost, as a killed worker's is).
#   bash scripts/bench-workers.sh RUN_DIR
# RUN_DIR is a local run (a directory or file:// location) whose config.toml and
# models/accepted/ are copied into a fresh run per N, e.g. the one
#   xq loop --config configs/loop-distributed-tiny.toml --run /tmp/r   (with a worker beside it)
# leaves. Needs a release build (cargo build --release -p xq-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
XQ=${XQ:-target/release/xq}
SOURCE=${1:?usage: bench-workers.sh RUN_DIR}
SOURCE=${SOURCE#file://}
COUNTS=${COUNTS:-1 2 4}
SECONDS_EACH=${SECONDS_EACH:-60}
BATCH_GAMES=${BATCH_GAMES:-8}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "workers,seconds,batches,games,positions,games_per_hour"
for n in $COUNTS; do
  run="$TMP/n$n"
  mkdir -p "$run/models"
  cp "$SOURCE/config.toml" "$run/"
  cp -r "$SOURCE/models/accepted" "$run/models/"
  pids=()
  for i in $(seq 1 "$n"); do
    timeout "$SECONDS_EACH" "$XQ" worker --run "$run" --worker-id "b$i" --batch-games "$BATCH_GAMES" \
      --cache "$TMP/cache" >/dev/null 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  python3 - "$run" "$n" "$SECONDS_EACH" <<'PY'
import glob, json, sys
run, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
metas = [json.load(open(p))["meta"] for p in glob.glob(f"{run}/selfplay/*/manifests/*.json")]
games = sum(m["games"] for m in metas)
rows = sum(m["rows"] for m in metas)
print(f"{n},{seconds:.0f},{len(metas)},{games},{rows},{games * 3600 / seconds:.0f}")
PY
done
