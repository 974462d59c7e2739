# Sourced by the test and benchmark scripts: starts a private PostgreSQL cluster in /tmp on a free
# loopback port, removes it when the script exits, and sets THROWAWAY_DATABASE_URL.
#   source deploy/throwaway-postgres.sh [--fast]      (--fast: fsync off, for tests only)
throwaway_pg_dir=$(mktemp -d /tmp/melon-postgres.XXXXXX)
throwaway_pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
throwaway_pg_cleanup() { ./deploy/postgres.sh --stop "$throwaway_pg_dir" || true; rm -rf "$throwaway_pg_dir"; }
trap throwaway_pg_cleanup EXIT
THROWAWAY_DATABASE_URL="$(./deploy/postgres.sh "$throwaway_pg_dir" "$throwaway_pg_port" "$@")?sslmode=disable"
