#!/usr/bin/env bash
# What a quiet `melon` costs, and how its memory grows with connections: a release melon on a
# private throwaway PostgreSQL, its CPU over an idle minute (from /proc: user + system time), its
# resident memory idle, then under wrk's read load (GET /v1/refunds/rules, anonymous, through the
# gateway and the bus to the refund calculator) at growing connection counts. As root on Debian:
#
#   swift build -c release --product melon && Benchmarks/Footprint/melon-footprint.sh [--idle 60] [--duration 10]
set -euo pipefail
cd "$(dirname "$0")/../.."
idle=60 duration=10
while [ $# -gt 0 ]; do
    case "$1" in
        --idle) idle=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        *) echo "usage: melon-footprint.sh [--idle SECONDS] [--duration SECONDS]" >&2; exit 64 ;;
    esac
done
melon=.build/release/melon
[ -x "$melon" ] || { echo "melon-footprint: $melon is missing; build it first: swift build -c release --product melon" >&2; exit 1; }
command -v wrk >/dev/null || { echo "melon-footprint: wrk is missing (apt-get install wrk)" >&2; exit 1; }

ulimit -n 65536 2>/dev/null || true
source deploy/throwaway-postgres.sh
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
spool=$(mktemp -d)
DATABASE_URL=$THROWAWAY_DATABASE_URL HTTP_PORT=$port MAIL_SPOOL_DIR=$spool PUSH_LOG=$spool/push.log LOG_LEVEL=warning \
    AUTH_KEY_ENCRYPTION_KEY=$(head -c 32 /dev/urandom | base64) TAX_FORM_KEY=$(head -c 32 /dev/urandom | base64) \
    REFUND_CONTACT_EMAIL=refunds@bench.example "$melon" > "$spool/melon.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$spool"; throwaway_pg_cleanup' EXIT
for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { echo "melon-footprint: melon is not ready; its log: $spool/melon.log" >&2; exit 1; }

ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
rss_mb() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status"; }
threads() { awk '/Threads/ { print $2 }' "/proc/$pid/status"; }

sleep 5  # past start-up (migrations, the first jobs)
before=$(cpu_ticks)
sleep "$idle"
after=$(cpu_ticks)
echo "melon footprint ($(nproc) cores), release build, pid $pid, $(threads) threads"
awk -v t=$((after - before)) -v hz="$ticks" -v s="$idle" 'BEGIN { printf "idle CPU over %d s: %.2f%% of one core\n", s, 100 * t / hz / s }'
echo "resident memory idle: $(rss_mb) MB"
echo "connections   req/s    resident MB (after the load)"
for connections in 32 256 1024; do
    rate=$(wrk -t2 -c"$connections" -d"${duration}s" "http://127.0.0.1:$port/v1/refunds/rules" | awk '/Requests\/sec/ { printf "%.0f", $2 }')
    printf "%11d %8s    %s\n" "$connections" "$rate" "$(rss_mb)"
done
sleep 5
echo "resident memory 5 s after the load: $(rss_mb) MB"
