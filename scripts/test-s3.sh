#!/usr/bin/env bash
# Runs the storage tests against a real S3 server on localhost: starts SeaweedFS with
# scripts/s3-server.sh (installing it on first use), runs xq-store's tests (their S3 variants
# are on while XQ_S3_TEST=1), and stops the server whatever happens. Extra arguments go to
# cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
trap 'bash scripts/s3-server.sh stop' EXIT
eval "$(bash scripts/s3-server.sh start)"
cargo test --release -p xq-store "$@"
