# stacklab: compare web backend stacks on equal terms.
# `just --list` is the lab's manual; docs/bench.md explains the method.

set shell := ["bash", "-euo", "pipefail", "-c"]

import 'stacks/stacks.just'
import 'stacks/verify.just'
import 'analysis/analysis.just'
import 'probes/probes.just'

# list the recipes
default:
    @just --list --unsorted

# run a study: STUDY (a name in studies/: all, pages, io, sweep, ... or a study file's path), PROFILE (quick, full, paired: every row up at once, 2 s slices alternating), STACKS (comma list of stacks or variants; default: the study's), MODE (docker, or native: each stack a host process in a cgroup of the lab's)
[no-exit-message]
bench STUDY="all" PROFILE="quick" STACKS="" MODE="docker":
    @scripts/bench --study {{STUDY}} --profile {{PROFILE}} {{ if STACKS != "" { "--stacks " + STACKS } else { "" } }} --mode {{MODE}}

# the lab measuring itself: studies/selftest.toml (A/A false positives, planted 5/10/20 µs slowdowns) through the bench; its summary's self-test section has the figures
[no-exit-message]
selftest PROFILE="full":
    @scripts/bench --study selftest --profile {{PROFILE}}

# hold STUDY's routes to its baseline (the .baseline file beside the study): bench it as the baseline was measured, then per route regressed, improved, same or unknown; exit 1 on a regression (flags: --stacks, --row NEW=BASE, --markdown FILE, --update; docs/guard.md)
[no-exit-message]
guard STUDY *FLAGS:
    @scripts/guard {{STUDY}} {{FLAGS}}

# re-run the study a results folder describes on this host, into a new folder, and compare the two (--anyway: despite other images or tools)
[no-exit-message]
rerun RUN *FLAGS:
    @scripts/rerun {{RUN}} {{FLAGS}}

# how long a newcomer waits for a first table: ./lab bench from a fresh clone, with a Docker engine and caches of its own, each line timed into LOG (--rev REV, --stop-at-first)
[no-exit-message]
first-table LOG *FLAGS:
    @scripts/first-table {{FLAGS}} {{LOG}}

# run the tests: go vet and go test, shellcheck, flake syntax, the end-to-end smoke test
test:
    scripts/test
