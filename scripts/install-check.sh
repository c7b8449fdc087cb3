#!/usr/bin/env bash
# Runs the first-install sequence of docs/operations.md ("First install on a production
# machine") on this machine, step by step, against a throwaway database, role, state
# directory and Redis prefix, then starts the two programs as the systemd units do and
# checks that both answer /readyz and that the console's login page loads. Exits non-zero
# at the first step that fails; cleans up after itself.
#
#   scripts/install-check.sh            # tests/project/test_install_check.py runs it in `make test`
#
# Needs: python3.11 (PYTHON), PostgreSQL on 127.0.0.1:5432 where the user `postgres`
# (TELESRV_INSTALL_CHECK_PG_ADMIN) may create roles, Redis on 127.0.0.1:6379, curl.
# The production venv (requirements.txt alone) is kept in var/install-check/venv and
# rebuilt only when requirements.txt changes.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
WORK="${TELESRV_INSTALL_CHECK_DIR:-$ROOT/var/install-check}"
DB="${TELESRV_INSTALL_CHECK_DB:-telesrv_install_check}"
ROLE="${DB}_role"
PG_ADMIN_USER="${TELESRV_INSTALL_CHECK_PG_ADMIN:-postgres}"
REDIS_URL="${TELESRV_INSTALL_CHECK_REDIS_URL:-redis://127.0.0.1:6379/15}"
PYTHON="${PYTHON:-python3.11}"
VENV="$WORK/venv"
RUN="$WORK/run"

# Only what the install writes into .env may configure the programs: no TELESRV_*
# setting of the caller (a developer's shell, the test run) leaks in.
for name in $(env | sed -n 's/^\(TELESRV_[A-Z0-9_]*\)=.*/\1/p'); do
    case "$name" in TELESRV_INSTALL_CHECK_*) ;; *) unset "$name" ;; esac
done
unset DJANGO_SETTINGS_MODULE DJANGO_ALLOW_ASYNC_UNSAFE

step() { printf '== %s\n' "$*"; }
psql_admin() { psql -h 127.0.0.1 -p 5432 -U "$PG_ADMIN_USER" -d postgres -v ON_ERROR_STOP=1 -q "$@"; }
free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    psql_admin -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1 || true
    rm -rf "$RUN"
}
trap cleanup EXIT

step "1. a virtualenv from requirements.txt alone (no test or lint packages)"
mkdir -p "$WORK"
if ! cmp -s requirements.txt "$VENV/.requirements.txt"; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -r requirements.txt
    cp requirements.txt "$VENV/.requirements.txt"
fi
if "$VENV/bin/python" -c "import pytest" 2>/dev/null; then
    echo "the production venv holds pytest: it was not made from requirements.txt alone" >&2
    exit 1
fi

step "2. a database role with a password, and its database"
PASSWORD="$("$PYTHON" -c 'import secrets; print(secrets.token_hex(16))')"
psql_admin -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "DROP ROLE IF EXISTS $ROLE"
psql_admin -c "CREATE ROLE $ROLE LOGIN PASSWORD '$PASSWORD'" -c "CREATE DATABASE $DB OWNER $ROLE"

step "3. the settings file"
rm -rf "$RUN"
mkdir -p "$RUN/state"
MTPROTO_PORT="$(free_port)"
HEALTH_PORT="$(free_port)"
ADMIN_PORT="$(free_port)"
umask 077
cat >"$RUN/.env" <<EOF
TELESRV_SECRET_KEY=$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(50))')
TELESRV_ALLOWED_HOSTS=127.0.0.1,localhost
TELESRV_DB_HOST=127.0.0.1
TELESRV_DB_NAME=$DB
TELESRV_DB_USER=$ROLE
TELESRV_DB_PASSWORD=$PASSWORD
TELESRV_REDIS_URL=$REDIS_URL
TELESRV_REDIS_PREFIX=$DB
TELESRV_STATE_DIR=$RUN/state
TELESRV_MEDIA_DIR=$RUN/media
TELESRV_MTPROTO_PORT=$MTPROTO_PORT
TELESRV_MTPROTO_HEALTH_PORT=$HEALTH_PORT
TELESRV_ADMIN_PORT=$ADMIN_PORT
EOF
umask 022
export TELESRV_ENV_FILE="$RUN/.env"
manage() { "$VENV/bin/python" manage.py "$@"; }

step "4. manage.py migrate"
manage migrate --noinput >/dev/null

step "5. manage.py rsakey generate (the key every listener shares)"
manage rsakey generate >/dev/null
test -s "$RUN/state/server_rsa.pem"
PUBLIC_KEY="$(manage rsakey show)"
grep -q "BEGIN RSA PUBLIC KEY" <<<"$PUBLIC_KEY"

step "6. manage.py create_staff_groups"
manage create_staff_groups >/dev/null

step "7. manage.py createsuperuser"
DJANGO_SUPERUSER_PASSWORD="$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(16))')" \
    manage createsuperuser --noinput --username operator --email operator@example.org >/dev/null

step "8. the two programs, as the systemd units start them"
"$VENV/bin/python" manage.py runmtproto --port "$MTPROTO_PORT" --health-port "$HEALTH_PORT" >"$RUN/mtproto.log" 2>&1 &
PIDS+=($!)
# The admin unit's ExecStart; its EnvironmentFile is TELESRV_ENV_FILE here.
"$VENV/bin/python" -m daphne -b 127.0.0.1 -p "$ADMIN_PORT" telesrv_project.asgi:application >"$RUN/admin.log" 2>&1 &
PIDS+=($!)

ready() { curl -fs -o /dev/null --max-time 5 "$1"; }
for url in "http://127.0.0.1:$HEALTH_PORT/readyz" "http://127.0.0.1:$ADMIN_PORT/readyz"; do
    for _ in $(seq 1 120); do
        ready "$url" && break
        for pid in "${PIDS[@]}"; do
            if ! kill -0 "$pid" 2>/dev/null; then
                echo "a program exited during start-up:" >&2
                tail -n 40 "$RUN/mtproto.log" "$RUN/admin.log" >&2
                exit 1
            fi
        done
        sleep 0.5
    done
    if ! ready "$url"; then
        echo "$url is not ready:" >&2
        curl -sS --max-time 5 "$url" >&2 || true
        tail -n 40 "$RUN/mtproto.log" "$RUN/admin.log" >&2
        exit 1
    fi
done
curl -fsS -o /dev/null --max-time 10 "http://127.0.0.1:$ADMIN_PORT/admin/login/"
"$PYTHON" -c "import socket; socket.create_connection(('127.0.0.1', $MTPROTO_PORT), 5).close()"

step "9. the periodic jobs of the cron list, and the restore command's dry run"
manage purge_uploads >/dev/null
manage rebuild_redis_state >/dev/null

step "install check passed"
