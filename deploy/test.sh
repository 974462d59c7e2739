#!/usr/bin/env bash
# Runs every Melon test on a fresh Debian machine, as root: installs what is missing, starts a private
# PostgreSQL, builds, and runs unit, contract and integration tests (real ZeroMQ over TCP, real
# processes, real PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the build and the tests need (Debian names).
packages=(
    libzmq3-dev      # libzmq and its pkg-config file, for the CZeroMQ system library
    pkg-config
    python3          # Debian's own Python, for the Majordomo interop peers (Tests/Interop)
    python3-zmq
    postgresql       # the tests' private cluster (deploy/postgres.sh)
)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"
command -v swift >/dev/null || { echo "swift is not installed (expected at /opt/swift)"; exit 1; }

# A private, throwaway PostgreSQL cluster for the tests, on a free loopback port, removed on exit.
# (It lives in /tmp: the server runs as `postgres`, which cannot enter a root-only checkout folder.)
pg_dir=$(mktemp -d /tmp/melon-test-postgres.XXXXXX)
pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() { ./deploy/postgres.sh --stop "$pg_dir" || true; rm -rf "$pg_dir"; }
trap cleanup EXIT
TEST_DATABASE_URL="$(./deploy/postgres.sh "$pg_dir" "$pg_port" --fast)?sslmode=disable"
export TEST_DATABASE_URL

# Build everything first (executables included: the integration tests start them as processes).
swift build --build-tests "$@"
swift test --skip-build "$@"
