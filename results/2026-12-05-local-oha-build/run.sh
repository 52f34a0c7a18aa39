#!/usr/bin/env bash
# SCRATCH: an empty folder of your own (these builds used a temporary one)
# oha 1.16.0 built twice from the same crate: its default features (rustls)
# and none (plain HTTP, all the lab uses): CPU seconds each, in one run
set -u
cd "$SCRATCH"
for v in full lean; do
  rm -rf "target-$v" "root-$v"
  flags=()
  [[ $v == lean ]] && flags=(--no-default-features)
  /usr/bin/time -f "$v wall %e s user %U s sys %S s maxrss %M kB" -o "time-$v.txt" \
    env CARGO_TARGET_DIR="$SCRATCH/target-$v" nice -n 10 cargo install --quiet --locked oha --version 1.16.0 ${flags[@]+"${flags[@]}"} --root "$SCRATCH/root-$v" > "log-$v.txt" 2>&1
  echo "rc $?" >> "time-$v.txt"
  ls -l "root-$v/bin/oha" >> "time-$v.txt" 2>&1
done
echo done > done
