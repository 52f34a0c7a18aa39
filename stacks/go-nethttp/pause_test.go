package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPauseConfig(t *testing.T) {
	t.Setenv("SELFTEST_PAUSE_MS", "300")
	t.Setenv("SELFTEST_PAUSE_EVERY_MS", "2000")
	if c, err := loadConfig(); err != nil || c.pause != 300*time.Millisecond || c.pauseEvery != 2*time.Second {
		t.Errorf("300 every 2000: %v every %v, %v", c.pause, c.pauseEvery, err)
	}
	t.Setenv("SELFTEST_PAUSE_MS", "0")
	t.Setenv("SELFTEST_PAUSE_EVERY_MS", "")
	if c, err := loadConfig(); err != nil || c.pause != 0 || c.pauseEvery != 0 {
		t.Errorf("0 and unset: %v every %v, %v; want no pause", c.pause, c.pauseEvery, err)
	}
	for _, bad := range []struct{ ms, every, want string }{
		{"300ms", "2000", "SELFTEST_PAUSE_MS must be a positive integer"},
		{"300", "-2000", "SELFTEST_PAUSE_EVERY_MS must be a positive integer"},
		{"300", "", "SELFTEST_PAUSE_MS and SELFTEST_PAUSE_EVERY_MS go together"},
		{"", "2000", "SELFTEST_PAUSE_MS and SELFTEST_PAUSE_EVERY_MS go together"},
		{"2000", "2000", "SELFTEST_PAUSE_MS (2000) must be shorter than SELFTEST_PAUSE_EVERY_MS (2000)"},
	} {
		t.Setenv("SELFTEST_PAUSE_MS", bad.ms)
		t.Setenv("SELFTEST_PAUSE_EVERY_MS", bad.every)
		if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q every %q: %v, want %q", bad.ms, bad.every, err, bad.want)
		}
	}
}

func TestPauseLeft(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct{ since, want time.Duration }{
		{0, 0},                // the first period has no pause: boot is not delayed
		{1999 * ms, 0},        // just before the first pause
		{2000 * ms, 300 * ms}, // it begins at 1 period
		{2100 * ms, 200 * ms},
		{2299 * ms, 1 * ms},
		{2300 * ms, 0}, // it has ended
		{4250 * ms, 50 * ms},
	} {
		if got := pauseLeft(c.since, 300*ms, 2000*ms); got != c.want {
			t.Errorf("pauseLeft(%v) = %v, want %v", c.since, got, c.want)
		}
	}
}

// A request that arrives during a pause is served when the pause ends;
// one that arrives between pauses is served at once.
func TestPauseDelaysRequestsToItsEnd(t *testing.T) {
	plain := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if h := pausing(plain, 0, 0, time.Now()); h == nil {
		t.Fatal("no pause: no handler")
	}
	const length, every = 300 * time.Millisecond, time.Second
	serve := func(start time.Time) (time.Time, time.Duration) {
		h := pausing(plain, length, every, start)
		t0 := time.Now()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/json", nil))
		return time.Now(), time.Since(t0)
	}
	// 50 ms into the second pause: it ends 250 ms later, at start+1.3 s
	start := time.Now().Add(-every - 50*time.Millisecond)
	done, took := serve(start)
	if end := start.Add(every + length); done.Before(end) || took < 240*time.Millisecond {
		t.Errorf("a request 50 ms into a 300 ms pause took %v, served %v before the pause ended", took, end.Sub(done))
	}
	if took > 600*time.Millisecond {
		t.Errorf("a request 50 ms into a 300 ms pause took %v", took)
	}
	// 600 ms into a period: the next pause is 400 ms away
	if _, took := serve(time.Now().Add(-every - 600*time.Millisecond)); took > 100*time.Millisecond {
		t.Errorf("a request between pauses took %v", took)
	}
}
