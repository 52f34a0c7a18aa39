package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"stacklab/formats/latency"
)

// Stats condenses one run.
type Stats struct {
	Timeout          time.Duration
	Requests         int
	OK, Timeouts     int
	DBErrors         int
	Wait, Hold       latency.Dist // of requests that got a connection
	Total            latency.Dist // wait+hold of every request, failed ones included
	WaitSum, HoldSum time.Duration
	PerSec           float64
}

func stats(r *Run) Stats {
	s := Stats{Timeout: r.Timeout, Requests: len(r.Requests)}
	var wait, hold, total []time.Duration
	for _, q := range r.Requests {
		w, h := time.Duration(q.WaitUs)*time.Microsecond, time.Duration(q.HoldUs)*time.Microsecond
		total = append(total, w+h)
		switch q.Outcome {
		case OK:
			s.OK++
		case AcquireTimeout:
			s.Timeouts++
		default:
			s.DBErrors++
		}
		if q.Outcome != AcquireTimeout {
			wait, hold = append(wait, w), append(hold, h)
			s.WaitSum += w
			s.HoldSum += h
		}
	}
	s.Wait, s.Hold, s.Total = latency.Of(wait), latency.Of(hold), latency.Of(total)
	if r.Elapsed > 0 {
		s.PerSec = float64(s.OK) / r.Elapsed.Seconds()
	}
	return s
}

// dominates says which side of a request's time is larger, in words.
func dominates(s Stats) string {
	switch {
	case s.WaitSum == 0 && s.HoldSum == 0:
		return "no request got a connection"
	case s.WaitSum > s.HoldSum:
		return fmt.Sprintf("waiting for a connection dominates (%.0f%% of the time requests spent)", 100*float64(s.WaitSum)/float64(s.WaitSum+s.HoldSum))
	default:
		return fmt.Sprintf("holding the connection dominates (%.0f%% of the time requests spent)", 100*float64(s.HoldSum)/float64(s.WaitSum+s.HoldSum))
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// verdict is the first line: per timeout, errors or latency.
func verdict(all []Stats) string {
	var parts []string
	for _, s := range all {
		if s.Timeouts > 0 {
			parts = append(parts, fmt.Sprintf("with a %s acquire timeout %d of %d requests (%.2f%%) failed waiting for a connection", latency.Short(s.Timeout), s.Timeouts, s.Requests, pct(s.Timeouts, s.Requests)))
		} else {
			parts = append(parts, fmt.Sprintf("with %s, no acquire timeouts and p99 request time %s", latency.Short(s.Timeout), latency.Short(s.Total.P99)))
		}
	}
	line := "poolwait: " + strings.Join(parts, "; ")
	if len(all) > 0 {
		line += "; " + dominates(all[len(all)-1])
	}
	return line
}

func report(w io.Writer, runs []*Run, o options) {
	var all []Stats
	for _, r := range runs {
		all = append(all, stats(r))
	}
	fmt.Fprintln(w, verdict(all))
	stall := "no injected stalls"
	if o.stallEvery > 0 {
		stall = fmt.Sprintf("write lock held %v every %v from outside the pool", o.stallFor, o.stallEvery)
	}
	db := "" // SQLite, as the first runs printed it
	if o.postgres != "" {
		db = " to the Postgres server (a table of its own)"
	}
	fmt.Fprintf(w, "\n%d workers, pool of %d%s, %v per run, %s\n", o.workers, o.pool, db, o.duration, stall)
	for i, s := range all {
		fmt.Fprintf(w, "\nacquire timeout %s: %d requests, %.0f ok/s; ok %d, acquire timeouts %d, database errors %d; stalls injected %d\n",
			latency.Short(s.Timeout), s.Requests, s.PerSec, s.OK, s.Timeouts, s.DBErrors, runs[i].Stalls)
		fmt.Fprintf(w, "  wait for a connection  %s\n", s.Wait)
		fmt.Fprintf(w, "  hold the connection    %s\n", s.Hold)
		fmt.Fprintf(w, "  request (wait+hold)    %s\n", s.Total)
		fmt.Fprintf(w, "  %s\n", dominates(s))
	}
}
