#!/usr/bin/env bash
# Gives one service a PostgreSQL login role of its own, owning the service's schema and nothing else,
# and prints the database URL the service then uses (its <SERVICE>_DATABASE_URL). The role cannot read
# any other service's schema; the schema's existing tables pass to it. It may use the shared schema
# `extensions` (pg_trgm), which this makes. Safe to run at every start.
#
#   ROLE_PASSWORD=... deploy/service-role.sh ADMIN_URL ROLE SCHEMA
#
# ADMIN_URL: a role that may create roles and schemas (DATABASE_URL of the local cluster, or the
# superuser of the compose PostgreSQL). ROLE_PASSWORD: the new role's password (kept by the caller).
set -euo pipefail
admin_url=${1:?usage: ROLE_PASSWORD=... service-role.sh ADMIN_URL ROLE SCHEMA}
role=${2:?usage: ROLE_PASSWORD=... service-role.sh ADMIN_URL ROLE SCHEMA}
schema=${3:?usage: ROLE_PASSWORD=... service-role.sh ADMIN_URL ROLE SCHEMA}
password=${ROLE_PASSWORD:?set ROLE_PASSWORD}
[[ "$role" =~ ^[a-z_][a-z0-9_]*$ && "$schema" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "ROLE and SCHEMA: lowercase letters, digits and _" >&2; exit 2; }

psql=psql
command -v psql >/dev/null || psql=$(ls -d /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
PGOPTIONS="-c client_min_messages=warning" "$psql" "$admin_url" -X -q -v ON_ERROR_STOP=1 \
    -v role="$role" -v schema="$schema" -v password="$password" >/dev/null <<'SQL'
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('melon.service-role.' || :'role'));
SELECT format('CREATE ROLE %I LOGIN', :'role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
ALTER ROLE :"role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'password';
SELECT format('CREATE SCHEMA %I', :'schema') WHERE NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = :'schema') \gexec
ALTER SCHEMA :"schema" OWNER TO :"role";
-- Extensions live in the shared schema `extensions`, made here once (a service's role may not):
-- pg_trgm for the marketplace's typo-tolerant search. Every service's role may use them.
SELECT pg_advisory_xact_lock(hashtext('melon.extensions'));
CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA extensions;
GRANT USAGE ON SCHEMA extensions TO :"role";
-- Tables an earlier start made as another role (with their indexes and sequences) pass to the service's role.
SELECT format('ALTER TABLE %I.%I OWNER TO %I', schemaname, tablename, :'role')
  FROM pg_tables WHERE schemaname = :'schema' AND tableowner <> :'role' \gexec
COMMIT;
SQL

# The service's URL: ADMIN_URL with the role's name and (percent-encoded) password.
encoded=""
for ((i = 0; i < ${#password}; i++)); do
    c=${password:i:1}
    case "$c" in [A-Za-z0-9._~-]) encoded+=$c ;; *) printf -v c '%%%02X' "'$c"; encoded+=$c ;; esac
done
echo "$admin_url" | sed -E "s#^([a-z]+://)[^@/]*@#\1$role:$encoded@#"
