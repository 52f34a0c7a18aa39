#!/usr/bin/env bash
# What made this folder and its Docker twin: the all study on the two
# stacks the 2026-12-05 comparison left out (rust-loco, which had no
# native build then, and ruby-rails-sql), 3 runs, 10 s windows, natively
# and then in Docker, back to back, from the lab's root (LAB_PAUSE_FILE
# lets the session pause a bench between windows; its manifest says so).
set -euo pipefail
export LAB_PAUSE_FILE=/tmp/lab/pause
S=rust-loco,ruby-rails-sql
scripts/bench --study all --profile full --stacks $S --runs 3 --duration 10 --mode native --label modes-native
scripts/bench --study all --profile full --stacks $S --runs 3 --duration 10 --label modes-docker
