#!/usr/bin/env bash
# The HTTP benchmark (Benchmarks/HTTPBenchmark): a release build, a private throwaway PostgreSQL and
# wrk, as root on Debian. Arguments go to http-benchmark (--runs, --duration, --connections).
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh libzmq3-dev libcurl4-openssl-dev libargon2-dev libqpdf-dev libhpdf-dev libvips-dev pkg-config postgresql acl wrk python3
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"

# A throwaway cluster with durable settings (fsync on), as a real deployment would run.
source deploy/throwaway-postgres.sh
export DATABASE_URL=$THROWAWAY_DATABASE_URL

swift build -c release --product http-benchmark
.build/release/http-benchmark "$@"
