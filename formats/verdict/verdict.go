// Package verdict is the record of what verify found before a run's numbers
// counted: each row's docs/app.md checks in each run (how many passed, the first
// failure, how many distinct SQLite connections answered /bench/pragmas
// under the write load) and the parity of the rows' answers. bench/verify
// writes one Row per row and run (raw/run-N/<row>/verify.verdict.json, its parity snapshot beside it) and gathers
// them with the parity into the run's raw/verify.json; the summary's header
// reads that file. A folder without it was measured before verify kept a
// record, and its summary says nothing about it.
package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RowFile is one row's record in one run, beside its verify.txt, and
// SnapshotFile its parity snapshot (bench/verify's format). Dotted names,
// which no case's window file (<case>.json) can take.
const (
	RowFile      = "verify.verdict.json"
	SnapshotFile = "verify.parity.json"
)

// RunFile is the run's record, under the results folder.
const RunFile = "raw/verify.json"

// Format is the version of both files.
const Format = 1

// Row is verify's outcome on one row in one run.
type Row struct {
	Format int    `json:"format"`
	Run    int    `json:"run,omitempty"` // set when gathered
	Row    string `json:"row"`
	Pass   bool   `json:"pass"`
	Checks int    `json:"checks"`
	// Failed names the checks that failed; First is the first failure as
	// verify's verdict line gives it.
	Failed []string `json:"failed,omitempty"`
	First  string   `json:"first,omitempty"`
	// Connections counts the distinct connection ids /bench/pragmas named
	// while the write load held connections; Wrong lists those whose
	// settings differed from docs/app.md's.
	Connections int      `json:"connections"`
	Wrong       []string `json:"wrong,omitempty"`
}

// Parity is the comparison of the rows' normalised answers within a run.
type Parity struct {
	Run       int      `json:"run"`
	Reference string   `json:"reference"`
	Rows      []string `json:"rows"`
	// Answers is how many answers each row's snapshot holds; Identical and
	// Mismatched count the answers of the other rows against the
	// reference's.
	Answers    int `json:"answers"`
	Identical  int `json:"identical"`
	Mismatched int `json:"mismatched"`
	// First is the first difference, both answers in full.
	First string `json:"first,omitempty"`
}

// Record is a run's raw/verify.json.
type Record struct {
	Format int      `json:"format"`
	Rows   []Row    `json:"rows"`
	Parity []Parity `json:"parity"`
}

// Write writes v as indented JSON.
func Write(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadRow reads one row's record.
func ReadRow(path string) (*Row, error) {
	var r Row
	if err := read(path, &r); err != nil {
		return nil, err
	}
	if r.Format != Format || r.Row == "" {
		return nil, fmt.Errorf("%s: not a verify row record (format %d, row %q)", path, r.Format, r.Row)
	}
	return &r, nil
}

// Read reads a results folder's record; nil, nil when it has none.
func Read(dir string) (*Record, error) {
	var r Record
	err := read(filepath.Join(dir, RunFile), &r)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%s: format %d, want %d", filepath.Join(dir, RunFile), r.Format, Format)
	}
	return &r, nil
}

func read(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// Header is the summary's one line: "verify: 9/9 PASS, parity: 184
// identical", or which rows failed and why, and the first difference.
// A row passes when it passed in every run.
func (r *Record) Header() string {
	var names []string
	failed := map[string]Row{}
	for _, row := range r.Rows {
		if !slices.Contains(names, row.Row) {
			names = append(names, row.Row)
		}
		if _, seen := failed[row.Row]; !row.Pass && !seen {
			failed[row.Row] = row
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verify: %d/%d PASS", len(names)-len(failed), len(names))
	var why []string
	for _, n := range names {
		if f, ok := failed[n]; ok {
			why = append(why, fmt.Sprintf("%s FAIL in run %d: %s", n, f.Run, f.First))
		}
	}
	if len(why) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(why, "; "))
	}
	identical, mismatched, first := 0, 0, ""
	for _, p := range r.Parity {
		identical += p.Identical
		mismatched += p.Mismatched
		if first == "" && p.First != "" {
			first = fmt.Sprintf("run %d: %s", p.Run, p.First)
		}
	}
	switch {
	case len(r.Parity) == 0:
		b.WriteString(", parity: not compared (fewer than two rows with a snapshot)")
	case mismatched == 0:
		fmt.Fprintf(&b, ", parity: %d identical", identical)
	default:
		fmt.Fprintf(&b, ", parity: %d identical, %d mismatched; first: %s", identical, mismatched, first)
	}
	return b.String()
}
