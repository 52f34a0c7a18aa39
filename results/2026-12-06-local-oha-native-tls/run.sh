#!/usr/bin/env bash
# oha 1.16.0 built two ways, as a generator, in rounds that alternate:
# DEFAULT (cargo install --locked: default features, rustls with aws-lc-rs)
# and NTLS (--no-default-features --features native-tls: the system's
# OpenSSL). Two servers on CPU 0 with 4 GiB, each started once: the mock
# upstream as the headroom's stub (MODE=stub, GET /delay?ms=0: the
# generator is the limit) and go-nethttp's image on a fresh seeded
# database (GET /items: the app's one CPU is the limit). Each round, for
# each server, the two builds in an order that alternates round by round,
# each 5 s of load then 15 s counted, with the bench's flags (32
# connections, no compression asked, -w), pinned to CPU 1, its CPU time
# beside. Everything on 127.0.0.1. Run with the lab's root as LAB:
#   LAB=/path/to/stacklab DEFAULT=/path/oha NTLS=/path/oha run.sh OUT
set -euo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$LAB"
ROUNDS=5
STUB_PORT=18701 APP_PORT=18702
STUB=$(scripts/tool stack --lab-root "$LAB" tag upstream)
APP=$(scripts/tool stack --lab-root "$LAB" tag go-nethttp)
mapfile -t ENV < <(scripts/tool stack --lab-root "$LAB" app-env go-nethttp "$APP_PORT" http://127.0.0.1:9 1)
DB=$(mktemp -d)
cleanup() { docker rm -f stacklab-ohatls-stub stacklab-ohatls-app >/dev/null 2>&1 || true; rm -rf "$DB"; }
trap cleanup EXIT
flags=()
for kv in "${ENV[@]}"; do flags+=(-e "$kv"); done
scripts/tool seed "$DB/app.db" >/dev/null
chmod -R a+rwX "$DB"
docker run -d --name stacklab-ohatls-stub --network host --cpuset-cpus 0 --memory 4g -e MODE=stub -e PORT="$STUB_PORT" "$STUB" >/dev/null
docker run -d --name stacklab-ohatls-app --network host --cpuset-cpus 0 --memory 4g "${flags[@]}" -v "$DB:/data" "$APP" >/dev/null
until curl -fsS -o /dev/null "http://127.0.0.1:$STUB_PORT/delay?ms=0" && curl -fsS -o /dev/null "http://127.0.0.1:$APP_PORT/up"; do sleep 0.1; done
declare -A URL=([stub]="http://127.0.0.1:$STUB_PORT/delay?ms=0" [items]="http://127.0.0.1:$APP_PORT/items")
declare -A BIN=([default]="$DEFAULT" [ntls]="$NTLS")
# each build's version and sha256, by its name here (not its path on the machine)
for b in default ntls; do echo "$b $("${BIN[$b]}" --version) sha256 $(sha256sum <"${BIN[$b]}" | cut -d' ' -f1)"; done >"$OUT/builds.txt"
for ((k = 1; k <= ROUNDS; k++)); do
  dir=$OUT/round-$k
  mkdir -p "$dir"
  order=(default ntls)
  ((k % 2)) || order=(ntls default)
  echo "${order[*]}" >"$dir/order"
  for server in stub items; do
    for b in "${order[@]}"; do
      taskset -c 1 "${BIN[$b]}" --no-tui --output-format json --disable-compression -w -z 5s -c 32 "${URL[$server]}" >/dev/null
      /usr/bin/time -f "%U %S" -o "$dir/$server-$b.time" taskset -c 1 "${BIN[$b]}" --no-tui --output-format json \
        --disable-compression -w -z 15s -c 32 "${URL[$server]}" >"$dir/$server-$b.json"
    done
  done
done
# the table: answers with status 200 per second of the window, and
# the generator's CPU seconds per 100,000 requests, round by round
{
  echo "| round | server | default req/s | native-tls req/s | native-tls ÷ default | default CPU s/100k | native-tls CPU s/100k |"
  echo "|---|---|--:|--:|--:|--:|--:|"
  for ((k = 1; k <= ROUNDS; k++)); do
    for server in stub items; do
      d=$OUT/round-$k/$server
      jq -rn --slurpfile a "$d-default.json" --slurpfile b "$d-ntls.json" --arg k "$k" --arg s "$server" \
        --arg ta "$(cat "$d-default.time")" --arg tb "$(cat "$d-ntls.time")" '
        def n: .statusCodeDistribution["200"] // 0;
        def cpu($t): ($t | split(" ") | map(tonumber) | add);
        ($a[0] | n) as $na | ($b[0] | n) as $nb |
        "| \($k) | \($s) | \($na / 15 | floor) | \($nb / 15 | floor) | \((($nb / $na) * 1000 | round) / 1000) | \(((cpu($ta) / $na * 100000) * 100 | round) / 100) | \(((cpu($tb) / $nb * 100000) * 100 | round) / 100) |"'
    done
  done
} >"$OUT/table.md"
cat "$OUT/table.md"
