# shellcheck shell=bash
# A size study (studies/size.toml): per stack, its app code and lock data,
# then per run a clean image build and a rebuild after a one-line change
# to one handler, timed, and the clean image's sizes and files. Each build
# runs in a copy of the lab (the working tree, results/ left out) so the
# change never touches the checkout, under a tag of its own, removed
# afterwards. What each run does for a stack is bench/size's (size plan),
# and so are the raw files; this file runs the copies, builds and Docker
# in that order. Sourced by scripts/bench; the stack folder's SIZE_ keys
# are in stacks/README.md.

SIZE_TAGS=()        # images this bench built, removed on exit
SIZE_FAILED=0       # measures not taken (one line each)
SIZE_TOOK=() # "STACK=SECONDS" each stack took in run 1: the later runs' ETA

# size_cleanup: remove the images this bench tagged (called by cleanup)
size_cleanup() {
  local t
  for t in "${SIZE_TAGS[@]}"; do docker rmi "$t" >/dev/null 2>&1 || true; done
}

# scc_check: the pinned scc (it counts the code)
scc_check() {
  tool_ensure scc
  tool_check scc
  SCC=$(command -v scc)
}

size_prepare() {
  trap cleanup EXIT
  trap 'on_signal SIGINT' INT
  trap 'on_signal SIGTERM' TERM
  mkdir -p "$WORK"
  scc_check
  : "${BUILD_CPUS:=$(cat /sys/devices/system/cpu/online)}"
  if ((SIZE_BUILD)); then
    command -v docker >/dev/null || die "bench: docker is needed to build the images (or set build = false in the study's [size])"
    "$LAB_ROOT/scripts/images" base
    IMAGE_TAG["base"]=$(require_image base)
  fi
  local commit tools=() kept tool
  commit=$(lab_commit)
  new_results_dir
  [[ -n "${BENCH_DIR_OUT:-}" ]] && echo "$RUN_DIR" >"$BENCH_DIR_OUT"
  # the manifest's tools: those size tools keeps, and the builds' toolchains
  kept=$(tool_versions | lab_tool size tools) || exit 1
  while IFS= read -r tool; do [[ -z "$tool" ]] || tools+=(--tool "$tool"); done <<<"$kept"
  tools+=(--tool "scc=$(pinned scc)")
  note "bench: study $STUDY (size), profile $PROFILE, $RUNS build run(s), build CPUs $BUILD_CPUS, stacks ${ROWS[*]} -> ${RUN_DIR#"$LAB_ROOT"/}"
  lab_tool record start "$RUN_DIR" --study-file "$STUDY_FILE" --profile "$PROFILE" --label "$LABEL" \
    --host-profile "$HOST_PROFILE_FILE" --lab-root "$LAB_ROOT" --extra-stacks "${LAB_EXTRA_STACKS:-}" \
    --runs "$RUNS" --stacks "$(IFS=,; echo "${ROWS[*]}")" --build-cpus "$BUILD_CPUS" --quiet-gate "$QUIET_GATE" \
    "${tools[@]}" --lab-commit "$commit" --shared-host "${LAB_SHARED_HOST:-}"
  if ((SIZE_BUILD)); then record_image base; fi
}

size_main() {
  local run row i
  for ((run = 1; run <= RUNS; run++)); do
    quiet_wait
    mkdir -p "$RUN_DIR/raw/run-$run"
    i=0
    schedule --run "$run"
    while read -r row; do
      i=$((i + 1))
      SIZE_LEFT=$(size_left "$run" "$row")
      local t0=$SECONDS
      size_stack "$run" "$row" "$i"
      ((run > 1)) || SIZE_TOOK+=("$row=$((SECONDS - t0))")
    done < <(steps_rows boot)
    lab_tool record run "$RUN_DIR" "$run" --order "$(steps_rows boot | paste -sd,)"
  done
  lab_tool record finish "$RUN_DIR"
  FINISHED=1
  local rc=0
  note "bench: measured; summarizing ${RUN_DIR#"$LAB_ROOT"/}"
  lab_tool summarize "$RUN_DIR" || rc=$?
  ((SIZE_FAILED == 0)) || note "bench: $SIZE_FAILED measure(s) not taken (one line each above); the other stacks were measured"
  return "$rc"
}

# size_left RUN STACK: the time left from STACK of RUN on, as run 1 took
# it (Go's arithmetic: plan size-left; unknown during run 1)
size_left() {
  lab_tool plan size-left "$1" "$2" --runs "$RUNS" --took "$(IFS=,; echo "${SIZE_TOOK[*]}")" "${ROWS[@]}"
}

# size_note RUN I STACK WHAT: the progress line
size_note() { note "bench: run $1/$RUNS · stack $2/${#ROWS[@]} · $3: $4 · ${SIZE_LEFT:-}"; }

# measure OUT NAME CMD...: a measure bench/size takes into OUT; when it
# fails, size failed says whether it is taken (SIZE_TAKEN), so the study
# goes on and summarize names what is missing
measure() {
  local out=$1 name=$2
  shift 2
  SIZE_TAKEN=1
  "$@" || size_failed "$out" "$name"
}

# size_stack RUN STACK I: what size plan says run RUN does for STACK
# (its SIZE_ lines), the I-th stack of the run
size_stack() {
  local run=$1 stack=$2 i=$3 out dir answer
  out="$RUN_DIR/raw/run-$run/$stack"
  dir=$(stack_dir "$stack")
  mkdir -p "$out"
  answer=$(lab_tool size plan "$dir" "$out" --run "$run" --build "$SIZE_BUILD" --bench-id "$BENCH_ID" \
    --work "$WORK") || exit 1
  assign_lines "$answer"
  if ((SIZE_CODE)); then
    size_note "$run" "$i" "$stack" "counting the app's code"
    measure "$out" code lab_tool size code "$dir" "$out" --scc "$SCC"
  fi
  [[ "$SIZE_DEPS" != stack ]] || measure "$out" deps lab_tool size deps "$dir" "$out" --lab-root "$LAB_ROOT" --scc "$SCC"
  ((SIZE_BUILDS == 0)) || size_builds "$run" "$i" "$stack" "$out"
}

# lab_copy DIR: the lab's working tree (tracked and untracked files, not
# ignored ones, results/ left out) copied into DIR
lab_copy() {
  mkdir -p "$1"
  (cd "$LAB_ROOT" && git ls-files -z --cached --others --exclude-standard -- . ':!results' |
    tar --null --no-recursion -T - -cf -) | tar -xf - -C "$1"
}

# timed_build STACK [ENV...]: the stack's build-image in the plan's copy
# (SIZE_COPY, SIZE_TAG, its output to SIZE_LOG) on the build CPUs, its
# wall milliseconds on stdout; false when it failed
timed_build() {
  local stack=$1 start
  shift
  start=$(date +%s%N)
  # as scripts/images builds, on the base image fixed at the bench's start
  LAB_BUILD_ARGS="" build_env "$stack" "${IMAGE_TAG["base"]:-}"
  env -u CARGO_TARGET_DIR "${BUILD_ENV[@]}" "$@" ${SIZE_GOCACHE:+"GOCACHE=$SIZE_GOCACHE"} LAB_BUILD_CPUS="$BUILD_CPUS" \
    taskset -c "$BUILD_CPUS" "$SIZE_COPY/stacks/$stack/build-image" "$SIZE_TAG" >>"$SIZE_LOG" 2>&1 || return 1
  echo $((($(date +%s%N) - start) / 1000000))
}

# size_pause: on a shared machine, LAB_PAUSE_FILE names a file whose
# presence means someone else is measuring: no build starts while it exists
size_pause() {
  [[ -n "${LAB_PAUSE_FILE:-}" && -e "$LAB_PAUSE_FILE" ]] || return 0
  note "bench: $LAB_PAUSE_FILE exists: waiting for it to go before the next build"
  while [[ -e "$LAB_PAUSE_FILE" ]]; do sleep 5; done
  note "bench: $LAB_PAUSE_FILE is gone: building again"
}

# size_builds RUN I STACK OUT: the clean build and the rebuild as size
# plan says, the image's sizes and files, then the images and copy removed
size_builds() {
  local run=$1 i=$2 stack=$3 out=$4 clean rebuild clean_id
  lab_copy "$SIZE_COPY"
  SIZE_TAGS+=("$SIZE_TAG")
  size_pause
  size_note "$run" "$i" "$stack" "clean build (no cache, no build output left)"
  if ! clean=$(timed_build "$stack" LAB_NO_CACHE=1); then
    size_failed "$out" build --line "$stack: the clean build failed" --log "$SIZE_LOG"
    rm -rf "$SIZE_COPY"
    return 0
  fi
  clean_id=$(docker image inspect -f '{{.Id}}' "$SIZE_TAG")
  if [[ "$SIZE_DEPS" == copy ]]; then
    measure "$out" deps lab_tool size deps "$SIZE_COPY/stacks/$stack" "$out" --lab-root "$SIZE_COPY" --scc "$SCC"
    ((SIZE_TAKEN == 0)) || size_deps_code "$stack"
  fi
  size_note "$run" "$i" "$stack" "image sizes and files"
  size_image "$out"
  if [[ -n "$SIZE_TOUCH_FAULT" ]]; then
    size_failed "$out" build --line "$SIZE_TOUCH_FAULT"
  elif ! lab_tool size touch "$SIZE_COPY/stacks/$stack/$SIZE_TOUCH"; then
    size_failed "$out" build --line "$stack: SIZE_TOUCH $SIZE_TOUCH cannot be changed (above)"
  else
    size_pause
    size_note "$run" "$i" "$stack" "rebuild after a one-line change to $SIZE_TOUCH"
    if ! rebuild=$(timed_build "$stack"); then
      size_failed "$out" build --line "$stack: the rebuild after changing $SIZE_TOUCH failed" --log "$SIZE_LOG"
    else
      lab_tool size build "$out" --clean-ms "$clean" --rebuild-ms "$rebuild" --touched "$SIZE_TOUCH" --cpus "$BUILD_CPUS"
    fi
  fi
  docker rmi "$SIZE_TAG" >/dev/null 2>&1 || true
  # The rebuild took the tag from the clean build's image: that image, if
  # nothing else names it now, is this bench's and goes too.
  [[ "$(docker image inspect -f '{{len .RepoTags}}' "$clean_id" 2>/dev/null)" != 0 ]] ||
    docker rmi "$clean_id" >/dev/null 2>&1 || true
  rm -rf "$SIZE_COPY"
}

# size_failed OUT MEASURE [--line LINE [--log LOG]]: a measure that
# failed, as size failed judges it (SIZE_TAKEN), counted when not taken
size_failed() {
  local answer
  answer=$(lab_tool size failed "$@") || exit 1
  assign_lines "$answer"
  ((SIZE_TAKEN)) || SIZE_FAILED=$((SIZE_FAILED + 1))
}

# size_image OUT: the image unpacked and gzipped, its files and binary
# (bench/size reads the file system docker export writes)
size_image() {
  local out=$1 bytes gz cid
  bytes=$(docker image inspect -f '{{.Size}}' "$SIZE_TAG")
  gz=$(docker save "$SIZE_TAG" | gzip -c | wc -c)
  cid=$(docker create --label "stacklab.bench=$BENCH_ID" "$SIZE_TAG" /nonexistent)
  measure "$out" image lab_tool size image "$out" --tag "$SIZE_TAG" --size "$bytes" \
    --gzipped "$gz" --binary "$SIZE_BINARY" < <(docker export "$cid")
  docker rm -f "$cid" >/dev/null 2>&1 || true
}

# size_deps_code STACK: scc over the dependencies' source inside the image
# (SIZE_DEPS_SRC), run from a read-only mount of the pinned scc with the
# arguments size plan gives (none: the stack states no SIZE_DEPS_SRC)
size_deps_code() {
  local args
  read -ra args <<<"$SIZE_DEPS_SCC"
  ((${#args[@]})) || return 0
  docker run --rm --network none --label "stacklab.bench=$BENCH_ID" -v "$SCC:/stacklab-scc:ro" \
    --entrypoint /stacklab-scc "$SIZE_TAG" "${args[@]}" >"$SIZE_DEPS_CODE" 2>"$WORK/deps-code.err" || {
    rm -f "$SIZE_DEPS_CODE"
    note "bench: $1: scc over SIZE_DEPS_SRC ($SIZE_DEPS_SRC) in the image failed: $(head -n1 "$WORK/deps-code.err")"
  }
}
