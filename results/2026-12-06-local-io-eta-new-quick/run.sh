#!/usr/bin/env bash
# What made this folder and its seven neighbours (*-eta-*): the bench's
# time estimate before the schedule's steps were its own (old: lab commit
# 143a106b), with them (new: b9cf0c5e), and with its window guess measured
# again (tuned: edd4ae42), each from a work tree of that commit. The
# paired ones alternated old, new, old, new; then old and new quick; then
# tuned paired and quick. No quiet gate: the estimate is what is read.
set -euo pipefail
S=go-nethttp,c-libmicrohttpd
for label in old new; do # (twice, alternating)
  scripts/bench --study pages --profile paired --stacks $S --runs 5 --no-quiet --label eta-$label-paired
done
for label in old new; do
  scripts/bench --study io --profile quick --stacks $S --no-quiet --label eta-$label-quick
done
scripts/bench --study pages --profile paired --stacks $S --runs 5 --no-quiet --label eta-tuned-paired
scripts/bench --study io --profile quick --stacks $S --no-quiet --label eta-tuned-quick
