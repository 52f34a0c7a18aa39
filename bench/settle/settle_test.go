package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// An app is settled only after two quiet checks in a row: a busy app, a
// slow or failed probe answer each keep it unsettled.
func TestSettled(t *testing.T) {
	q := Check{CPUShare: 0.01, ProbeMs: 1.2}
	busy := Check{CPUShare: 0.6, ProbeMs: 1.0}
	slow := Check{CPUShare: 0.01, ProbeMs: 80}
	down := Check{CPUShare: 0.0, ProbeMs: -1}
	for _, tc := range []struct {
		name   string
		checks []Check
		want   bool
	}{
		{"none", nil, false},
		{"one quiet", []Check{q}, false},
		{"two quiet", []Check{busy, q, q}, true},
		{"still busy", []Check{q, busy}, false},
		{"slow answer", []Check{q, slow}, false},
		{"no answer", []Check{down, down}, false},
	} {
		if got := Settled(tc.checks, 0.05, 20*time.Millisecond); got != tc.want {
			t.Errorf("%s: settled %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The TIME_WAIT count of /proc/net/sockstat, and the wait: none under the
// limit, one line and at most the limit's time over it.
func TestWaitPorts(t *testing.T) {
	const stat = "sockets: used 130\nTCP: inuse 5 orphan 0 tw %d alloc 8 mem 1\nUDP: inuse 0 mem 0\n"
	if n, ok := timeWait(fmt.Sprintf(stat, 12)); !ok || n != 12 {
		t.Errorf("timeWait: %d %v", n, ok)
	}
	if _, ok := timeWait("UDP: inuse 0 mem 0\n"); ok {
		t.Error("timeWait found a count in a file with no TCP line")
	}
	var slept time.Duration
	sleep := func(d time.Duration) { slept += d }
	var out strings.Builder
	if w := waitPorts(func() (string, error) { return fmt.Sprintf(stat, maxTimeWait), nil }, sleep, &out); w != 0 || out.Len() != 0 {
		t.Errorf("at the limit: waited %v, said %q", w, out.String())
	}
	tw := 9000
	read := func() (string, error) { tw -= 400; return fmt.Sprintf(stat, tw), nil }
	if w := waitPorts(read, sleep, &out); w != 2*portsEvery || strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), "waiting for 8600 sockets in TIME_WAIT") {
		t.Errorf("draining: waited %v, said %q", w, out.String())
	}
	out.Reset()
	slept = 0
	if w := waitPorts(func() (string, error) { return fmt.Sprintf(stat, 20000), nil }, sleep, &out); w != portsMaxWait || slept != portsMaxWait {
		t.Errorf("never draining: waited %v, slept %v", w, slept)
	}
}
