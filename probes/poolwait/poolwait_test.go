package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	if e, f, err := parseStall("2s:1s"); err != nil || e != 2*time.Second || f != time.Second {
		t.Errorf("%v %v %v", e, f, err)
	}
	for _, bad := range []string{"2s", "1s:2s", "x:1s", "2s:0s"} {
		if _, _, err := parseStall(bad); err == nil {
			t.Errorf("--stall %q accepted", bad)
		}
	}
	if ts, err := parseTimeouts("500ms, 5s"); err != nil || len(ts) != 2 || ts[1] != 5*time.Second {
		t.Errorf("%v %v", ts, err)
	}
	if _, err := parseTimeouts("500"); err == nil {
		t.Error("a timeout without a unit accepted")
	}
}

func TestStatsAndVerdict(t *testing.T) {
	short := &Run{Timeout: 500 * time.Millisecond, Elapsed: time.Second, Requests: []Request{
		{WaitUs: 100, HoldUs: 900, Outcome: OK},
		{WaitUs: 500000, Outcome: AcquireTimeout},
		{WaitUs: 300, HoldUs: 700, Outcome: OK},
		{WaitUs: 200, HoldUs: 5000, Outcome: DBError},
	}}
	s := stats(short)
	if s.OK != 2 || s.Timeouts != 1 || s.DBErrors != 1 || s.Wait.N != 3 || s.Total.Max != 500*time.Millisecond {
		t.Errorf("%+v", s)
	}
	if d := dominates(s); !strings.HasPrefix(d, "holding the connection dominates (92%") {
		t.Errorf("%q", d)
	}
	long := &Run{Timeout: 5 * time.Second, Elapsed: time.Second, Requests: []Request{{WaitUs: 900000, HoldUs: 1000, Outcome: OK}}}
	v := verdict([]Stats{s, stats(long)})
	want := "poolwait: with a 500ms acquire timeout 1 of 4 requests (25.00%) failed waiting for a connection; with 5.00s, no acquire timeouts and p99 request time 901ms; waiting for a connection dominates (100%"
	if !strings.HasPrefix(v, want) {
		t.Errorf("verdict\n%q\nwant prefix\n%q", v, want)
	}
}

// The demonstration itself, short: a stall longer than the acquire timeout
// becomes errors; a timeout longer than the stall becomes waiting.
func TestShortTimeoutTurnsStallsIntoErrors(t *testing.T) {
	o := options{workers: 6, pool: 2, duration: 1500 * time.Millisecond, stallEvery: 400 * time.Millisecond, stallFor: 300 * time.Millisecond, dir: t.TempDir()}
	short, err := runOnce(context.Background(), o, 50*time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	// SQLite's busy handler does not queue writers, so on a busy machine the
	// pool's writers can keep the stall from the lock for a whole run: try
	// the long timeout until a stall fell inside its run, three times at most.
	var long *Run
	for try := 2; try <= 4 && (long == nil || long.Stalls == 0); try++ {
		if long, err = runOnce(context.Background(), o, 2*time.Second, try); err != nil {
			t.Fatal(err)
		}
	}
	if long.Stalls == 0 {
		t.Fatal("2s timeout: no stall held the write lock inside its run in three runs")
	}
	ss, sl := stats(short), stats(long)
	if short.Stalls == 0 || ss.Timeouts == 0 {
		t.Errorf("50ms timeout, 300ms stalls: %d stalls, %d timeouts; want some of each", short.Stalls, ss.Timeouts)
	}
	if sl.Timeouts != 0 || sl.Wait.Max < 100*time.Millisecond {
		t.Errorf("2s timeout: %d timeouts, max wait %v; want none and long waits", sl.Timeouts, sl.Wait.Max)
	}
}
