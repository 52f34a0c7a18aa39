package owners

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

func tracked(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: no git, so no list of the lab's files")
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("skipped: not a git checkout (%v)", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(f, "results/") || strings.Contains(f, "testdata/") || strings.HasPrefix(f, "checks/owners/") {
			continue
		}
		files = append(files, f)
	}
	return files
}

// No decision in Table is defined outside its owner, and each owner
// still defines it (so the table follows the code when a decision moves).
func TestOneOwner(t *testing.T) {
	files := tracked(t)
	found := make([]int, len(Table))
	for _, f := range files {
		var which []int
		for i, o := range Table {
			if o.In(f) {
				which = append(which, i)
			}
		}
		if len(which) == 0 {
			continue
		}
		fh, err := os.Open(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") {
				continue
			}
			for _, i := range which {
				o := Table[i]
				if !o.Def.MatchString(line) {
					continue
				}
				if f == o.Owner {
					found[i]++
					continue
				}
				t.Errorf("%s:%d: %s is defined here, outside its owner %s: %s", f, n, o.What, or(o.Owner, "(none: this form is gone)"), strings.TrimSpace(line))
			}
		}
		fh.Close()
	}
	for i, o := range Table {
		if o.Owner != "" && found[i] == 0 {
			t.Errorf("%s: defines no %s any more: move the entry in checks/owners to the file that does", o.Owner, o.What)
		}
	}
}

// docs/architecture.md's table of owners names each of them.
func TestDocsNameEachOwner(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Table {
		if o.Owner != "" && !strings.Contains(string(b), "`"+o.Owner+"`") {
			t.Errorf("docs/architecture.md names no owner `%s` (of %s)", o.Owner, o.What)
		}
	}
}

// A definition outside its owner is found (the check can fail).
func TestFindsASecondDefinition(t *testing.T) {
	for _, c := range []struct{ line, what string }{
		{`Saturated: cpu > 0.9*float64(n)*v[2]`, "saturation"},
		{`	saturatedShare = 0.90`, "saturation"},
		{`const GeneratorBusyShare = 0.90`, "saturation"},
		{`  local threshold=${QUIET_LOAD:-2.0} out=()`, "quiet gate's thresholds"},
		{`	share := f.Float64("share", 0.5, "CPU share")`, "quiet gate's thresholds"},
		{`	fl.Float64Var(&sc.QuietLoad, "quiet-load", 2.0, "the gate's load")`, "quiet gate's thresholds"},
		{`HICCUP_INTERVAL=20ms`, "hiccup meter's interval"},
		{`    c=app`, "contract"},
		{`func parseCPUList(s string) ([]int, error) {`, "CPU list"},
		{`cpu_list_expand() {`, "CPU list"},
		{"var cpusRe = regexp.MustCompile(`^[0-9]+(-[0-9]+)?$`)", "CPU list"},
		{`    ((tw > 8000 && waited < 70)); do`, "TIME_WAIT"},
		{`SETTLE_MAX_S=30`, "settle"},
		{`    unit="req/s" after="then warmed up ${WARMUP_MAX_S} s at the step's rate" warm=$WARMUP`, "capacity step's words"},
		{`      warm=$WARMUP_MAX_S`, "capacity step's words"},
		{`    RAMP_USERS="" RAMP_MEASURE_S="" RAMP_STEP_S=$((WARMUP + ${LEAD_IN_S:-0} + DURATION))`, "capacity step's words"},
		{`var reserved = map[string]bool{"PORT": true}`, "reserved"},
		{`    case $k in PORT | DATABASE_PATH | UPSTREAM_URL | LAB_CPUS)`, "reserved"},
		{`			info.Contract = "app"`, "contract"},
		{`  in_background taskset -c 0 "$(lab_tool_path hiccup)" --out x --interval 1ms`, "hiccup meter's interval"},
		{`conns := fl.Int("connections", 32, "")`, "connections"},
		{`REQUEST_TIMEOUT_S=${LAB_REQUEST_TIMEOUT_S:-30}`, "request timeout"},
		{`local ms=$((DURATION * 1000 / 75))`, "sampler's cadence"},
		{`  quick) : "${RUNS:=1}" "${WARMUP:=1}"; QUIET_FOR=5 MAX_REDO=0 ;;`, "profile's table"},
		{`warmup_max_s = 15`, "profile's table"},
		{`      while ((CANARY_REDO && attempt < MAX_REDO)) && canary_rows "$run"; do`, "redo rules"},
		{`quiet_ok() { [[ ! -f "$1" ]] || lab_tool quiet verdict "$1" >/dev/null; }`, "redo rules"},
		{`  lab_tool canary verdict --out "$w.json" --rows "$w.rows" "$RUN_DIR/raw/run-$1"`, "redo rules"},
		{`ETA_GUESS_MS=([boot]=2600)`, "guesses"},
		{`warm_before() { ! ((WIN_RAMP[$1])) && ((WARM_EACH || $2)); }`, "warm-up"},
		{`awk 'BEGIN { srand(seed) }'`, "slice order"},
		{`[[ -f "$dir/stack.env" ]] || die`, "which folders are stacks"},
		{`image_inputs_hash() {`, "image's tag"},
		{`if m := f.Manifest.Parameters.Extra["app_cpu_mode"]; m != "" {`, "parameters.extra"},
		{`  elif (($1 % 2 == 1)); then printf '%s\n' "${ROWS[@]}"`, "row order"},
		{`        LATE_STACKS+=("$s")`, "late_images"},
		{`  if ((LATE_IMAGES)); then`, "late_images"},
		{`  ((NEEDS_UPSTREAM || HEADROOM)) && needed+=(upstream)`, "before its first row"},
		{`	if p.LateImages && !built[s] {`, "late_images"},
		{`    [[ "$out" == - ]] || a=${a//@OUT/$o}`, "tokens"},
		{`    at[@${k%%=*}]=${k#*=}`, "tokens"},
		{`CONFINE_UID=10001`, "confinement"},
		{`CONFINE_PIDS_LIMIT=4096`, "confinement"},
		{`	fl.IntVar(&o.uid, "uid", 10001, "the user id the command runs as")`, "confinement"},
		{`	fl.Int64Var(&o.pids, "pids", 4096, "the pid limit")`, "confinement"},
		{`const PidsLimit = 4096`, "confinement"},
		{`  printf '%s\n' --user "$u:$g" --cap-drop ALL --security-opt no-new-privileges --read-only`, "confinement"},
		{`    --pids-limit "$limit" --tmpfs "/tmp:rw,nosuid,nodev,noexec,size=64m,mode=1777"`, "confinement"},
		{`  BENCH_FLAGS=(--profile "${PROFILE:-quick}" --runs "${RUNS:-5}")`, "first baseline"},
		{`const firstBaselineRuns = 5`, "first baseline"},
		{`	runs := fl.Int("runs", 5, "a first baseline's runs")`, "first baseline"},
		{`  if [[ -n "$(stack_env_get "$name" IMAGE)" ]]; then`, "which image a stack runs"},
		{`		if err == nil && s.Values["IMAGE"] != "" {`, "which image a stack runs"},
		{`    result FAIL "$s" "image $tag is not built: run 'just images $stack'"`, "which image a stack runs"},
		{`  echo "${p:-/up}"`, "ready path"},
		{`    --ready "http://127.0.0.1:$port${ready:-/up}" -- "$dir/native-start" "$out" || exit 1`, "ready path"},
		{`    [[ "$own" != /* && "/$own/" != */../* && -e "$src" ]] ||`, "own data"},
		{`  [[ " $(stack_env_get "$name" DEPENDS) " == *" base "* ]] && base=$(LAB_BUILD_ARGS="" image_tag base)`, "build-image runs under"},
		{`  for k in $(stack_env_get "$1" BUILD_ARGS); do BUILD_ENV+=(-u "$k"); done`, "build-image runs under"},
		{`row_db() { echo "${ROW_DB[$1]:-sqlite}"; }`, "row's database"},
		{`    if [[ "$s" == *"[pg]" ]]; then`, "verify's rows"},
		{`      base=${s%"[pg]"} pg=1`, "verify's rows"},
		{`  echo "gcc $(gcc -dumpfullversion 2>/dev/null)"`, "size study's manifest"},
		{`  echo "mvn $(mvn -v -B 2>/dev/null | sed -n 's/.*Apache Maven \([0-9.]*\).*/\1/p' | head -n1)"`, "size study's manifest"},
		{`    [[ -n "$version" && "$version" != none && " oha vegeta just " != *" $name "* ]] && tools+=(--tool "$name=$version")`, "size study's manifest"},
		{`var skipped = []string{"oha", "vegeta", "just"}`, "size study's manifest"},
		{`  [[ "$(stack_env_get "$stack" LANGUAGE)" == go ]] && gocache=(GOCACHE="$copy/.gocache")`, "empty build cache"},
		{`    --extra "app_port=$APP_PORT" --extra "quiet_gate=$QUIET_GATE" --extra "cpu_canary=before and after every window (formats/speed)" "${rows[@]}" \`, "cpu_canary"},
		{`	ex["cpu_canary"] = "before and after every window (formats/speed)"`, "cpu_canary"},
		{`    rows+=(--slots "$r=${ROW_SLOTS[$r]:-$(stack_env_get "$s" REQUEST_SLOTS)}" --contract "$r=$(contract "$s")")`, "request slots"},
		{`			info.RequestSlots = st.Variant(r).Slots`, "request slots"},
		{`    --extra "warmup=$WARMUP_SCOPE" --extra "warmup_max_s=${WARMUP_MAX_S:-}" \`, "written by bash"},
		{`    --cases "" --stacks "$(IFS=,; echo "${ROWS[*]}")" --extra build_cpus=$BUILD_CPUS \`, "written by bash"},
	} {
		hit := false
		for _, o := range Table {
			if o.Def.MatchString(c.line) && strings.Contains(o.What, c.what) {
				hit = true
			}
		}
		if !hit {
			t.Errorf("%q: not seen as a definition of %s", c.line, c.what)
		}
	}
}

func or(a, b string) string {
	if a == "" {
		return b
	}
	return a
}
