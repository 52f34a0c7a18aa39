#!/usr/bin/env bash
# The paired generator study (what separates the bench's figure from oha
# run by hand, and oha from a second closed-loop client), as it was run:
# one bench of pairs.toml on go-nethttp, full profile, 5 runs, paused before
# each run's row (LAB_PAUSE_FILE); in each pause, go-nethttp's image
# started by hand with its pins alone (CPU 0, 4 GiB, the lab's environment,
# none of the lab's confinement flags) on a fresh seeded database, then oha
# by hand (oha's own flags as the bench gives them: 32 connections, no
# compression, 15 s) and probes/closedloop (32 connections, 15 s), each
# after 5 s of the same load, pinned to CPU 1, in an order that alternates
# round by round, into the bench's folder's byhand/round-K. Everything on
# 127.0.0.1. Run with the lab's root as LAB and this folder's pairs.toml:
#   LAB=/path/to/stacklab run.sh pairs.toml
set -euo pipefail
STUDY=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$LAB"
ROUNDS=5 PORT=18700 URL=http://127.0.0.1:18700/items
dir_file=$(mktemp)
export LAB_PAUSE_FILE=$dir_file.pause BENCH_DIR_OUT=$dir_file LAB_SHARED_HOST="oha by hand and probes/closedloop, between the bench's runs (run.sh)"
IMAGE=$(scripts/tool stack --lab-root "$LAB" tag go-nethttp)
mapfile -t ENV < <(scripts/tool stack --lab-root "$LAB" app-env go-nethttp "$PORT" http://127.0.0.1:9 1)
DB=$(mktemp -d)
cleanup() { docker rm -f stacklab-pairs >/dev/null 2>&1 || true; rm -rf "$DB" "$LAB_PAUSE_FILE" "$dir_file" "$dir_file.log"; }
trap cleanup EXIT

# byhand K: round K's two clients against a container started by hand
byhand() {
  local k=$1 dir flags=() kv
  dir=$(cat "$dir_file")/byhand/round-$1
  mkdir -p "$dir"
  for kv in "${ENV[@]}"; do flags+=(-e "$kv"); done
  rm -f "$DB"/app.db*
  scripts/tool seed "$DB/app.db" >/dev/null
  chmod -R a+rwX "$DB"
  docker run -d --name stacklab-pairs --network host --cpuset-cpus 0 --memory 4g "${flags[@]}" -v "$DB:/data" "$IMAGE" >/dev/null
  until curl -fsS -o /dev/null "http://127.0.0.1:$PORT/up"; do sleep 0.1; done
  local order=(oha closedloop)
  ((k % 2)) || order=(closedloop oha)
  for c in "${order[@]}"; do
    if [[ $c == oha ]]; then
      taskset -c 1 oha --no-tui --output-format json --disable-compression -w -z 5s -c 32 "$URL" >/dev/null
      taskset -c 1 oha --no-tui --output-format json --disable-compression -w -z 15s -c 32 "$URL" >"$dir/oha.json"
    else
      taskset -c 1 scripts/tool closedloop --url "$URL" --connections 32 --warmup 5s --duration 15s --out "$dir/closedloop.json" >"$dir/closedloop.txt"
    fi
  done
  echo "${order[*]}" >"$dir/order"
  docker rm -f stacklab-pairs >/dev/null
}

touch "$LAB_PAUSE_FILE"
scripts/bench --study "$STUDY" --stacks go-nethttp --profile full --runs "$ROUNDS" --label generator \
  >"$dir_file.log" 2>&1 &
bench=$!
for ((k = 1; k <= ROUNDS; k++)); do
  until [[ -e "$LAB_PAUSE_FILE.ack" ]]; do kill -0 "$bench" || exit 1; sleep 1; done
  byhand "$k"
  ((k == ROUNDS)) || until grep -q "bench: row go-nethttp, run $k:" "$dir_file.log"; do
    [[ -e "$LAB_PAUSE_FILE" ]] && rm -f "$LAB_PAUSE_FILE"
    kill -0 "$bench" || exit 1
    sleep 1
  done
  ((k == ROUNDS)) || touch "$LAB_PAUSE_FILE"
done
rm -f "$LAB_PAUSE_FILE"
rc=0
wait "$bench" || rc=$?
cp "$dir_file.log" "$(cat "$dir_file")/bench.log"
exit "$rc"
