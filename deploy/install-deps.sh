#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are not installed yet (as root, or with sudo).
set -euo pipefail
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || [ -x /opt/swift/usr/bin/swift ] || { echo "swift is not installed (expected on PATH or at /opt/swift)" >&2; exit 1; }
