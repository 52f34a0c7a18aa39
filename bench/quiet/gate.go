package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"stacklab/formats/rawfile"
)

// waitReport is one wait of the gate, as `quiet wait --out` records it: the
// bench waits before a run and again after an image it builds inside one,
// and a wait that timed out is the evidence that the run began on a busy
// host (the watch excludes the lab's own processes; the load cannot).
type waitReport struct {
	At            string  `json:"at"` // what the wait came before, in the bench's words
	Quiet         bool    `json:"quiet"`
	Load          float64 `json:"load"` // the threshold
	ForS          float64 `json:"for_s"`
	TimeoutS      float64 `json:"timeout_s"`
	WaitedS       float64 `json:"waited_s"`
	Load1         float64 `json:"load1"` // when the wait ended
	LongestQuietS float64 `json:"longest_quiet_s"`
	Interrupted   bool    `json:"interrupted,omitempty"`
	Busiest       []usage `json:"busiest,omitempty"` // outside the lab, when it timed out
}

// gateFile is what `quiet wait --out FILE` keeps in FILE: every wait of one
// run so far and their verdict, the same "quiet" and "why" a watch report
// has, so the bench can record it as the run's evidence before the watch
// ends.
type gateFile struct {
	Quiet bool         `json:"quiet"`
	Why   []string     `json:"why,omitempty"`
	Waits []waitReport `json:"waits"`
}

// waitReason says why w did not let the run start on a quiet host, "" when it did.
func waitReason(w waitReport) string {
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
func processReasons(busiest []usage, share, windowS float64) []string {
	var why []string
	for _, u := range busiest {
		if u.CPUShare > share {
			why = append(why, fmt.Sprintf("%s (pid %d) outside the lab used %.2f CPU > %.2f over the %s run", u.Comm, u.PID, u.CPUShare, share, secs(windowS)))
		}
	}
	return why
}

// judge sets r's verdict from everything it holds: a run is quiet only when
// every wait of the gate held and no process outside the lab used more than
// r.Share of a CPU over the window. Why lists the reasons in that order.
func judge(r *watchReport, gateErr error) {
	r.Why = nil
	if gateErr != nil {
		r.Why = append(r.Why, "no record of the gate's wait ("+gateErr.Error()+")")
	}
	for _, w := range r.Waits {
		if why := waitReason(w); why != "" {
			r.Why = append(r.Why, why)
		}
	}
	r.Why = append(r.Why, processReasons(r.Busiest, r.Share, r.WindowS)...)
	r.Quiet = len(r.Why) == 0
}

func (g *gateFile) judge() {
	g.Why = nil
	for _, w := range g.Waits {
		if why := waitReason(w); why != "" {
			g.Why = append(g.Why, why)
		}
	}
	g.Quiet = len(g.Why) == 0
}

// readGate reads a gate file; a missing one is an error the caller words.
func readGate(path string) (gateFile, error) {
	var g gateFile
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

// appendWait adds w to the gate file at path (creating it), re-judged, and
// replaces the file whole, so a reader never sees half of it.
func appendWait(path string, w waitReport) error {
	var g gateFile
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
	g.judge()
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

func durS(d time.Duration) float64 { return round(d.Seconds(), 1) }
