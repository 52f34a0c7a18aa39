package manifest

import (
	"encoding/json"
	"fmt"
	"strconv"

	"stacklab/formats/quietlog"
)

// ParseQuiet reads a run's quiet-host evidence (Run.Quiet), which the
// manifest keeps whole in formats/quietlog's format: the watch's report,
// or while a run is measured the gate's waits so far. Every field may be
// missing: evidence recorded before the gate kept its waits has no Why and
// no Waits, and a gate file has no Share. Nil when the run has none.
func ParseQuiet(raw json.RawMessage) (*quietlog.Report, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var q quietlog.Report
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("quiet evidence is not the quiet probe's: %v", err)
	}
	return &q, nil
}

// NotQuiet says why the run whose evidence q is was not measured on a
// quiet host; empty when it was. Evidence that states its reasons is taken
// at its word. Older evidence is read by what it holds: a process over the
// share, and a watch that began at a 1-minute load of maxLoad or more
// (the host profile's QUIET_LOAD; 0: unknown): the watch starts right
// after the gate's wait, which then went unrecorded, and a wait that held
// ends under maxLoad, so that wait had given up and the bench went on.
//
// These rules stay here rather than beside the format because they are the
// analysis's judgement of committed runs, not what the evidence says: the
// load rule infers a wait the evidence does not record, from the host
// profile the manifest keeps, and the words are the summaries' (a window
// always in whole seconds), not those of quietlog's verdict for the bench.
func NotQuiet(q *quietlog.Report, maxLoad float64) []string {
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
