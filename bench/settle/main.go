// settle answers one question after a load step: has the app settled, so
// that the next step measures the app and not what the last one left
// behind (a queue still draining, a collector catching up)? It waits until
// the app's cgroup is nearly idle and a probe request answers fast, for at
// most --max, and says how long that took. The capacity ramp runs it after
// every step that failed (analysis/ramp asks for it).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"stacklab/formats/settlelog"
	"strings"
	"time"

	"stacklab/formats/cgroupstat"
	"stacklab/formats/cli"
)

const usage = `settle: wait until an app is idle again after a load step.

Usage: settle --pid PID --url http://127.0.0.1:PORT/PATH [--max 30s]
              [--idle-share 0.05] [--fast 20ms] [--every 500ms] [--out FILE]
       settle ports

Every --every it reads the CPU time of PID's cgroup and sends one GET to
--url. The app has settled when, over the last interval, its cgroup used at
most --idle-share of one CPU and the GET answered 2xx within --fast, twice
in a row. The verdict line comes first; --out gets one JSON object
(settled, waited_ms, cpu_share, probe_ms, checks). Exit 0 settled, 1 not
settled within --max (the bench then restarts the container), 2 bad flags.

"settle ports" waits while more than 8,000 of this machine's sockets are
in TIME_WAIT, at most 70 s, with one line on stderr when it waits (the
capacity ramp runs it before a step that follows a failed one; ports.go
says why).

Example:
  settle --pid 4242 --url http://127.0.0.1:18080/up --max 30s --out step-05.settle.json
`

// Result is what --out records (its format: package settlelog).
type Result = settlelog.Result

// Check is one interval's reading.
type Check struct {
	CPUShare float64
	ProbeMs  float64 // -1: no 2xx answer
}

// quiet says one check shows a settled app.
func quiet(c Check, idleShare float64, fast time.Duration) bool {
	return c.CPUShare <= idleShare && c.ProbeMs >= 0 && c.ProbeMs <= float64(fast)/1e6
}

// Settled decides from the checks so far: the last two were quiet.
func Settled(checks []Check, idleShare float64, fast time.Duration) bool {
	n := len(checks)
	return n >= 2 && quiet(checks[n-1], idleShare, fast) && quiet(checks[n-2], idleShare, fast)
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "ports" {
		ports()
		return
	}
	fs := flag.NewFlagSet("settle", flag.ContinueOnError)
	pid := fs.Int("pid", 0, "the app's main process (its cgroup is read)")
	url := fs.String("url", "", "a GET the app answers fast when idle (http://127.0.0.1:PORT/PATH)")
	maxWait := fs.Duration("max", 30*time.Second, "give up after this long")
	idle := fs.Float64("idle-share", 0.05, "most CPU (share of one CPU) an idle app uses over an interval")
	fast := fs.Duration("fast", 20*time.Millisecond, "slowest answer of a settled app to the probe GET")
	every := fs.Duration("every", 500*time.Millisecond, "interval between checks")
	out := fs.String("out", "", "write the result here (JSON)")
	cli.Parse(fs, os.Args[1:], usage)
	switch {
	case *pid <= 0:
		cli.Usage("settle", "--pid PID is required")
	case !strings.HasPrefix(*url, "http://127.0.0.1:"):
		cli.Usage("settle", "--url %q: the lab probes http://127.0.0.1:PORT/PATH only", *url)
	case *maxWait <= 0 || *every < 50*time.Millisecond:
		cli.Usage("settle", "--max must be above 0 and --every at least 50ms")
	case *idle <= 0 || *fast <= 0:
		cli.Usage("settle", "--idle-share and --fast must be above 0")
	}
	s, err := cgroupstat.Open(cgroupstat.Target{PID: *pid})
	if err != nil {
		cli.Fail("settle", "pid %d: %v", *pid, err)
	}
	defer s.Close()
	r := wait(context.Background(), s, *url, *maxWait, *every, *idle, *fast)
	if r.Settled {
		fmt.Printf("settled: YES after %.1f s (CPU %.1f%% of one, probe %.1f ms)\n", float64(r.WaitedMs)/1e3, 100*r.CPUShare, r.ProbeMs)
	} else {
		fmt.Printf("settled: NO within %.1f s (CPU %.1f%% of one, probe %s)\n", float64(r.WaitedMs)/1e3, 100*r.CPUShare, probeWords(r.ProbeMs))
	}
	if *out != "" {
		b, _ := json.Marshal(r)
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			cli.Fail("settle", "--out: %v", err)
		}
	}
	if !r.Settled {
		os.Exit(1)
	}
}

func probeWords(ms float64) string {
	if ms < 0 {
		return "not answered"
	}
	return fmt.Sprintf("%.1f ms", ms)
}

func wait(ctx context.Context, s *cgroupstat.Sampler, url string, maxWait, every time.Duration, idle float64, fast time.Duration) Result {
	client := &http.Client{Timeout: 2 * time.Second}
	start := time.Now()
	var checks []Check
	lastCPU, lastAt := cpuNs(s), time.Now()
	for {
		select {
		case <-ctx.Done():
			return result(checks, start, false)
		case <-time.After(every):
		}
		now, at := cpuNs(s), time.Now()
		c := Check{CPUShare: float64(now-lastCPU) / float64(at.Sub(lastAt).Nanoseconds()), ProbeMs: probe(client, url)}
		lastCPU, lastAt = now, at
		checks = append(checks, c)
		if Settled(checks, idle, fast) {
			return result(checks, start, true)
		}
		if time.Since(start) >= maxWait {
			return result(checks, start, false)
		}
	}
}

func result(checks []Check, start time.Time, ok bool) Result {
	r := Result{Settled: ok, WaitedMs: time.Since(start).Milliseconds(), Checks: len(checks), ProbeMs: -1}
	if n := len(checks); n > 0 {
		r.CPUShare, r.ProbeMs = checks[n-1].CPUShare, checks[n-1].ProbeMs
	}
	return r
}

func cpuNs(s *cgroupstat.Sampler) uint64 {
	x, err := s.Sample()
	if err != nil || x.CPUUsageNs == nil {
		return 0
	}
	return *x.CPUUsageNs
}

// probe times one GET; -1 when it did not answer 2xx.
func probe(client *http.Client, url string) float64 {
	t := time.Now()
	resp, err := client.Get(url)
	if err != nil {
		return -1
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return -1
	}
	return float64(time.Since(t).Microseconds()) / 1e3
}
