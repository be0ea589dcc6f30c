#!/usr/bin/env bash
# Run a real Glance (file store, Keystone auth, gunicorn on 127.0.0.1:9393) for compatibility tests.
#
#   tools/glance.sh [start]   install (once), set up and serve; needs tools/keystone.sh's Keystone
#   tools/glance.sh restart   stop, then start (picks up a changed configuration)
#   tools/glance.sh stop      stop the server (images and database are kept)
#   tools/glance.sh reset     stop, drop the database and delete the images
#
# Port 9393, not 9292: the all-in-one's embedded image endpoint listens on 9292, and the
# Keystone catalog's image entry points there. NOVA_COMPAT_GLANCE_REGISTER=1 points the
# catalog's image endpoints at this Glance instead (tools/keystone.sh points them back).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/close-fds.sh
. tools/close-fds.sh
REPO=$PWD

COMPAT_DIR=${NOVA_COMPAT_DIR:-/var/lib/nova-compat}
GL_DIR=$COMPAT_DIR/glance
VENV=$COMPAT_DIR/glance-venv
GLANCE_VERSION=${NOVA_COMPAT_GLANCE_VERSION:-33.0.0}
HOST=127.0.0.1
PORT=${NOVA_COMPAT_GLANCE_PORT:-9393}
URL=http://$HOST:$PORT
KEYSTONE_URL=${NOVA_TEST_KEYSTONE_URL:-http://127.0.0.1:5000/v3}
PG_HOST=${NOVA_COMPAT_PG_HOST:-127.0.0.1}
DB_NAME=${NOVA_COMPAT_GLANCE_DB:-glance_compat}
PASSWORD=${NOVA_COMPAT_PASSWORD:-compat-test-secret}
PIDFILE=$GL_DIR/gunicorn.pid
psql_admin() { psql -h "$PG_HOST" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA "$@"; }

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
answers() { curl -fsS -o /dev/null --max-time 3 "$URL/versions" 2>/dev/null; }

stop() {
  if running; then
    local pid
    pid=$(cat "$PIDFILE")
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    echo "glance: stopped (pid $pid)"
  fi
  rm -f "$PIDFILE"
}

install() {
  if [ -x "$VENV/bin/glance-manage" ] && [ -x "$VENV/bin/gunicorn" ] \
      && "$VENV/bin/python" -c "import importlib.metadata as m, sys; \
sys.exit(m.version('glance') != '$GLANCE_VERSION')" 2>/dev/null; then
    return
  fi
  echo "glance: installing Glance $GLANCE_VERSION into $VENV"
  mkdir -p "$COMPAT_DIR"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -U pip wheel
  "$VENV/bin/pip" install -q "glance==$GLANCE_VERSION" gunicorn psycopg2-binary
}

write_conf() {
  mkdir -p "$GL_DIR"/{images,staging,tasks,log,etc}
  cp "$VENV/etc/glance/glance-api-paste.ini" "$GL_DIR/etc/glance-api-paste.ini"
  cat > "$GL_DIR/etc/glance-api.conf" <<EOF
# Written by tools/glance.sh; rewritten at each start.
[DEFAULT]
log_file = $GL_DIR/log/glance-api.log
use_stderr = false
enabled_backends = fs:file
worker_self_reference_url = $URL
show_image_direct_url = false
show_multiple_locations = false

[glance_store]
default_backend = fs

[fs]
filesystem_store_datadir = $GL_DIR/images/

[os_glance_staging_store]
filesystem_store_datadir = $GL_DIR/staging/

[os_glance_tasks_store]
filesystem_store_datadir = $GL_DIR/tasks/

[database]
connection = postgresql+psycopg2://postgres@$PG_HOST/$DB_NAME

[paste_deploy]
flavor = keystone
config_file = $GL_DIR/etc/glance-api-paste.ini

[image_format]
# The test images are a bare boot sector without a partition table; the format
# inspector would read its boot signature as a GPT protective MBR and refuse it.
gpt_safety_checks_nonfatal = mbr,gptmbr

[keystone_authtoken]
www_authenticate_uri = $KEYSTONE_URL
auth_url = $KEYSTONE_URL
auth_type = password
username = ${NOVA_COMPAT_SERVICE_USER:-nova}
password = $PASSWORD
project_name = ${NOVA_COMPAT_SERVICE_PROJECT:-service}
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne

[oslo_concurrency]
lock_path = $GL_DIR/locks
EOF
}

setup_db() {
  if [ -z "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" ]; then
    psql_admin -c "CREATE DATABASE $DB_NAME"
  fi
  PYTHONWARNINGS=ignore "$VENV/bin/glance-manage" --config-file "$GL_DIR/etc/glance-api.conf" \
    db_sync >"$GL_DIR/log/db_sync.log" 2>&1 \
    || { tail -n 20 "$GL_DIR/log/db_sync.log" >&2; return 1; }
}

serve() {
  echo "glance: serving on $URL"
  # gunicorn reads gunicorn.conf.py from the working directory, so argv stays bare.
  cat > "$GL_DIR/gunicorn.conf.py" <<EOF
"""gunicorn settings for the test Glance (written by tools/glance.sh)."""
wsgi_app = 'glance.wsgi.api:application'
bind = '$HOST:$PORT'
workers = ${NOVA_COMPAT_GLANCE_WORKERS:-1}
threads = 8
timeout = 300
daemon = True
pidfile = '$PIDFILE'
accesslog = '$GL_DIR/log/access.log'
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
errorlog = '$GL_DIR/log/gunicorn.log'
capture_output = True
control_socket_disable = True
raw_env = ['OS_GLANCE_CONFIG_DIR=$GL_DIR/etc']
EOF
  (cd "$GL_DIR" && close_inherited_fds && exec "$VENV/bin/gunicorn")
  for _ in $(seq 90); do
    answers && return 0
    sleep 1
    running || break
  done
  echo "glance: no answer on $URL; see $GL_DIR/log/" >&2
  tail -n 30 "$GL_DIR/log/gunicorn.log" "$GL_DIR/log/glance-api.log" >&2 || true
  return 1
}

register() {
  # Reuses the Keystone set-up script: it points the image endpoints at this Glance.
  NOVA_COMPAT_DIR=$COMPAT_DIR NOVA_COMPAT_PASSWORD=$PASSWORD \
    NOVA_COMPAT_KEYSTONE_URL=$KEYSTONE_URL NOVA_COMPAT_IMAGE_URL=$URL \
    python3 "$REPO/tools/keystone_setup.py"
  echo "glance: the catalog's image endpoints now point at $URL"
}

start() {
  if ! curl -fsS -o /dev/null --max-time 5 "$KEYSTONE_URL"; then
    echo "glance: Keystone does not answer at $KEYSTONE_URL; run tools/keystone.sh first" >&2
    return 1
  fi
  install
  if running && answers; then
    echo "glance: already running on $URL"
  else
    stop
    write_conf
    setup_db
    serve
  fi
  if [ "${NOVA_COMPAT_GLANCE_REGISTER:-0}" = 1 ]; then
    register
  fi
  echo "glance: ready at $URL"
}

reset() {
  stop
  psql_admin -c "DROP DATABASE IF EXISTS $DB_NAME"
  rm -rf "$GL_DIR"
  echo "glance: state removed (the venv is kept)"
}

case "${1:-start}" in
  start) start ;;
  restart) stop; start ;;
  stop) stop ;;
  reset) reset ;;
  *) echo "usage: $0 [start|restart|stop|reset]" >&2; exit 2 ;;
esac
