package main

import (
	"net/http"
	"time"
)

// The lab's self-test (studies/selftest.toml) needs a slowdown of known
// size: SELFTEST_BURN_US makes every request spend that many microseconds
// of CPU in a busy loop before it is served. The loop's speed is measured
// once at start, so the burn is a fixed amount of work per request (it
// costs more wall time when the CPU runs slower, as the app's own work
// does). Unset or 0: no wrapper at all, the handler the bench measures
// everywhere else.

// spin does n rounds of integer work the compiler cannot drop.
func spin(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var sink uint64

// roundsPerMicrosecond times spin over about 50 ms and keeps the fastest
// of five tries (a slow try is a try that was interrupted).
func roundsPerMicrosecond() float64 {
	const n = 2_000_000
	best := time.Duration(1 << 62)
	for range 5 {
		t := time.Now()
		sink += spin(n)
		if d := time.Since(t); d < best {
			best = d
		}
	}
	return n / (float64(best.Nanoseconds()) / 1000)
}

// burning wraps h so each request first spins for us microseconds' worth
// of rounds; 0 returns h itself.
func burning(h http.Handler, us int) (http.Handler, int) {
	if us <= 0 {
		return h, 0
	}
	rounds := int(float64(us) * roundsPerMicrosecond())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sink += spin(rounds)
		h.ServeHTTP(w, r)
	}), rounds
}
