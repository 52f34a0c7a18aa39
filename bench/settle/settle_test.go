package main

import (
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
