#!/usr/bin/env bash
# Runs every Melon test on a fresh Debian machine, as root or with sudo: installs what is missing,
# builds, and runs unit, contract and integration tests (real ZeroMQ over TCP, real processes).
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the build and the tests need (Debian names).
packages=(
    libzmq3-dev      # libzmq and its pkg-config file, for the CZeroMQ system library
    pkg-config
    python3          # Debian's own Python, for the Majordomo interop peers (Tests/Interop)
    python3-zmq
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

# Build everything first (executables included: the integration tests start them as processes).
swift build --build-tests "$@"
swift test --skip-build "$@"
