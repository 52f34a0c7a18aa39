#!/usr/bin/env bash
# oha as the bench ran it before this change (taskset oha, its CPU time
# from bash's `time`) against how the bench runs it now (taskset loadrun
# run --time FILE -- oha: one runner for every program a role runs, here
# as on another engine), in rounds that alternate. The server is the
# mock upstream as the headroom's stub (MODE=stub, GET /delay?ms=0) on
# CPU 0 with 4 GiB, started once: the generator is the limit there, so a
# cost of the runner would show. Each round, the two ways in an order
# that alternates round by round, each 5 s of load then 15 s counted,
# with the bench's flags (32 connections, no compression asked, -w),
# pinned to CPU 1. Each way's CPU time is taken twice: by /usr/bin/time
# around the whole command (the runner's own CPU included), and as the
# bench records it (bash's `time` before, loadrun's --time now). Run with
# the lab's root as LAB:   LAB=/path/to/stacklab run.sh OUT
set -euo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$LAB"
ROUNDS=${ROUNDS:-5} PORT=18711
STUB=$(scripts/tool stack --lab-root "$LAB" tag upstream)
LOADRUN=$LAB/.tools/bin/loadrun
cleanup() { docker rm -f stacklab-runner-stub >/dev/null 2>&1 || true; }
trap cleanup EXIT
docker run -d --name stacklab-runner-stub --network host --cpuset-cpus 0 --memory 4g -e MODE=stub -e PORT="$PORT" "$STUB" >/dev/null
until curl -fsS -o /dev/null "http://127.0.0.1:$PORT/delay?ms=0"; do sleep 0.1; done
URL="http://127.0.0.1:$PORT/delay?ms=0"
echo "oha $(oha --version | awk '{print $2}'), sha256 $(sha256sum <"$(command -v oha)" | cut -d' ' -f1)" >"$OUT/oha.txt"
oha_args=(--no-tui --output-format json --disable-compression -w -c 32 "$URL")
for ((k = 1; k <= ROUNDS; k++)); do
  dir=$OUT/round-$k
  mkdir -p "$dir"
  order=(direct loadrun)
  ((k % 2)) || order=(loadrun direct)
  echo "${order[*]}" >"$dir/order"
  for way in "${order[@]}"; do
    taskset -c 1 oha -z 5s "${oha_args[@]}" >/dev/null
    if [[ "$way" == direct ]]; then
      (TIMEFORMAT='%3U %3S %3R' && time /usr/bin/time -f "%U %S" -o "$dir/direct.whole" taskset -c 1 oha -z 15s "${oha_args[@]}" >"$dir/direct.json") 2>"$dir/direct.recorded"
    else
      /usr/bin/time -f "%U %S" -o "$dir/loadrun.whole" taskset -c 1 "$LOADRUN" run --time "$dir/loadrun.recorded" -- "$(command -v oha)" -z 15s "${oha_args[@]}" >"$dir/loadrun.json"
    fi
  done
done
# the table: answers with status 200 per second of the window, and the
# generator's CPU seconds per 100,000 requests, whole and as recorded
{
  echo "| round | direct req/s | loadrun req/s | loadrun ÷ direct | direct CPU s/100k (whole) | loadrun CPU s/100k (whole) | direct CPU s/100k (recorded) | loadrun CPU s/100k (recorded) |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|"
  for ((k = 1; k <= ROUNDS; k++)); do
    d=$OUT/round-$k
    jq -rn --slurpfile a "$d/direct.json" --slurpfile b "$d/loadrun.json" --arg k "$k" \
      --arg wa "$(cat "$d/direct.whole")" --arg wb "$(cat "$d/loadrun.whole")" \
      --arg ra "$(cut -d' ' -f1,2 "$d/direct.recorded")" --arg rb "$(cut -d' ' -f1,2 "$d/loadrun.recorded")" '
      def n: .statusCodeDistribution["200"] // 0;
      def cpu($t): ($t | split(" ") | map(tonumber) | add);
      def per($t; $n): ((cpu($t) / $n * 100000) * 100 | round) / 100;
      ($a[0] | n) as $na | ($b[0] | n) as $nb |
      "| \($k) | \($na / 15 | floor) | \($nb / 15 | floor) | \((($nb / $na) * 1000 | round) / 1000) | \(per($wa; $na)) | \(per($wb; $nb)) | \(per($ra; $na)) | \(per($rb; $nb)) |"'
  done
} >"$OUT/table.md"
cat "$OUT/table.md"
