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

./deploy/install-deps.sh libzmq3-dev libcurl4-openssl-dev libargon2-dev libqpdf-dev libhpdf-dev libvips-dev pkg-config postgresql acl
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
# Each service signs in as a PostgreSQL role of its own, which owns its schema and reaches no other;
# the role's password is made once and kept beside the cluster (readable by root only).
service_role() {
    local password_file=$data/$1-database-password
    [ -s "$password_file" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$password_file")
    local url
    url=$(ROLE_PASSWORD=$(cat "$password_file") ./deploy/service-role.sh "$DATABASE_URL" "melon_$1" "$1")
    export "$2=$url"
}
# A key a service cannot start without (32 random bytes, base64): made once and kept the same way,
# unless the environment gives one.
local_key() {
    local key_file
    key_file=$data/$(echo "$1" | tr A-Z_ a-z-)
    [ -s "$key_file" ] || (umask 077 && head -c 32 /dev/urandom | base64 > "$key_file")
    export "$1=${!1:-$(cat "$key_file")}"
}
# Every service's role and required settings, made from its definition (MelonServices.all):
# MELON_WRITE_DOCS=1 swift test --filter DeployFilesTests rewrites this block.
# generated: services
service_role pdf_email PDF_EMAIL_DATABASE_URL
service_role notifications NOTIFICATIONS_DATABASE_URL
service_role auth AUTH_DATABASE_URL
local_key AUTH_KEY_ENCRYPTION_KEY
service_role refund_calculator REFUND_CALCULATOR_DATABASE_URL
export REFUND_CONTACT_EMAIL=${REFUND_CONTACT_EMAIL:-refunds@melon.localhost}
service_role tax_form TAX_FORM_DATABASE_URL
local_key TAX_FORM_KEY
service_role household HOUSEHOLD_DATABASE_URL
service_role marketplace_chat MARKETPLACE_CHAT_DATABASE_URL
local_key MARKETPLACE_CHAT_KEY
service_role payments PAYMENTS_DATABASE_URL
# end: services
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
