# Sourced by .ci/run: installs PostgreSQL from Debian when it is missing,
# starts a throwaway cluster on 127.0.0.1 as the postgres user (the server
# refuses to run as root), and exports BRIDLE_POSTGRES_URL for the durable
# module's tests. Set BRIDLE_PG_PORT to use another port than 55432.
pg_port=${BRIDLE_PG_PORT:-55432}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$pg_bin" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi
pg_user=postgres
id -u "$pg_user" >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$pg_user"
as_pg() { if [ "$(id -u)" = 0 ]; then su -s /bin/sh "$pg_user" -c "$*"; else sh -c "$*"; fi; }
pg_data=/tmp/bridle-pg-$pg_port
if ! "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then
  rm -rf "$pg_data"
  mkdir -p "$pg_data"
  [ "$(id -u)" = 0 ] && chown "$pg_user" "$pg_data"
  as_pg "'$pg_bin/initdb' -D '$pg_data' -U postgres --auth=trust -E UTF8 >/dev/null"
  as_pg "'$pg_bin/pg_ctl' -D '$pg_data' -l '$pg_data/log' -w -o \"-c listen_addresses=127.0.0.1 -p $pg_port -k /tmp -c max_connections=200\" start >/dev/null"
fi
export BRIDLE_POSTGRES_URL="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"
