// Package verdict judges a run's CPU-speed canary as the run ends: every
// <row>/<window>.canary.jsonl of the run's raw folder against the run's
// medians (formats/speed), in the words the bench shows and keeps as the
// evidence of the rows it measures again. The `canary verdict` command
// and the bench's redo rule (bench/plan) both ask it.
package verdict

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"stacklab/formats/rawfile"
	"stacklab/formats/speed"
)

// Verdict is what a run's canary readings say.
type Verdict struct {
	Threshold float64  // the share a reading may be off its run's median
	Windows   int      // the windows judged
	Contended int      // app-CPU readings left out: the app was busy during them
	Flagged   []string // each flagged window with its reading, "rust-axum page (after app +30%)"
	Rows      []string // the rows with a flagged window, in the order first flagged
}

// Judge reads every canary file of the run folder run (raw/run-N) and
// judges their readings against threshold. A file that cannot be read is
// an error naming it (formats/speed's line).
func Judge(run string, threshold float64) (Verdict, error) {
	v := Verdict{Threshold: threshold}
	files, err := filepath.Glob(filepath.Join(run, "*", "*.canary.jsonl"))
	if err != nil {
		return v, err
	}
	windows := map[string][]speed.Reading{}
	var names []string
	for _, f := range files {
		rs, err := speed.ReadFile(f)
		if err != nil {
			return v, err
		}
		n := filepath.Base(filepath.Dir(f)) + " " + strings.TrimSuffix(filepath.Base(f), ".canary.jsonl")
		windows[n], names = rs, append(names, n)
	}
	flags, _ := speed.Judge(windows, names, threshold)
	v.Windows = len(flags)
	for _, f := range flags {
		v.Contended += f.Contended
		if f.Flagged {
			v.Flagged = append(v.Flagged, fmt.Sprintf("%s (%s %+.0f%%)", f.Window, f.Reading, 100*f.Off))
			if row, _, _ := strings.Cut(f.Window, " "); !slices.Contains(v.Rows, row) {
				v.Rows = append(v.Rows, row)
			}
		}
	}
	return v, nil
}

// Reason says why the run's flagged windows do not stand; with again,
// that their rows are measured again at the run's end. "" when none was
// flagged.
func (v Verdict) Reason(again bool) string {
	if len(v.Flagged) == 0 {
		return ""
	}
	r := fmt.Sprintf("the CPU-speed canary was more than %.0f%% off the run's median around %d of %d windows: %s", 100*v.Threshold, len(v.Flagged), v.Windows, strings.Join(v.Flagged, ", "))
	if again {
		r += "; measured again at the run's end: " + strings.Join(v.Rows, ", ")
	}
	return r
}

// Line is the verdict in one line, "canary: …": the reason when a window
// was flagged, else how many windows stood.
func (v Verdict) Line(again bool) string {
	if len(v.Flagged) == 0 {
		return fmt.Sprintf("canary: %d windows, none more than %.0f%% off the run's median%s", v.Windows, 100*v.Threshold, contendedNote(v.Contended))
	}
	return "canary: " + v.Reason(again)
}

// Write keeps a flagged run's evidence: {"reason": …, "rows": […]} in
// out, which the manifest keeps among the run's discarded attempts, and,
// when rows is not "", the rows to measure again there, one a line (the
// reason then says they are). Nothing is written when no window was
// flagged.
func (v Verdict) Write(out, rows string) error {
	if len(v.Flagged) == 0 {
		return nil
	}
	again := rows != ""
	if again {
		if err := rawfile.Write(rows, []byte(strings.Join(v.Rows, "\n")+"\n")); err != nil {
			return err
		}
	}
	ev := struct {
		Reason string   `json:"reason"`
		Rows   []string `json:"rows,omitempty"`
	}{v.Reason(again), v.Rows}
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return rawfile.Write(out, append(b, '\n'))
}

// contendedNote says how many readings were left out because the app was
// busy on its CPUs while they ran.
func contendedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d app-CPU readings left out: the app itself used over %.0f%% of the CPU during them)", n, 100*speed.Contended)
}
