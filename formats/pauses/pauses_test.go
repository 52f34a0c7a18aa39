package pauses

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The JVM's GC lines (the real -Xlog:gc:stdout:utctime format, captured
// from openjdk 17 here) become pauses that begin their length before the
// stamp; the app's own lines are dropped.
func TestParseJVM(t *testing.T) {
	f, err := os.Open("testdata/jvm.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, jit, err := ParseJVM(f)
	if err != nil || len(ps) != 3 || jit != nil {
		t.Fatalf("%d pauses, %v; want 3", len(ps), err)
	}
	full := ps[2]
	if full.What != "GC(2) Pause Full (Ergonomics)" || full.Ms != 212.772 {
		t.Errorf("full GC %+v", full)
	}
	// 21:59:53.631 less 212.772 ms
	if got, want := full.AtUnixNs, int64(1796162393631000000-212772000); got != want {
		t.Errorf("began at %d, want %d", got, want)
	}
	if d := During(ps, full.AtUnixNs+1e6, full.AtUnixNs+2e6); len(d) != 1 || d[0].Ms != 212.772 {
		t.Errorf("During: %+v", d)
	}
}

// The bench reads every runtime's log with the engine's stamps before its
// lines (docker logs --timestamps): the JVM's own stamps still time them.
func TestParseJVMUnderDockerStamps(t *testing.T) {
	b, err := os.ReadFile("testdata/jvm.log")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := ParseJVM(bytes.NewReader(b))
	var stamped strings.Builder
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			stamped.WriteString("2026-12-01T22:00:00.123456789Z " + l)
		}
	}
	ps, _, err := ParseJVM(strings.NewReader(stamped.String()))
	if err != nil || len(ps) != len(plain) || len(ps) == 0 || ps[len(ps)-1] != plain[len(plain)-1] {
		t.Errorf("stamped: %+v (%v), plain: %+v", ps, err, plain)
	}
}

// The JIT's lines (the real -Xlog:jit+compilation=debug format, captured
// from openjdk 17 here, beside GC lines) are counted: every compilation,
// those at the top tier, and compiled code thrown away.
func TestParseJVMJIT(t *testing.T) {
	f, err := os.Open("testdata/jvm-jit.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, jit, err := ParseJVM(f)
	if err != nil || len(ps) != 3 {
		t.Fatalf("%d pauses, %v; want 3", len(ps), err)
	}
	if jit == nil || *jit != (JIT{Compiled: 12, TopTier: 1, NotEntrant: 2}) {
		t.Errorf("jit %+v, want 12 compiled, 1 at the top tier, 2 made not entrant", jit)
	}
}

// Go's gctrace lines (the real GODEBUG=gctrace=1 format, captured here
// from go-nethttp's container with `docker logs --timestamps`, beside the
// app's own lines) become two stops per collection, the mark termination's
// ending at the engine's stamp; a line without a stamp is not read.
func TestParseGo(t *testing.T) {
	f, err := os.Open("testdata/go.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := ParseGo(f)
	if err != nil || len(ps) == 0 || len(ps)%2 != 0 {
		t.Fatalf("%d pauses, %v; want two per collection", len(ps), err)
	}
	sweep, mark := ps[0], ps[1]
	if !strings.HasSuffix(sweep.What, ") sweep termination") || !strings.HasSuffix(mark.What, ") mark termination") ||
		strings.TrimSuffix(sweep.What, " sweep termination") != strings.TrimSuffix(mark.What, " mark termination") {
		t.Errorf("one collection's stops: %+v, %+v", sweep, mark)
	}
	if sweep.EndUnixNs() > mark.AtUnixNs || sweep.Ms <= 0 || mark.Ms <= 0 {
		t.Errorf("the sweep termination must end before the mark termination begins: %+v, %+v", sweep, mark)
	}
	// a line whose stamp is gone, then one with its own
	line := "gc 7 @1.500s 1%: 0.020+3.0+0.50 ms clock, 0.040+0.1/0.2/0.3+0.008 ms cpu, 4->4->1 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 1 P"
	ps, _ = ParseGo(strings.NewReader(line + "\n2026-12-03T10:00:00.000000000Z " + line + "\n"))
	if len(ps) != 2 || ps[1].EndUnixNs() != 1796292000000000000 || ps[0].AtUnixNs != 1796292000000000000-int64(3.52e6) {
		t.Errorf("from one stamped line: %+v", ps)
	}
}

// testdata/ruby.log is ruby-rails's own log under load (LAB_GC_LOG=1,
// docker logs --timestamps): Puma's lines, the app's, and the GC log's.
func TestParseRuby(t *testing.T) {
	f, err := os.Open("testdata/ruby.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := ParseRuby(f)
	if err != nil || len(ps) < 2 {
		t.Fatalf("%d pauses, %v; want one per lab-gc line", len(ps), err)
	}
	for i, p := range ps {
		if p.Ms < 0 || !strings.HasPrefix(p.What, "GC(") || (i > 0 && !strings.HasSuffix(p.What, "minor") && !strings.HasSuffix(p.What, "major")) {
			t.Errorf("pause %d: %+v", i, p)
		}
	}
	// two processes (a cluster's workers) counted apart; a line without a
	// stamp, and one whose counts are not numbers, are not pauses
	log := "lab-gc pid=7 count=3 minor=2 major=1 ms=1.000\n" +
		"2026-12-03T10:00:00.000000000Z lab-gc pid=7 count=3 minor=2 major=1 ms=1.500\n" +
		"2026-12-03T10:00:01.000000000Z lab-gc pid=8 count=9 minor=8 major=1 ms=0.250\n" +
		"2026-12-03T10:00:02.000000000Z lab-gc pid=7 count=6 minor=4 major=2 ms=40.000\n" +
		"2026-12-03T10:00:03.000000000Z lab-gc pid=7 count=x minor=4 major=2 ms=1.000\n"
	ps, err = ParseRuby(strings.NewReader(log))
	want := []Pause{
		{AtUnixNs: 1796292000000000000 - 1500000, Ms: 1.5, What: "GC(3)"},
		{AtUnixNs: 1796292001000000000 - 250000, Ms: 0.25, What: "GC(9)"},
		{AtUnixNs: 1796292002000000000 - 40000000, Ms: 40, What: "GC(4-6) major"},
	}
	if err != nil || len(ps) != len(want) {
		t.Fatalf("got %+v, %v; want %+v", ps, err, want)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("pause %d: got %+v, want %+v", i, ps[i], want[i])
		}
	}
}

func TestRoundTripAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	ps := []Pause{{AtUnixNs: 1796162393418228000, Ms: 212.772, What: "GC(2) Pause Full (Ergonomics)"}}
	var b bytes.Buffer
	if err := Write(&b, "jvm", &JIT{Compiled: 12, TopTier: 1, NotEntrant: 2}, ps); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "up.pauses.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h, got, err := Read(p)
	if err != nil || h.Runtime != "jvm" || len(got) != 1 || got[0] != ps[0] || h.JIT == nil || *h.JIT != (JIT{12, 1, 2}) {
		t.Fatalf("read %+v %+v %v", h, got, err)
	}
	if err := os.WriteFile(p, append(b.Bytes(), []byte("{\"at_unix_ns\":1,\"ms\":\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(p); err == nil || !strings.Contains(err.Error(), "up.pauses.jsonl:3: corrupt pause line") {
		t.Errorf("corrupt line: %v", err)
	}
}
