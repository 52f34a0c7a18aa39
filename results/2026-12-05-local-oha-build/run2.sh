#!/usr/bin/env bash
# SCRATCH: an empty folder of your own (these builds used a temporary one)
set -u
cd "$SCRATCH"
/usr/bin/time -f "native-tls wall %e s user %U s sys %S s maxrss %M kB" -o time-ntls.txt \
  env CARGO_TARGET_DIR=$SCRATCH/target-ntls cargo install --quiet --locked oha --version 1.16.0 --no-default-features --features native-tls --root $SCRATCH/root-ntls > log-ntls.txt 2>&1
echo "rc $?" >> time-ntls.txt
ls -l root-ntls/bin/oha >> time-ntls.txt 2>&1
echo done > done2
