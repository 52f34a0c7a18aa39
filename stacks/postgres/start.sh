#!/bin/sh
# The server role's entry point: a fresh cluster in /data/pg on the first
# start (initdb; superuser "lab", the app's login role "app"), then the
# server with the lab's settings file on 127.0.0.1:$PORT. Runs as uid
# 10001, confined.
set -eu
bin=/usr/lib/postgresql/15/bin
data=/data/pg
if [ ! -s "$data/PG_VERSION" ]; then
    # -N: no fsync of the new cluster (it holds nothing yet); C collation,
    # UTF-8: byte order, the same as SQLite's.
    "$bin/initdb" -N -D "$data" -U lab --auth=trust --encoding=UTF8 --locale=C >/dev/null
fi
exec "$bin/postgres" -D "$data" -p "${PORT:-5432}" -c config_file=/etc/stacklab/postgresql.conf \
    -c hba_file=/etc/stacklab/pg_hba.conf
