#!/usr/bin/env bash
# The project's test command: sets up what the tests need (a Python virtual environment with
# pyffish for the differential move-generator test and pyarrow for the Parquet interop test,
# and a SeaweedFS S3 server on localhost for the storage and distributed-run tests, stopped
# whatever happens), then runs every test in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-python.sh
export XQ_PYTHON="$PWD/.venv/bin/python"
# The Python-backed tests skip without a venv under plain `cargo test`; here they must run.
export XQ_REQUIRE_PYTHON=1
trap 'bash scripts/s3-server.sh stop' EXIT
eval "$(bash scripts/s3-server.sh start)"
# The S3 variants of the storage tests and the distributed run must run against it.
export XQ_REQUIRE_S3=1
cargo test --release --workspace
