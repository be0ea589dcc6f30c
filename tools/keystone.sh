#!/usr/bin/env bash
# Run a real Keystone (PostgreSQL-backed, gunicorn on 127.0.0.1:5000) for the compatibility tests.
#
#   tools/keystone.sh [start]   install (once), set up, serve, create test projects/users/catalog
#   tools/keystone.sh restart   stop, then start (picks up a changed configuration)
#   tools/keystone.sh stop      stop the server (state and database are kept)
#   tools/keystone.sh reset     stop, drop the database and forget the state
#
# Idempotent: "start" on a running Keystone only re-checks the projects, users and catalog.
# Everything lives under NOVA_COMPAT_DIR (default /var/lib/nova-compat): the venv, the
# configuration, key repositories, logs, keystone.env (admin OS_* variables and the test users'
# credentials) and keystone_authtoken.conf (a [keystone_authtoken] section for nova).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/close-fds.sh
. tools/close-fds.sh
REPO=$PWD

COMPAT_DIR=${NOVA_COMPAT_DIR:-/var/lib/nova-compat}
KS_DIR=$COMPAT_DIR/keystone
VENV=$COMPAT_DIR/keystone-venv
KEYSTONE_VERSION=${NOVA_COMPAT_KEYSTONE_VERSION:-30.0.0}
HOST=127.0.0.1
PORT=${NOVA_COMPAT_KEYSTONE_PORT:-5000}
URL=http://$HOST:$PORT/v3
PG_HOST=${NOVA_COMPAT_PG_HOST:-127.0.0.1}
DB_NAME=${NOVA_COMPAT_KEYSTONE_DB:-keystone_compat}
# A fixed, published test password: this Keystone only ever serves tests on loopback.
PASSWORD=${NOVA_COMPAT_PASSWORD:-compat-test-secret}
PIDFILE=$KS_DIR/gunicorn.pid
psql_admin() { psql -h "$PG_HOST" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA "$@"; }

running() {
  [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

answers() {
  curl -fsS -o /dev/null --max-time 3 "$URL" 2>/dev/null
}

stop() {
  if running; then
    local pid
    pid=$(cat "$PIDFILE")
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    echo "keystone: stopped (pid $pid)"
  fi
  rm -f "$PIDFILE"
}

install() {
  local need=""
  command -v psql >/dev/null || need="$need postgresql-client"
  command -v curl >/dev/null || need="$need curl"
  python3 -c 'import ensurepip' 2>/dev/null || need="$need python3-venv"
  if [ -n "$need" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
  fi
  if [ -x "$VENV/bin/keystone-manage" ] && [ -x "$VENV/bin/gunicorn" ] \
      && "$VENV/bin/python" -c "import importlib.metadata as m, sys; \
sys.exit(m.version('keystone') != '$KEYSTONE_VERSION')" 2>/dev/null; then
    return
  fi
  echo "keystone: installing Keystone $KEYSTONE_VERSION into $VENV"
  mkdir -p "$COMPAT_DIR"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -U pip wheel
  "$VENV/bin/pip" install -q "keystone==$KEYSTONE_VERSION" gunicorn psycopg2-binary
}

write_conf() {
  mkdir -p "$KS_DIR/fernet-keys" "$KS_DIR/credential-keys" "$KS_DIR/log"
  chmod 700 "$KS_DIR/fernet-keys" "$KS_DIR/credential-keys"
  cat > "$KS_DIR/keystone.conf" <<EOF
# Written by tools/keystone.sh; rewritten at each start.
[DEFAULT]
log_file = $KS_DIR/log/keystone.log
use_stderr = false

[database]
connection = postgresql+psycopg2://postgres@$PG_HOST/$DB_NAME
# tempest's dynamic credentials create and delete many users at once.
max_pool_size = 10
max_overflow = 20

[token]
provider = fernet
expiration = 7200

[fernet_tokens]
key_repository = $KS_DIR/fernet-keys/

[credential]
key_repository = $KS_DIR/credential-keys/

[identity]
# bcrypt's minimum cost: tempest creates and authenticates hundreds of users, and the
# default cost makes every token request CPU-bound on a small machine.
password_hash_rounds = 4

[cache]
# Per-process memory cache: without one every token validation recomputes roles and the
# catalog from the database, and Keystone becomes the bottleneck of a tempest run. Only
# tests use this Keystone, so a revocation seen late by another worker is harmless.
enabled = true
backend = dogpile.cache.memory
expiration_time = 600

[catalog]
# Tests add and remove catalog endpoints; a per-worker cached catalog would hand some
# requests a stale one ("No endpoint for service type image") for up to 10 minutes.
caching = false
EOF
}

setup_db() {
  if [ -z "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" ]; then
    psql_admin -c "CREATE DATABASE $DB_NAME"
  fi
  # keystone-manage imports eventlet only to warn that it is deprecated.
  local manage=(env PYTHONWARNINGS=ignore "$VENV/bin/keystone-manage" --config-file "$KS_DIR/keystone.conf")
  "${manage[@]}" db_sync
  local owner=(--keystone-user "$(id -un)" --keystone-group "$(id -gn)")
  [ -e "$KS_DIR/fernet-keys/0" ] || "${manage[@]}" fernet_setup "${owner[@]}"
  [ -e "$KS_DIR/credential-keys/0" ] || "${manage[@]}" credential_setup "${owner[@]}"
  # bootstrap is idempotent: admin user/project, the default roles, RegionOne and the
  # identity endpoints.
  "${manage[@]}" bootstrap --bootstrap-password "$PASSWORD" \
    --bootstrap-admin-url "$URL/" --bootstrap-internal-url "$URL/" \
    --bootstrap-public-url "$URL/" --bootstrap-region-id RegionOne
}

serve() {
  echo "keystone: serving on $URL"
  # Keystone parses sys.argv with oslo.config, which rejects gunicorn's options: keep
  # every setting in gunicorn.conf.py (read from the working directory) so argv is bare.
  cat > "$KS_DIR/gunicorn.conf.py" <<EOF
"""gunicorn settings for the test Keystone (written by tools/keystone.sh)."""
wsgi_app = 'keystone.wsgi.api:application'
bind = '$HOST:$PORT'
workers = ${NOVA_COMPAT_KEYSTONE_WORKERS:-2}
threads = 4
timeout = 120
daemon = True
pidfile = '$PIDFILE'
accesslog = '$KS_DIR/log/access.log'
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
errorlog = '$KS_DIR/log/gunicorn.log'
capture_output = True
control_socket_disable = True
raw_env = ['OS_KEYSTONE_CONFIG_FILES=$KS_DIR/keystone.conf']
EOF
  (cd "$KS_DIR" && close_inherited_fds && exec "$VENV/bin/gunicorn")
  for _ in $(seq 60); do
    answers && return 0
    sleep 1
    running || break
  done
  echo "keystone: no answer on $URL; see $KS_DIR/log/" >&2
  tail -n 30 "$KS_DIR/log/gunicorn.log" "$KS_DIR/log/keystone.log" >&2 || true
  return 1
}

start() {
  install
  if running && answers; then
    echo "keystone: already running on $URL"
  else
    stop
    write_conf
    setup_db
    serve
  fi
  NOVA_COMPAT_DIR=$COMPAT_DIR NOVA_COMPAT_PASSWORD=$PASSWORD \
    NOVA_COMPAT_KEYSTONE_URL=$URL \
    "$VENV/bin/python" "$REPO/tools/keystone_setup.py"
}

reset() {
  stop
  psql_admin -c "DROP DATABASE IF EXISTS $DB_NAME"
  rm -rf "$KS_DIR"
  echo "keystone: state removed (the venv is kept)"
}

case "${1:-start}" in
  start) start ;;
  restart) stop; start ;;
  stop) stop ;;
  reset) reset ;;
  *) echo "usage: $0 [start|restart|stop|reset]" >&2; exit 2 ;;
esac
