// Package quietlog is the quiet gate's two files and their verdict: a
// run's waits (`quiet wait --out`, the gate file) and the watch's report
// over the run (`quiet watch --out`), which the bench records as the
// run's evidence in the manifest. bench/quiet writes them; the `quiet
// verdict` command and the bench's redo rule (bench/plan) read them back
// here, so both say the same words.
package quietlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"stacklab/formats/rawfile"
)

// Process is one process outside the lab and the CPU it used over a
// window, on average (1.0 = one whole CPU).
type Process struct {
	PID      int     `json:"pid"`
	Comm     string  `json:"comm"`
	CPUShare float64 `json:"cpu_share"`
}

// Wait is one wait of the gate, as `quiet wait --out` records it: the
// bench waits before a run and again after an image it builds inside one,
// and a wait that timed out is the evidence that the run began on a busy
// host (the watch excludes the lab's own processes; the load cannot).
type Wait struct {
	At            string    `json:"at"` // what the wait came before, in the bench's words
	Quiet         bool      `json:"quiet"`
	Load          float64   `json:"load"` // the threshold
	ForS          float64   `json:"for_s"`
	TimeoutS      float64   `json:"timeout_s"`
	WaitedS       float64   `json:"waited_s"`
	Load1         float64   `json:"load1"` // when the wait ended
	LongestQuietS float64   `json:"longest_quiet_s"`
	Interrupted   bool      `json:"interrupted,omitempty"`
	Busiest       []Process `json:"busiest,omitempty"` // outside the lab, when it timed out
}

// Gate is what `quiet wait --out FILE` keeps in FILE: every wait of one
// run so far and their verdict, the same "quiet" and "why" a watch report
// has, so the bench can record it as the run's evidence before the watch
// ends.
type Gate struct {
	Quiet bool     `json:"quiet"`
	Why   []string `json:"why,omitempty"`
	Waits []Wait   `json:"waits"`
}

// Report is what `quiet watch` writes to --out: a run's quiet-host
// evidence (the manifest keeps it whole). Evidence written before the gate
// recorded its waits has no "why" and no "waits"; a gate file read as a
// report, which is what the manifest holds while a run is measured, has no
// "share", so Share is nil there (the watch always writes it), and
// analysis can tell it from a share of 0. The verdict and the reasons read
// a missing share as 0.
type Report struct {
	Quiet   bool      `json:"quiet"`
	Why     []string  `json:"why,omitempty"`
	Waits   []Wait    `json:"waits,omitempty"`
	Share   *float64  `json:"share"` // the most of a CPU a process outside the lab may use
	WindowS float64   `json:"window_s"`
	Load1   []float64 `json:"load1"`
	Busiest []Process `json:"busiest"`
}

// share is r's threshold, 0 when r does not say.
func (r Report) share() float64 {
	if r.Share == nil {
		return 0
	}
	return *r.Share
}

// waitReason says why w did not let the run start on a quiet host, "" when it did.
func waitReason(w Wait) string {
	if w.Quiet {
		return ""
	}
	how := fmt.Sprintf("the gate waited %s and went on", secs(w.WaitedS))
	if w.Interrupted {
		how = fmt.Sprintf("the gate's wait was interrupted after %s", secs(w.WaitedS))
	}
	if w.Load1 >= w.Load {
		return fmt.Sprintf("load1 %.2f ≥ %.1f %s (%s)", w.Load1, w.Load, w.At, how)
	}
	return fmt.Sprintf("load1 under %.1f for only %s of %s %s (%s)", w.Load, secs(w.LongestQuietS), secs(w.ForS), w.At, how)
}

// processReasons names each process outside the lab over share.
func processReasons(busiest []Process, share, windowS float64) []string {
	var why []string
	for _, u := range busiest {
		if u.CPUShare > share {
			why = append(why, fmt.Sprintf("%s (pid %d) outside the lab used %.2f CPU > %.2f over the %s run", u.Comm, u.PID, u.CPUShare, share, secs(windowS)))
		}
	}
	return why
}

// Judge sets r's verdict from everything it holds: a run is quiet only
// when every wait of the gate held and no process outside the lab used
// more than r.Share of a CPU over the window. Why lists the reasons in
// that order; gateErr, when the bench asked for the gate's record and it
// could not be read, comes first.
func (r *Report) Judge(gateErr error) {
	r.Why = nil
	if gateErr != nil {
		r.Why = append(r.Why, "no record of the gate's wait ("+gateErr.Error()+")")
	}
	for _, w := range r.Waits {
		if why := waitReason(w); why != "" {
			r.Why = append(r.Why, why)
		}
	}
	r.Why = append(r.Why, processReasons(r.Busiest, r.share(), r.WindowS)...)
	r.Quiet = len(r.Why) == 0
}

// Judge sets g's verdict from its waits.
func (g *Gate) Judge() {
	g.Why = nil
	for _, w := range g.Waits {
		if why := waitReason(w); why != "" {
			g.Why = append(g.Why, why)
		}
	}
	g.Quiet = len(g.Why) == 0
}

// Verdict is r's verdict line: "quiet: YES over …" or "quiet: NO over …:
// why", and for a gate file read as a report (no window yet) "quiet: YES
// so far" or "quiet: NO: why".
func (r Report) Verdict() string {
	if r.Quiet {
		top := "nothing"
		if len(r.Busiest) > 0 {
			top = fmt.Sprintf("%s (pid %d) at %.2f CPU", r.Busiest[0].Comm, r.Busiest[0].PID, r.Busiest[0].CPUShare)
		}
		gate := ""
		if n := len(r.Waits); n > 0 {
			gate = fmt.Sprintf("the gate's %d wait(s) held; ", n)
		}
		if r.WindowS == 0 {
			// a wait's --out file, before any watch
			return "quiet: YES so far: " + strings.TrimSuffix(gate, "; ")
		}
		return fmt.Sprintf("quiet: YES over %.1f s: %sno process outside the lab used more than %.2f CPU (busiest: %s)", r.WindowS, gate, r.share(), top)
	}
	if r.WindowS == 0 {
		return "quiet: NO: " + strings.Join(r.Why, "; ")
	}
	return fmt.Sprintf("quiet: NO over %.1f s: %s", r.WindowS, strings.Join(r.Why, "; "))
}

// Read reads a watch's report (or a gate file, which has the same verdict
// fields) back for its verdict. Evidence from before the gate recorded its
// reasons that says not quiet gets them from its processes.
func Read(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: not a quiet watch report: %v", path, err)
	}
	if !r.Quiet && len(r.Why) == 0 {
		r.Why = processReasons(r.Busiest, r.share(), r.WindowS)
	}
	return r, nil
}

// ReadGate reads a gate file; a missing one is an error the caller words.
func ReadGate(path string) (Gate, error) {
	var g Gate
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return g, fmt.Errorf("%s is missing", filepath.Base(path))
		}
		return g, err
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return g, fmt.Errorf("%s is not a quiet wait file: %v", filepath.Base(path), err)
	}
	return g, nil
}

// AppendWait adds w to the gate file at path (creating it), re-judged, and
// replaces the file whole, so a reader never sees half of it.
func AppendWait(path string, w Wait) error {
	var g Gate
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &g); err != nil {
			return fmt.Errorf("%s is not a quiet wait file: %v", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	g.Waits = append(g.Waits, w)
	g.Judge()
	if b, err = json.Marshal(g); err != nil {
		return err
	}
	return rawfile.Write(path, append(b, '\n'))
}

// secs writes a duration in whole seconds ("60 s"), or tenths under 10 s.
func secs(s float64) string {
	if s < 10 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", s), ".0") + " s"
	}
	return fmt.Sprintf("%.0f s", s)
}
