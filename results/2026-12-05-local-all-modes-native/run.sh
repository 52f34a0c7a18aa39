#!/usr/bin/env bash
# What made this folder and its Docker twin (2026-12-05-local-all-modes-docker):
# the all study on seven stacks, 3 runs, 10 s windows, natively and then
# in Docker, back to back, from the lab's root (LAB_PAUSE_FILE let the
# session pause the first bench once, between stacks; its manifest says so).
export LAB_PAUSE_FILE=/tmp/lab/pause
S=c-libmicrohttpd,go-nethttp,java-spring,node-fastify,python-fastapi,ruby-rails,rust-axum
scripts/bench --study all --profile full --stacks $S --runs 3 --duration 10 --mode native --label modes-native
scripts/bench --study all --profile full --stacks $S --runs 3 --duration 10 --label modes-docker
