#!/usr/bin/env bash
# The HTTP benchmark (Benchmarks/HTTPBenchmark): a release build, a private throwaway PostgreSQL and
# wrk, as root on Debian. Arguments go to http-benchmark (--runs, --duration, --connections).
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh libzmq3-dev pkg-config postgresql acl wrk python3
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"

pg_dir=$(mktemp -d /tmp/melon-bench-postgres.XXXXXX)
pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() { ./deploy/postgres.sh --stop "$pg_dir" || true; rm -rf "$pg_dir"; }
trap cleanup EXIT
# Durable settings (fsync on), as a real deployment would run.
DATABASE_URL="$(./deploy/postgres.sh "$pg_dir" "$pg_port")?sslmode=disable"
export DATABASE_URL

swift build -c release --product http-benchmark
.build/release/http-benchmark "$@"
