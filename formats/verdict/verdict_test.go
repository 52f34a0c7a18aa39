package verdict

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHeader(t *testing.T) {
	pass := func(row string) Row {
		return Row{Format: Format, Run: 1, Row: row, Pass: true, Checks: 10, Connections: 4}
	}
	r := &Record{Format: Format, Rows: []Row{pass("a"), pass("b")},
		Parity: []Parity{{Run: 1, Reference: "a", Rows: []string{"a", "b"}, Answers: 23, Identical: 23}}}
	if got, want := r.Header(), "verify: 2/2 PASS, parity: 23 identical"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	bad := pass("b")
	bad.Run, bad.Pass, bad.Failed, bad.First = 2, false, []string{"pragmas"}, "pragmas: expected …, got 3 of 4 connections at other settings: 0x1 (…)"
	r.Rows = append(r.Rows, pass("a"), bad)
	r.Parity = append(r.Parity, Parity{Run: 2, Reference: "a", Rows: []string{"a", "b"}, Answers: 23, Identical: 22, Mismatched: 1, First: "b differs from a at GET /json.body: …"})
	want := "verify: 1/2 PASS (b FAIL in run 2: pragmas: expected …, got 3 of 4 connections at other settings: 0x1 (…)), parity: 45 identical, 1 mismatched; first: run 2: b differs from a at GET /json.body: …"
	if got := r.Header(); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	if r, err := Read(dir); r != nil || err != nil {
		t.Fatalf("a folder without a record: want nil, nil, got %v, %v", r, err)
	}
	os.MkdirAll(filepath.Join(dir, "raw"), 0o755)
	in := Record{Format: Format, Rows: []Row{{Format: Format, Run: 1, Row: "a", Pass: true, Checks: 10, Connections: 1}}, Parity: []Parity{}}
	if err := Write(filepath.Join(dir, RunFile), in); err != nil {
		t.Fatal(err)
	}
	out, err := Read(dir)
	if err != nil || out.Header() != "verify: 1/1 PASS, parity: not compared (fewer than two rows with a snapshot)" {
		t.Fatalf("got %v %v", out, err)
	}
	os.WriteFile(filepath.Join(dir, RunFile), []byte(`{"format":1,"rows":[],"parity":[],"extra":1}`), 0o644)
	if _, err := Read(dir); err == nil {
		t.Fatal("an unknown key must be an error")
	}
}
