#!/usr/bin/env bash
# Runs Melon locally on a fresh Debian machine, as root: installs what is missing, creates (or reuses)
# a private PostgreSQL cluster under .data/postgres on a loopback port, builds the `melon` executable
# (broker, every service and the gateway in one process) and runs it in the foreground.
# Ctrl-C stops Melon and the cluster. Running it again reuses both the cluster and the build.
#
# Settings: HTTP_PORT (default 8080), MELON_POSTGRES_PORT (default 54329), SMTP_URL (unset: mail goes
# to .data/mail as .eml files), and any Melon setting
# as an environment variable (see `.build/release/melon --help`).
set -euo pipefail
cd "$(dirname "$0")/.."

./deploy/install-deps.sh libzmq3-dev libcurl4-openssl-dev libargon2-dev libqpdf-dev libhpdf-dev pkg-config postgresql acl
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"

data=.data
mkdir -p "$data"
pg_port=${MELON_POSTGRES_PORT:-54329}
DATABASE_URL="$(./deploy/postgres.sh "$data/postgres" "$pg_port")?sslmode=disable"
export DATABASE_URL
stop_postgres() { ./deploy/postgres.sh --stop "$data/postgres"; }
trap stop_postgres EXIT

swift build -c release --product melon
export HTTP_PORT=${HTTP_PORT:-8080}
export LOG_FORMAT=${LOG_FORMAT:-text}
# Outgoing mail lands in this folder as .eml files unless SMTP_URL names a server.
export MAIL_SPOOL_DIR=${MAIL_SPOOL_DIR:-$PWD/$data/mail}
# The key that seals the token-signing keys: made once, kept beside the cluster (readable by root only).
kek_file=$data/auth-key-encryption-key
[ -s "$kek_file" ] || (umask 077 && head -c 32 /dev/urandom | base64 > "$kek_file")
export AUTH_KEY_ENCRYPTION_KEY=${AUTH_KEY_ENCRYPTION_KEY:-$(cat "$kek_file")}
# The key that wraps each account's tax-interview key, made and kept the same way.
tax_key_file=$data/tax-form-key
[ -s "$tax_key_file" ] || (umask 077 && head -c 32 /dev/urandom | base64 > "$tax_key_file")
export TAX_FORM_KEY=${TAX_FORM_KEY:-$(cat "$tax_key_file")}
# Each service signs in as a PostgreSQL role of its own, which owns its schema and reaches no other;
# each role's password is made once and kept beside the cluster too.
for schema in auth pdf_email notifications refund_calculator tax_form; do
    password_file=$data/$schema-database-password
    [ -s "$password_file" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$password_file")
    variable=$(echo "$schema" | tr a-z A-Z)_DATABASE_URL
    export "$variable=$(ROLE_PASSWORD=$(cat "$password_file") ./deploy/service-role.sh "$DATABASE_URL" "melon_$schema" "$schema")"
done
# Contact requests from the refund estimator go to this address (locally: into the mail folder too).
export REFUND_CONTACT_EMAIL=${REFUND_CONTACT_EMAIL:-refunds@melon.localhost}
mail="written to $MAIL_SPOOL_DIR as .eml files"
[ -z "${SMTP_URL:-}" ] || mail="sent over SMTP (SMTP_URL)"

cat <<MESSAGE

Melon is starting: http://127.0.0.1:$HTTP_PORT
  curl -s http://127.0.0.1:$HTTP_PORT/readyz
  curl -s http://127.0.0.1:$HTTP_PORT/openapi.json
  curl -s http://127.0.0.1:$HTTP_PORT/v1/auth/register -H 'content-type: application/json' \
    -d '{"email":"you@tcd.ie","password":"a long pass phrase","displayName":"You","username":"you"}'
    (the verification code arrives as an .eml file in the mail folder below)
  curl -s http://127.0.0.1:$HTTP_PORT/v1/refunds/estimate -H 'content-type: application/json' \
    -d '{"taxYear":2024,"status":"single","salaryCents":4320000,"taxPaidCents":550000}'
PostgreSQL: .data/postgres (127.0.0.1:$pg_port).
Mail: $mail. Ctrl-C stops everything.

MESSAGE
.build/release/melon &
melon=$!
trap 'kill -INT $melon 2>/dev/null || true' INT TERM
status=0
wait $melon || status=$?
# A signal interrupts the first wait; wait again for Melon's graceful shutdown to finish.
if kill -0 $melon 2>/dev/null; then wait $melon || status=$?; fi
exit $status
