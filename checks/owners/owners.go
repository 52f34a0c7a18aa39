// Package owners is the table of the lab's decisions and method constants
// that have one owner each: the file that may define it. Its test (go
// test, so `just test`) reads every tracked file of the lab's own code and
// fails on a definition outside the owner, listing each; docs/architecture.md
// ("Who decides what") is this table in prose and names every owner.
package owners

import "regexp"

// Owned is one decision or constant, its owner and what a definition of it
// looks like in the files searched.
type Owned struct {
	What  string
	Owner string         // the one file that defines it ("" for a form nothing may use any more)
	Def   *regexp.Regexp // a line that defines it
	In    func(path string) bool
}

func goCode(p string) bool { return hasSuffix(p, ".go") && !hasSuffix(p, "_test.go") }

func shell(p string) bool {
	return hasPrefix(p, "scripts/") || p == "lab" || p == "Justfile" || hasSuffix(p, ".just") || hasSuffix(p, "/build-image")
}

func code(p string) bool { return goCode(p) || shell(p) }

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
func hasSuffix(s, p string) bool { return len(s) >= len(p) && s[len(s)-len(p):] == p }

// Table is every decision with one owner.
var Table = []Owned{
	{"the saturation threshold of a CPU set (0.9: a load generator's, the app's, the generator's CPUs)", "analysis/results/results.go",
		regexp.MustCompile(`[Ss]aturat.*\b0\.90*\b|\b0\.90*\b.*[Ss]aturat|Share\(\)\s*>\s*0\.\d|[Ss]aturatedShare\s*=|BusyShare\s*=`), goCode},
	{"the quiet gate's thresholds (load 2.0, one process's CPU share 0.5) when a host profile sets none", "analysis/hostprofile/hostprofile.go",
		regexp.MustCompile(`QUIET_(LOAD|CPU_SHARE)(:-|":\s*")[0-9]|"(load|share|quiet-load|quiet-share)",\s*[0-9]`), code},
	{"the hiccup meter's interval (20 ms)", "bench/hiccup/main.go",
		regexp.MustCompile(`defaultInterval\s*=\s*[0-9]|HICCUP_INTERVAL=|hiccup\b.*--interval\s`), code},
	{"a window's default closed-loop connections (32)", "bench/plan/main.go",
		regexp.MustCompile(`"connections",\s*[1-9]|defaultConnections\s*=`), goCode},
	{"a bench profile's table (runs, warm-up, window, quiet gate, redo limits, request timeout, the sampler's cadence)", "analysis/profile/profiles.toml",
		regexp.MustCompile(`^\s*(runs|warmup_s|window_s|warmup_max_s|quiet_for_s|quiet_timeout_s|max_redo|request_timeout_s|sampler_samples|sampler_min_ms)\s*=\s*[0-9]|\b(QUIET_FOR|QUIET_TIMEOUT|MAX_REDO|WARMUP_MAX_S|WARMUP_SLICE_S|SAMPLES_PER_WINDOW|SAMPLER_MIN_MS|REQUEST_TIMEOUT_S)=[0-9]|_TIMEOUT_S:-[0-9]|-t\s+"?[0-9]+s"?|\*\s*1000\s*/\s*[0-9]+\b|\$\{(RUNS|WARMUP|DURATION):=[0-9]`),
		func(p string) bool { return code(p) || hasSuffix(p, ".toml") && !hasPrefix(p, "results/") }},
	{"the bench's redo rules (the canary's rows, a run that was not quiet, within the profile's max_redo)", "bench/plan/redo.go",
		regexp.MustCompile(`func decideRedo\(|\battempt\s*<\s*\$?MAX_REDO\b|lab_tool\s+(canary|quiet)\s+verdict\b`), code},
	{"the schedule's counts and the ETA's guesses (boot 2600 ms, restart 1450 ms, stop 150 ms, the paired profile's)", "bench/plan/eta.go",
		regexp.MustCompile(`\b(2600|1450)\b|guess[A-Z]\w*\s*=|paired[A-Z]\w*(Ms|Over)\s*=|ETA_GUESS|ETA_PER_RUN`), code},
	{"which windows get a warm-up of their own", "bench/plan/eta.go",
		regexp.MustCompile(`WARM_EACH\s*\|\||func WarmBefore`), code},
	{"the paired profile's slice order (a seeded shuffle)", "bench/plan/order.go",
		regexp.MustCompile(`\bsrand\b|rand\.NewPCG\(|\bshuf\b`), code},
	{"a sequential run's row order (every other run reversed)", "bench/plan/order.go",
		regexp.MustCompile(`%\s*2\s*==\s*[01]\b.*(ROWS|rows\b)|func runOrder\(`), code},
	{"which images a bench builds before its first row, which just before their stack's first session (late_images) and which while oha compiles", "bench/plan/images.go",
		regexp.MustCompile(`LATE_STACKS\+=|\(\(\s*LATE_IMAGES\s*\)\)|\+=\(\s*(upstream|postgres)\s*\)|\.LateImages\s*&&|func PlanImages\(`), code},
	{"which folders are stacks, and a stack's values (stack.env)", "analysis/stackenv/stackenv.go",
		regexp.MustCompile(`source\s+\S*stack\.env|-f\s+\S*stack\.env|Stat\(.*"stack\.env"|func IsStack`), code},
	{"an image's tag (the hash of its inputs)", "analysis/stackenv/tag.go",
		regexp.MustCompile(`image_inputs_hash\s*\(\)|toolchain_version\s*\(\)|func \(l Lab\) InputsHash`), code},
	{"the reading of a CPU list (0-3,6)", "formats/cpulist/cpulist.go",
		regexp.MustCompile(`func (Parse\(list string\)|parseCPUList\(|ExpandCPUs\(|CountCPUs\()|^\s*cpu_list_expand\(\)|BASH_REMATCH\[1\];\s*i\s*<=\s*BASH_REMATCH\[2\]|\b(cpusRe|cpuPart)\s*=`), code},
	{"a capacity step's words and warm-up (req/s or users, its length, the profile's most warm-up on a restarted app, how it starts after a restart)", "bench/plan/ramp.go",
		regexp.MustCompile(`then warmed up|\bunit="(req/s|users)"|warm=\$\{?WARMUP_MAX_S\b|WARMUP \+ \$\{?LEAD_IN_S`), code},
	{"the wait for TIME_WAIT sockets before a capacity step (more than 8,000, at most 70 s)", "bench/settle/ports.go",
		regexp.MustCompile(`maxTimeWait\s*=|portsMaxWait\s*=|\btw\s*>\s*[0-9]|== "tw"`), code},
	{"how long an app may take to settle after a failed capacity step (30 s)", "bench/settle/main.go",
		regexp.MustCompile(`Duration\("max",|SETTLE_MAX_S=|settle\b.*--max\s`), code},
	{"the variables the lab sets on every app container (reserved: no ENV or variant sets them)", "analysis/stackenv/stackenv.go",
		regexp.MustCompile(`Reserved\s*=\s*\[\]string\{|reserved\s*=\s*map\[|\bin PORT \|`), code},
	{"a stack's contract when its stack.env states none (app, or none for an image of the user's own)", "analysis/stackenv/stackenv.go",
		regexp.MustCompile(`\bc=(app|none)\b|Contract\s*=\s*"(app|none)"|func \(s \*Stack\) Contract\(`), code},
	{"which image a stack runs (its IMAGE, built elsewhere, else the lab's tag), and the line when Docker lacks it", "analysis/stackenv/stackenv.go",
		regexp.MustCompile(`stack_env_get\s+\S+\s+IMAGE\b|Values\["IMAGE"\]|is not built: run '`), code},
	{"a stack's ready path when its stack.env states none (/up)", "analysis/stackenv/stackenv.go",
		regexp.MustCompile(`:-/up\b|func \(s \*Stack\) ReadyPath\(`), code},
	{"a stack's own data (DATA: a path inside its folder, without ..)", "analysis/stackenv/stackenv.go",
		regexp.MustCompile(`\*/\.\./\*|func \(s \*Stack\) DataSource\(`), code},
	{"the environment a stack's build-image runs under (its BUILD_ARGS unset, a variant's set, BASE_IMAGE when DEPENDS names base)", "analysis/stackenv/build.go",
		regexp.MustCompile(`\*" base "\*|BUILD_ENV\+=\(-u|func \(l Lab\) BuildEnv\(`), code},
	{"a row's database when its variant names none (sqlite)", "analysis/study/study.go",
		regexp.MustCompile(`:-sqlite\b|func \(s \*Study\) DatabaseOf\(`), code},
	{"scripts/verify's rows (STACK[pg]: the stack on Postgres, when its DATABASES names it)", "bench/stack/main.go",
		regexp.MustCompile(`"\[pg\]"|func verifyRows\(`), code},
	{"a key of the manifest's parameters.extra, read by its name", "analysis/manifest/extra.go",
		regexp.MustCompile(`Extra\["`), goCode},
	{"the confinement every app container runs under (uid and gid 10001, pid limit 4096, tmpfs of 64m, the docker run flags), and a native app's uid and pid limit", "analysis/confine/confine.go",
		regexp.MustCompile(`CONFINE_(UID|GID|USER|PIDS_LIMIT|TMPFS_SIZE)=[0-9]|\b(UID|GID|PidsLimit)\s*=\s*[0-9]|"(uid|gid|pids)",\s*[0-9]|--pids-limit|size=64m|--read-only`), code},
	{"how a role's program gets the paths its tokens stand for (@OUT, @DATA inside an argument, a kept file's @NAME whole)", "bench/loadrun/main.go",
		regexp.MustCompile(`//@(OUT|DATA)/|\bat\[@|func putTokens\(`), code},
	{"a first baseline's method (the quick profile, five runs: so that the U test can reach its level)", "analysis/guard/baseline.go",
		regexp.MustCompile(`\$\{RUNS:-[0-9]|\bfirstBaseline(Profile|Runs)\s*=|"runs",\s*5\b`), code},
	{"the tools a size study's manifest records (the builds' toolchains, each read its own way; not the load generators or just)", "bench/size/tools.go",
		regexp.MustCompile(`-dumpfullversion|Apache Maven|"oha",\s*"vegeta",\s*"just"|\boha vegeta just\b`), code},
	{"what a run of the size study does for a stack (its measures in run 1, a Go app's empty build cache in its builds)", "bench/size/plan.go",
		regexp.MustCompile(`\.gocache\b|func sizePlan\(`), code},
	{"the manifest's cpu_canary (the CPU-speed canary before and after every window)", "bench/record/start.go",
		regexp.MustCompile(`cpu_canary=|"before and after every window`), code},
	{"a row's request slots and contract in the manifest (a variant's slots, else its stack's REQUEST_SLOTS)", "bench/record/start.go",
		regexp.MustCompile(`RequestSlots\s*=|stack_env_get\s+\S+\s+REQUEST_SLOTS|--(slots|contract)\s+"`), code},
	{"a key of the manifest's parameters.extra written by bash (record start derives each, or takes it by a flag of its own)", "",
		regexp.MustCompile(`--extra\s+"?[a-z_0-9]+=`), shell},
	{"what counts as a table line for the time to a first table (scripts/first-table), and its log's seconds", "bench/record/stamp.go",
		regexp.MustCompile(`\b(TABLE_ROW|ROW_LINE)=|func tableLine\(|printf '%7s`), code},
}
