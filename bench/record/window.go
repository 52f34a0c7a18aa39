package main

// What a window's generator left beside its report, made into the
// window's raw files once it has ended (formats are Go's, so this is not
// bash's work):
//
//	record window OUT --cpus LIST
//	    OUT.time (its CPU time, loadrun's) into OUT's .loadgen.json; a
//	    measured window's OUT.db (oha's store of every answer) and
//	    OUT.start (when oha started) into OUT's .latency.jsonl; the three
//	    scratch files removed; oha's own "Storing results to" line dropped
//	    from OUT.stderr, and OUT.stderr removed when nothing is left in it.
//	    Exit 1 when the CPU time could not be recorded (the window then
//	    fails); a timeline that cannot be written is one line on stderr,
//	    and the window stands.

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"stacklab/formats/latencyline"
)

func windowCmd(out string, args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("record window", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	cpus := fl.String("cpus", "", "the CPUs the generator was pinned to")
	if err := fl.Parse(args); err != nil || *cpus == "" {
		fmt.Fprintln(stderr, "record window: want OUT --cpus LIST")
		return 2
	}
	base := strings.TrimSuffix(out, ".json")
	code := 0
	if err := loadgen(base+".loadgen.json", []string{"--time", out + ".time", "--cpus", *cpus}); err != nil {
		fmt.Fprintln(stderr, "record window:", err)
		code = 1
	}
	os.Remove(out + ".time")
	if b, err := os.ReadFile(out + ".start"); err == nil {
		if st, err := os.Stat(out + ".db"); err == nil && st.Size() > 0 {
			if err := ohaTimeline(base+".latency.jsonl", out+".db", strings.TrimSpace(string(b))); err != nil {
				fmt.Fprintf(stderr, "bench: %s: its latency timeline could not be written: %v\n", out, err)
			}
		}
		os.Remove(out + ".db")
		os.Remove(out + ".start")
	}
	dropStoring(out + ".stderr")
	return code
}

// ohaTimeline writes a window's latency timeline from oha's store of its
// answers, started at start (unix ns, as text: timelineOf checks it).
func ohaTimeline(path, db, start string) error {
	t, err := timelineOf([]string{"--oha-db", db, "--start-unix-ns", start})
	if err != nil {
		return err
	}
	return latencyline.WriteFile(path, t)
}

// dropStoring removes oha's "Storing results to" lines from its stderr
// file (where it stored the answers, said on every measured window),
// and the file when nothing else is in it: an error is what remains.
func dropStoring(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var keep [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 && !bytes.HasPrefix(l, []byte("Storing results to ")) {
			keep = append(keep, l)
		}
	}
	rest := bytes.Join(keep, nil)
	if len(rest) == 0 {
		os.Remove(path)
		return
	}
	if len(rest) != len(b) {
		_ = os.WriteFile(path, rest, 0o644)
	}
}
