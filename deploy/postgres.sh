#!/usr/bin/env bash
# Creates (or reuses) a private PostgreSQL cluster in DIR, listening on 127.0.0.1:PORT only, starts it
# if it is not running, and prints its DATABASE_URL. Run as root (the server runs as `postgres`).
#
#   deploy/postgres.sh DIR PORT [--fast]     --fast: fsync off, for throwaway test clusters only
#   deploy/postgres.sh --stop DIR
set -euo pipefail

if [ "${1:-}" = "--stop" ]; then
    dir=$(realpath "$2")
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    [ -f "$dir/data/postmaster.pid" ] && runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    exit 0
fi

dir=${1:?usage: postgres.sh DIR PORT [--fast]}
port=${2:?usage: postgres.sh DIR PORT [--fast]}
fast=${3:-}

if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
    echo "installing postgresql" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

mkdir -p "$dir"
dir=$(realpath "$dir")
chown postgres: "$dir"
chmod 700 "$dir"
# The server runs as `postgres`, which must be able to pass through every folder above DIR (a
# checkout under a root-only folder, for example). Grant it that one right, by ACL, where missing.
parent=$(dirname "$dir")
while [ "$parent" != "/" ]; do
    if ! runuser -u postgres -- test -x "$parent"; then
        command -v setfacl >/dev/null || { echo "postgres cannot enter $parent; install acl or chmod o+x it" >&2; exit 1; }
        setfacl -m u:postgres:--x "$parent"
        echo "granted postgres passage (ACL --x) through $parent" >&2
    fi
    parent=$(dirname "$parent")
done
# The password lives only in the cluster folder; loopback clients authenticate with scram-sha-256.
if [ ! -f "$dir/password" ]; then
    head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password"
    chown postgres: "$dir/password"
    chmod 600 "$dir/password"
fi
password=$(cat "$dir/password")

if [ ! -f "$dir/data/PG_VERSION" ]; then
    runuser -u postgres -- "$bin/initdb" -D "$dir/data" -U melon --pwfile="$dir/password" \
        --auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
fi

options="-c listen_addresses=127.0.0.1 -p $port -k $dir"
# --fast is for test clusters, where every suite runs at once, each with its own pools: 100
# connections ran out (tests then waited out "too many clients"), so room for 400.
[ "$fast" = "--fast" ] && options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400"
if ! runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$options" start >/dev/null
fi
if ! runuser -u postgres -- "$bin/psql" -h "$dir" -p "$port" -U melon -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'melon'" | grep -q 1; then
    runuser -u postgres -- "$bin/createdb" -h "$dir" -p "$port" -U melon -O melon melon
fi
echo "postgres://melon:$password@127.0.0.1:$port/melon"
