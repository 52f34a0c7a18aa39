package manifest

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Quiet is a run's quiet-host evidence (Run.Quiet), as bench/quiet writes
// it: the gate's verdict and its reasons, the waits before and during the
// run, and the watch over the run. Every field is optional: evidence
// recorded before the gate kept its waits has no Why and no Waits, and a
// run still being measured may hold only its waits so far.
type Quiet struct {
	Quiet   bool           `json:"quiet"`
	Why     []string       `json:"why"`
	Waits   []QuietWait    `json:"waits"`
	Share   *float64       `json:"share"`
	WindowS float64        `json:"window_s"`
	Load1   []float64      `json:"load1"`
	Busiest []QuietProcess `json:"busiest"`
}

// QuietWait is one wait of the gate for a 1-minute load under Load.
type QuietWait struct {
	At            string  `json:"at"`
	Quiet         bool    `json:"quiet"`
	Load          float64 `json:"load"`
	ForS          float64 `json:"for_s"`
	TimeoutS      float64 `json:"timeout_s"`
	WaitedS       float64 `json:"waited_s"`
	Load1         float64 `json:"load1"`
	LongestQuietS float64 `json:"longest_quiet_s"`
	Interrupted   bool    `json:"interrupted"`
}

// QuietProcess is one of the busiest processes outside the lab.
type QuietProcess struct {
	PID      int     `json:"pid"`
	Comm     string  `json:"comm"`
	CPUShare float64 `json:"cpu_share"`
}

// ParseQuiet reads a run's evidence; nil when the run has none.
func ParseQuiet(raw json.RawMessage) (*Quiet, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var q Quiet
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("quiet evidence is not the quiet probe's: %v", err)
	}
	return &q, nil
}

// NotQuiet says why the run whose evidence this is was not measured on a
// quiet host; empty when it was. Evidence that states its reasons is taken
// at its word. Older evidence is read by what it holds: a process over the
// share, and a watch that began at a 1-minute load of maxLoad or more
// (the host profile's QUIET_LOAD; 0: unknown): the watch starts right
// after the gate's wait, which then went unrecorded, and a wait that held
// ends under maxLoad, so that wait had given up and the bench went on.
func (q *Quiet) NotQuiet(maxLoad float64) []string {
	if q == nil {
		return nil
	}
	if len(q.Why) > 0 || len(q.Waits) > 0 {
		if q.Quiet {
			return nil
		}
		if len(q.Why) == 0 {
			return []string{"the gate said not quiet without a reason"}
		}
		return q.Why
	}
	var why []string
	if maxLoad > 0 && len(q.Load1) > 0 && q.Load1[0] >= maxLoad {
		why = append(why, fmt.Sprintf("load1 %.2f ≥ %.1f when the run began (its gate's wait cannot have held; this manifest does not record it)", q.Load1[0], maxLoad))
	}
	if q.Share != nil {
		for _, p := range q.Busiest {
			if p.CPUShare > *q.Share {
				why = append(why, fmt.Sprintf("%s (pid %d) outside the lab used %.2f CPU > %.2f over the %.0f s run", p.Comm, p.PID, p.CPUShare, *q.Share, q.WindowS))
			}
		}
	}
	if len(why) == 0 && !q.Quiet {
		why = append(why, "the quiet watch said not quiet")
	}
	return why
}

// QuietLoad is the host profile's load threshold (QUIET_LOAD), 0 when it
// does not say.
func (h Host) QuietLoad() float64 {
	v, err := strconv.ParseFloat(h.Settings["QUIET_LOAD"], 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}
