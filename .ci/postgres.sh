#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on 127.0.0.1 only.
#   .ci/postgres.sh start [DIR]   initdb in DIR (default: a new temp folder), start it, print its URL
#   .ci/postgres.sh stop DIR      stop the cluster in DIR
# Needs Debian's `postgresql` package (apt-get install -y postgresql). As root, the cluster
# runs as the `postgres` user (initdb refuses root); otherwise as the current user.
set -euo pipefail
action="${1:-start}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "postgres.sh: PostgreSQL server binaries not found; apt-get install -y postgresql" >&2
  exit 1
fi
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$action" in
  start)
    dir="${2:-$(mktemp -d "${TMPDIR:-/tmp}/camroll-pg.XXXXXX")}"
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    # A free port from the kernel, released just before the server takes it.
    port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    dir="${2:?usage: postgres.sh stop DIR}"
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    ;;
  *)
    echo "usage: postgres.sh start [DIR] | stop DIR" >&2
    exit 2
    ;;
esac
