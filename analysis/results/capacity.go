package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"stacklab/formats/settlelog"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/ramp"
	"stacklab/formats/hiccuplog"
	"stacklab/formats/k6summary"
	"stacklab/formats/latencyline"
	"stacklab/formats/pauses"
	"stacklab/formats/timeline"
	"stacklab/formats/uplog"
	"stacklab/formats/vegeta"
)

// A capacity case's window is a folder of steps (docs/results.md):
//
//	raw/run-N/<stack>/<case>/step-NN.target.json   the planned rate and length (record step)
//	raw/run-N/<stack>/<case>/step-NN.json          vegeta report -type=json, as written (lane main)
//	raw/run-N/<stack>/<case>/step-NN.loadgen.json  the generator's CPU use (lane main)
//	raw/run-N/<stack>/<case>/step-NN.LANE.json     the same for each other lane (study.Lane: wait100)
//	raw/run-N/<stack>/<case>/step-NN.LANE.loadgen.json
//	raw/run-N/<stack>/<case>/step-NN.cgroup.jsonl  the container's cgroup during the step
//	raw/run-N/<stack>/<case>/step-NN.latency.jsonl every request of the step, all lanes (package latencyline)
//	raw/run-N/<stack>/<case>/step-NN.hiccup-app.jsonl, .hiccup-loadgen.jsonl  the hiccup meters (formats/hiccuplog)
//	raw/run-N/<stack>/<case>/step-NN.settle.json   the cooldown before the step (bench/settle), after a failed one
//	raw/run-N/<stack>/<case>/step-NN.restart       the app did not settle and was restarted before the step
//	raw/run-N/<stack>/<case>/step-NN.pauses.jsonl  the runtime's own pauses during the step (package pauses)
//	raw/run-N/<stack>/<case>/step-NN.upstream.jsonl the mock upstream's own lateness during the step (formats/uplog)
//	raw/run-N/<stack>/<case>/step-NN.error         the bench could not measure the step

// Target is a step's plan, written by `record step` before it runs.
type Target struct {
	Step      int     `json:"step"`
	Rate      float64 `json:"rate"`
	DurationS float64 `json:"duration_s"`
	// LeadInS is how long the step's attack ran at the rate before its
	// window (the profile's lead_in_s), measured by nothing; 0 for steps
	// whose window began with the attack.
	LeadInS float64 `json:"lead_in_s,omitempty"`
	// RampRules is the version of the ramp's reading of a step the bench
	// ran with (ramp.Rules); 0 for steps recorded before it was kept,
	// which read as version 1.
	RampRules int `json:"ramp_rules,omitempty"`
}

// Step is one measured step of a capacity ramp.
type Step struct {
	Target Target
	// Lanes are the generator's reports, one per lane of the mix, "main"
	// first; empty when Failed, and in a users step.
	Lanes []LaneReport
	// Users is a users step's k6 summary (nil in a rate step, or when
	// Failed).
	Users  *k6summary.Step
	Failed string
	// Loadgen is the generator's CPU use over all lanes (they share its
	// CPUs); nil when a lane's was not measured.
	Loadgen *Loadgen
	// TimelinePath is the step's cgroup timeline, "" when absent; Cgroup
	// is what LoadSteps read of it (as a window's).
	TimelinePath string
	Cgroup       Cgroup
	RelPath      string
	// LatencyPath is the step's latency timeline (every lane, package
	// latencyline), "" when absent; Latency is it read, nil when absent,
	// and LatencyErr why it could not be.
	LatencyPath string
	Latency     *latencyline.Timeline
	LatencyErr  error
	// Hiccups are the hiccup meters' records of the step, the app's CPUs
	// first ("app", "loadgen"); empty for steps measured without them.
	Hiccups []hiccuplog.Log
	// Settle is the cooldown before the step (bench/settle), nil when
	// there was none; Restarted says the app did not settle and was
	// restarted before the step instead.
	Settle    *Settle
	Restarted string
	// Trimmed is the bench's record of the rows it deleted before the
	// step's warm-up and its window (step-NN.trim; ramp.Trims), "" when
	// the step ran on whatever rows the steps before it left.
	Trimmed string
	// Pauses are the runtime's own pauses during the step (package pauses).
	Pauses []pauses.Pause
	// Upstream is the mock upstream's own lateness during the step
	// (formats/uplog), nil when the step did not reach it or kept no record.
	Upstream *uplog.File
}

// Settle is bench/settle's record of a cooldown.
type Settle = settlelog.Result

// HostStall is the longest gap either hiccup meter saw during the step,
// and on whose CPUs ("app" or "loadgen"); 0 when none was recorded.
func (s *Step) HostStall() (time.Duration, string) {
	var most time.Duration
	on := ""
	for _, l := range s.Hiccups {
		if d := l.Max(); d > most {
			most, on = d, l.Header.Label
		}
	}
	return most, on
}

// hostCPU says how the host's account of the CPUs over the whole step
// (its cgroup timeline's first and last samples) shows the host took the
// app's CPU, by package ramp's thresholds; "" when it does not or cannot
// be read.
func (s *Step) hostCPU() string {
	c := &s.Cgroup
	if s.TimelinePath == "" || c.EndsErr != nil || !c.Several {
		return ""
	}
	switch kind, set, v := timeline.HostTook(c.First, c.Last, ramp.StealShare, ramp.OtherCPUs); kind {
	case "steal":
		return fmt.Sprintf("the hypervisor took %.0f%% of the %s CPUs' time during it", 100*v, set)
	case "other":
		return fmt.Sprintf("other work used %.2f of the app's CPUs during it", v)
	}
	return ""
}

// readHiccups reads base.hiccup-app.jsonl and base.hiccup-loadgen.jsonl
// where they exist. A log cut short (the meter killed) keeps the gaps it
// has; a corrupt one is an error naming its line.
func readHiccups(base string) ([]hiccuplog.Log, error) {
	var out []hiccuplog.Log
	for _, role := range []string{"app", "loadgen"} {
		p := base + ".hiccup-" + role + ".jsonl"
		if !exists(p) {
			continue
		}
		l, err := hiccuplog.Read(p)
		if err != nil && !errors.Is(err, hiccuplog.ErrTruncated) {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Samples is the step's cgroup timeline as LoadSteps read it (nil when
// there is none), with the rules of Window.Samples.
func (s *Step) Samples() ([]timeline.Sample, error) { return s.Cgroup.Samples, s.Cgroup.Err }

// LaneReport is one lane's vegeta report in a step.
type LaneReport struct {
	Lane   string
	Report *vegeta.Report
}

// Report is the lane's report (nil when the step has no such lane).
func (s *Step) Report(lane string) *vegeta.Report {
	for _, l := range s.Lanes {
		if l.Lane == lane {
			return l.Report
		}
	}
	return nil
}

// RampStep is the step as package ramp judges it.
func (s *Step) RampStep() ramp.Step {
	rs := ramp.Step{N: s.Target.Step, Rate: s.Target.Rate, DurationS: s.Target.DurationS, Reports: map[string]*vegeta.Report{}, Users: s.Users}
	for _, l := range s.Lanes {
		rs.Reports[l.Lane] = l.Report
	}
	if s.Loadgen != nil {
		rs.LoadgenKnown, rs.Saturated, rs.GeneratorShare = true, s.Loadgen.Saturated, s.Loadgen.Share()
	}
	d, on := s.HostStall()
	rs.HostStallMs, rs.HostStallOn = float64(d.Microseconds())/1e3, on
	rs.Restarted = s.Restarted != ""
	rs.HostCPU = s.hostCPU()
	if s.Latency != nil && s.LatencyErr == nil {
		rs.Slumps = s.Slumps(*s.Latency)
	}
	return rs
}

// Slumps are the step's stretches of answers under half its rate in lt,
// its latency timeline, as the ramp's rules the bench ran with read them:
// from version 2 on (ramp.Rules), a stretch from the window's first bucket
// is not one. Answers count as they complete, so a window that begins on
// an app already answering in 100 ms or more holds few of its own answers
// in its first buckets: the latency was high when it began, which is no
// stall of the window's.
func (s *Step) Slumps(lt latencyline.Timeline) []latencyline.Slump {
	sl := lt.Slumps(s.Target.Rate, int64(s.Target.DurationS*1e3))
	if s.Target.RampRules >= 2 && len(sl) > 0 && sl[0].AtMs == 0 {
		sl = sl[1:]
	}
	return sl
}

var (
	stepRe = regexp.MustCompile(`^step-(\d{2,3})\.target\.json$`)
	laneRe = regexp.MustCompile(`^step-(\d{2,3})\.(wait\d+)\.json$`)
)

// lanesOf lists, per step number, the lanes other than main found in dir.
func lanesOf(ents []os.DirEntry) map[int][]string {
	out := map[int][]string{}
	for _, e := range ents {
		if m := laneRe.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			out[n] = append(out[n], m[2])
		}
	}
	for n := range out {
		sort.Strings(out[n])
	}
	return out
}

// laneFile is a lane's file of a step: base.json for main, else base.LANE.json.
func laneFile(base, lane, ext string) string {
	if lane == "main" {
		return base + ext
	}
	return base + "." + lane + ext
}

// LoadSteps reads the steps in dir (a capacity window's folder), in order.
// A step whose report is missing is taken as not measured only when an
// .error says so; otherwise the folder is corrupt. A last step with a
// target and nothing else is one the bench was stopped in: it is left out.
func LoadSteps(dir string) ([]Step, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &Error{dir, "cannot read the capacity steps: " + err.Error()}
	}
	lanes := lanesOf(ents)
	var nums []int
	for _, e := range ents {
		if m := stepRe.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	var out []Step
	for i, n := range nums {
		if n != i+1 {
			return nil, &Error{dir, fmt.Sprintf("step %d is missing (steps are numbered from 1 without gaps)", i+1)}
		}
		base := filepath.Join(dir, fmt.Sprintf("step-%02d", n))
		s := Step{RelPath: base + ".json"}
		if _, err := optionalJSON("", base+".target.json", &s.Target); err != nil {
			return nil, err
		}
		if s.Target.Step != n || !(s.Target.Rate > 0) || !(s.Target.DurationS > 0) {
			return nil, &Error{base + ".target.json", fmt.Sprintf("want step %d with a rate and a duration above 0", n)}
		}
		if b, err := os.ReadFile(base + ".error"); err == nil {
			s.Failed = firstLine(string(b))
			if s.Failed == "" {
				s.Failed = "failed (empty .error file)"
			}
			out = append(out, s)
			continue
		}
		users := exists(base + ".k6.json")
		if _, err := os.Stat(base + ".json"); errors.Is(err, fs.ErrNotExist) && !users && i == len(nums)-1 {
			break // stopped mid-step: no verdict
		}
		if users {
			if err := s.readUsers(base); err != nil {
				return nil, err
			}
		} else if err := s.readLanes(base, lanes[n]); err != nil {
			return nil, err
		}
		if exists(base + ".cgroup.jsonl") {
			s.TimelinePath = base + ".cgroup.jsonl"
		}
		if exists(base + ".latency.jsonl") {
			s.LatencyPath = base + ".latency.jsonl"
		}
		if s.Hiccups, err = readHiccups(base); err != nil {
			return nil, err
		}
		var st Settle
		if ok, err := optionalJSON("", base+".settle.json", &st); err != nil {
			return nil, err
		} else if ok {
			s.Settle = &st
		}
		if s.Pauses, _, err = readPauses(base + ".pauses.jsonl"); err != nil {
			return nil, err
		}
		if s.Upstream, err = readUpstream(base + ".upstream.jsonl"); err != nil {
			return nil, err
		}
		if b, err := os.ReadFile(base + ".restart"); err == nil {
			s.Restarted = firstLine(string(b))
		}
		if b, err := os.ReadFile(base + ".trim"); err == nil {
			s.Trimmed = strings.TrimSpace(string(b))
		}
		out = append(out, s)
	}
	jobs := make([]func(), len(out))
	for i := range out {
		s := &out[i]
		jobs[i] = func() {
			s.Cgroup = readCgroup(s.TimelinePath)
			s.Latency, s.LatencyErr = readLatency(s.LatencyPath)
		}
	}
	parallel(jobs)
	return out, nil
}

// readLanes reads a rate step's vegeta reports, one a lane ("main" and
// others), and the generator's CPU over all of them.
func (s *Step) readLanes(base string, others []string) error {
	var sum Loadgen
	known := true
	for _, lane := range append([]string{"main"}, others...) {
		rep, err := vegeta.Read(laneFile(base, lane, ".json"))
		if err != nil {
			return err
		}
		s.Lanes = append(s.Lanes, LaneReport{lane, rep})
		lg := &Loadgen{}
		if ok, err := optionalJSON("", laneFile(base, lane, ".loadgen.json"), lg); err != nil {
			return err
		} else if !ok {
			known = false
		} else {
			sum.CPUs, sum.CPUSeconds, sum.WindowS = lg.CPUs, sum.CPUSeconds+lg.CPUSeconds, max(sum.WindowS, lg.WindowS)
		}
	}
	if known {
		// The lanes ran at once on the same CPUs: saturated when
		// together they used more than SaturatedShare of them.
		sum.Saturated = sum.Share() > SaturatedShare
		s.Loadgen = &sum
	}
	return nil
}

// readUsers reads a users step: k6's summary (step-NN.k6.json) and k6's
// CPU over the step (step-NN.loadgen.json, when measured).
func (s *Step) readUsers(base string) error {
	u, err := k6summary.Read(base + ".k6.json")
	if err != nil {
		return err
	}
	s.Users = u
	lg := &Loadgen{}
	if ok, err := optionalJSON("", base+".loadgen.json", lg); err != nil {
		return err
	} else if ok {
		lg.Saturated = lg.Share() > SaturatedShare
		s.Loadgen = lg
	}
	return nil
}

// Measured says the bench measured the step (a rate step's lanes, or a
// users step's summary).
func (s *Step) Measured() bool { return len(s.Lanes) > 0 || s.Users != nil }

// RampSteps turns measured steps into package ramp's, up to the first one
// the bench could not measure (the ramp stopped there).
func RampSteps(steps []Step) []ramp.Step {
	var out []ramp.Step
	for i := range steps {
		if !steps[i].Measured() {
			break
		}
		out = append(out, steps[i].RampStep())
	}
	return out
}

func loadSteps(dir, base string, w *Window) error {
	steps, err := LoadSteps(filepath.Join(dir, base))
	if err != nil {
		return err
	}
	for i := range steps {
		if rel, err := filepath.Rel(dir, steps[i].RelPath); err == nil {
			steps[i].RelPath = rel
		}
	}
	w.Steps = steps
	return nil
}
