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
