// Command record writes a results folder's manifest.json while the bench runs
// (scripts/bench calls it; scripts never build JSON themselves) and, at the
// end, checksums.sha256 over every raw file (through analysis/results, the
// one package that writes and verifies that file).
//
//	record start   DIR --study-file FILE --profile P --host-profile FILE [--lab-root DIR]
//	               [--extra-stacks DIR] [--label L] --runs N [--warmup S] [--duration S]
//	               --stacks a,b [--app-port N] [--quiet-gate 0|1] [--seed-checksum C]
//	               [--mode docker|native] [--build-cpus LIST] [--tool NAME=VERSION]...
//	               [--lab-commit C] [--shared-host TEXT] [--engines FILE]
//	               a new manifest (start.go): what the study, profile, host
//	               profile and stack folders say is derived there (windows,
//	               rows, parameters.extra); the flags give what the bench
//	               measured or chose
//	record image   DIR STACK --tag T --id ID --size BYTES [--compressed BYTES]
//	record run     DIR N --order a,b [--quiet FILE] [--discarded FILE]
//	record failure DIR --run N --stack S --case C --reason TEXT
//	record confinement DIR NAME --inspect FILE   what Docker applied to a container (FILE: docker inspect; - is stdin)
//	record confinement DIR NAME --native FILE --user UID:GID   a native row's group (FILE: native start's line)
//	record finish  DIR [--incomplete REASON] [--if-open]   (--if-open: only a manifest no bench closed)
//	record reap    LABROOT --self PID [--native LINE] | --lock-holders   what a dead
//	               bench left, and the line that says so (reap.go)
//	record own     LABROOT --pid PID --results ROOT   the lock's owner file (owner.go)
//	record new-dir ROOT --host H --study S [--label L] [--owner LABROOT]
//	               a new results folder, printed, named in the owner file (owner.go)
//	record describe DIR   the parameters a re-run needs, as KEY=VALUE lines
//	record differences DIR --gather | --have FILE [--digests | --notes | [--engines FILE] [--anyway]]
//	               how this host differs from the run, judged on the facts
//	               scripts/rerun gathers (differences.go; exit 2 on bad input)
//	record engine  FILE ROLE --engine E --cpus LIST --info FILE --machine FILE [--container]
//	               add a role's engine (docker info there, and bench/loadrun's
//	               fingerprint of its machine) to an engines file (engine.go)
//	record shared  DIR TEXT   declare, after the fact, what else ran on the
//	               host during the run (manifest shared_host; "" clears it)
//	record adopt-study DIR STUDYFILE   give a manifest written before studies
//	               were files the copy of its study (refused unless the study's
//	               windows are exactly the run's cases)
//	record study-files DIR OUT   the manifest's copy of the study, as files in OUT
//	record step OUT --step N --rate R --duration S [--lead-in S]   a capacity step's target.json
//	record cut OUT --from-ns T --duration S CSV   the rows of a step's attack
//	               sent in its window, after the lead-in (cut.go; exit 2 on bad input)
//	record timeline OUT (--oha-db FILE --start-unix-ns N | --vegeta-csv FILE...) [--bucket-ms 100]
//	               a window's or step's <window>.latency.jsonl (timeline.go; exit 2 on bad input)
//	record upstream OUT --url URL --from-ns A --to-ns B   the mock upstream's
//	               lateness over a window or step (upstream.go; no file when it
//	               answered nothing then)
//	record loadgen OUT --time FILE --cpus LIST         a window's loadgen.json
//	record window  OUT --cpus LIST   a window's raw files from what its generator
//	               left beside OUT (window.go)
//	record resources OUT --boot-ms N --memory-idle B --memory-after B
//	record rows OUT --before N --after N               a write window's rows.json
//	record jobs OUT --done-before N --done-after N --backlog N --window-s S --after-s S
//	                                                   a window's job pace (jobs.json)
//	record warmup OUT --slice-s S --min N --max N SLICE.json...   a window's
//	               warmup.json from its warm-up slices so far; prints again,
//	               steady or unsteady
//	record pauses OUT --runtime jvm|go|ruby < LOG
//	               the runtime's pauses in a window's container log (none:
//	               no file)
//	record timing DIR --wall-ms N --eta-first-s N --windows N --window-s S
//	               [--phase KIND=COUNT:MS]...   the bench's time against its
//	               windows and its first ETA, into the manifest, and one line
//	record stamp LOG --start T --first FILE < LINES   each line into LOG
//	               after the seconds since T, the first table line's seconds
//	               into FILE (stamp.go; scripts/first-table)
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/formats/steady"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: record start|image|run|failure|confinement|finish|describe DIR [flags] (see the comment at the top of bench/record/main.go)")
		os.Exit(2)
	}
	cmd, dir, args := os.Args[1], os.Args[2], os.Args[3:]
	var err error
	switch cmd {
	case "start":
		err = start(dir, args)
	case "image":
		err = update(dir, args, image)
	case "run":
		err = update(dir, args, run)
	case "failure":
		err = update(dir, args, failure)
	case "confinement":
		err = update(dir, args, confinement)
	case "describe":
		err = describe(dir, args, os.Stdout)
	case "reap":
		err = reapCmd(dir, args, os.Stdin, os.Stdout)
	case "own":
		err = ownCmd(dir, args)
	case "new-dir":
		err = newDirCmd(dir, args, os.Stdout)
	case "differences":
		os.Exit(differencesCmd(dir, args, os.Stdout, os.Stderr))
	case "engine":
		err = engine(dir, args)
	case "loadgen":
		err = loadgen(dir, args)
	case "window":
		os.Exit(windowCmd(dir, args, os.Stderr))
	case "step":
		err = step(dir, args)
	case "timeline":
		os.Exit(timelineCmd(dir, args, os.Stderr))
	case "cut":
		os.Exit(cutCmd(dir, args, os.Stderr))
	case "upstream":
		os.Exit(upstreamCmd(dir, args, os.Stderr))
	case "resources":
		err = resources(dir, args)
	case "rows":
		err = rows(dir, args)
	case "jobs":
		err = jobs(dir, args)
	case "warmup":
		err = warmup(dir, args)
	case "pauses":
		err = pausesCmd(dir, args)
	case "timing":
		err = update(dir, args, timing)
	case "stamp":
		os.Exit(stampCmd(dir, args, os.Stdin, os.Stderr))
	case "shared":
		err = update(dir, args, sharedHost)
	case "adopt-study":
		err = adoptStudy(dir, args)
	case "study-files":
		err = studyFilesOut(dir, args)
	case "finish":
		finishDir = dir
		if err = update(dir, args, finish); err == nil {
			err = results.WriteChecksums(dir)
		} else if errors.Is(err, errUnchanged) {
			err = nil // --if-open on a closed folder: nothing to write
		}
	default:
		err = fmt.Errorf("unknown subcommand %q (start, image, run, failure, confinement, finish, describe)", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "record "+cmd+":", err)
		os.Exit(1)
	}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func list(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

func pairs(kv []string, flagName string) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range kv {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s %q: want KEY=VALUE", flagName, p)
		}
		m[k] = v
	}
	return m, nil
}

// adoptStudy gives a manifest written before studies were files the copy
// of its study, when the study's windows are exactly the run's cases.
// sharedHost sets the manifest's declaration of a shared host.
func sharedHost(m *manifest.Manifest, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one TEXT: what else ran on the host (\"\" clears it)")
	}
	m.SharedHost = strings.TrimSpace(args[0])
	return nil
}

func adoptStudy(dir string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want DIR STUDYFILE")
	}
	st, err := study.Load(args[0])
	if err != nil {
		return err
	}
	m, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	if len(m.StudyFiles) > 0 {
		return fmt.Errorf("%s already holds its study (%s)", dir, m.StudyHash)
	}
	var ids []string
	for _, w := range st.Windows(m.Parameters.Connections) {
		ids = append(ids, w.ID)
	}
	have := append([]string(nil), m.Parameters.Cases...)
	sort.Strings(ids)
	sort.Strings(have)
	if strings.Join(ids, ",") != strings.Join(have, ",") {
		return fmt.Errorf("%s measured %s; %s has the windows %s: not the same study", dir, strings.Join(have, ","), args[0], strings.Join(ids, ","))
	}
	m.StudyFiles, m.StudyHash = studyFiles(st), st.Hash()
	m.StudyAdopted = fmt.Sprintf("study_files added on %s from the lab's %s, whose windows are this run's cases; the run itself predates study files", time.Now().UTC().Format("2006-01-02"), args[0])
	return manifest.Write(dir, m)
}

// update loads the manifest, lets fn change it, and writes it back.
// errUnchanged is an update's way to leave the manifest as it is.
var errUnchanged = errors.New("unchanged")

func update(dir string, args []string, fn func(*manifest.Manifest, []string) error) error {
	m, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	if err := fn(m, args); err != nil {
		return err
	}
	return manifest.Write(dir, m)
}

func image(m *manifest.Manifest, args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("want STACK")
	}
	fl := flag.NewFlagSet("record image", flag.ContinueOnError)
	tag := fl.String("tag", "", "image tag")
	id := fl.String("id", "", "image id")
	size := fl.Int64("size", 0, "unpacked bytes")
	comp := fl.Int64("compressed", 0, "gzipped bytes of docker save")
	digest := fl.String("digest", "", "content digest")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	m.Images[args[0]] = manifest.Image{Tag: *tag, ID: *id, SizeBytes: *size, Compressed: *comp, Digest: *digest}
	return nil
}

func readJSONFile(path string) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%s: not valid JSON", path)
	}
	return json.RawMessage(strings.TrimSpace(string(b))), nil
}

func run(m *manifest.Manifest, args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("want N")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return fmt.Errorf("run %q: want a run number from 1", args[0])
	}
	fl := flag.NewFlagSet("record run", flag.ContinueOnError)
	order := fl.String("order", "", "stacks in the order they ran")
	quiet := fl.String("quiet", "", "JSON evidence of the quiet-host check")
	discarded := fl.String("discarded", "", "JSON evidence of a discarded attempt")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	i := sort.Search(len(m.Runs), func(i int) bool { return m.Runs[i].Run >= n })
	if i == len(m.Runs) || m.Runs[i].Run != n {
		m.Runs = append(m.Runs, manifest.Run{})
		copy(m.Runs[i+1:], m.Runs[i:])
		m.Runs[i] = manifest.Run{Run: n, Discarded: []json.RawMessage{}}
	}
	r := &m.Runs[i]
	// Each run names the host that measured it, so a folder resumed or
	// extended on another machine is refused by summarize, not mixed.
	fp, err := fingerprint()
	if err != nil {
		return err
	}
	r.Host = &manifest.Host{Profile: m.Host.Profile, Settings: m.Host.Settings, Fingerprint: fp, Engines: m.Host.Engines}
	if *order != "" {
		r.Order = list(*order)
	}
	if *quiet != "" {
		if r.Quiet, err = readJSONFile(*quiet); err != nil {
			return err
		}
	}
	if *discarded != "" {
		ev, err := readJSONFile(*discarded)
		if err != nil {
			return err
		}
		r.Discarded = append(r.Discarded, ev)
	}
	return nil
}

func failure(m *manifest.Manifest, args []string) error {
	fl := flag.NewFlagSet("record failure", flag.ContinueOnError)
	n := fl.Int("run", 0, "run number")
	stack := fl.String("stack", "", "stack")
	cs := fl.String("case", "", "case")
	reason := fl.String("reason", "", "one line: what went wrong")
	if err := fl.Parse(args); err != nil {
		return err
	}
	m.Failures = append(m.Failures, manifest.Failure{Run: *n, Stack: *stack, Case: *cs, Reason: *reason})
	return nil
}

// describe prints the parameters scripts/rerun runs a study again with,
// as KEY=VALUE lines for its assign_lines: the study, profile, host
// profile, label, run mode and rows, the runs, and the warm-up and window
// as the bench's flags take them (whole seconds, a fraction dropped); and
// ENGINES=1 when the run's roles had engines of their own (rerun then
// fingerprints this host's, for record differences to compare).
func describe(dir string, args []string, out io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("want DIR alone, not %q", args)
	}
	m, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	engines := 0
	if len(m.Host.Engines) > 0 {
		engines = 1
	}
	p := m.Parameters
	fmt.Fprintf(out, "ENGINES=%d\nSTUDY=%s\nPROFILE=%s\nHOST_PROFILE=%s\nLABEL=%s\nRUN_MODE=%s\n", engines, m.Study, m.Profile, m.Host.Profile, m.Label, p.RunMode())
	fmt.Fprintf(out, "STACKS=%s\nRUNS=%d\nWARMUP=%d\nDURATION=%d\n", strings.Join(p.Stacks, ","), p.Runs, int(p.WarmupS), int(p.DurationS))
	return nil
}

// finishDir is the results folder `record finish` closes (finish reads its
// raw files for the warm-ups).
var finishDir string

func finish(m *manifest.Manifest, args []string) error {
	fl := flag.NewFlagSet("record finish", flag.ContinueOnError)
	incomplete := fl.String("incomplete", "", "why the run did not complete")
	ifOpen := fl.Bool("if-open", false, "only a manifest no bench closed (a dead bench's); a closed one is left as it is")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *ifOpen && m.EndedAt != "" {
		return errUnchanged
	}
	m.EndedAt = time.Now().UTC().Format(time.RFC3339)
	m.Complete = *incomplete == ""
	m.IncompleteReason = *incomplete
	w, err := warmups(finishDir)
	m.Warmups = w
	return err
}

// warmups gathers every window's warm-up verdict under dir/raw, in path
// order (raw/run-N/ROW/CASE.warmup.json).
func warmups(dir string) ([]manifest.Warmup, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "raw", "run-*", "*", "*.warmup.json"))
	sort.Strings(files)
	var out []manifest.Warmup
	for _, f := range files {
		w, err := steady.Read(f)
		if err != nil {
			return nil, err
		}
		row := filepath.Base(filepath.Dir(f))
		run, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(filepath.Dir(f))), "run-"))
		out = append(out, manifest.Warmup{Run: run, Row: row, Case: strings.TrimSuffix(filepath.Base(f), ".warmup.json"),
			Seconds: w.Seconds, Steady: w.Steady})
	}
	return out, nil
}

// hostLine names a host by what SameFingerprint compares.
func hostLine(h manifest.Host) string {
	f := h.Fingerprint
	line := fmt.Sprintf("%s: %s, %d cores, %.1f GiB, kernel %s", h.Profile, f.CPUModel, f.Cores,
		float64(f.MemoryBytes)/(1<<30), f.Kernel)
	if len(h.Engines) > 0 {
		line += "; engines: " + manifest.EnginesLine(h.Engines)
	}
	return line
}
