package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"bytes"
	"math"
	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/formats/cgroupstat"
	"stacklab/formats/oha"
	"stacklab/formats/pauses"
	"stacklab/formats/rawfile"
	"stacklab/formats/steady"
)

// loadgen writes OUT (a window's <case>.loadgen.json) from the `time`
// output of the generator's run.
//
//	record loadgen OUT --time FILE --cpus LIST
func loadgen(out string, args []string) error {
	fl := flag.NewFlagSet("record loadgen", flag.ContinueOnError)
	timeFile := fl.String("time", "", `file holding bash time's "%3U %3S %3R"`)
	cpus := fl.String("cpus", "", "the CPUs the generator was pinned to")
	if err := fl.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(*timeFile)
	if err != nil {
		return err
	}
	lg, err := results.LoadgenFromTime(string(b), *cpus)
	if err != nil {
		return fmt.Errorf("%s: %v", *timeFile, err)
	}
	return results.WriteRaw(out, lg)
}

// resources writes OUT (a stack's resources.json in one run). Memory comes
// either as numbers (--memory-idle, --memory-after: the usage) or, as the
// bench gives it, as the files `cgsample memory` appended readings to:
// --memory-idle-file holds the reading after boot and verify, and
// --memory-after-file one reading per container of the row, taken when its
// last case ended. Then memory_idle_bytes and memory_after_bytes are the
// usage of the idle and of the last reading, as before, and "memory" splits
// RSS from page cache, the after figures being the largest over the
// containers.
//
//	record resources OUT --boot-ms N (--memory-idle B --memory-after B |
//	                     --memory-idle-file F --memory-after-file F)
func resources(out string, args []string) error {
	fl := flag.NewFlagSet("record resources", flag.ContinueOnError)
	var r results.Resources
	fl.Float64Var(&r.BootMs, "boot-ms", 0, "milliseconds from start to the first 200 on the readiness path")
	fl.Int64Var(&r.MemoryIdleBytes, "memory-idle", 0, "the container's memory after boot and verify")
	fl.Int64Var(&r.MemoryAfterBytes, "memory-after", 0, "the container's memory after its cases")
	idleFile := fl.String("memory-idle-file", "", "cgsample memory's reading after boot and verify")
	afterFile := fl.String("memory-after-file", "", "cgsample memory's readings, one per container, after its cases")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if (*idleFile == "") != (*afterFile == "") {
		return fmt.Errorf("--memory-idle-file and --memory-after-file go together")
	}
	if *idleFile != "" {
		idle, err := cgroupstat.ReadMemoryFile(*idleFile)
		if err != nil {
			return err
		}
		after, err := cgroupstat.ReadMemoryFile(*afterFile)
		if err != nil {
			return err
		}
		last := idle[len(idle)-1]
		sp := &results.MemorySplit{IdleAnonBytes: int64(last.AnonBytes), IdleFileBytes: int64(last.FileBytes), Containers: len(after)}
		for _, m := range after {
			sp.AfterAnonBytes = max(sp.AfterAnonBytes, int64(m.AnonBytes))
			sp.AfterFileBytes = max(sp.AfterFileBytes, int64(m.FileBytes))
		}
		r.MemoryIdleBytes, r.MemoryAfterBytes, r.Memory = int64(last.UsageBytes), int64(after[len(after)-1].UsageBytes), sp
	}
	return results.WriteRaw(out, r)
}

// rows writes OUT (a window's <case>.rows.json): a table's row count
// before and after the window.
//
//	record rows OUT --before N --after N
func rows(out string, args []string) error {
	fl := flag.NewFlagSet("record rows", flag.ContinueOnError)
	var r results.Rows
	fl.Int64Var(&r.Before, "before", -1, "rows before the window")
	fl.Int64Var(&r.After, "after", -1, "rows after the window")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if r.Before < 0 || r.After < 0 {
		return fmt.Errorf("--before and --after are required, each a count of rows (the table could not be read?)")
	}
	return results.WriteRaw(out, r)
}

// jobs writes a window's job pace (results.Jobs).
func jobs(out string, args []string) error {
	fl := flag.NewFlagSet("record jobs", flag.ContinueOnError)
	var before, after int64
	var j results.Jobs
	fl.Int64Var(&before, "done-before", -1, "the done table's rows at the window's start")
	fl.Int64Var(&after, "done-after", -1, "its rows --after-s seconds after the window's end")
	fl.Int64Var(&j.Backlog, "backlog", -1, "the queue's rows then")
	fl.Float64Var(&j.WindowS, "window-s", 0, "the window's seconds")
	fl.Float64Var(&j.AfterS, "after-s", -1, "the seconds waited after the window")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if before < 0 || after < before || j.Backlog < 0 || j.WindowS <= 0 || j.AfterS < 0 {
		return fmt.Errorf("--done-before, --done-after (not below it), --backlog, --window-s and --after-s are required (a table could not be read?)")
	}
	j.Done = after - before
	return results.WriteRaw(out, j)
}

// studyFilesOut writes the manifest's copy of its study into OUT (one
// NAME.toml per file) and prints the study's own file, so a re-run measures
// the study as it was, whatever studies/ holds now.
//
//	record study-files DIR OUT
func studyFilesOut(dir string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want DIR OUT")
	}
	m, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	if len(m.StudyFiles) == 0 {
		return fmt.Errorf("%s/manifest.json holds no study_files (written before studies were files; `just adopt-study %s studies/%s.toml` adds them)", dir, dir, m.Study)
	}
	if err := os.MkdirAll(args[0], 0o755); err != nil {
		return err
	}
	for _, f := range m.StudyFiles {
		if err := os.WriteFile(filepath.Join(args[0], f.Name+".toml"), []byte(f.Text), 0o644); err != nil {
			return err
		}
	}
	fmt.Println(filepath.Join(args[0], m.StudyFiles[0].Name+".toml"))
	return nil
}

// warmup judges a warm-up so far: the oha reports of its slices, in order,
// give each slice's good answers per second; OUT (the window's
// warmup.json) is rewritten with the verdict, and one word goes to stdout
// for the bench: "again", "steady" or "unsteady" (out of slices).
//
//	record warmup OUT --slice-s S --min N --max N SLICE.json...
func warmup(out string, args []string) error {
	fl := flag.NewFlagSet("record warmup", flag.ContinueOnError)
	sliceS := fl.Float64("slice-s", 0, "each slice's length in seconds")
	minN := fl.Int("min", 2, "fewest slices")
	maxN := fl.Int("max", 15, "most slices")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *sliceS <= 0 || *minN < 1 || *maxN < *minN || fl.NArg() == 0 {
		return fmt.Errorf("want --slice-s above 0, 1 ≤ --min ≤ --max, and the slices' oha reports")
	}
	var rps []float64
	for _, f := range fl.Args() {
		r, err := oha.Read(f)
		if err != nil {
			return err
		}
		rps = append(rps, math.Round(r.GoodPerSec()*10)/10)
	}
	w := steady.Decide(*sliceS, rps, *minN, *maxN)
	if err := steady.Write(out, w); err != nil {
		return err
	}
	fmt.Println(w.Word())
	return nil
}

// pausesCmd keeps the runtime's pauses from a container's log for one
// window (stdin: the log, as `docker logs --timestamps --since` gives it):
// OUT gets them as a pauses file (package pauses); with none, no file.
//
//	record pauses OUT --runtime jvm|go|ruby < LOG
func pausesCmd(out string, args []string) error {
	fl := flag.NewFlagSet("record pauses", flag.ContinueOnError)
	runtime := fl.String("runtime", "", "whose log it is: jvm, go or ruby")
	if err := fl.Parse(args); err != nil {
		return err
	}
	var ps []pauses.Pause
	var jit *pauses.JIT
	var err error
	switch *runtime {
	case "jvm":
		ps, jit, err = pauses.ParseJVM(os.Stdin)
	case "go":
		ps, err = pauses.ParseGo(os.Stdin)
	case "ruby":
		ps, err = pauses.ParseRuby(os.Stdin)
	default:
		return fmt.Errorf("--runtime %q: the lab reads the pauses of jvm, go and ruby only", *runtime)
	}
	if err != nil || (len(ps) == 0 && jit == nil) {
		return err
	}
	var b bytes.Buffer
	if err := pauses.Write(&b, *runtime, jit, ps); err != nil {
		return err
	}
	return rawfile.Write(out, b.Bytes())
}
